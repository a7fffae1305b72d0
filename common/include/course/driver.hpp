// The CUDA driver API, loaded at run time, and RAII owners for its objects.
//
// Teaches: the driver API (cu* functions, libcuda) is the layer the runtime API (cuda* functions)
// is built on. With it a program does each step itself: initialise (cuInit), pick a device, make
// a context current, load compiled code (a module or a library), look up a kernel, allocate
// memory, create a stream, launch. Each owner below undoes its step in its destructor, so a
// failure half-way leaks nothing.
//
// libcuda.so.1 ships with the NVIDIA driver, not with the toolkit: a program linked against it
// cannot even start on a machine without the driver. The course loads it when first used
// (dlopen), so a lesson starts everywhere and says "no NVIDIA driver" instead of crashing.
// Calls then go through the table api() returns; its members carry the driver's own names:
//
//   const course::driver::Api& cu = course::driver::api();   // throws ResourceError without a driver
//   CU_CHECK(cu.cuInit(0));
//   course::driver::Device device = course::driver::Device::get(0);
//   course::driver::PrimaryContext context(device);           // retained and made current
//   course::driver::Module module(cubin.data());              // cuModuleLoadData
//   CUfunction saxpy = module.function("saxpy");
//
// Contexts: PrimaryContext is the device's one primary context, the same one the runtime uses,
// so driver and runtime calls can be mixed (memory from cuMemAlloc works in a <<<>>> launch and
// the reverse). CreatedContext (cuCtxCreate) is a separate context with its own memory and
// modules: for isolation, at the price of memory and switching. Link course::driver.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace course::driver {

// Every driver entry point the course calls. cuda.h maps several names to versioned symbols
// (cuMemAlloc is cuMemAlloc_v2): the table uses the same mapping, so it binds exactly the
// symbols a program linked against libcuda would.
#define COURSE_DRIVER_FUNCTIONS(X)                                                              \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)         \
  X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)              \
  X(cuDevicePrimaryCtxGetState) X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxSetCurrent)               \
  X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload)                  \
  X(cuModuleGetFunction) X(cuModuleGetFunctionCount) X(cuModuleEnumerateFunctions)              \
  X(cuFuncGetName) X(cuFuncGetAttribute) X(cuLibraryLoadData) X(cuLibraryUnload)                \
  X(cuLibraryGetKernel) X(cuLibraryGetKernelCount) X(cuLibraryEnumerateKernels)                 \
  X(cuKernelGetName) X(cuKernelGetFunction) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo)          \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemsetD8Async) X(cuStreamCreate)                \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuLaunchKernel)                                   \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

struct Api {
#define COURSE_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  COURSE_DRIVER_FUNCTIONS(COURSE_DRIVER_MEMBER)
#undef COURSE_DRIVER_MEMBER
};

// Loads libcuda.so.1 and every entry point, once per process (thread-safe). Throws
// course::ResourceError naming what is missing: no driver, or a driver too old for this build.
const Api& api();

// cuInit(0): the first driver call of a process. Cheap after the first time.
void init();
// GPUs the driver sees (after init()); 0 when CUDA_VISIBLE_DEVICES hides them all.
int device_count();

class Device {
 public:
  static Device get(int ordinal);  // cuDeviceGet, after init()

  CUdevice handle() const { return device_; }
  int ordinal() const { return ordinal_; }
  std::string name() const;
  int attribute(CUdevice_attribute attribute) const;
  int compute_capability() const;  // major * 10 + minor: 90 for 9.0
  int sm_count() const;

 private:
  Device(CUdevice device, int ordinal) : device_(device), ordinal_(ordinal) {}
  CUdevice device_ = 0;
  int ordinal_ = 0;
};

