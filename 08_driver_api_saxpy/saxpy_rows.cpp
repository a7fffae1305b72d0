// Lesson 08: the rows' data and checks, the contraction demo's rows, and what the rows showed,
// after the table: one context for both APIs, identical bits from CUBIN, PTX and <<<>>>, the time
// ratio of the driver's and the runtime's kernels, and what letting the compiler contract
// a * x + y into one FMA changes.
//
// Teaches: "the same kernel" is checked, not assumed: every GPU output is compared bit for bit
// with the CUBIN row's, and the --fmad=true results are held against std::fma (one rounding) and
// compared with the unfused ones, in ulps.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "course/device.hpp"
#include "course/format.hpp"
#include "course/random.hpp"
#include "saxpy_steps.hpp"

namespace driver_saxpy {

Difference compare_bits(const std::vector<float>& a, const std::vector<float>& b) {
  Difference difference;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
      ++difference.count;
      difference.max_ulp = std::max(difference.max_ulp, course::ulp_error(a[i], static_cast<double>(b[i])));
    }
  }
  if (a.size() != b.size()) difference.count += std::max(a.size(), b.size()) - std::min(a.size(), b.size());
  return difference;
}

course::Check driver_check(DriverPath& path, std::vector<float>& out, course::ReferenceBlock reference,
                           std::function<void(const std::vector<float>&)> seen) {
  return {[&path, &out] {
            course::poison(std::span<float>(out));
            path.buffers->poison_out();
          },
          [&path, &out, reference = std::move(reference), seen = std::move(seen)] {
            path.buffers->download(out);
            const course::VerifyResult result =
                course::verify(std::span<const float>(out), reference, course::Tolerance::exact());
            if (seen) seen(out);
            return result;
          }};
}

void prepare(RowData& d, float a, std::size_t n, std::uint64_t seed) {
  course::require_host_memory(3 * n * sizeof(float),
                              "x, y and out on the host (3 x " + course::format_bytes(4.0 * static_cast<double>(n)) + ")");
  d.a = a;
  d.bytes = kBytesPerElement * static_cast<double>(n);
  d.x.resize(n), d.y.resize(n), d.out.resize(n);
  course::fill_normal(d.x, seed);
  course::fill_normal(d.y, seed + 1);
  d.reference = saxpy_reference(a, d.x, d.y);
}

void add_contraction_demo(course::Lesson& lesson, RowData& d, DriverPath& path) {
  constexpr float kDemoA = 1.1f;
  d.seen.demo_values = {d.a};
  if (d.a != kDemoA) d.seen.demo_values.push_back(kDemoA);
  d.seen.fused_outs.resize(d.seen.demo_values.size());
  d.seen.fused_checks.resize(d.seen.demo_values.size());
  for (std::size_t i = 0; i < d.seen.demo_values.size(); ++i) {
    const float value = d.seen.demo_values[i];
    course::Check check = driver_check(path, d.out, saxpy_fused_reference(value, d.x, d.y),
                                       [&d, i](const std::vector<float>& out) { d.seen.fused_outs[i] = out; });
    check.verify = [verify = check.verify, &d, i] { return d.seen.fused_checks[i] = verify(); };
    lesson.add({.name = "GPU --fmad=true against std::fma (contraction demo), a = " + course::format_fixed(value, 2),
                .target = course::Target::gpu, .setup = {*d.load},
                .run = [&d, &path, value](cudaStream_t s) {
                  launch_driver(path.fused, path.launch, value, path.buffers->x(), path.buffers->y(),
                                path.buffers->out(), d.x.size(), s);
                },
                .check = check, .timed = false});
  }
}

