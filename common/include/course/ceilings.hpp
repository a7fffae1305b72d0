// Measured ceilings: what the hardware really delivers, measured in the same run as the lesson.
//
// Teaches: efficiency means "fraction of what is achievable here and now", so a memory-bound
// kernel is held against a device-to-device copy of the same traffic, measured with the same
// L2 policy, and a transfer against a plain pinned cudaMemcpy. Datasheet numbers are leads only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "course/precision.hpp"
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

// The arithmetic ceiling: fused multiply-adds on values held in registers, several independent
// chains per thread, on every SM ("fp32_fma" / "fp64_fma", in GFLOP/s, one FMA = 2 flops).
// A compute-bound kernel is held against this, not against the datasheet.
Ceiling measure_fma_throughput(Precision precision, const RepeatOptions& options);

// The host's memory ceiling: a copy of `bytes_moved` in total (half read, half written) split
// over the OpenMP threads in effect ("host_copy", GB/s counting bytes read + written). A
// memory-bound CPU row is held against this, as a GPU row is against the device copy.
Ceiling measure_host_copy(std::size_t bytes_moved, const RepeatOptions& options);

}  // namespace course
