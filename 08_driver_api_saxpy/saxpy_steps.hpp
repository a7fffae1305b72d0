// Lesson 08, the walkthrough: the classic's steps one by one, each printed with its time.
//
// Teaches: what the runtime API does at its first call, done by hand and measured. NVRTC
// compiles the kernel text for the GPU the driver found, to CUBIN and to PTX; the driver API
// then retains the primary context (before the runtime touches the GPU, so the output shows
// who created it), loads the code as a module and as a library (the PTX JIT-compiled, with the
// JIT cache cold and then warm), and allocates the classic's buffers and stream. main.cpp calls
// these before the harness runs the rows; the times go to the output and to the JSON.
// Only main.cpp includes this header (it carries nlohmann-json); the tests use saxpy.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

#include "course/driver.hpp"
#include "saxpy.hpp"

namespace driver_saxpy {

// The kernel source the run compiles: the lesson's, or the user's (--kernel-file).
struct Source {
  std::string text, name, entry;
  bool user = false;
};

// NVRTC, with a compile error's log printed (stdout) before the one-line error (stderr, exit 3).
Compiled compile_or_show_log(const Source& source, const CompileTarget& target, const CompileOptions& options = {});

struct CompiledPair {
  Compiled cubin, ptx;
};

// Compiles the source for the GPU of compute capability `device_arch` (0: none) to CUBIN and to
// PTX, each timed (NVRTC's start-up apart), checks that --entry is one of its kernels, prints
// the times and records them in extra["nvrtc"].
CompiledPair compile_both(const Source& source, int device_arch, nlohmann::json& extra);

// Everything the driver side owns. Declared in the order of the steps, so C++ destroys it in
// reverse: buffers and code before the context they live in.
struct DriverPath {
  std::optional<course::driver::Device> device;
  std::optional<course::driver::PrimaryContext> context;
  std::optional<course::driver::Module> module, fused_module;  // CUBIN, --fmad=false and --fmad=true
  std::optional<course::driver::Library> library;              // PTX, JIT-compiled by the driver
  std::optional<DriverBuffers> buffers;                        // cuMemAlloc x 3, cuStreamCreate
  CUfunction cubin = nullptr, ptx = nullptr, fused = nullptr;
  Launch launch, runtime_launch;
};

// Step 1: cuInit, then the device and what it is. Returns its compute capability (90).
int init_driver(DriverPath& path, int ordinal);

struct DriverSetup {
  const Source& source;
  const CompiledPair& compiled;
  const JitCacheSetup& jit_cache;
  int block, grid;
  std::size_t n;
};

// Step 2: the primary context, the load times (printed, and in extra["loading"]), the code this
// run launches (the CUBIN module, the PTX library, the --fmad=true module), the launch shapes,
// the buffers and their stream.
void open_driver(DriverPath& path, const DriverSetup& setup, nlohmann::json& extra);

}  // namespace driver_saxpy
