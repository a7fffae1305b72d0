// Lesson 08: SAXPY compiled at run time with NVRTC and launched through the CUDA driver API.
//
// This header is the lesson's API, shared by main.cpp and the tests: the CPU versions and the
// references (saxpy_cpu.cpp, built without floating-point contraction), run-time compilation
// (saxpy_rtc.cpp: the embedded kernel source, NVRTC, reading a user's kernel file), the
// driver-API steps and load timings (saxpy_driver.cpp), and the same kernel built by nvcc and
// launched with <<<>>> (saxpy_runtime.cu), cuBLAS's saxpy (saxpy_library.cpp). The kernel itself is saxpy_kernel.cuh. The run's
// walkthrough, which prints each step's time, is saxpy_steps.hpp (main.cpp only).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/driver.hpp"
#include "course/launch.hpp"
#include "course/temporary_folder.hpp"
#include "course/verify.hpp"

namespace course {
class CublasHandle;  // course/cublas_ceiling.hpp
}

namespace driver_saxpy {

inline constexpr float kA = 2.0f;                        // the classic's a
inline constexpr std::size_t kClassicLength = 512 * 32768;  // 16,777,216: the classic's 512 threads x 32768 blocks
inline constexpr const char* kEntry = "saxpy";           // the kernel's extern "C" name
inline constexpr double kBytesPerElement = 12;           // x and y read, out written: 3 x 4 bytes
inline constexpr int kIlp = 2;                           // float4 groups of x and y per thread per trip (-DSAXPY_ILP)
inline constexpr int kWaves = 4;                         // default grid: this many waves of resident blocks
inline constexpr const char* kOnePassEntry = "saxpy_one_pass";  // the second kernel text's kernel
inline constexpr int kOnePassVectors = 2;                // its float4 groups of x and y per thread (SAXPY_VECTORS)

// ---- CPU (saxpy_cpu.cpp) ----------------------------------------------------------------------
// Both compute a * x[i] + y[i] as a multiply and an add, each rounded (no contraction).
void saxpy_serial(float a, std::span<const float> x, std::span<const float> y, std::span<float> out);
void saxpy_parallel(float a, std::span<const float> x, std::span<const float> y, std::span<float> out);
// std::fma(a, x[i], y[i]): one rounding, what a GPU computes when contraction is allowed.
void saxpy_fused_serial(float a, std::span<const float> x, std::span<const float> y, std::span<float> out);

// References, computed differently from the versions above: a * x in double (exact) rounded to
// float, then + y in double rounded to float. Equal bit for bit to a correct unfused SAXPY.
course::ReferenceBlock saxpy_reference(float a, std::span<const float> x, std::span<const float> y);
// std::fma in float, correctly rounded by definition: equal to a correct fused SAXPY.
course::ReferenceBlock saxpy_fused_reference(float a, std::span<const float> x, std::span<const float> y);

// ---- The kernel's source and NVRTC (saxpy_rtc.cpp) -----------------------------------------------
std::string_view kernel_source();  // saxpy_kernel.cuh, embedded by the build
inline constexpr const char* kKernelSourceName = "saxpy_kernel.cuh";
std::string_view one_pass_source();  // saxpy_one_pass.cuh, embedded by the build
inline constexpr const char* kOnePassSourceName = "saxpy_one_pass.cuh";

enum class CodeKind { cubin, ptx };

struct CompileTarget {
  int arch = 0;  // 90 for compute capability 9.0
  CodeKind kind = CodeKind::cubin;
  std::string architecture() const;  // "sm_90" (CUBIN, real) or "compute_90" (PTX, virtual)
};

// What to compile for a GPU of compute capability `device_arch` (90), or for no GPU (0), given
// the architectures this NVRTC knows (ascending). A known GPU gets its own architecture. A GPU
// newer than NVRTC gets PTX for the newest architecture NVRTC knows, because the driver can
// JIT-compile PTX for a newer GPU, never an older one; asked for CUBIN, it gets PTX too.
// Without a GPU: the oldest architecture NVRTC knows (PTX for it runs on every newer GPU).
CompileTarget choose_target(int device_arch, CodeKind kind, const std::vector<int>& supported);

struct CompileOptions {
  bool fmad = false;                          // --fmad: allow a * x + y to become one FMA
  std::vector<std::string> defines;           // "NAME=VALUE", each passed as -D
  std::vector<std::string> name_expressions;  // template instances to keep ("saxpy_ilp<4>")
};

struct Compiled {
  CompileTarget target;
  std::vector<std::string> options;         // what NVRTC was given
  std::vector<char> image;                  // CUBIN bytes, or PTX text with its closing NUL
  std::string ptx;                          // the PTX text (also made for CUBIN: it lists the kernels)
  std::string log;                          // warnings (a failure throws course::nvrtc::CompileError)
  std::vector<std::string> lowered_names;   // one per name expression, in order
  double compile_ms = 0;                    // nvrtcCompileProgram alone
};

std::vector<std::string> nvrtc_options(const CompileTarget& target, const CompileOptions& options);
// Compiles `source` (named `name` in messages). Throws course::nvrtc::CompileError with the log.
Compiled compile(std::string_view source, const std::string& name, const CompileTarget& target,
                 const CompileOptions& options = {});

// The kernels a PTX text defines: the names after ".entry".
std::vector<std::string> ptx_entries(std::string_view ptx);
// course::UsageError naming --entry, `file` and the kernels the PTX has, unless `entry` is one.
void require_entry(std::string_view ptx, const std::string& entry, const std::string& file);
// A user's kernel source: course::UsageError (--kernel-file) if missing, empty, unreadable, not a
// regular file (a FIFO, a device: refused unread) or larger than kMaxKernelFileBytes.
inline constexpr std::size_t kMaxKernelFileBytes = std::size_t{4} << 20;
std::string read_kernel_file(const std::string& path);

// ---- Launch shape -----------------------------------------------------------------------------
// The lesson kernel's grid for n elements: enough threads for kIlp float4 groups each, at most
// kWaves waves of the blocks that fit at once (`blocks_per_sm` x `sm_count`); at least 1.
// grid_size > 0 is taken as given. A course::LaunchShape: "4,224 blocks of 256 threads".
course::LaunchShape saxpy_launch(std::size_t n, int block_size, int grid_size, int blocks_per_sm, int sm_count);
// One thread per element: the launch for a user's kernel (--kernel-file), whatever its loop.
// course::UsageError if it needs more than 2^31 - 1 blocks.
course::LaunchShape one_thread_per_element(std::size_t n, int block_size);

// The one-pass kernel's launch for n elements at x, y and out: head = elements before the first
// 16-byte boundary, vectors = whole float4 groups after it, one block per kOnePassVectors x
// block_size groups. When x, y and out are not misaligned alike (or block_size < 4) no float4
// can be used: head = n, vectors = 0, one thread per element (at most 2^31 - 1 blocks; the
// kernel's scalar loop covers the rest).
struct OnePassSplit {
  unsigned long long head = 0, vectors = 0;
  course::LaunchShape launch;
};
OnePassSplit one_pass_split(std::uintptr_t x, std::uintptr_t y, std::uintptr_t out, std::size_t n, int block_size);

// std::invalid_argument unless x, y and out are 16-byte aligned (the kernel's float4 accesses).
void require_aligned(std::uintptr_t x, std::uintptr_t y, std::uintptr_t out);

// A driver-API device pointer as the runtime API takes it (one context: the same address).
inline float* as_floats(CUdeviceptr pointer) { return reinterpret_cast<float*>(static_cast<std::uintptr_t>(pointer)); }

// ---- Runtime API: nvcc and <<<>>> (saxpy_runtime.cu, compiled with --fmad=false) -----------------
int runtime_blocks_per_sm(int block_size);  // occupancy of the nvcc-built kernel
void launch_runtime(const course::LaunchShape& launch, float a, const float* x, const float* y, float* out, std::size_t n,
                    cudaStream_t stream);
// The one-pass kernel (saxpy_one_pass.cuh), built by nvcc; any 4-byte-aligned x, y, out. Returns its launch.
course::LaunchShape launch_runtime_one_pass(int block_size, float a, const float* x, const float* y, float* out,
                                            std::size_t n, cudaStream_t stream);

// ---- The library a user would call instead (saxpy_library.cpp) ----------------------------------------
// cublasSaxpy in `stream`: y = a * x + y, in place (BLAS level 1 has no separate output).
void cublas_saxpy_in_place(const course::CublasHandle& handle, float a, const float* x, float* y, std::size_t n,
                           cudaStream_t stream);

// ---- Driver API (saxpy_driver.cpp) ------------------------------------------------------------------
// cuLaunchKernel(function, grid, block, ..., args): args holds a pointer to each argument.
void launch_driver(CUfunction function, const course::LaunchShape& launch, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out,
                   std::size_t n, CUstream stream);
// The one-pass kernel, compiled by NVRTC (its 7 parameters); any 4-byte-aligned x, y, out. Returns its launch.
course::LaunchShape launch_driver_one_pass(CUfunction function, int block_size, float a, CUdeviceptr x, CUdeviceptr y,
                                           CUdeviceptr out, std::size_t n, CUstream stream);

// The classic's device side: x, y and out from cuMemAlloc and a stream from cuStreamCreate, in
// the current context; each step below is one or two driver calls.
class DriverBuffers {
 public:
  explicit DriverBuffers(std::size_t n);
  void upload(std::span<const float> x, std::span<const float> y);  // cuMemcpyHtoDAsync x 2
  void poison_out();                                                 // cuMemsetD8Async(0xFF): NaN
  void download(std::span<float> out);                               // cuMemcpyDtoHAsync, then sync
  std::size_t size() const { return n_; }
  CUdeviceptr x() const { return x_.get(); }
  CUdeviceptr y() const { return y_.get(); }
  CUdeviceptr out() const { return out_.get(); }
  CUstream stream() const { return stream_.get(); }