// The device's primary context: retained (created if nobody holds it yet) and made current on
// this thread; released at the end of scope (destroyed when the last holder releases it).
class PrimaryContext {
 public:
  explicit PrimaryContext(const Device& device);
  ~PrimaryContext();
  PrimaryContext(PrimaryContext&& other) noexcept
      : device_(other.device_), context_(std::exchange(other.context_, nullptr)), was_active_(other.was_active_) {}
  PrimaryContext& operator=(PrimaryContext&&) = delete;
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  CUcontext get() const { return context_; }
  void make_current() const;  // cuCtxSetCurrent: contexts are current per host thread
  // True when someone (the runtime, another library) had already created it: this retain
  // only shared it.
  bool was_active() const { return was_active_; }

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  bool was_active_ = false;
};

// A context of its own (cuCtxCreate; CUDA 13 passes CUctxCreateParams, nullptr for none):
// separate memory, modules and streams. Made current when created; destroyed at scope end.
class CreatedContext {
 public:
  explicit CreatedContext(const Device& device, unsigned flags = CU_CTX_SCHED_AUTO);
  ~CreatedContext();
  CreatedContext(CreatedContext&& other) noexcept : context_(std::exchange(other.context_, nullptr)) {}
  CreatedContext& operator=(CreatedContext&&) = delete;
  CreatedContext(const CreatedContext&) = delete;
  CreatedContext& operator=(const CreatedContext&) = delete;

  CUcontext get() const { return context_; }
  void make_current() const;

 private:
  CUcontext context_ = nullptr;
};

// The context current on this thread, nullptr if none.
CUcontext current_context();

// Compiled code loaded into the current context (cuModuleLoadData): CUBIN, PTX (the driver
// JIT-compiles it, NUL-terminated text) or a fatbin. Its kernels belong to that context.
class Module {
 public:
  explicit Module(const void* image);
  ~Module();
  Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}
  Module& operator=(Module&&) = delete;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUmodule get() const { return module_; }
  CUfunction function(const std::string& name) const;                   // throws ApiError if absent
  std::optional<CUfunction> find_function(const std::string& name) const;  // nullopt if absent
  std::vector<std::string> function_names() const;

 private:
  CUmodule module_ = nullptr;
};

// The same code loaded as a library (cuLibraryLoadData): not tied to a context. A CUkernel
// from it works in whatever context is current when it is launched; the driver loads it into
// each context on first use. Launch a CUkernel by casting it to CUfunction, or ask for the
// context's CUfunction with function().
class Library {
 public:
  explicit Library(const void* image);
  ~Library();
  Library(Library&& other) noexcept : library_(std::exchange(other.library_, nullptr)) {}
  Library& operator=(Library&&) = delete;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  CUlibrary get() const { return library_; }
  CUkernel kernel(const std::string& name) const;                   // throws ApiError if absent
  std::optional<CUkernel> find_kernel(const std::string& name) const;  // nullopt if absent
  std::vector<std::string> kernel_names() const;
  // cuKernelGetFunction: the kernel as loaded into the current context.
  CUfunction function(const std::string& name) const;

 private:
  CUlibrary library_ = nullptr;
};

// Device memory from cuMemAlloc (in the current context), freed with cuMemFree.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept
      : pointer_(std::exchange(other.pointer_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  CUdeviceptr get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr pointer_ = 0;
  std::size_t bytes_ = 0;
};

// A stream from cuStreamCreate (non-blocking by default: no implicit sync with stream 0).
// CUstream and the runtime's cudaStream_t are the same type: within one context either API
// can use it.
class Stream {
 public:
  explicit Stream(unsigned flags = CU_STREAM_NON_BLOCKING);
  ~Stream();
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  CUstream get() const { return stream_; }
  void synchronize() const;

 private:
  CUstream stream_ = nullptr;
};

// Blocks of `function` at `block_size` threads that fit on one SM at once (occupancy).
int max_active_blocks_per_sm(CUfunction function, int block_size, std::size_t dynamic_shared_bytes = 0);

}  // namespace course::driver
