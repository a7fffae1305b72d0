// Lesson 02: c = a + b for vectors of floats, the classic first kernels.
//
// This header is the lesson's API, shared by main.cpp and the tests: the CPU versions and the
// reference (add_cpu.cpp), the kernels and their launchers (add_kernels.cu; add_float4.cu, the
// vectorised headline kernel; exercise_one_block_loop.cu, the solution of the exercise), and
// the launch-configuration sweep (launch_sweep.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/report.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

namespace elementwise_add {

// ---- CPU ----------------------------------------------------------------------------------
void add_serial(std::span<const float> a, std::span<const float> b, std::span<float> c);    // one thread
void add_parallel(std::span<const float> a, std::span<const float> b, std::span<float> c);  // all cores, OpenMP
void multiply_serial(std::span<const float> a, std::span<const float> b, std::span<float> dest);  // part 1

// a + b computed in double and rounded to float once, block by block while verifying. It is the
// correctly rounded float sum, so every correct float add matches it exactly (add_cpu.cpp says why).
course::ReferenceBlock add_reference(std::span<const float> a, std::span<const float> b);

// ---- GPU ----------------------------------------------------------------------------------
// Part 1, the classic PyCUDA demo: dest[i] = a[i] * b[i] with i = threadIdx.x, one block of n
// threads (n = 400 in main; at most the device's maxThreadsPerBlock).
inline constexpr int kMultiplyLength = 400;
void launch_multiply_them(float* dest, const float* a, const float* b, int n, cudaStream_t stream);

// The add kernels, in the order the lesson meets them. Each enumerator is its kernel's name.
enum class Kernel {
  add_one_block,       // i = threadIdx.x: one block of n threads, so n <= 1024
  add_indexed,         // i = blockIdx.x * blockDim.x + threadIdx.x, one thread per element, if (i < n)
  add_grid_stride,     // a grid-stride loop: any grid covers any n
  add_float4,          // 16-byte loads and stores, grid-stride over groups of 4 floats (the headline)
  add_one_block_loop,  // the exercise: one block whose threads loop over any n
};
std::string kernel_label(Kernel kernel);

struct LaunchConfig {
  int block_size = 256;  // threads per block (add_indexed, add_grid_stride, add_float4, add_one_block_loop)
  int grid_size = 0;     // blocks for add_grid_stride and add_float4; 0 = as many as can be resident at once
  int ilp = 2;           // float4 groups each thread of add_float4 loads before it adds: 1, 2 or 4
};

// The grid actually launched.
struct Launch {
  int blocks = 0;
  int threads = 0;               // per block
  std::string describe() const;  // "1,056 blocks of 256 threads"
};

// Launches `kernel` on device arrays a, b, c of n floats in `stream` and checks the launch
// (course::ApiError on failure, e.g. add_one_block with n > 1024). n = 0 launches nothing.
Launch launch_add(Kernel kernel, const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                  cudaStream_t stream);

// True when `error` is CUDA refusing a launch whose block is larger than the GPU allows (part 2).
// The name of the refusal depends on the CUDA version: cudaErrorInvalidConfiguration ("invalid
// configuration argument") in CUDA 12 and before, cudaErrorInvalidValue ("invalid argument")
// with CUDA 13.0 (seen with driver 580 on an H100).
bool is_block_size_refusal(const course::ApiError& error);

// Each kernel's own launcher; launch_add calls them.
Launch launch_add_one_block(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);
Launch launch_add_indexed(const float* a, const float* b, float* c, std::size_t n, int block_size,
                          cudaStream_t stream);
Launch launch_add_grid_stride(const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                              cudaStream_t stream);
Launch launch_add_float4(const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                         cudaStream_t stream);                        // add_float4.cu
Launch launch_add_one_block_loop(const float* a, const float* b, float* c, std::size_t n, const LaunchConfig& config,
                                 cudaStream_t stream);                // exercise_one_block_loop.cu

// A grid's x dimension holds at most 2^31 - 1 blocks: one thread per element stops there.
inline constexpr long long kMaxGridBlocks = 2147483647;

// Blocks of add_grid_stride at `block_size` that fit on one SM at once (the occupancy calculator,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor): what the launch sweep's occupancy comes from.
int grid_stride_blocks_per_sm(int block_size);

// ---- Launch sweep (launch_sweep.cpp) ----------------------------------------------------------
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
// "throughput"}, ...]}: the shape scripts/plot.py reads from extra.launch_sweep.
nlohmann::json launch_sweep_json(const std::vector<SweepPoint>& points);

// The table: block, grid, blocks, occupancy, median ms, GB/s, % of the ceiling; then the
// configurations skipped, and why.
void print_launch_sweep(std::ostream& out, const std::vector<SweepConfig>& plan, const std::vector<SweepPoint>& points,
                        double ceiling_gbps);

// One report row for the whole sweep: the fastest configuration's time, and the first failed
// verification if any failed (so a failure anywhere in the sweep fails the run). `points` not empty.
course::Row launch_sweep_row(const std::vector<SweepPoint>& points, const std::string& variant);

}  // namespace elementwise_add
