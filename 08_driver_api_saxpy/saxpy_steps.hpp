// Lesson 08, the walkthrough: the classic's steps one by one, each printed with its time, and
// what the rows showed.
//
// Teaches: what the runtime API does at its first call, done by hand and measured. NVRTC
// compiles the kernel text for the GPU the driver found, to CUBIN and to PTX; the driver API
// then retains the primary context (before the runtime touches the GPU, so the output shows
// who created it). The harness's setup step of the GPU rows loads the code as a module and as a
// library (the PTX JIT-compiled, with the JIT cache cold and then warm) and allocates the
// classic's buffers and stream; its time is reported apart from the rows'. What the steps create
// lives in slots the lesson owns. The times go to the output and to the JSON.
// Only main.cpp includes this header (it carries nlohmann-json and the harness); the tests use saxpy.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "course/driver.hpp"
#include "course/harness.hpp"
#include "saxpy.hpp"

namespace driver_saxpy {

// The lesson's own flags.
struct Options {
  float a = kA;
  int block = 256;
  int grid = 0;  // 0: kWaves waves of what fits on the GPU
  std::string kernel_file;
  std::string entry = kEntry;
};
void add_options(CLI::App& app, Options& options);

// The kernel source the run compiles: the lesson's, or the user's (--kernel-file).
struct Source {
  std::string text, name, entry;
  bool user = false;
};
// The source the options name, read and checked (course::UsageError: -a not finite, a kernel
// file missing, empty or unreadable).
Source source_of(const Options& options);

// NVRTC, with a compile error's log printed (stdout) before the one-line error (stderr, exit 3).
Compiled compile_or_show_log(const Source& source, const CompileTarget& target, const CompileOptions& options = {});

struct CompiledPair {
  Compiled cubin, ptx;
};

// Compiles the source for the GPU of compute capability `device_arch` (0: none) to CUBIN and to
// PTX, each timed (NVRTC's start-up apart), checks that --entry is one of its kernels, prints
// the times and records them as "nvrtc".
CompiledPair compile_both(const Source& source, int device_arch, course::Lesson& lesson);

// Everything the driver side makes. main.cpp declares it after the lesson, so it goes before the
// lesson's stream; its members go in the reverse of their order here, so the buffers and the code
// go before the primary context they live in.
struct DriverPath {
  std::optional<course::driver::Device> device;
  std::optional<course::driver::PrimaryContext> context;
  std::optional<course::driver::Module> module;           // CUBIN, --fmad=false
  std::optional<course::driver::Library> library;         // PTX, JIT-compiled by the driver
  std::optional<course::driver::Module> fused_module;     // CUBIN, --fmad=true (the contraction demo)
  std::optional<course::driver::Module> one_pass_module;  // CUBIN of the second text, saxpy_one_pass.cuh
  std::optional<DriverBuffers> buffers;                   // cuMemAlloc x 3, cuStreamCreate
  CUfunction cubin = nullptr, ptx = nullptr, fused = nullptr, one_pass = nullptr;  // one_pass: not for --kernel-file
  course::LaunchShape launch, runtime_launch;
  nlohmann::json loading = nlohmann::json::object();  // the context's and the code's load times, recorded as "loading"
};

// Step 1: cuInit, then the device and what it is. Returns its compute capability (90).
int init_driver(DriverPath& path, int ordinal);

// Step 2, before the runtime touches the GPU, so the output shows who created it: the primary
// context, retained and made current; then, do x, y and out fit in the GPU's free memory?
void open_context(DriverPath& path, std::size_t n, course::Lesson& lesson);

struct DriverSetup {
  const Source& source;
  const CompiledPair& compiled;
  const JitCacheSetup& jit_cache;
  int block, grid;
};

// Step 3, the GPU rows' setup step (Lesson::add_setup): the load times (printed, and recorded
// in "loading"), the code this run launches (the CUBIN module, the PTX library, the source
// compiled again with --fmad=true and loaded), the launch shapes, the buffers and their stream,
// x and y copied in.
void load_code(DriverPath& path, const DriverSetup& setup, std::span<const float> x, std::span<const float> y,
               course::Lesson& lesson);

// ---- The rows and what they showed (saxpy_rows.cpp) -------------------------------------------
// Bitwise comparison of two GPU outputs: how many elements differ, and by how many ulps at most.
struct Difference {
  std::size_t count = 0;
  double max_ulp = 0;
};
Difference compare_bits(const std::vector<float>& a, const std::vector<float>& b);

// A GPU output in the classic's cuMemAlloc'd buffer: poisoned on both sides (cuMemsetD8Async
// 0xFF: NaN), copied back (cuMemcpyDtoHAsync, then the stream synchronized) and verified bit for
// bit; `seen` then gets a look at it (the comparisons between rows).
course::Check driver_check(DriverPath& path, std::vector<float>& out, course::ReferenceBlock reference,
                           std::function<void(const std::vector<float>&)> seen = {});

// What the GPU rows' checks saw, for the comparisons after the table.
struct Observed {
  bool same_context = false;              // the runtime's current context is the driver's
  std::vector<float> cubin_out;           // the CUBIN row's output: the others are compared with it
  Difference cubin_vs_ptx, driver_vs_runtime;
  Difference one_pass_driver_vs_cubin, one_pass_runtime_vs_cubin;  // the second text's rows
  std::vector<float> demo_values;         // the a's of the contraction demo
  std::vector<std::vector<float>> fused_outs;
  std::vector<course::VerifyResult> fused_checks;
};

// What every row refers to (main.cpp declares the rows on it), alive until the end.
struct RowData {
  float a = kA;  // -a
  std::vector<float> x, y, out;
  course::ReferenceBlock reference;
  double bytes = 0;        // x and y read, out written
  course::SetupStep* load = nullptr;  // the GPU rows' setup step: the code loaded, the buffers allocated (load_code)
  Observed seen;
};

// x and y filled with random values (normal, from `seed`), out allocated, the reference of a * x + y.
void prepare(RowData& data, float a, std::size_t n, std::uint64_t seed);

// The contraction demo's rows: the source compiled with --fmad=true, run for the run's a and for
// a = 1.1 (1.1 * x is rarely exact, unlike 2 * x); their results must equal std::fma's bit for
// bit, and report_findings compares them with the unfused ones.
void add_contraction_demo(course::Lesson& lesson, RowData& data, DriverPath& path);

// The library row (saxpy_library.cpp): cublasSaxpy in place on the classic's buffers, held
// against the same copy ceiling; the kernels' "vs lib" column is their ratio to it.
void add_library_row(course::Lesson& lesson, RowData& data, DriverPath& path);

// After the table: one context, identical bits, the time ratio of the driver's and the runtime's
// kernels (`runtime_row` names the latter), what contraction changed; printed and in the JSON.
// The second text's rows (`one_pass_rows`: driver, runtime), when they ran: their bits and time ratio.
struct OnePassRows {
  std::string driver, runtime;
};
void report_findings(course::Lesson& lesson, DriverPath& path, const Observed& seen, float a, bool user_source,
                     const std::string& runtime_row, const OnePassRows& one_pass_rows = {});

}  // namespace driver_saxpy
