// 06_fft_convolve: 2-D convolution of a grey image, by FFT (cuFFT, FFTW) and directly, and where
// each wins.
//
// Usage: 06_fft_convolve [--width W --height H | -n N | --image PATH] [--filter classic|gaussian|box]
//                        [--filter-size K | --filter-file PATH] [--out-dir DIR] [--kernel NAME ...]
//                        [--sweep filter-size] [--fftw-planner estimate|measure|patient] [shared flags: --help]
//   06_fft_convolve                                  the classic: 512 x 512, its 5 x 5 filter, every method
//   06_fft_convolve -n 4096                          the benchmark size
//   06_fft_convolve --filter gaussian --filter-size 31 --out-dir pictures
//   06_fft_convolve -n 1024 --sweep filter-size --json run.json    where FFT starts to win (K = 3 ... 63)
//
// The lesson declares its data and rows; the harness (course/harness.hpp) poisons, runs, verifies
// (every method against the direct convolution in double, the whole image and its border),
// times and reports each one. CPU: the direct sum (1 thread, all threads, SIMD), FFTW (planned in
// the untimed setup), and the classic's naive FFT (a teaching row, expected to fail). GPU: every
// method of kernels/registry.inc, the product kernel alone, and end to end with the copies.
// Memory-bound methods are held against a device copy, FFT methods against one cuFFT R2C + C2R
// pair at the FFT size chosen by measuring the candidates, both measured in the same run.
#include <cstdio>
#include <filesystem>
#include <string>

#include "course/files.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "fft_convolve.hpp"
#include "lesson_rows.hpp"
#include "sat_rows.hpp"

namespace {

using fft_convolve::kMaxSide;

// Fails early (exit 3) when the run cannot fit: the image, its results, the double reference
// and the FFTs' arrays on the host; the image, the result and each method's arrays on the GPU.
void require_memory(const course::Lesson& lesson, const fft_convolve::Problem& problem) {
  const double pixels = static_cast<double>(problem.image.size());
  const double padded = static_cast<double>(problem.tolerance_shape.real_count());
  course::require_host_memory(static_cast<std::size_t>(pixels * (6 * 4 + 3 * 8) + padded * 3 * 4 * 3),
                              "the image, its results, the double reference and FFTW's arrays");
  lesson.require_device_memory(static_cast<std::size_t>(pixels * 4 * 9 + padded * 4 * 12),
                               "the image, the results and the FFT methods' arrays");
}

int run(int argc, char** argv) {
  course::Lesson lesson("06_fft_convolve",
                        "2-D convolution of a grey image: directly and by FFT, on the CPU (FFTW) and the GPU (cuFFT)",
                        {{"--width", "image width in pixels (generated image)", 512, kMaxSide},
                         {"--height", "image height in pixels (generated image)", 512, kMaxSide}},
                        "-n,--size", "square image: width = height = N");
  lesson.set_unit(course::units::items("Gpixel/s", "pixels"));
  fft_convolve::LessonOptions flags;
  fft_convolve::add_lesson_options(lesson, flags);
  lesson.parse(argc, argv);

  // The data: the image (a file, or generated), the filter, and their double reference.
  const fft_convolve::FftwPlanner planner = fft_convolve::planner_from_name(flags.fftw_planner);
  const fft_convolve::Problem problem = fft_convolve::make_problem(lesson, flags);
  fft_convolve::prepare_output_folder(flags.out_dir);
  if (!flags.out_dir.empty()) {  // --json must not be one of the pictures --out-dir writes
    const std::filesystem::path json = lesson.options().json_path;
    if (!json.empty() && json.extension() == ".png") {
      course::check_distinct_outputs({{"--out-dir", (std::filesystem::path(flags.out_dir) / json.filename()).string()},
                                      {"--json", json.string()}});
    }
  }
  const fft_convolve::Image& image = problem.image;
  lesson.set_title(problem.filter.name + " on a " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                   (flags.image_path.empty() ? " generated image" : " image (" + flags.image_path + ")"));
  require_memory(lesson, problem);
  std::printf("Verification: every pixel and the border against the direct sum in double; %s\n",
              fft_convolve::describe_tolerance(image, problem.filter, problem.tolerance_shape).c_str());

  // The rows: CPU (direct, FFTW, the naive FFT), then the GPU methods of the registry.
  fft_convolve::HostResults results(image.size());
  fft_convolve::add_cpu_rows(lesson, problem, results, planner);
  fft_convolve::GpuRows gpu(lesson, problem, results);
  gpu.add(flags.kernels);
  fft_convolve::sat::TableRows sat_tables;  // --filter box: the summed-area table's build alone
  fft_convolve::sat::add_table_rows(lesson, image, problem.filter, flags.kernels, sat_tables);
  lesson.add_sweep(fft_convolve::filter_size_sweep(lesson, image, planner, flags.kernels, flags.filter_name == "box"));

  lesson.run_variants();
  lesson.record("filter", problem.filter.name);
  lesson.record("image", {{"width", image.width}, {"height", image.height}, {"file", flags.image_path}});
  lesson.record("fft_tolerance_shape", problem.tolerance_shape.text());
  if (!flags.out_dir.empty()) {
    lesson.record("images", fft_convolve::write_pictures(flags.out_dir, problem, gpu.pictures()));
    std::printf("Pictures: %s (input, reference, results and their differences, PNG)\n", flags.out_dir.c_str());
  }
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
