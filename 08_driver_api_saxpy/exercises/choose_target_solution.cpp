// The CPU exercise, a solution: an unknown GPU gets PTX for the newest older architecture
// (saxpy_rtc.cpp's choose_target).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "exercises/choose_target.hpp"

namespace driver_saxpy::exercises {

CompileTarget choose_target_solution(int device_arch, CodeKind kind, const std::vector<int>& supported) {
  if (supported.empty()) throw std::runtime_error("NVRTC reports no supported architectures");
  if (device_arch == 0) return {supported.front(), CodeKind::ptx};
  if (std::find(supported.begin(), supported.end(), device_arch) != supported.end()) return {device_arch, kind};
  if (device_arch < supported.front()) {
    throw std::runtime_error("this NVRTC cannot compile for compute capability " + std::to_string(device_arch));
  }
  // [docs:choose_target_unknown]
  // Not known to this NVRTC: the newest architecture not newer than the GPU, as PTX (whatever kind
  // was asked for): the driver JIT-compiles PTX forward, and a CUBIN would not load.
  const auto older = std::find_if(supported.rbegin(), supported.rend(), [&](int arch) { return arch < device_arch; });
  return {*older, CodeKind::ptx};
  // [docs:end choose_target_unknown]
}

}  // namespace driver_saxpy::exercises
