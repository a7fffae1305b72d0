// Lesson 04: the table of kernels, built from kernels/registry.inc (one line per kernel).
#include "matmul.hpp"

namespace matmul {

namespace {
constexpr KernelInfo kKernels[] = {
#define COURSE_KERNEL(name, summary) {#name, summary, launch_##name},
#include "kernels/registry.inc"
#undef COURSE_KERNEL
};
}  // namespace

std::span<const KernelInfo> registry() { return kKernels; }

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& kernel : kKernels) {
    if (kernel.name == name) return &kernel;
  }
  return nullptr;
}

}  // namespace matmul
