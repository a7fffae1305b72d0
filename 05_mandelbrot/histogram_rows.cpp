// Lesson 05, deep dive: the rows --histogram adds: the histogram of the escape counts (one bin per
// count) on the CPU and by each GPU step, and its prefix sum (the CDF) by a block scan and by CUB.
//
// Teaches: a histogram reads every count once and writes a few thousand bins, so it is held
// against the device copy counting the 4 bytes it reads per count; its speed is then a question of
// how the updates of the hot bins are organised (contention, privatisation, warp aggregation),
// not of arithmetic. Every row's output is compared with the CPU's, bin for bin, exactly.
#include <algorithm>
#include <cstdio>
#include <string>

#include "course/format.hpp"
#include "mandelbrot_lesson.hpp"

namespace mandelbrot {

namespace {

using course::Role;
using course::Target;

course::ThroughputUnit bytes_unit() { return course::units::bandwidth(); }

void add_histogram_group(course::Lesson& lesson, HistogramData& h, course::SetupStep& inputs, const std::string& group,
                         const std::vector<std::string>& exercises) {
  const double bytes_read = 4.0 * static_cast<double>(h.input.size());
  const course::IntegerTolerance exact = course::IntegerTolerance::exact();
  auto cpu_row = [&](const std::string& what, Role role, histogram::CpuHistogram method) {
    lesson.add({.name = "CPU histogram, " + what, .role = role, .group = group, .unit = bytes_unit(), .work = bytes_read,
                .run = [&h, method](cudaStream_t) { histogram::histogram_cpu(h.input, h.bins, method); },
                .check = course::check_host_integers<std::uint32_t>(h.bins, h.reference_bins, exact)});
  };
  cpu_row("1 thread", Role::cpu_serial, histogram::CpuHistogram::serial);
  const int threads = lesson.options().cpu_threads();
  cpu_row(std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " (OpenMP), a private histogram each",
          Role::cpu_parallel, histogram::CpuHistogram::openmp);

  for (const histogram::HistogramKernel& kernel : histogram::kHistogramKernels) {
    if (kernel.on_request && std::find(exercises.begin(), exercises.end(), kernel.name) == exercises.end()) continue;
    course::Variant v{.name = "GPU " + std::string(kernel.name), .target = Target::gpu,
                      .role = kernel.best ? Role::gpu_kernel : kernel.library ? Role::gpu_library : Role::detail,
                      .group = group, .unit = bytes_unit(), .work = bytes_read, .ceiling = "d2d_copy"};
    v.setup = {inputs};
    histogram::HistogramArgs args{nullptr, h.input.size(), nullptr, h.num_bins};
    if (kernel.temp_bytes != nullptr) {  // the library's temporary storage: the row's own step, untimed
      auto& temp = lesson.add_setup("", [&h, temp_bytes = kernel.temp_bytes] {
        return course::DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes(h.input.size(), h.num_bins), 1),
                                                   "cub::DeviceHistogram temporary storage");
      });
      v.setup.push_back(temp);
      v.run = [&h, args, &temp, go = kernel.launch](cudaStream_t stream) mutable {
        args.counts = h.d_input.data();
        args.bins = h.d_bins.data();
        args.temp = temp->data();
        args.temp_bytes = temp->bytes();
        go(args, stream);
      };
    } else {
      v.run = [&h, args, go = kernel.launch](cudaStream_t stream) mutable {
        args.counts = h.d_input.data();
        args.bins = h.d_bins.data();
        go(args, stream);
      };
    }
    v.check = course::check_device_integers<std::uint32_t>(h.d_bins, h.bins, h.reference_bins, exact);
    v.note = std::string(kernel.summary) + "; every bin exactly the CPU's";
    lesson.add(std::move(v));
  }
}

