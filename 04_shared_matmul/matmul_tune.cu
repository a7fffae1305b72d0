// matmul_tune: every kernel of lesson 04 and its tuning neighbours, checked and timed in one go.
//
// Usage: matmul_tune [--size N] [--reps R] [--skip-variants] [--skip-cpu] [--help]
//   (the course's command line rules: decimal whole numbers in range, one-line errors, exit 2)
//
// 1. correctness at awkward shapes (1, 31, 33, 1000, 1023, 1025 x 777 x 513, ...) against the
//    double reference, and exactness with small-integer inputs, for every kernel and variant;
// 2. at N^3 (4096 by default): the FP32 FMA ceiling (common's FMA loop), cuBLAS SGEMM in true FP32,
//    then each kernel: median time, GFLOP/s, percent of cuBLAS and of the FMA ceiling;
// 3. OpenBLAS sgemm on all cores at the same size.
// Exit codes: 0 every check passed, 1 a check failed, 2 bad command line, 3 runtime error. The lesson binary reports the registry's kernels in the
// course's table; this tool exists to compare tile shapes (matmul::tuning in matmul.hpp: the neighbours of
// the shape each kernel ships with) quickly, which the lesson's table does not list.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/cublas_ceiling.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/errors.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "course/threads.hpp"
#include "course/timing.hpp"
#include "matmul.hpp"

