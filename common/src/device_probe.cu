// Does this build contain code the current GPU can run?
//
// Teaches: nvcc embeds machine code (SASS) for each architecture in CMAKE_CUDA_ARCHITECTURES
// and, optionally, PTX that the driver can compile for newer GPUs. On a GPU that matches
// neither, every launch fails with "no kernel image is available". Asking for the attributes
// of a tiny kernel finds that out before the lesson starts, and says how to fix it.
#include <cuda_runtime.h>

#include <string>

#include "course/check.hpp"
#include "course/device.hpp"

namespace course::detail {

namespace {
__global__ void build_probe_kernel(int* sink) {
  if (sink) *sink = 1;
}
}  // namespace

void check_build_runs_on(const DeviceInfo& device) {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, build_probe_kernel);
  if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    const std::string wanted = std::to_string(device.cc_major) + std::to_string(device.cc_minor);
    throw ResourceError("this build has no GPU code for " + device.name + " (compute capability " +
                        device.compute_capability() + "); it was built for CUDA architectures " +
                        COURSE_CUDA_ARCHITECTURES + ": reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + wanted +
                        " and rebuild");
  }
  CUDA_CHECK(status);
}

}  // namespace course::detail
