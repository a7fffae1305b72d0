// Lesson 07: what the lesson prints beyond the harness's table: for each precision the model
// error (polynomial CND against the exact CND) apart from each row's arithmetic error (call and
// put, max abs and relative L1, against their bounds), and each row's rate in options per second.
// finish_with_accuracy is main.cpp's ending: the accuracy and the market in the JSON, then the
// harness's verdict, then the accuracy printed.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "black_scholes.hpp"
#include "course/harness.hpp"
#include "course/report.hpp"
#include "precision_run.hpp"

namespace black_scholes {

struct GroupSummary {
  std::string group;  // "FP32", "FP64"
  std::size_t options = 0;
  ModelError model;
  std::vector<std::pair<double, PriceTolerances>> bounds;  // factor K and the bounds it gives
};

// One precision's model error and the bounds of every factor K its kernels are held to.
template <class T>
GroupSummary summary_of(PrecisionRun<T>& run, std::span<const course::KernelEntry<Launcher>> table) {
  GroupSummary summary{std::string(course::precision_name(course::precision_of<T>)), run.size(), run.model(), {}};
  std::vector<double> factors{kAccurateFactor};
  for (const auto& kernel : table) {
    const double factor = error_factor(kernel.traits);
    const bool runs = course::includes(kernel.traits.precisions, course::precision_of<T>);
    if (runs && std::find(factors.begin(), factors.end(), factor) == factors.end()) factors.push_back(factor);
  }
  for (const double factor : factors) summary.bounds.emplace_back(factor, run.tolerances(factor));
  return summary;
}

// Prints the model errors and the table of errors and rates; returns the same as JSON.
nlohmann::json report_accuracy(const course::Report& report, const std::vector<GroupSummary>& groups);
void print_accuracy(const nlohmann::json& accuracy);

// After the rows ran: the accuracy of each group (report_accuracy) and the market in the report's
// JSON, lesson.finish() (the table's verdict), then print_accuracy. Returns finish()'s exit code.
int finish_with_accuracy(course::Lesson& lesson, const std::vector<GroupSummary>& groups, const Market& market);

}  // namespace black_scholes
