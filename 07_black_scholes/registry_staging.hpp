// TEMPORARY: the registry types of the harness's second step (course/kernel_registry.hpp), in
// this lesson's namespace until that step lands on main; then this file goes and the lesson
// uses course:: directly.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "course/kernel_registry.hpp"

namespace course {
enum class Precisions : unsigned { f32 = 1, f64 = 2, both = 3 };
}  // namespace course

namespace black_scholes::staging {

enum class Precision { fp32, fp64 };
constexpr bool includes(course::Precisions set, Precision precision) {
  const unsigned bit = precision == Precision::fp32 ? 1u : 2u;
  return (static_cast<unsigned>(set) & bit) != 0;
}

struct KernelTraits {
  bool headline = false;
  course::Precisions precisions = course::Precisions::f32;
  int max_reps = 0;
  double max_ulp = 0;
  double ulp_per_abs_input = 0;
  bool expected_to_fail = false;
  std::string_view tuning = "";
};

template <template <class> class Fn>
struct TypedLauncher {
  Fn<float> f32;
  Fn<double> f64;
  template <class T>
  constexpr Fn<T> get() const {
    if constexpr (std::is_same_v<T, double>) {
      return f64;
    } else {
      return f32;
    }
  }
};

template <class Launcher>
struct KernelEntry {
  std::string_view name;
  std::string_view summary;
  KernelTraits traits;
  Launcher launch;
};

template <class Launcher>
std::vector<std::string> kernel_names(std::span<const KernelEntry<Launcher>> kernels) {
  std::vector<std::string> names;
  for (const auto& kernel : kernels) names.emplace_back(kernel.name);
  return names;
}

}  // namespace black_scholes::staging

#define COURSE_TYPED_KERNEL_ENTRY(name, summary, ...) \
  {#name, summary, ::black_scholes::staging::KernelTraits{__VA_ARGS__}, {&launch_##name<float>, &launch_##name<double>}},
