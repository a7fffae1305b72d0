// Other tile shapes and pipeline depths of kernels 06 to 09 and 11, for the tuning benchmark
// (matmul_tune) and the exercises: the lesson's registry holds the configuration each kernel
// ships with; these are its neighbours, measured to justify that choice.
#pragma once

#include <span>
#include <string_view>

#include "matmul.hpp"

namespace matmul::tuning {

struct TileConfig {  // one tile shape of a kernel, for matmul_tune (not a row: course::Variant is)
  std::string_view name;  // "cp_async 128x128x16 s3 w64x32"
  Launcher launch;
};

std::span<const TileConfig> warp_tiled_configs();       // kernels/06_warp_tiled.cu
std::span<const TileConfig> double_buffered_configs();  // kernels/07_double_buffered.cu
std::span<const TileConfig> cp_async_configs();         // kernels/08_cp_async.cu
std::span<const TileConfig> cp_async_16b_configs();     // kernels/09_cp_async_16b.cu
std::span<const TileConfig> wide_thread_configs();      // kernels/11_wide_thread.cu

}  // namespace matmul::tuning
