// course_device_info: what GPU this machine has, and what it really delivers.
//
// Usage: course_device_info [--device N] [--has-gpu]
//   --has-gpu   print only whether a GPU is usable (exit 0) or why not (exit 1); scripts use it
// Prints the device's properties, then measures a device-to-device copy and pinned transfers:
// the ceilings the lessons are held against.
#include <CLI/CLI.hpp>

#include <iostream>

#include "course/ceilings.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/main.hpp"

namespace {

// The exit code, once what was printed is known to have arrived: with standard output on a full
// disk or a closed pipe the answer is lost, which is an error (exit 3), not a silent exit 0.
int printed(int code) {
  std::cout.flush();
  if (!std::cout) throw course::Error("cannot write the answer to standard output (a full disk or a closed pipe?)");
  return code;
}

int run(int argc, char** argv) {
  CLI::App app("Describes the GPU and measures its copy bandwidths", "course_device_info");
  int device = 0;
  bool has_gpu_only = false;
  app.add_option("--device", device, "index of the GPU")->check(CLI::Range(0, 1023));
  app.add_flag("--has-gpu", has_gpu_only, "only say whether a GPU is usable (exit 0) or not (exit 1)");
  course::parse_command_line(app, argc, argv);  // the lessons' rules: "0x1" and "+0" are not indices

  const course::GpuStatus status =
      course::open_gpu(device, !has_gpu_only && course::gpu_required_by_environment());
  if (has_gpu_only) {
    std::cout << (status.usable ? "usable: " + status.device->name : status.reason) << "\n";
    return printed(status.usable ? 0 : 1);
  }
  if (!status.usable) {
    std::cout << "No usable GPU: " << status.reason << "\n";
    return printed(0);
  }
  const course::DeviceInfo& info = *status.device;
  std::cout << info.one_line() << "\n"
            << "  threads per block (max)   " << info.max_threads_per_block << "\n"
            << "  threads per SM (max)      " << info.max_threads_per_sm << "\n"
            << "  copy engines              " << info.copy_engines << "\n"
            << "  peak SM clock             " << info.sm_clock_khz / 1000 << " MHz\n"
            << "  memory bus, peak clock    " << info.memory_bus_bits << " bit, " << info.memory_clock_khz / 1000
            << " MHz (datasheet-style bound " << course::format_fixed(info.theoretical_bandwidth_gbps(), 0)
            << " GB/s)\n"
            << "  CUDA start-up             " << course::format_fixed(status.context_creation_ms, 1)
            << " ms (driver load and context creation)\n\nMeasured now:\n";
  const course::RepeatOptions repeat{3, 20};
  for (std::size_t mib : {64, 256, 1024}) {
    const course::Ceiling copy = course::measure_device_copy(2 * mib << 20, repeat, true);
    std::cout << "  " << course::format_fixed(copy.value, 1) << " GB/s  " << copy.description << "\n";
  }
  for (cudaMemcpyKind kind : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
    const course::Ceiling pinned = course::measure_pinned_copy(256u << 20, kind, repeat);
    std::cout << "  " << course::format_fixed(pinned.value, 1) << " GB/s  " << pinned.description << "\n";
  }
  return printed(0);
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
