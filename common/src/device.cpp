// GPU discovery, properties, and memory checks made before allocating.
#include "course/device.hpp"

#include <cuda_runtime_api.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "course/check.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/timing.hpp"

namespace course {

namespace detail {
// device_probe.cu: throws ResourceError when this build has no code the device can run.
void check_build_runs_on(const DeviceInfo& device);
}  // namespace detail

namespace {

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

DeviceInfo query_device(int index) {
  DeviceInfo info;
  info.index = index;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.global_memory_bytes = prop.totalGlobalMem;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, index);
  info.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, index));
  info.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, index);
  info.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, index);
  info.sm_clock_khz = attribute(cudaDevAttrClockRate, index);
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
  info.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  info.copy_engines = attribute(cudaDevAttrAsyncEngineCount, index);
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string reason_for(cudaError_t status) {
  std::string reason;
  switch (status) {
    case cudaErrorNoDevice: reason = "no CUDA-capable GPU was found"; break;
    case cudaErrorInsufficientDriver:
      reason = "no NVIDIA driver is loaded, or it is older than this CUDA runtime needs";
      break;
    case cudaErrorDevicesUnavailable: reason = "every GPU is busy or unavailable"; break;
    default:
      reason = std::string("CUDA could not start: ") + cudaGetErrorName(status) + " (" +
               cudaGetErrorString(status) + ")";
  }
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    reason += std::string(" (CUDA_VISIBLE_DEVICES=\"") + visible + "\")";
  }
  return reason;
}

}  // namespace

std::string DeviceInfo::compute_capability() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

double DeviceInfo::theoretical_bandwidth_gbps() const {
  return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9;
}

std::string DeviceInfo::one_line() const {
  std::ostringstream out;
  out << name << " (compute capability " << compute_capability() << ", " << sm_count << " SMs, "
      << format_bytes(static_cast<double>(l2_bytes)) << " L2, "
      << format_bytes(static_cast<double>(global_memory_bytes)) << "), driver CUDA "
      << version_text(driver_version) << ", runtime CUDA " << version_text(runtime_version);
  return out.str();
}

bool gpu_required_by_environment() {
  // 1, true, yes, on: required; unset, "", 0, false, no, off: not. Anything else is a mistake
  // whose meaning is not guessed.
  const char* value = std::getenv("COURSE_REQUIRE_GPU");
  if (value == nullptr) return false;
  std::string text = value;
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text.empty() || text == "0" || text == "false" || text == "no" || text == "off") return false;
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  throw UsageError("COURSE_REQUIRE_GPU=" + std::string(value) + ": give 1 (a GPU is required) or 0 (it is not)");
}

GpuStatus probe_gpu(int index) {
  GpuStatus status;
  int count = 0;
  const cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for the next CUDA call
    status.reason = reason_for(result);
    return status;
  }
  status.device_count = count;
  if (count == 0) {
    status.reason = reason_for(cudaErrorNoDevice);
    return status;
  }
  if (index < 0 || index >= count) {
    throw UsageError("--device: GPU " + std::to_string(index) + " does not exist; this machine has " +
                     std::to_string(count) + " (0 to " + std::to_string(count - 1) + ")");
  }
  status.device = query_device(index);
  if (status.device->cc_major * 10 + status.device->cc_minor < 75) {
    status.reason = status.device->name + " has compute capability " + status.device->compute_capability() +
                    "; CUDA 13 and this course need 7.5 (Turing) or newer";
    return status;
  }
  status.usable = true;
  return status;
}

GpuStatus probe_gpu(int index, bool required) {
  GpuStatus status = probe_gpu(index);
  if (!status.usable && required) {
    throw ResourceError("a GPU is required (--require-gpu or COURSE_REQUIRE_GPU) but none is usable: " +
                        status.reason);
  }
  return status;
}

GpuStatus open_gpu(int index, bool required) {
  HostTimer init_timer;
  GpuStatus status = probe_gpu(index, required);
  if (!status.usable) return status;
  CUDA_CHECK(cudaSetDevice(index));
  CUDA_CHECK(cudaFree(nullptr));  // forces the context to exist now, so its cost is measured here
  status.context_creation_ms = init_timer.elapsed_ms();
  detail::check_build_runs_on(*status.device);
  return status;
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes) {
    throw ResourceError("out of GPU memory: " + what + " needs " + format_bytes(static_cast<double>(bytes)) +
                        " but the GPU has " + format_bytes(static_cast<double>(free_bytes)) + " free of " +
                        format_bytes(static_cast<double>(total_bytes)) + "; use a smaller size");
  }
}

namespace {
// A number from a one-line file (cgroup's memory.max, memory.current); nullopt for "max" or none.
std::optional<std::size_t> number_in(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(std::stoull(text));
}

// What this process may still take under its own limits: the address-space limit (ulimit -v)
// less what it has mapped, and its cgroup v2 memory.max less memory.current (containers, CI).
std::optional<std::size_t> process_headroom() {
  std::optional<std::size_t> headroom;
  auto lower = [&](std::size_t value) { headroom = headroom ? std::min(*headroom, value) : value; };
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    statm >> pages;
    const std::size_t mapped = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    lower(limit.rlim_cur > mapped ? static_cast<std::size_t>(limit.rlim_cur) - mapped : 0);
  }
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroup, line)) {
    if (line.rfind("0::", 0) != 0) continue;  // cgroup v2's one line
    const std::string folder = "/sys/fs/cgroup" + line.substr(3);
    const std::optional<std::size_t> most = number_in(folder + "/memory.max");
    const std::optional<std::size_t> used = number_in(folder + "/memory.current");
    if (most) lower(*most > used.value_or(0) ? *most - used.value_or(0) : 0);
  }
  return headroom;
}
}  // namespace

std::size_t available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  std::size_t available = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
  }
  // The process's own limits count too: `ulimit -v` or a container's cap below the machine's memory.
  if (const std::optional<std::size_t> headroom = process_headroom()) {
    available = available == 0 ? std::max<std::size_t>(*headroom, 1) : std::min(available, std::max<std::size_t>(*headroom, 1));
  }
  return available;
}

HostInfo describe_host() {
  HostInfo host;
  host.logical_cpus = std::thread::hardware_concurrency();
  // x86 writes "model name", 64-bit ARM kernels often only "Model" (a board) or nothing.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (host.cpu.empty() && std::getline(cpuinfo, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key != "model name" && key != "Model") continue;
    std::string value;  // the name, with runs of spaces collapsed (some CPUs pad theirs)
    for (const char c : line.substr(colon + 1)) {
      if (c == ' ' || c == '\t') {
        if (!value.empty() && value.back() != ' ') value += ' ';
      } else {
        value += c;
      }
    }
    if (!value.empty() && value.back() == ' ') value.pop_back();
    host.cpu = value;
  }
  if (host.cpu.empty()) host.cpu = "unknown CPU";
  return host;
}

std::string HostInfo::one_line() const {
  return cpu + (logical_cpus ? ", " + std::to_string(logical_cpus) + " logical CPUs" : std::string());
}

void require_host_memory(std::size_t bytes, const std::string& what) {
  const std::size_t available = available_host_memory();
  if (available != 0 && bytes > available) {
    throw ResourceError("out of host memory: " + what + " needs " + format_bytes(static_cast<double>(bytes)) +
                        " but only " + format_bytes(static_cast<double>(available)) +
                        " is available; use a smaller size");
  }
}

}  // namespace course
