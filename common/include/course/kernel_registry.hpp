// A lesson's kernels as a list: one line per kernel, selected by name on the command line.
//
// Teaches (the course's way to grow a progression): a kernel is one file, kernels/NN_name.cu,
// defining launch_<name>(...) with the lesson's one launcher signature, plus one line in the
// lesson's kernels/registry.inc:
//
//   COURSE_KERNEL(add_float4, "16-byte loads and stores, grid-stride over groups of 4 floats")
//
// The lesson header turns the list into declarations and kernels/registry.cpp into a table:
//
//   #define COURSE_KERNEL(name, summary) Launch launch_##name(const AddArgs& args, cudaStream_t stream);
//   #include "kernels/registry.inc"
//   #undef COURSE_KERNEL
//
// main.cpp runs the kernels that --kernel selects, and the tests run every kernel in the table
// on awkward sizes, so a new kernel is reported and tested without another edit.
// This header is light on purpose: kernel files and lesson headers may include it.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "course/errors.hpp"

namespace course {

template <class Launcher>
struct KernelEntry {
  std::string_view name;     // the kernel's name, as --kernel takes it
  std::string_view summary;  // one line: the idea this kernel adds
  Launcher launch;
};

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
    bool wanted = all;
    for (const std::string& name : requested) wanted = wanted || kernel.name == name;
    if (wanted) selected.push_back(&kernel);
  }
  return selected;
}

}  // namespace course
