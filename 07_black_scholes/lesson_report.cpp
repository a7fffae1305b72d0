// Lesson 07: the model error, each row's errors per output, and options per second (lesson_report.hpp).
#include "lesson_report.hpp"

#include <cstdio>

#include "course/format.hpp"

namespace black_scholes {

namespace {

nlohmann::json stats_json(const ErrorStats& stats) {
  return {{"max_abs", stats.max_abs}, {"rel_l1", stats.rel_l1}, {"worst_index", stats.worst_index}};
}

nlohmann::json output_json(const course::VerifyResult& check) {
  return {{"max_abs", check.max_abs_error}, {"rel_l1", check.rel_l1_error}, {"bound", check.tolerance_text},
          {"passed", check.passed}};
}

// The factor K a row's call was held to (its bound's text is one of the group's), 0 if none.
double factor_of(const course::VerifyResult& call, const GroupSummary& group) {
  for (const auto& [factor, bounds] : group.bounds) {
    if (call.tolerance_text.rfind(bounds.call.describe(), 0) == 0) return factor;
  }
  return 0;
}

}  // namespace

nlohmann::json report_accuracy(const course::Report& report, const std::vector<GroupSummary>& groups) {
  nlohmann::json accuracy = nlohmann::json::array();
  for (const GroupSummary& group : groups) {
    nlohmann::json rows = nlohmann::json::array();
    for (const course::Row& row : report.rows()) {
      if (row.group != group.group || !row.time || row.outputs.size() != 2) continue;
      const double seconds = row.time->median_ms / 1e3;
      rows.push_back({{"variant", row.variant},
                      {"ms", row.time->median_ms},
                      {"options_per_s", seconds > 0 ? static_cast<double>(group.options) / seconds : 0.0},
                      {"factor", factor_of(row.outputs[0].check, group)},
                      {"call", output_json(row.outputs[0].check)},
                      {"put", output_json(row.outputs[1].check)}});
    }
    nlohmann::json bounds = nlohmann::json::array();
    for (const auto& [factor, tolerance] : group.bounds) {
      bounds.push_back({{"factor", factor},
                        {"max_kappa", tolerance.max_kappa},
                        {"max_abs", tolerance.call.max_abs},
                        {"call_rel_l1", tolerance.call.max_rel_l1},
                        {"put_rel_l1", tolerance.put.max_rel_l1}});
    }
    accuracy.push_back({{"group", group.group},
                        {"options", group.options},
                        {"bounds", bounds},
                        {"model_error", {{"call", stats_json(group.model.call)},
                                         {"put", stats_json(group.model.put)},
                                         {"bound", group.model.bound}}},
                        {"rows", rows}});
  }
  return accuracy;
}

void print_accuracy(const nlohmann::json& accuracy) {
  for (const auto& group : accuracy) {
    const auto& model = group["model_error"];
    const std::string options = course::format_count(group["options"].get<std::size_t>());
    std::printf("\n%s, %s options\n", group["group"].get<std::string>().c_str(), options.c_str());
    std::printf("Model error (polynomial CND against exact N(d), both in long double): call max abs %.2e, rel L1 %.2e; "
                "put max abs %.2e, rel L1 %.2e (bound 7.5e-8 (S + X e^-rT) = %.2e)\n",
                model["call"]["max_abs"].get<double>(), model["call"]["rel_l1"].get<double>(),
                model["put"]["max_abs"].get<double>(), model["put"]["rel_l1"].get<double>(), model["bound"].get<double>());
    std::printf("Arithmetic error: each row against the same formula in long double, |error| <= K u kappa\n");
    for (const auto& bound : group["bounds"]) {
      std::printf("  K = %g: abs <= %.2e (max kappa %.1f), rel L1 <= %.2e (call), %.2e (put)\n",
                  bound["factor"].get<double>(), bound["max_abs"].get<double>(), bound["max_kappa"].get<double>(),
                  bound["call_rel_l1"].get<double>(), bound["put_rel_l1"].get<double>());
    }
    std::printf("  %-54s %3s %10s %11s | %9s %9s | %9s %9s\n", "variant", "K", "ms", "options/s", "call abs",
                "call L1", "put abs", "put L1");
    for (const auto& row : group["rows"]) {
      std::printf("  %-54s %3g %10.4g %11.4g | %9.2e %9.2e | %9.2e %9.2e\n", row["variant"].get<std::string>().c_str(),
                  row["factor"].get<double>(), row["ms"].get<double>(), row["options_per_s"].get<double>(),
                  row["call"]["max_abs"].get<double>(), row["call"]["rel_l1"].get<double>(),
                  row["put"]["max_abs"].get<double>(), row["put"]["rel_l1"].get<double>());
    }
  }
}

int finish_with_accuracy(course::Lesson& lesson, const std::vector<GroupSummary>& groups, const Market& market) {
  const nlohmann::json accuracy = report_accuracy(lesson.report(), groups);
  lesson.record("accuracy", accuracy);
  lesson.record("market", {{"rate", market.rate}, {"volatility", market.volatility}});
  const int code = lesson.finish();
  print_accuracy(accuracy);
  return code;
}

}  // namespace black_scholes
