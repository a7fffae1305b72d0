// Lesson 08, the driver-API side: the launch, the classic's buffers, the JIT cache, load times.
//
// Teaches: cuLaunchKernel takes the kernel's arguments as an array of pointers, one per
// parameter, in order. The driver knows each parameter's size from the compiled kernel and
// copies that many bytes from each pointer, so the host variables must have exactly the
// kernel's types: unsigned long long for `n`, CUdeviceptr (a 64-bit integer) for each float*.
// Nothing checks this: pass an int where the kernel declares unsigned long long and the kernel
// reads 4 bytes of garbage with it.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "course/check_driver.hpp"
#include "course/errors.hpp"
#include "course/timing.hpp"
#include "saxpy.hpp"

namespace driver_saxpy {

// [docs:launch_driver]
void launch_driver(CUfunction function, const course::LaunchShape& launch, float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out,
                   std::size_t n, CUstream stream) {
  if (n == 0) return;
  require_aligned(x, y, out);
  unsigned long long count = n;  // the kernel's parameter type, exactly
  void* args[] = {&a, &x, &y, &out, &count};
  CU_CHECK(course::driver::api().cuLaunchKernel(function, static_cast<unsigned>(launch.blocks), 1, 1,  // grid (x, y, z)
                                                static_cast<unsigned>(launch.threads), 1, 1,           // block (x, y, z)
                                                0, stream,                    // dynamic shared memory, stream
                                                args, nullptr));              // arguments, "extra" (unused)
}
// [docs:end launch_driver]

// The one-pass kernel: three more parameters than saxpy's, the split of the array (saxpy.hpp).
course::LaunchShape launch_driver_one_pass(CUfunction function, int block_size, float a, CUdeviceptr x, CUdeviceptr y,
                                           CUdeviceptr out, std::size_t n, CUstream stream) {
  if (n == 0) return {};
  OnePassSplit split = one_pass_split(x, y, out, n, block_size);
  unsigned long long count = n;
  void* args[] = {&a, &x, &y, &out, &count, &split.head, &split.vectors};
  CU_CHECK(course::driver::api().cuLaunchKernel(function, static_cast<unsigned>(split.launch.blocks), 1, 1,
                                                static_cast<unsigned>(block_size), 1, 1, 0, stream, args, nullptr));
  return split.launch;
}

// ---- The classic's buffers ----------------------------------------------------------------------
DriverBuffers::DriverBuffers(std::size_t n)
    : n_(n), x_(n * sizeof(float)), y_(n * sizeof(float)), out_(n * sizeof(float)), stream_() {}

void DriverBuffers::upload(std::span<const float> x, std::span<const float> y) {
  if (x.size() != n_ || y.size() != n_) throw std::invalid_argument("DriverBuffers::upload: sizes differ");
  const course::driver::Api& cu = course::driver::api();
  // From pageable memory the driver stages the copy, and the call returns once x is consumed;
  // from pinned memory it would return at once (lesson 03).
  CU_CHECK(cu.cuMemcpyHtoDAsync(x_.get(), x.data(), x.size_bytes(), stream_.get()));
  CU_CHECK(cu.cuMemcpyHtoDAsync(y_.get(), y.data(), y.size_bytes(), stream_.get()));
}

void DriverBuffers::poison_out() {
  CU_CHECK(course::driver::api().cuMemsetD8Async(out_.get(), 0xFF, n_ * sizeof(float), stream_.get()));
}

void DriverBuffers::download(std::span<float> out) {
  if (out.size() != n_) throw std::invalid_argument("DriverBuffers::download: sizes differ");
  CU_CHECK(course::driver::api().cuMemcpyDtoHAsync(out.data(), out_.get(), out.size_bytes(), stream_.get()));
  stream_.synchronize();  // the host must not read out before the copy has finished
}

std::vector<float> run_driver_once(CUfunction function, const course::LaunchShape& launch, float a, std::span<const float> x,
                                   std::span<const float> y) {
  DriverBuffers buffers(x.size());
  std::vector<float> out(x.size());
  buffers.upload(x, y);
  buffers.poison_out();  // an element the kernel skips reads back as NaN and fails
  launch_driver(function, launch, a, buffers.x(), buffers.y(), buffers.out(), x.size(), buffers.stream());
  buffers.download(out);
  return out;
}

// ---- JIT cache --------------------------------------------------------------------------------
JitCacheSetup::JitCacheSetup() {
  const char* disable = std::getenv("CUDA_CACHE_DISABLE");
  disabled_ = disable != nullptr && std::string(disable) == "1";
  if (std::getenv("CUDA_CACHE_PATH") != nullptr || disable != nullptr) return;  // the user's choice
  try {
    // Removed at the end, and also when the program is killed (course/temporary_folder.hpp).
    folder_.emplace("course_jit_cache");
  } catch (const course::Error&) {
    return;  // keep the default cache, say so in describe()
  }
  directory_ = folder_->path();
  setenv("CUDA_CACHE_PATH", directory_.c_str(), 1);
  fresh_ = true;
}

std::string JitCacheSetup::describe() const {
  if (disabled_) return "disabled (CUDA_CACHE_DISABLE=1): every PTX load is compiled again";
  if (fresh_) return "a fresh, empty directory (CUDA_CACHE_PATH=" + directory_ + ", removed at exit or when killed)";
  if (const char* path = std::getenv("CUDA_CACHE_PATH")) {
    return std::string("yours (CUDA_CACHE_PATH=") + path + "): the first load may already be warm";
  }
  return "the default (~/.nv/ComputeCache): the first load may already be warm";
}

std::uintmax_t JitCacheSetup::bytes() const {
  if (!fresh_) return 0;
  std::uintmax_t total = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory_, error)) {
    if (entry.is_regular_file(error)) total += entry.file_size(error);
  }
  return total;
}

// ---- Load times -------------------------------------------------------------------------------
LoadTimes measure_loading(const Compiled& cubin, const Compiled& ptx, const std::string& entry,
                          const JitCacheSetup& cache) {
  LoadTimes times;
  {
    const course::HostTimer timer;
    const course::driver::Module module(cubin.image.data());
    module.function(entry);
    times.module_cubin_ms = timer.elapsed_ms();
  }
  {
    const course::HostTimer timer;
    const course::driver::Library library(cubin.image.data());
    library.function(entry);  // cuLibraryGetKernel, then cuKernelGetFunction loads it here
    times.library_cubin_ms = timer.elapsed_ms();
  }
  {
    const course::HostTimer timer;
    const course::driver::Module module(ptx.image.data());  // the driver JIT-compiles the PTX
    module.function(entry);
    times.ptx_first_ms = timer.elapsed_ms();
  }
  times.cache_bytes_after_first = cache.bytes();
  {
    const course::HostTimer timer;
    const course::driver::Module module(ptx.image.data());  // the same PTX: found in the cache
    module.function(entry);
    times.ptx_second_ms = timer.elapsed_ms();
  }
  return times;
}

}  // namespace driver_saxpy
