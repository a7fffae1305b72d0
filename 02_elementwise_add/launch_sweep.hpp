// Lesson 02, the launch-configuration sweep (--sweep-launch): declarations for main.cpp and the
// tests. Kept out of elementwise_add.hpp because it needs the report's JSON (nlohmann-json),
// which no kernel file should compile.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/report.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "elementwise_add.hpp"

namespace elementwise_add {

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

struct SweepPoint {
  SweepConfig config;
  course::TimingStats time;
  course::VerifyResult check;
  double throughput = 0;  // GB/s: 12 n bytes / median time
};

struct SweepInputs {
  const course::DeviceBuffer<float>& a;
  const course::DeviceBuffer<float>& b;
  course::DeviceBuffer<float>& c;          // poisoned before each configuration runs
  std::span<float> host_c;                 // where each result is copied back to be verified
  course::ReferenceBlock reference;
  course::RepeatOptions repeat;
  cudaStream_t stream;
  const course::L2Flusher* flusher;        // nullptr: L2 left warm
};

// Runs, verifies (exactly) and times every configuration that `plan` does not skip.
std::vector<SweepPoint> run_launch_sweep(const std::vector<SweepConfig>& plan, const SweepInputs& inputs);

// {"kernel": "add_grid_stride", "points": [{"block", "grid", "blocks", "occupancy", "median_ms",
// "throughput"}, ...]}: the shape plot_launch_sweep.py reads from extra.launch_sweep.
nlohmann::json launch_sweep_json(const std::vector<SweepPoint>& points);

// The table: block, grid, blocks, occupancy, median ms, GB/s, % of the ceiling; then the
// configurations skipped, and why.
void print_launch_sweep(std::ostream& out, const std::vector<SweepConfig>& plan, const std::vector<SweepPoint>& points,
                        double ceiling_gbps);

// One report row for the whole sweep: the fastest configuration's time, and the first failed
// verification if any failed (so a failure anywhere in the sweep fails the run). `points` not empty.
course::Row launch_sweep_row(const std::vector<SweepPoint>& points, const std::string& variant);

}  // namespace elementwise_add
