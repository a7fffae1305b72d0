// Finding the GPU, describing it, and checking that a run fits in its memory.
//
// Teaches: a CUDA program must cope with machines that have no GPU, no driver, or a GPU the
// build has no code for, and say which in words. The properties that bound performance (SM
// count, L2 size, memory size) are read from the device, never assumed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace course {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_bytes = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int sm_clock_khz = 0;       // peak SM clock
  int memory_clock_khz = 0;   // peak memory clock
  int memory_bus_bits = 0;
  int copy_engines = 0;       // asynchronous engines: 2 lets H2D and D2H copies run at once
  int driver_version = 0;     // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;

  std::string compute_capability() const;  // "9.0"
  // Datasheet-style bound from clocks and bus width (double data rate); a lead, not a ceiling.
  double theoretical_bandwidth_gbps() const;
  std::string one_line() const;  // name, capability, SMs, L2, memory, CUDA versions
};

struct GpuStatus {
  bool usable = false;
  std::string reason;        // why not usable, in words ("no NVIDIA driver is loaded", ...)
  int device_count = 0;
  std::optional<DeviceInfo> device;
  double context_creation_ms = 0;  // the first CUDA call's cost: driver load and context creation
};

// True when the environment variable COURSE_REQUIRE_GPU is set to anything but "" or "0".
bool gpu_required_by_environment();

// Looks for GPUs without failing: the status says whether device `index` can be used and, if
// not, why. Throws course::UsageError when GPUs exist but `index` is not one of them.
GpuStatus probe_gpu(int index);
// The same, and not usable while `required`: throws course::ResourceError. Creates no context.
GpuStatus probe_gpu(int index, bool required);

// probe_gpu, then makes the device current, creates its context (timed) and checks that this
// build contains code for it. Not usable and `required`: throws course::ResourceError.
GpuStatus open_gpu(int index, bool required);

// Throws course::ResourceError ("out of GPU memory: ...") when `bytes` exceed what is free on
// the current device, before anything is allocated. `what` names the run, e.g. "2 x 40 MB".
void require_device_memory(std::size_t bytes, const std::string& what);
// The same for host memory, against the kernel's MemAvailable: a run that cannot fit fails
// with a clear message instead of being killed by the out-of-memory killer half-way.
void require_host_memory(std::size_t bytes, const std::string& what);
// Free bytes reported by the OS (MemAvailable), lowered to the process's own limits (ulimit -v,
// a cgroup v2 memory.max), 0 if unknown.
std::size_t available_host_memory();

// The host's CPU, to label results with: its model name as the OS reports it ("unknown CPU"
// where it does not) and how many logical CPUs the OS shows this process's machine.
struct HostInfo {
  std::string cpu;
  unsigned logical_cpus = 0;
  std::string one_line() const;  // "Intel(R) Xeon(R) Processor, 16 logical CPUs"
};
HostInfo describe_host();

}  // namespace course
