// Lesson 06's kernel table, built from kernels/registry.inc (one line per method).
#include "fft_convolve.hpp"

namespace fft_convolve {

namespace {
constexpr course::KernelEntry<Launcher> kKernels[] = {
#define COURSE_KERNEL(name, summary, ...) {#name, summary, launch_##name},
#include "kernels/registry.inc"
#undef COURSE_KERNEL
};
}  // namespace

std::span<const course::KernelEntry<Launcher>> kernels() { return kKernels; }

const course::KernelEntry<Launcher>& kernel(std::string_view name) { return course::find_kernel(kernels(), name); }

}  // namespace fft_convolve