namespace {

struct Candidate {
  std::string name;
  matmul::Launcher launch;
  int max_reps = 0;  // a slow kernel's cap on timed repetitions (its registry line), 0: none
};

using matmul::Shape;

bool check_shape(const std::vector<Candidate>& candidates, const Shape& s, bool integers, cudaStream_t stream,
                 const course::CublasHandle& handle) {
  const std::size_t na = s.a_count(), nb = s.b_count(), nc = s.c_count();
  std::vector<float> a(na), b(nb), c(nc);
  if (integers) {
    course::fill_small_integers(a, 11, -4, 4);
    course::fill_small_integers(b, 12, -4, 4);
  } else {
    course::fill_normal(a, 21);
    course::fill_normal(b, 22);
  }
  const matmul::Reference reference = matmul::reference_product(a, b, s.m, s.n, s.k);
  course::DeviceBuffer<float> da(na), db(nb), dc(nc);
  da.copy_from_host(a);
  db.copy_from_host(b);
  bool all = true;
  std::vector<Candidate> everything = candidates;
  everything.push_back({"cublas (pedantic FP32)", nullptr});
  for (const Candidate& candidate : everything) {
    dc.poison(stream);
    const matmul::MatmulArgs args{s.m, s.n, s.k, da.data(), db.data(), dc.data()};
    if (candidate.launch) {
      candidate.launch(args, stream);
    } else {
      course::sgemm_row_major(handle, s.m, s.n, s.k, da.data(), db.data(), dc.data(), stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    dc.copy_to_host(c);
    const course::VerifyResult r = integers ? matmul::verify_exact(c, reference.c) : matmul::verify_product(c, reference);
    if (!r.passed) {
      all = false;
      std::printf("  FAILED %-36s %5d x %5d x %5d %s: %s\n", candidate.name.c_str(), s.m, s.n, s.k,
                  integers ? "integers" : "normal", r.summary().c_str());
    }
  }
  std::printf("  %-6s %5d x %5d x %5d %s: %zu candidates checked\n", all ? "ok" : "FAIL", s.m, s.n, s.k,
              integers ? "(small integers, exact)" : "(normal, K-scaled bound)", everything.size());
  return all;
}

struct Options {
  int size = 4096;
  int reps = 20;
  bool skip_variants = false;
  bool skip_cpu = false;
};

Options parse_options(int argc, char** argv) {
  CLI::App app("Every kernel of lesson 04 and its tile-shape neighbours: checked at awkward shapes, then timed at N^3 "
               "against cuBLAS and the FMA ceiling",
               "matmul_tune");
  Options options;
  app.add_option("--size", options.size, "N of the timed N x N x N product")
      ->check(CLI::Range(1, 32768))
      ->capture_default_str();
  app.add_option("--reps", options.reps, "timed repetitions per kernel (the median is reported)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_flag("--skip-variants", options.skip_variants, "only the kernels the lesson ships, not their neighbours");
  app.add_flag("--skip-cpu", options.skip_cpu, "no OpenBLAS run");
  app.footer("Exit codes: 0 every check passed, 1 a check failed, 2 bad command line, 3 runtime error (no GPU, "
             "CUDA error, out of memory).");
  course::parse_command_line(app, argc, argv);  // throws UsageError or HelpRequested (course/main.hpp prints them)
  course::apply_cpu_threads();                   // OMP_NUM_THREADS beyond the machine: refused, as in the lessons
  return options;
}

void print_device() {
  // No GPU: one line naming why, exit 3 (this tool has no CPU part to fall back on).
  if (const course::GpuStatus status = course::probe_gpu(0); !status.usable) {
    throw course::ResourceError("a GPU is required (this tool times GPU kernels) but none is usable: " + status.reason);
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0, driver = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::printf("device: %s, %d SMs, CUDA runtime %d, driver %d\n", prop.name, prop.multiProcessorCount, runtime,
              driver);
}

std::vector<Candidate> all_candidates(bool variants) {
  std::vector<Candidate> candidates;
  for (const auto& k : matmul::kernels()) {
    if (k.traits.on_request) continue;  // an exercise's kernel, not a step
    candidates.push_back({std::string(k.name), k.launch, k.traits.max_reps});
  }
  if (variants) {
    for (auto list : {matmul::tuning::warp_tiled_configs(), matmul::tuning::double_buffered_configs(),
                      matmul::tuning::cp_async_configs(), matmul::tuning::cp_async_16b_configs(),
                      matmul::tuning::wide_thread_configs()}) {
      for (const matmul::tuning::TileConfig& v : list) candidates.push_back({std::string(v.name), v.launch, 0});
    }
  }
  return candidates;
}

bool check_all(const std::vector<Candidate>& candidates, cudaStream_t stream, const course::CublasHandle& handle) {
  std::printf("correctness:\n");
  bool ok = true;
  const Shape shapes[] = {{1, 1, 1},     {31, 31, 31},   {33, 33, 33},   {1000, 1000, 1000}, {1023, 1023, 1023},
                          {1025, 777, 513}, {777, 1025, 64}, {5, 300, 1029}, {130, 129, 7},   {256, 256, 2048}};
  for (const Shape& s : shapes) ok &= check_shape(candidates, s, false, stream, handle);
  ok &= check_shape(candidates, {1025, 777, 513}, true, stream, handle);
  ok &= check_shape(candidates, {512, 512, 1024}, true, stream, handle);
  return ok;
}

// Every candidate at N^3, between two cuBLAS runs (the second shows drift).
void time_all(const std::vector<Candidate>& candidates, int size, int reps, cudaStream_t stream,
              const course::CublasHandle& handle) {
  const double fma = course::measure_fma_throughput(course::Precision::fp32, {3, 10}).value;
  std::printf("\nFP32 FMA loop: %.0f GFLOP/s\n", fma);
  const std::size_t count = static_cast<std::size_t>(size) * size;
  course::DeviceBuffer<float> da(count), db(count), dc(count);
  {
    std::vector<float> h(count);
    course::fill_normal(h, 1);
    da.copy_from_host(h);
    course::fill_normal(h, 2);
    db.copy_from_host(h);
  }
  const double flops = matmul::matmul_flops(size, size, size);
  auto time_cublas = [&](int warmup) {
    return course::time_device({warmup, reps}, stream, [&] {
      course::sgemm_row_major(handle, size, size, size, da.data(), db.data(), dc.data(), stream);
    });
  };
  const course::TimingStats tc = time_cublas(3);
  const double cublas = flops / (tc.median_ms * 1e6);
  std::printf("%-38s %9s %10s %8s %8s\n", "kernel", "ms", "GFLOP/s", "%cuBLAS", "%FMA");
  std::printf("%-38s %9.3f %10.0f %8.1f %8.1f\n", "cuBLAS SGEMM (pedantic FP32)", tc.median_ms, cublas, 100.0,
              100.0 * cublas / fma);
  const matmul::MatmulArgs args{size, size, size, da.data(), db.data(), dc.data()};
  for (const Candidate& candidate : candidates) {
    const int capped = candidate.max_reps > 0 ? std::min(reps, candidate.max_reps) : reps;
    const course::TimingStats t =
        course::time_device({1, capped}, stream, [&] { candidate.launch(args, stream); });
    const double g = flops / (t.median_ms * 1e6);
    std::printf("%-38s %9.3f %10.0f %8.1f %8.1f\n", candidate.name.c_str(), t.median_ms, g, 100.0 * g / cublas,
                100.0 * g / fma);
  }
  const course::TimingStats tc2 = time_cublas(1);
  std::printf("%-38s %9.3f %10.0f   (cuBLAS again, drift check)\n", "cuBLAS SGEMM (pedantic FP32)", tc2.median_ms,
              flops / (tc2.median_ms * 1e6));
}

void time_openblas(int size) {
  const std::size_t count = static_cast<std::size_t>(size) * size;
  std::vector<float> a(count), b(count), c(count);
  course::fill_normal(a, 1);
  course::fill_normal(b, 2);
  const course::TimingStats t = course::time_host({1, 3}, [&] { matmul::matmul_openblas(a, b, c, size, size, size); });
  std::printf("\nOpenBLAS sgemm, %d threads, %s: %.3f ms, %.0f GFLOP/s\n", matmul::openblas_threads(),
              std::string(matmul::openblas_description()).c_str(), t.median_ms,
              matmul::matmul_flops(size, size, size) / (t.median_ms * 1e6));
}

int run(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  print_device();
  const std::vector<Candidate> candidates = all_candidates(!options.skip_variants);
  course::Stream stream;
  course::CublasHandle handle;
  const bool ok = check_all(candidates, stream.get(), handle);
  time_all(candidates, options.size, options.reps, stream.get(), handle);
  if (!options.skip_cpu) time_openblas(options.size);
  std::printf("\n%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
  return ok ? course::kExitOk : course::kExitVerificationFailed;
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
