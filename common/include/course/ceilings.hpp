// Measured ceilings: what the hardware really delivers, measured in the same run as the lesson.
//
// Teaches: efficiency means "fraction of what is achievable here and now", so a memory-bound
// kernel is held against a device-to-device copy of the same traffic, measured with the same
// L2 policy, and a transfer against a plain pinned cudaMemcpy. Datasheet numbers are leads only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "course/timing.hpp"

namespace course {

struct Ceiling {
  std::string name;         // key used by report rows: "d2d_copy", "pinned_h2d", ...
  std::string description;  // what was measured, in words
  double value = 0;
  std::string unit;         // "GB/s"
};

// cudaMemcpy device-to-device moving `bytes_moved` in total (half read, half written), the
// bandwidth counted as bytes read + written. Capped at a quarter of free memory if need be.
Ceiling measure_device_copy(std::size_t bytes_moved, const RepeatOptions& options, bool flush_l2);

// cudaMemcpy between pinned host memory and the device, one direction.
Ceiling measure_pinned_copy(std::size_t bytes, cudaMemcpyKind direction, const RepeatOptions& options);

}  // namespace course
