// Lesson 02, the launch-configuration sweep (--sweep launch): add_grid_stride at every block size
// and grid size. Declarations for main.cpp and the tests; kept out of elementwise_add.hpp because
// it needs the harness (CLI11, JSON), which no kernel file should compile.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/harness.hpp"
#include "course/verify.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

// One thread per element (add_indexed) at --block `block_size`: ceil(n / block) blocks must fit in
// a grid (2^31 - 1 blocks). Throws a course::UsageError naming --block when they do not.
void check_grid_limit(std::size_t n, int block_size);

// add_grid_stride at every threads-per-block and grid size of the sweep.
inline constexpr int kSweepBlockSizes[] = {32, 64, 128, 256, 512, 1024};
inline constexpr int kSweepBlocksPerSm[] = {1, 2, 4, 8, 16, 32};

struct SweepDevice {
  int sm_count = 0;
  int max_threads_per_sm = 0;
};

struct SweepConfig {
  int block_size = 0;
  int blocks_per_sm = 0;     // 0: one thread per element (ceil(n / block) blocks)
  std::string grid_label;    // "one thread per element", "4 blocks per SM"
  long long blocks = 0;
  int resident_per_sm = 0;   // blocks of this size that fit on one SM (occupancy calculator)
  double occupancy = 0;      // resident threads per SM / max threads per SM, for this grid
  std::string skipped;       // non-empty: not run, and why
};

// Every configuration of the sweep for n elements, with the ones not worth running marked:
// k blocks per SM is skipped where k x SMs blocks are more than n needs, or more than can be
// resident (they would run in waves, which "one thread per element" already shows).
std::vector<SweepConfig> plan_launch_sweep(std::size_t n, const SweepDevice& device,
                                           const std::function<int(int block_size)>& resident_per_sm);

// What every point works on: a, b and c on the GPU (c poisoned before each point's verified
// run, copied into host_c and compared bit for bit with the reference).
struct SweepBuffers {
  course::SetupStep& inputs;  // the setup step that allocates a, b and c (every point names it)
  const course::DeviceBuffer<float>& a;
  const course::DeviceBuffer<float>& b;
  course::DeviceBuffer<float>& c;
  std::span<float> host_c;
  course::ReferenceBlock reference;
};

// The points of the plan at one block size: one variant per grid size, named by its grid
// ("4 blocks per SM"), noting its blocks and occupancy; the configurations the plan skips are
// listed as skipped, with the reason.
std::vector<course::Variant> launch_sweep_points(std::span<const SweepConfig> plan, int block_size,
                                                 const SweepBuffers& buffers);

// The sweep as the harness runs it (declared as "launch"): its axis is threads per block. The
// plan is made when the sweep runs, from the lesson's GPU (SM count, threads per SM) and the
// occupancy calculator.
course::Sweep launch_sweep(const course::Lesson& lesson, const SweepBuffers& buffers);

}  // namespace elementwise_add
