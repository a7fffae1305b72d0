// A lesson's kernels as a list: one line per kernel, with what the kernel is.
//
// Teaches (the course's way to grow a progression): a kernel is one file, kernels/NN_name.cu,
// defining launch_<name>(...), plus one line in the lesson's kernels/registry.inc that says
// what the kernel is, so no lesson compares kernel names to decide how to run or report one:
//
//   COURSE_KERNEL(naive, "one thread per element of C", .max_reps = 3)
//   COURSE_KERNEL(one_pass, "the grid covers the array once", .headline = true)
//   COURSE_KERNEL(classic, "one thread per option", .precisions = course::Precisions::both)
//
// The tail of a line is a course::KernelTraits in designated-initializer form (in declaration
// order; braces would not protect its commas inside a macro argument, so it is the macro's
// variadic tail). The lesson header turns the list into declarations and a table:
//
//   #define COURSE_KERNEL(name, summary, ...) Launch launch_##name(const AddArgs&, cudaStream_t);
//   #include "kernels/registry.inc"
//   #undef COURSE_KERNEL
//   inline constexpr course::KernelEntry<Launcher> kKernelTable[] = {
//   #define COURSE_KERNEL COURSE_KERNEL_ENTRY
//   #include "kernels/registry.inc"
//   #undef COURSE_KERNEL
//   };
//   COURSE_KERNEL_ACCESSORS(Launcher, kKernelTable)   // kernels() and kernel(name)
//
// A lesson computing in float and double declares each launcher as a template, defined and
// explicitly instantiated for both in its kernel file, uses course::TypedLauncher as its
// Launcher and COURSE_TYPED_KERNEL_ENTRY: one line, one entry, both instantiations. The
// `precisions` trait says which of them the lesson runs and tests.
//
// main.cpp runs the kernels that --kernel selects (Lesson::add_kernels), and the tests run
// every kernel in the table on awkward sizes, so a new kernel is reported and tested without
// another edit. This header is light on purpose: kernel files and lesson headers include it.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "course/errors.hpp"
#include "course/precision.hpp"