 private:
  std::size_t n_;
  course::driver::DeviceMemory x_, y_, out_;
  course::driver::Stream stream_;
};

// Runs `function` once on x and y through `buffers` (poisoned output, copies, launch, copy
// back) and returns out. The tests use it; main.cpp runs the same steps as rows (the end-to-end
// row is all of them, in the buffers' own stream).
std::vector<float> run_driver_once(CUfunction function, const course::LaunchShape& launch, float a, std::span<const float> x,
                                   std::span<const float> y);

// The JIT cache's place, set before the first CUDA call: the driver reads CUDA_CACHE_PATH and
// CUDA_CACHE_DISABLE when it initialises. Unless the user set either, a fresh directory,
// removed at the end (or when the program is killed), so that the first PTX load is measured
// cold and the second warm.
class JitCacheSetup {
 public:
  JitCacheSetup();
  JitCacheSetup(const JitCacheSetup&) = delete;
  JitCacheSetup& operator=(const JitCacheSetup&) = delete;

  bool fresh() const { return fresh_; }
  bool disabled() const { return disabled_; }
  std::string describe() const;
  std::uintmax_t bytes() const;  // of the files in a fresh cache directory (0 otherwise)

 private:
  std::optional<course::TemporaryFolder> folder_;
  std::string directory_;
  bool fresh_ = false, disabled_ = false;
};

// Load times in the current context, each a fresh load (then unloaded), load plus lookup of
// `entry` (lazy loading defers work to the lookup). PTX loads are JIT-compiled by the driver.
struct LoadTimes {
  double module_cubin_ms = 0;   // cuModuleLoadData(CUBIN) + cuModuleGetFunction
  double library_cubin_ms = 0;  // cuLibraryLoadData(CUBIN) + cuLibraryGetKernel + cuKernelGetFunction
  double ptx_first_ms = 0;      // cuModuleLoadData(PTX) + cuModuleGetFunction: JIT, cache cold
  double ptx_second_ms = 0;     // the same again: JIT cache warm
  std::uintmax_t cache_bytes_after_first = 0;
};
LoadTimes measure_loading(const Compiled& cubin, const Compiled& ptx, const std::string& entry,
                          const JitCacheSetup& cache);

}  // namespace driver_saxpy
