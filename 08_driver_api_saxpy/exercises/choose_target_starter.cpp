// Exercise (lesson 08, runs without a GPU), find the bug: what NVRTC compiles for.
//
// choose_target_starter(device_arch, kind, supported) picks the architecture (and CUBIN or PTX)
// to compile the kernel for, given the GPU's compute capability (90 for 9.0, 0 for no GPU), the
// kind asked for, and the architectures this NVRTC knows (ascending, nvrtcGetSupportedArchs):
//   - a GPU this NVRTC knows: its own architecture, the kind asked for;
//   - no GPU: PTX for the oldest architecture NVRTC knows (PTX runs on every newer GPU);
//   - a GPU NVRTC does not know: PTX for the newest architecture NVRTC knows that is not newer
//     than the GPU; the driver JIT-compiles PTX forward to a newer GPU, never back to an older one,
//     and a CUBIN runs only on its own major version;
//   - a GPU older than everything NVRTC knows: an error (std::runtime_error or a subclass).
// The check asks it about made-up NVRTC lists and GPUs (section 5 and the deep dive's "Which
// architecture"), and about the one error.
//
// As shipped, GPUs that NVRTC does not know get a target they cannot load. Find the bug and fix it.
// Check it:   ./scripts/check_exercise.sh 08 choose_target      (a hint: add --hint)
#include <algorithm>
#include <stdexcept>
#include <string>

#include "exercises/choose_target.hpp"

namespace driver_saxpy::exercises {

CompileTarget choose_target_starter(int device_arch, CodeKind kind, const std::vector<int>& supported) {
  if (supported.empty()) throw std::runtime_error("NVRTC reports no supported architectures");
  if (device_arch == 0) return {supported.front(), CodeKind::ptx};
  if (std::find(supported.begin(), supported.end(), device_arch) != supported.end()) return {device_arch, kind};
  if (device_arch < supported.front()) {
    throw std::runtime_error("this NVRTC cannot compile for compute capability " + std::to_string(device_arch));
  }
  // Not known to this NVRTC: the newest architecture it knows.
  return {supported.back(), kind};
}

}  // namespace driver_saxpy::exercises
