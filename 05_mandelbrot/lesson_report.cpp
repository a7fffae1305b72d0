// Lesson 05: what the report adds for a compute-bound kernel: FMA ceilings in the lesson's own
// unit, the rates table after the main one, and the JSON's extra fields.
//
// Teaches: a compute-bound kernel is held against the FP pipes, not the memory. The FMA loop
// measures how many FP instructions per second the GPU retires (GFLOP/s / 2: an FMA is two
// flops); divided by a kernel's FP instructions per iteration (its facts, read from its SASS),
// that is the most pixel-iterations per second the kernel could reach. "of ceil" in the table is
// then the share of the FP pipes' measured rate that the kernel's own FP instructions use.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "course/ceilings.hpp"
#include "course/format.hpp"
#include "mandelbrot_lesson.hpp"

namespace mandelbrot {

std::string fma_ceiling_name(course::Precision precision, const KernelEntry& kernel) {
  return std::string(precision == course::Precision::fp32 ? "fp32" : "fp64") + "_fma_" + std::string(kernel.name);
}

void add_fma_ceilings(course::Lesson& lesson, course::Precision precision, std::span<const KernelEntry> table,
                      const std::vector<const KernelEntry*>& chosen) {
  auto measured = std::make_shared<std::optional<course::Ceiling>>();  // one FMA measurement for all of them
  auto measure = [&lesson, measured, precision] {
    if (!*measured) *measured = course::measure_fma_throughput(precision, lesson.options().gpu_repeat());
    return **measured;
  };
  lesson.add_ceiling(course::Target::gpu, measure);  // the raw ceiling, in GFLOP/s, for the record
  const KernelEntry& headline = course::headline_kernel(table, precision);
  for (const KernelEntry& kernel : table) {
    const bool runs = &kernel == &headline || std::find(chosen.begin(), chosen.end(), &kernel) != chosen.end();
    if (!runs || !course::includes(kernel.traits.precisions, precision)) continue;
    lesson.add_ceiling(course::Target::gpu, [measure, name = fma_ceiling_name(precision, kernel),
                                             per_iteration = kernel.launch.facts->fp_per_iteration] {
      const course::Ceiling fma = measure();
      course::Ceiling ceiling;
      ceiling.name = name;
      ceiling.unit = "Giter/s";
      ceiling.value = fma.value / 2 / per_iteration;
      ceiling.description = fma.name + " (" + course::format_fixed(fma.value / 1000, 1) + " TFLOP/s) / 2 / " +
                            course::format_fixed(per_iteration, 2) + " FP instructions per iteration";
      return ceiling;
    });
  }
}

void print_rates(const course::Report& report, const LessonData& data) {
  const auto pixels = static_cast<double>(data.problem.pixels());
  bool header = false;
  for (const Rate& rate : data.rates) {
    for (const course::Row& row : report.rows()) {
      if (row.variant != rate.variant || !row.time) continue;
      if (!header) {
        std::printf("\nRates (pixel-iterations = the sum of all escape counts: the iterations really executed)\n");
        std::printf("  %-72s %10s %14s %12s %9s\n", "variant", "MP/s", "Gpixel-iter/s", "FP instr/s", "FP/iter");
        header = true;
      }
      const double seconds = row.time->median_ms * 1e-3;
      const double per_s = row.work / seconds;
      std::printf("  %-72s %10.0f %14.1f %11.1fT %9.2f\n", rate.variant.c_str(), pixels / seconds / 1e6, per_s / 1e9,
                  per_s * rate.fp_per_iteration / 1e12, rate.fp_per_iteration);
    }
  }
}

void record_extras(course::Lesson& lesson, const LessonData& data) {
  const Problem& problem = data.problem;
  nlohmann::json precisions = nlohmann::json::object();
  for (const PrecisionRun& run : data.runs) {
    precisions[run.group()] = {{"iterations", run.stats.iterations},
                               {"interior_pixels", run.stats.interior_pixels},
                               {"interior_iterations", run.stats.interior_iterations},
                               {"reference_ms", run.reference_ms}};
  }
  if (!precisions.empty()) lesson.record("precisions", precisions);
  const View& view = problem.view;
  lesson.record("view", {{"x_min", view.x_min}, {"x_max", view.x_max}, {"y_min", view.y_min}, {"y_max", view.y_max}});
  lesson.record("iters", problem.iters);
  lesson.record("launch", plan_launch(problem.launch, problem.width, problem.height).describe());
  lesson.record("cpu_simd", cpu_simd_description());
  if (lesson.has_gpu()) lesson.record("context_creation_ms", lesson.gpu().context_creation_ms);
}

}  // namespace mandelbrot