void add_cdf_group(course::Lesson& lesson, HistogramData& h, course::SetupStep& inputs, const std::string& group) {
  const double bytes_moved = 8.0 * h.num_bins;  // each bin read once, its prefix sum written once
  const course::IntegerTolerance exact = course::IntegerTolerance::exact();
  lesson.add({.name = "CPU CDF, 1 thread (a running sum)", .role = Role::cpu_serial, .group = group,
              .unit = bytes_unit(), .work = bytes_moved,
              .run = [&h](cudaStream_t) { histogram::inclusive_sum_cpu(h.reference_bins, h.cdf); },
              .check = course::check_host_integers<std::uint32_t>(h.cdf, h.reference_cdf, exact)});
  lesson.add({.name = "GPU cdf_block_scan", .target = Target::gpu, .role = Role::gpu_kernel, .group = group,
              .unit = bytes_unit(), .work = bytes_moved, .ceiling = "d2d_copy", .setup = {inputs},
              .run = [&h](cudaStream_t stream) {
                histogram::launch_cdf_block_scan({h.d_bins_in.data(), h.d_cdf.data(), h.num_bins}, stream);
              },
              .check = course::check_device_integers<std::uint32_t>(h.d_cdf, h.cdf, h.reference_cdf, exact),
              .note = "one block of 1,024 threads: warp shuffles, then the warps' totals; exactly the CPU's sums"});
  auto& temp = lesson.add_setup("", [&h] {  // the library's temporary storage: the row's own step, untimed
    return course::DeviceBuffer<unsigned char>(std::max<std::size_t>(histogram::cdf_cub_temp_bytes(h.num_bins), 1),
                                               "cub::DeviceScan temporary storage");
  });
  lesson.add({.name = "GPU cdf_cub (cub::DeviceScan::InclusiveSum)", .target = Target::gpu, .role = Role::gpu_library,
              .group = group, .unit = bytes_unit(), .work = bytes_moved, .ceiling = "d2d_copy",
              .setup = {inputs, temp},
              .run = [&h, &temp](cudaStream_t stream) {
                histogram::launch_cdf_cub({h.d_bins_in.data(), h.d_cdf.data(), h.num_bins, temp->data(), temp->bytes()},
                                          stream);
              },
              .check = course::check_device_integers<std::uint32_t>(h.d_cdf, h.cdf, h.reference_cdf, exact)});
}

}  // namespace

void add_histogram_rows(course::Lesson& lesson, const LessonData& data, HistogramData& h,
                        const std::vector<std::string>& exercises) {
  const PrecisionRun& run = data.runs.back();
  h.num_bins = data.problem.iters + 1;
  h.input = run.reference;
  h.reference_bins = histogram::histogram_of(h.input, h.num_bins);
  h.reference_cdf.resize(h.reference_bins.size());
  histogram::inclusive_sum_cpu(h.reference_bins, h.reference_cdf);
  h.bins.resize(h.reference_bins.size());
  h.cdf.resize(h.reference_bins.size());
  lesson.add_device_copy_ceiling(8.0 * static_cast<double>(h.input.size()));  // reads and writes 4 bytes per count

  auto& inputs = lesson.add_setup("histogram inputs: the counts and the bins to the device", [&h] {
    h.d_input = course::DeviceBuffer<std::uint32_t>(h.input.size(), "histogram input (escape counts)");
    h.d_input.copy_from_host(h.input);
    h.d_bins = course::DeviceBuffer<std::uint32_t>(h.reference_bins.size(), "histogram bins");
    h.d_bins_in = course::DeviceBuffer<std::uint32_t>(h.reference_bins.size(), "CDF input (the histogram)");
    h.d_bins_in.copy_from_host(h.reference_bins);
    h.d_cdf = course::DeviceBuffer<std::uint32_t>(h.reference_bins.size(), "CDF");
  });
  add_histogram_group(lesson, h, inputs, "histogram", exercises);
  add_cdf_group(lesson, h, inputs, "CDF");
  std::printf("Histogram of the %s counts: %s bins, %s counts (%s)\n", run.group().c_str(),
              course::format_count(static_cast<std::uint64_t>(h.num_bins)).c_str(),
              course::format_count(h.input.size()).c_str(), course::format_bytes(4.0 * static_cast<double>(h.input.size())).c_str());
}

void add_kernel_option_with_histogram_exercises(course::Lesson& lesson, std::vector<std::string>& selected) {
  std::vector<std::string> names = course::kernel_names(kernels());
  std::vector<course::KernelEntry<histogram::HistogramFn>> exercises;  // listed by common's kernel_help
  for (const auto& kernel : histogram::kHistogramKernels) {
    if (!kernel.on_request) continue;
    names.emplace_back(kernel.name);
    exercises.push_back({kernel.name, kernel.summary, course::KernelTraits{.on_request = true}, kernel.launch});
  }
  lesson.add_kernel_option(selected, names);
  lesson.append_help(course::kernel_help(kernels()));
  lesson.append_help("With --histogram (naming one turns it on and adds its row):\n" +
                     course::kernel_help(std::span<const course::KernelEntry<histogram::HistogramFn>>(exercises)));
}

std::vector<std::string> take_histogram_exercises(std::vector<std::string>& selected) {
  std::vector<std::string> exercises;
  std::erase_if(selected, [&](const std::string& name) {
    for (const auto& kernel : histogram::kHistogramKernels) {
      if (kernel.on_request && name == kernel.name) {
        exercises.push_back(name);
        return true;
      }
    }
    return false;
  });
  return exercises;
}

}  // namespace mandelbrot
