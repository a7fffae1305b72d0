// Lesson 02, the launch-configuration sweep (--sweep-launch): add_grid_stride at every
// threads-per-block and grid size, each result verified, each configuration timed. A sweep of
// configurations of one kernel, not a list of variants, so it keeps its own loop; each point
// is checked with the harness's check_device and timed with the same time_device.
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
#include <cstdio>
#include <map>
#include <ostream>

#include "course/check.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
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

std::vector<SweepPoint> run_launch_sweep(const std::vector<SweepConfig>& plan, const SweepInputs& inputs) {
  const std::size_t n = inputs.c.size();
  std::vector<SweepPoint> points;
  for (const SweepConfig& config : plan) {
    if (!config.skipped.empty()) continue;
    // With ceil(n / block) blocks the grid-stride loop runs once per thread: add_indexed's launch.
    const LaunchConfig launch{config.block_size, static_cast<int>(config.blocks)};
    auto enqueue = [&] {
      launch_add_grid_stride(inputs.a.data(), inputs.b.data(), inputs.c.data(), n, launch, inputs.stream);
    };

    // The harness's own check: c poisoned (NaN everywhere, so an element this configuration
    // skips fails), then copied back and compared bit for bit.
    const course::Check check = course::check_device<float>(inputs.c, inputs.host_c, inputs.reference,
                                                            course::Tolerance::exact());
    SweepPoint point;
    point.config = config;
    check.poison();
    CUDA_CHECK(cudaDeviceSynchronize());  // the poison runs in the legacy stream
    enqueue();
    CUDA_CHECK(cudaStreamSynchronize(inputs.stream));
    point.check = check.verify();
    point.time = course::time_device(inputs.repeat, inputs.stream, enqueue, inputs.flusher);
    point.throughput = 12.0 * static_cast<double>(n) / (point.time.median_ms * 1e6);
    points.push_back(std::move(point));
  }
  return points;
}

nlohmann::json launch_sweep_json(const std::vector<SweepPoint>& points) {
  nlohmann::json list = nlohmann::json::array();
  for (const SweepPoint& point : points) {
    list.push_back({{"block", point.config.block_size},
                    {"grid", point.config.grid_label},
                    {"blocks", point.config.blocks},
                    {"occupancy", point.config.occupancy},
                    {"median_ms", point.time.median_ms},
                    {"throughput", point.throughput}});
  }
  return {{"kernel", "add_grid_stride"}, {"points", list}};
}

void print_launch_sweep(std::ostream& out, const std::vector<SweepConfig>& plan, const std::vector<SweepPoint>& points,
                        double ceiling_gbps) {
  char line[160];
  out << "\nLaunch sweep: add_grid_stride, theoretical occupancy from the occupancy calculator\n";
  std::snprintf(line, sizeof line, "  %6s  %-24s %13s %10s %10s %9s %9s  %s\n", "block", "grid", "blocks",
                "occupancy", "median ms", "GB/s", "of ceil", "check");
  out << line;
  for (const SweepPoint& point : points) {
    const std::string of_ceiling =
        ceiling_gbps > 0 ? course::format_fixed(100.0 * point.throughput / ceiling_gbps, 1) + "%" : "-";
    std::snprintf(line, sizeof line, "  %6d  %-24s %13s %9.0f%% %10s %9.0f %9s  %s\n", point.config.block_size,
                  point.config.grid_label.c_str(),
                  course::format_count(static_cast<std::uint64_t>(point.config.blocks)).c_str(),
                  100.0 * point.config.occupancy, course::format_ms(point.time.median_ms).c_str(), point.throughput,
                  of_ceiling.c_str(), point.check.passed ? "ok" : "FAILED");
    out << line;
  }
  // The skipped ones, one line per block size and reason: "block 1024: 4, 8 blocks per SM (only 2 fit on an SM)".
  struct Skipped {
    std::vector<int> blocks_per_sm;
    std::vector<std::string> others;
  };
  std::map<std::pair<int, std::string>, Skipped> skipped;
  for (const SweepConfig& config : plan) {
    if (config.skipped.empty()) continue;
    Skipped& group = skipped[{config.block_size, config.skipped}];
    if (config.blocks_per_sm > 0) {
      group.blocks_per_sm.push_back(config.blocks_per_sm);
    } else {
      group.others.push_back(config.grid_label);
    }
  }
  for (const auto& [key, group] : skipped) {
    std::string grids;
    for (const std::string& other : group.others) grids += (grids.empty() ? "" : ", ") + other;
    for (std::size_t i = 0; i < group.blocks_per_sm.size(); ++i) {
      grids += (i == 0 && grids.empty() ? "" : ", ") + std::to_string(group.blocks_per_sm[i]);
    }
    if (!group.blocks_per_sm.empty()) grids += group.blocks_per_sm.back() == 1 ? " block per SM" : " blocks per SM";
    out << "  not run: block " << key.first << ": " << grids << " (" << key.second << ")\n";
  }
}

course::Row launch_sweep_row(const std::vector<SweepPoint>& points, const std::string& variant) {
  const auto fastest = std::min_element(points.begin(), points.end(), [](const SweepPoint& x, const SweepPoint& y) {
    return x.time.median_ms < y.time.median_ms;
  });
  const auto failed = std::find_if(points.begin(), points.end(), [](const SweepPoint& p) { return !p.check.passed; });
  const auto failures = std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return !p.check.passed; });

  course::Row row{variant, course::Target::gpu, course::Role::detail};
  row.time = fastest->time;
  row.work = 12.0 * static_cast<double>(fastest->check.count);
  row.ceiling = "d2d_copy";
  // One verdict for the whole sweep: the first failure if there is one.
  row.check = failed == points.end() ? fastest->check : failed->check;
  row.note = "fastest: block " + std::to_string(fastest->config.block_size) + ", " + fastest->config.grid_label +
             " (" + course::format_count(static_cast<std::uint64_t>(fastest->config.blocks)) + " blocks); " +
             std::to_string(points.size()) + " configurations run, " +
             (failures == 0 ? std::string("all verified exactly")
                            : std::to_string(failures) + " FAILED verification, the first: block " +
                                  std::to_string(failed->config.block_size) + ", " + failed->config.grid_label);
  return row;
}

}  // namespace elementwise_add