namespace course {

// The precisions a kernel is built and run for (a set: f32 | f64 = both).
enum class Precisions : unsigned { f32 = 1, f64 = 2, both = 3 };

constexpr bool includes(Precisions set, Precision precision) {
  const unsigned bit = precision == Precision::fp32 ? 1u : 2u;
  return (static_cast<unsigned>(set) & bit) != 0;
}

// The precisions of a set, FP32 first.
inline std::vector<Precision> precisions_in(Precisions set) {
  std::vector<Precision> list;
  if (includes(set, Precision::fp32)) list.push_back(Precision::fp32);
  if (includes(set, Precision::fp64)) list.push_back(Precision::fp64);
  return list;
}

// What a kernel is, beyond its code. Designated-initializer order = declaration order.
struct KernelTraits {
  bool headline = false;                   // the kernel the summary quotes (one per lesson and precision)
  Precisions precisions = Precisions::f32;  // which instantiations the lesson runs
  int max_reps = 0;                        // a slow kernel: cap on timed repetitions (0: no cap)
  double max_ulp = 0;                      // accuracy it promises, in ULP (0: the lesson's default)
  double ulp_per_abs_input = 0;            // the promise grows with the input: max_ulp + floor(this * max|x|)
  bool expected_to_fail = false;           // a teaching row whose check is expected to fail
  int min_cc = 0;                          // compute capability it needs as 10 x major + minor (90: sm_90's
                                           // bulk copy); 0: any. Older GPUs list its row as skipped, saying why
  std::string_view tuning = "";            // its tuning variants, in words ("TM 4, 8; TN 4, 8"): --help lists them
  bool on_request = false;                 // a "make it fast" exercise's kernel (NN/exercises/kernels/): it runs
                                           // only when --kernel names it, never in the default run or "all"
};

// Why a GPU of compute capability major.minor cannot run a kernel with these traits ("" if it can).
inline std::string unsupported_reason(const KernelTraits& traits, int cc_major, int cc_minor) {
  if (traits.min_cc == 0 || cc_major * 10 + cc_minor >= traits.min_cc) return "";
  return "needs compute capability " + std::to_string(traits.min_cc / 10) + "." + std::to_string(traits.min_cc % 10) +
         " or newer (this GPU is " + std::to_string(cc_major) + "." + std::to_string(cc_minor) + ")";
}

// The ULP bound a kernel promises for inputs up to `max_abs_input` in magnitude: its own
// max_ulp (or `default_ulp`), plus the part that grows with the input (CUDA's __expf promises
// 2 + floor(|1.173 x|) ulp: .max_ulp = 2, .ulp_per_abs_input = 1.173).
inline double promised_ulp(const KernelTraits& traits, double max_abs_input, double default_ulp) {
  const double base = traits.max_ulp > 0 ? traits.max_ulp : default_ulp;
  return base + std::floor(traits.ulp_per_abs_input * max_abs_input);
}

template <class Launcher>
struct KernelEntry {
  std::string_view name;     // the kernel's name, as --kernel takes it
  std::string_view summary;  // one line: the idea this kernel adds
  KernelTraits traits;
  Launcher launch;
};

// A float and a double instantiation of one kernel, for lessons that compute in both:
//   template <class T> using PriceFn = void (*)(const PricingArgs<T>&, cudaStream_t);
//   using Launcher = course::TypedLauncher<PriceFn>;    kernel.launch.get<T>()(args, stream)
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
struct is_typed_launcher : std::false_type {};
template <template <class> class Fn>
struct is_typed_launcher<TypedLauncher<Fn>> : std::true_type {};
template <class Launcher>
inline constexpr bool is_typed_launcher_v = is_typed_launcher<Launcher>::value;

template <class Launcher>
std::vector<std::string> kernel_names(std::span<const KernelEntry<Launcher>> kernels) {
  std::vector<std::string> names;
  for (const auto& kernel : kernels) names.emplace_back(kernel.name);
  return names;
}

// The entry named `name` (std::out_of_range if there is none): a lesson's kernel(name).
template <class Launcher>
const KernelEntry<Launcher>& find_kernel(std::span<const KernelEntry<Launcher>> kernels, std::string_view name) {
  for (const auto& kernel : kernels) {
    if (kernel.name == name) return kernel;
  }
  throw std::out_of_range("no kernel named " + std::string(name));
}

// The kernel the summary quotes for `precision`: the one entry with .headline = true that is
// built for it. A table with none, or with two, is a mistake in the registry (std::logic_error).
template <class Launcher>
const KernelEntry<Launcher>& headline_kernel(std::span<const KernelEntry<Launcher>> kernels,
                                             Precision precision = Precision::fp32) {
  const KernelEntry<Launcher>* found = nullptr;
  for (const auto& kernel : kernels) {
    if (!kernel.traits.headline || !includes(kernel.traits.precisions, precision)) continue;
    if (found) {
      throw std::logic_error("kernel registry: two headline kernels for " + std::string(precision_name(precision)) +
                             ": " + std::string(found->name) + " and " + std::string(kernel.name));
    }
    found = &kernel;
  }
  if (!found) {
    throw std::logic_error("kernel registry: no headline kernel for " + std::string(precision_name(precision)));
  }
  return *found;
}

// The kernels named in `requested`, in the registry's order; "all" (or nothing) selects every
// one. An unknown name is a command-line error that lists the names there are.
template <class Launcher>
std::vector<const KernelEntry<Launcher>*> select_kernels(std::span<const KernelEntry<Launcher>> kernels,
                                                         const std::vector<std::string>& requested) {
  bool all = requested.empty();
  for (const std::string& name : requested) {
    if (name == "all") {
      all = true;
      continue;
    }
    bool known = false;
    for (const auto& kernel : kernels) known = known || kernel.name == name;
    if (!known) {
      std::string names;
      for (const auto& kernel : kernels) names += std::string(kernel.name) + ", ";
      throw UsageError("--kernel: no kernel named '" + name + "' (choose from: " + names + "all)");
    }
  }
  std::vector<const KernelEntry<Launcher>*> selected;
  for (const auto& kernel : kernels) {
    bool wanted = all && !kernel.traits.on_request;  // an exercise's kernel: only by name
    for (const std::string& name : requested) wanted = wanted || kernel.name == name;
    if (wanted) selected.push_back(&kernel);
  }
  return selected;
}

// One line per kernel for --help: "  name  summary [FP32, FP64] (tuning: ...)".
template <class Launcher>
std::string kernel_help(std::span<const KernelEntry<Launcher>> kernels) {
  std::size_t width = 0;
  for (const auto& kernel : kernels) width = std::max(width, kernel.name.size());
  std::string text = "Kernels (--kernel NAME):\n";
  for (const auto& kernel : kernels) {
    text += "  " + std::string(kernel.name) + std::string(width + 2 - kernel.name.size(), ' ') +
            std::string(kernel.summary);
    if (kernel.traits.precisions == Precisions::both) text += " [FP32, FP64]";
    if (kernel.traits.precisions == Precisions::f64) text += " [FP64]";
    if (kernel.traits.headline) text += " (headline)";
    if (kernel.traits.on_request) text += " (an exercise: runs only when --kernel names it)";
    if (!kernel.traits.tuning.empty()) text += " (tuning: " + std::string(kernel.traits.tuning) + ")";
    text += "\n";
  }
  return text;
}

}  // namespace course

// The table builder: one entry per registry line. In the lesson header, between the list's
// declarations and COURSE_KERNEL_ACCESSORS (see the top of this file).
#define COURSE_KERNEL_ENTRY(name, summary, ...) {#name, summary, ::course::KernelTraits{__VA_ARGS__}, &launch_##name},
#define COURSE_TYPED_KERNEL_ENTRY(name, summary, ...) \
  {#name, summary, ::course::KernelTraits{__VA_ARGS__}, {&launch_##name<float>, &launch_##name<double>}},

// kernels(): the table; kernel(name): one entry (std::out_of_range if there is none).
#define COURSE_KERNEL_ACCESSORS(Launcher, table)                                                      \
  inline std::span<const ::course::KernelEntry<Launcher>> kernels() { return table; }                 \
  inline const ::course::KernelEntry<Launcher>& kernel(std::string_view kernel_name) {                \
    return ::course::find_kernel(kernels(), kernel_name);                                              \
  }
