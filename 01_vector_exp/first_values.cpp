// Lesson 01: the first values side by side, the classic demo's check by eye.
//
// Teaches: what "within 2 ulp" looks like. The same inputs through the CPU's std::exp, CUDA's
// expf and its fast __expf, printed to 9 significant digits with each one's error in ULPs
// against exp computed in double: expf and std::exp mostly agree to the last digit, __expf
// drifts further from it as |x| grows. The kernels are found by their registry traits (the
// headline; the one whose promised accuracy grows with |x|), never by name.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "course/check.hpp"
#include "vector_exp.hpp"

namespace vector_exp {

namespace {
// The kernel on the first n elements of x, and its outputs copied back.
std::vector<float> first_outputs(Launcher launch, const float* d_x, float* d_y, std::size_t n,
                                 const LaunchConfig& config, cudaStream_t stream) {
  launch(d_x, d_y, n, config, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> y(n);
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  return y;
}
}  // namespace

void print_first_values(std::span<const float> x, const float* d_x, float* d_y, const LaunchConfig& config,
                        cudaStream_t stream, int count) {
  const std::size_t shown = std::min(x.size(), static_cast<std::size_t>(std::max(count, 0)));
  const auto fast = std::find_if(kernels().begin(), kernels().end(),
                                 [](const auto& kernel) { return kernel.traits.ulp_per_abs_input > 0; });
  if (shown == 0 || fast == kernels().end()) return;
  const std::vector<float> expf_values =
      first_outputs(course::headline_kernel(kernels()).launch, d_x, d_y, shown, config, stream);
  const std::vector<float> fast_values = first_outputs(fast->launch, d_x, d_y, shown, config, stream);

  std::printf("\nFirst values (9 significant digits; ulp = error against exp in double precision)\n");
  std::printf("  %4s %14s %15s %5s %15s %5s %15s %5s %20s\n", "i", "x", "CPU std::exp", "ulp", "GPU expf", "ulp",
              "GPU __expf", "ulp", "exp in double");
  for (std::size_t i = 0; i < shown; ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    const float cpu = std::exp(x[i]), gpu = expf_values[i], quick = fast_values[i];
    std::printf("  %4zu %14.9g %15.9g %5.2f %15.9g %5.2f %15.9g %5.2f %20.15g\n", i, x[i], cpu,
                course::ulp_error(cpu, exact), gpu, course::ulp_error(gpu, exact), quick,
                course::ulp_error(quick, exact), exact);
  }
}

}  // namespace vector_exp
