// Lesson 06, deep dive: the summed-area table's build timed on its own (see sat_rows.hpp).
//
// Teaches: a scan is memory-bound. Building the table reads each pixel (4 bytes) and writes one
// double (8 bytes); everything else (the column pass reading and rewriting the table, the band
// totals) is traffic a better scan avoids. The row is held against the device copy counting those
// 12 bytes, so its "of ceil" says how close the build is to moving only what it must.
#include "sat_rows.hpp"

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/kernel_registry.hpp"
#include "sat.hpp"

namespace fft_convolve::sat {

void add_table_rows(course::Lesson& lesson, const Image& image, const Filter& filter,
                    const std::vector<std::string>& selected, TableRows& rows) {
  if (!box_problem(filter).empty()) return;
  auto tables = course::select_kernels(kernels(), selected);  // what --kernel selected (every one by default)
  std::erase_if(tables, [](const auto* kernel) { return !is_table_method(kernel->name); });
  if (tables.empty()) return;  // no table method among them: no CPU table to build either
  rows.reference = table_cpu(image);
  rows.host.resize(rows.reference.size());
  double sum_abs = 0;
  for (const float x : image.pixels) sum_abs += std::fabs(static_cast<double>(x));
  // Building the table adds at most (W + H) u |T| to an entry, whatever order the additions take.
  rows.allowed_error = (image.width + image.height + 2) * std::ldexp(1.0, -52) * sum_abs;
  const double bytes = 12.0 * static_cast<double>(image.size());

  auto& inputs = lesson.add_setup("summed-area table rows: the image to the device", [&rows, &image] {
    rows.d_input = course::DeviceBuffer<float>(image.size(), "summed-area table rows: image");
    rows.d_input.copy_from_host(image.pixels);
    rows.d_output = course::DeviceBuffer<float>(image.size(), "summed-area table rows: output");
  });
  rows.problems.reserve(tables.size());  // stable addresses: the methods keep a copy, the rows a pointer
  rows.methods.reserve(tables.size());
  for (const auto* kernel : tables) {
    const std::size_t index = rows.methods.size();
    rows.methods.emplace_back();
    rows.problems.push_back({image.width, image.height, &filter, nullptr, nullptr, nullptr, false});
    course::Variant v{.name = "GPU " + std::string(kernel->name) + ": the table alone", .target = course::Target::gpu,
                      .unit = course::units::bandwidth(), .work = bytes, .ceiling = "d2d_copy"};
    v.setup = {inputs, lesson.add_setup("", [&rows, index, launch = kernel->launch] {  // the row's own step: the method
                 GpuProblem& p = rows.problems[index];
                 p.input = &rows.d_input;
                 p.output = &rows.d_output;
                 rows.methods[index] = launch(p);
                 rows.methods[index]->setup(nullptr);
                 CUDA_CHECK(cudaDeviceSynchronize());
               })};
    v.run = [&rows, index](cudaStream_t stream) {
      dynamic_cast<TableBuilder&>(*rows.methods[index]).build_table(stream);
    };
    v.check = {[&rows, index] {
                 if (rows.methods[index]) {
                   const auto& table = dynamic_cast<TableBuilder&>(*rows.methods[index]).table();
                   CUDA_CHECK(cudaMemset(table.data(), 0xFF, table.bytes()));  // NaN until the build writes it
                 }
               },
               [&rows, index] {
                 dynamic_cast<TableBuilder&>(*rows.methods[index]).table().copy_to_host(rows.host);
                 return course::verify(std::span<const double>(rows.host), course::reference_of(rows.reference),
                                       course::Tolerance::relative(0, rows.allowed_error));
               }};
    v.note = "the table alone (every pass of the build), every entry within (W + H) 2^-52 sum|x| of the CPU's";
    lesson.add(std::move(v));
  }
}

}  // namespace fft_convolve::sat
