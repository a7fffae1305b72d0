// Lesson 02, the launch-configuration sweep (--sweep launch): add_grid_stride at every
// threads-per-block and grid size. Each configuration is a point of a harness sweep, so it is
// poisoned, run, verified (exactly) and timed like every row, and a failed point fails the run.
//
// Teaches:
//  - the same kernel, the same work, different launch configurations, different speeds. A
//    memory-bound kernel needs many loads in flight to hide the memory's latency, so it needs
//    many resident warps on every SM;
//  - the occupancy calculator: cudaOccupancyMaxActiveBlocksPerMultiprocessor tells how many
//    blocks of a kernel fit on one SM at once (limited by threads, registers, shared memory and
//    a maximum count of blocks). Theoretical occupancy = resident threads per SM / the most an
//    SM can hold (2048 on an H100). Blocks of 32 threads hit the block-count limit (32 per SM
//    on an H100) long before the thread limit: 32 x 32 = 1024 threads, 50% occupancy;
//  - grid size: "one thread per element" launches ceil(n / block) blocks, which run in waves;
//    "k blocks per SM" launches k x SMs blocks and lets each thread loop (grid-stride).
//    1 block per SM of 32 threads puts one warp on each SM: far too few loads in flight to
//    keep the memory busy (Little's law; docs/02_elementwise_add.md).
#include <algorithm>
#include <cmath>
#include <memory>

#include "course/format.hpp"
#include "course/launch.hpp"
#include "launch_sweep.hpp"

namespace elementwise_add {

namespace {

std::string grid_label(int blocks_per_sm) {
  if (blocks_per_sm == 0) return "one thread per element";
  return std::to_string(blocks_per_sm) + (blocks_per_sm == 1 ? " block per SM" : " blocks per SM");
}

}  // namespace

std::vector<SweepConfig> plan_launch_sweep(std::size_t n, const SweepDevice& device,
                                           const std::function<int(int block_size)>& resident_per_sm) {
  std::vector<SweepConfig> plan;
  for (const int block : kSweepBlockSizes) {
    const int per_sm = resident_per_sm(block);
    const auto cover = static_cast<long long>(course::blocks_to_cover(n, block));
    // Blocks resident on one SM for a grid of `blocks`: the occupancy limit, or fewer when the
    // grid does not have that many blocks for each SM.
    auto occupancy = [&](long long blocks) {
      const long long per_sm_here = std::min<long long>(per_sm, (blocks + device.sm_count - 1) / device.sm_count);
      return static_cast<double>(per_sm_here * block) / device.max_threads_per_sm;
    };

    SweepConfig one{block, 0, grid_label(0), cover, per_sm, occupancy(cover), ""};
    if (per_sm < 1) {
      one.skipped = "no block of " + std::to_string(block) + " threads fits on an SM";
    } else if (cover > kMaxGridBlocks) {
      one.skipped = "needs more blocks than a grid may have";
    }
    plan.push_back(one);

    for (const int k : kSweepBlocksPerSm) {
      const long long blocks = static_cast<long long>(k) * device.sm_count;
      SweepConfig config{block, k, grid_label(k), blocks, per_sm, occupancy(blocks), ""};
      if (k > per_sm) {
        config.skipped = "only " + std::to_string(per_sm) + " fit on an SM";
      } else if (blocks > cover) {
        config.skipped = "more blocks than the " + course::format_count(static_cast<std::uint64_t>(cover)) +
                         " that cover n";
      }
      plan.push_back(config);
    }
  }
  return plan;
}

void check_grid_limit(std::size_t n, int block_size) {
  const std::size_t blocks = course::blocks_to_cover(n, block_size);
  if (blocks <= static_cast<std::size_t>(kMaxGridBlocks)) return;
  throw course::UsageError("--block " + std::to_string(block_size) + ": one thread per element (add_indexed) would need " +
                           course::format_count(blocks) + " blocks at --length " + std::to_string(n) +
                           ", more than the 2,147,483,647 a grid may have; use a larger --block");
}

std::vector<course::Variant> launch_sweep_points(std::span<const SweepConfig> plan, int block_size,
                                                 const SweepBuffers& buffers) {
  const std::size_t n = buffers.host_c.size();
  std::vector<course::Variant> points;
  for (const SweepConfig& config : plan) {
    if (config.block_size != block_size) continue;
    // With ceil(n / block) blocks the grid-stride loop runs once per thread: add_indexed's launch.
    const LaunchConfig launch{config.block_size, static_cast<int>(config.blocks)};
    points.push_back(
        {.name = config.grid_label, .target = course::Target::gpu, .work = 12.0 * static_cast<double>(n),
         .ceiling = "d2d_copy", .setup = {buffers.inputs},
         .run = [&a = buffers.a, &b = buffers.b, &c = buffers.c, n, launch](cudaStream_t stream) {
           launch_add_grid_stride(a.data(), b.data(), c.data(), n, launch, stream);
         },
         .check = course::check_device<float>(buffers.c, buffers.host_c, buffers.reference, course::Tolerance::exact()),
         .skip = config.skipped,
         .note = course::format_count(static_cast<std::uint64_t>(config.blocks)) + " blocks, occupancy " +
                 course::format_fixed(100.0 * config.occupancy, 0) + "%"});
  }
  return points;
}

course::Sweep launch_sweep(const course::Lesson& lesson, const SweepBuffers& buffers) {
  auto plan = std::make_shared<std::vector<SweepConfig>>();  // made at the first point
  return {.name = "launch",
          .axis = "threads per block",
          .values = {std::begin(kSweepBlockSizes), std::end(kSweepBlockSizes)},
          .points = [&lesson, buffers, plan](std::int64_t block_size) {
            if (plan->empty()) {
              const course::DeviceInfo& device = *lesson.gpu().device;
              *plan = plan_launch_sweep(buffers.host_c.size(), {device.sm_count, device.max_threads_per_sm},
                                        grid_stride_blocks_per_sm);
            }
            return launch_sweep_points(*plan, static_cast<int>(block_size), buffers);
          },
          .target = course::Target::gpu,
          .title = "add_grid_stride at every block size and grid size, theoretical occupancy from the "
                   "occupancy calculator"};
}

}  // namespace elementwise_add