namespace {

// What --fmad=true changed: each fused output against the unfused one (for the demo's a other
// than the run's, one more unfused launch on the same buffers), in ulps.
nlohmann::json contraction(DriverPath& path, const Observed& seen, float a) {
  const std::size_t n = path.buffers->size();
  nlohmann::json demo = nlohmann::json::array();
  std::printf("Contraction (--fmad=true fuses a * x + y into one FMA, one rounding instead of two):\n");
  for (std::size_t i = 0; i < seen.demo_values.size(); ++i) {
    const float value = seen.demo_values[i];
    std::vector<float> rerun;
    if (value != a) {
      rerun.resize(n);
      path.buffers->poison_out();
      launch_driver(path.cubin, path.launch, value, path.buffers->x(), path.buffers->y(), path.buffers->out(), n,
                    path.buffers->stream());
      path.buffers->download(rerun);
    }
    const Difference difference = compare_bits(seen.fused_outs[i], value == a ? seen.cubin_out : rerun);
    std::printf("  a = %g: %s of %s elements differ from --fmad=false (at most %.1f ulp); against std::fma: %s\n",
                static_cast<double>(value), course::format_count(difference.count).c_str(),
                course::format_count(n).c_str(), difference.max_ulp, seen.fused_checks[i].summary().c_str());
    demo.push_back({{"a", value}, {"elements_differing", difference.count}, {"max_ulp", difference.max_ulp}});
  }
  std::printf("\n");
  return demo;
}

}  // namespace

void report_findings(course::Lesson& lesson, DriverPath& path, const Observed& seen, float a, bool user_source,
                     const std::string& runtime_row, const OnePassRows& one_pass_rows) {
  std::printf("Same context: the runtime's current context %s the driver's primary context (its first call shared it)\n",
              seen.same_context ? "is" : "is NOT");
  std::printf("Bit for bit: CUBIN and PTX outputs %s; driver-API and runtime-API outputs %s%s\n",
              seen.cubin_vs_ptx.count == 0 ? "identical" : "DIFFER",
              seen.driver_vs_runtime.count == 0 ? "identical" : "DIFFER",
              user_source ? " (the runtime row runs the lesson's kernel)" : "");
  const course::Report& report = lesson.report();
  const course::Row* kernel = report.find_role(course::Role::gpu_kernel);
  const auto runtime = std::ranges::find(report.rows(), runtime_row, &course::Row::variant);
  if (kernel && kernel->time && runtime != report.rows().end() && runtime->time) {
    const double ratio = kernel->time->median_ms / runtime->time->median_ms;
    std::printf("Driver-API kernel time / runtime-API kernel time (medians): %.3f\n\n", ratio);
    lesson.record("driver_over_runtime_time", ratio);
  }
  const auto one_pass_driver = std::ranges::find(report.rows(), one_pass_rows.driver, &course::Row::variant);
  const auto one_pass_runtime = std::ranges::find(report.rows(), one_pass_rows.runtime, &course::Row::variant);
  if (!one_pass_rows.driver.empty() && one_pass_driver != report.rows().end() && one_pass_driver->time &&
      one_pass_runtime != report.rows().end() && one_pass_runtime->time) {
    const double ratio = one_pass_driver->time->median_ms / one_pass_runtime->time->median_ms;
    std::printf("One pass (saxpy_one_pass.cuh): driver-API and runtime-API outputs %s the CUBIN row's; "
                "driver / runtime kernel time (medians): %.3f\n\n",
                seen.one_pass_driver_vs_cubin.count == 0 && seen.one_pass_runtime_vs_cubin.count == 0 ? "identical to"
                                                                                                      : "DIFFER from",
                ratio);
    lesson.record("one_pass_driver_over_runtime_time", ratio);
    lesson.record("one_pass_differing", seen.one_pass_driver_vs_cubin.count + seen.one_pass_runtime_vs_cubin.count);
  }
  lesson.record("contraction", contraction(path, seen, a));
  lesson.record("same_context", seen.same_context);
  lesson.record("cubin_vs_ptx_differing", seen.cubin_vs_ptx.count);
  lesson.record("driver_vs_runtime_differing", seen.driver_vs_runtime.count);
  lesson.record("launch", {{"driver", path.launch.describe()}, {"runtime", path.runtime_launch.describe()}});
}

}  // namespace driver_saxpy
