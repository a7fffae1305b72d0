// Loading libcuda at run time, and the driver API owners.
#include "course/driver.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "course/check_driver.hpp"
#include "course/errors.hpp"

namespace course::driver {

namespace {

#define COURSE_DRIVER_STRING_(name) #name
// Expands cuda.h's mapping first: COURSE_DRIVER_SYMBOL(cuMemAlloc) is "cuMemAlloc_v2".
#define COURSE_DRIVER_SYMBOL(name) COURSE_DRIVER_STRING_(name)

Api load_api() {
  // Never closed: the driver stays loaded for the life of the process (as it would if linked).
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    throw ResourceError(std::string("no NVIDIA driver is loaded: libcuda.so.1 could not be opened (") +
                        (reason ? reason : "unknown reason") + ")");
  }
  Api table;
  auto bind = [&](const char* symbol, void** slot) {
    *slot = dlsym(library, symbol);
    if (*slot == nullptr) {
      throw ResourceError(std::string("the NVIDIA driver is too old for this program: libcuda.so.1 has no ") +
                          symbol + " (built with the CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                          std::to_string(CUDA_VERSION % 1000 / 10) + " headers)");
    }
  };
#define COURSE_DRIVER_BIND(name) bind(COURSE_DRIVER_SYMBOL(name), reinterpret_cast<void**>(&table.name));
  COURSE_DRIVER_FUNCTIONS(COURSE_DRIVER_BIND)
#undef COURSE_DRIVER_BIND
  return table;
}

}  // namespace

const Api& api() {
  // A function-local static initialised once, thread-safe; if loading throws, the next call
  // tries again (and throws the same error).
  static const Api table = load_api();
  return table;
}

void init() { CU_CHECK(api().cuInit(0)); }

int device_count() {
  int count = 0;
  CU_CHECK(api().cuDeviceGetCount(&count));
  return count;
}

// ---- Device -----------------------------------------------------------------------------------
Device Device::get(int ordinal) {
  CUdevice device = 0;
  CU_CHECK(api().cuDeviceGet(&device, ordinal));
  return Device(device, ordinal);
}

std::string Device::name() const {
  char buffer[256] = {};
  CU_CHECK(api().cuDeviceGetName(buffer, static_cast<int>(sizeof(buffer)), device_));
  return buffer;
}

int Device::attribute(CUdevice_attribute which) const {
  int value = 0;
  CU_CHECK(api().cuDeviceGetAttribute(&value, which, device_));
  return value;
}

int Device::compute_capability() const {
  return attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
         attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
}

int Device::sm_count() const { return attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT); }

// ---- Contexts ---------------------------------------------------------------------------------
PrimaryContext::PrimaryContext(const Device& device) : device_(device.handle()) {
  unsigned flags = 0;
  int active = 0;
  CU_CHECK(api().cuDevicePrimaryCtxGetState(device_, &flags, &active));
  was_active_ = active != 0;
  CU_CHECK(api().cuDevicePrimaryCtxRetain(&context_, device_));
  try {
    make_current();
  } catch (...) {
    api().cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

PrimaryContext::~PrimaryContext() {
  // Releasing only drops this holder's reference; the runtime keeps its own.
  if (context_) api().cuDevicePrimaryCtxRelease(device_);
}

void PrimaryContext::make_current() const { CU_CHECK(api().cuCtxSetCurrent(context_)); }

CreatedContext::CreatedContext(const Device& device, unsigned flags) {
  // CUDA 13: cuCtxCreate(&context, CUctxCreateParams*, flags, device); nullptr asks for no
  // execution-affinity or CIG parameters. The new context is current on this thread.
  CU_CHECK(api().cuCtxCreate(&context_, nullptr, flags, device.handle()));
}

CreatedContext::~CreatedContext() {
  if (context_) api().cuCtxDestroy(context_);
}

void CreatedContext::make_current() const { CU_CHECK(api().cuCtxSetCurrent(context_)); }

CUcontext current_context() {
  CUcontext context = nullptr;
  CU_CHECK(api().cuCtxGetCurrent(&context));
  return context;
}

// ---- Module -----------------------------------------------------------------------------------
Module::Module(const void* image) { CU_CHECK(api().cuModuleLoadData(&module_, image)); }

Module::~Module() {
  if (module_) api().cuModuleUnload(module_);
}

CUfunction Module::function(const std::string& name) const {
  CUfunction function = nullptr;
  CU_CHECK(api().cuModuleGetFunction(&function, module_, name.c_str()));
  return function;
}

std::optional<CUfunction> Module::find_function(const std::string& name) const {
  CUfunction function = nullptr;
  const CUresult status = api().cuModuleGetFunction(&function, module_, name.c_str());
  if (status == CUDA_ERROR_NOT_FOUND) return std::nullopt;
  CU_CHECK(status);
  return function;
}

std::vector<std::string> Module::function_names() const {
  unsigned count = 0;
  CU_CHECK(api().cuModuleGetFunctionCount(&count, module_));
  std::vector<CUfunction> functions(count);
  if (count > 0) CU_CHECK(api().cuModuleEnumerateFunctions(functions.data(), count, module_));
  std::vector<std::string> names;
  for (CUfunction function : functions) {
    const char* name = nullptr;
    CU_CHECK(api().cuFuncGetName(&name, function));
    names.emplace_back(name);
  }
  return names;
}

// ---- Library ----------------------------------------------------------------------------------
Library::Library(const void* image) {
  // No JIT options, no library options: the same image cuModuleLoadData takes.
  CU_CHECK(api().cuLibraryLoadData(&library_, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
}

Library::~Library() {
  if (library_) api().cuLibraryUnload(library_);
}

CUkernel Library::kernel(const std::string& name) const {
  CUkernel kernel = nullptr;
  CU_CHECK(api().cuLibraryGetKernel(&kernel, library_, name.c_str()));
  return kernel;
}

std::optional<CUkernel> Library::find_kernel(const std::string& name) const {
  CUkernel kernel = nullptr;
  const CUresult status = api().cuLibraryGetKernel(&kernel, library_, name.c_str());
  if (status == CUDA_ERROR_NOT_FOUND) return std::nullopt;
  CU_CHECK(status);
  return kernel;
}

std::vector<std::string> Library::kernel_names() const {
  unsigned count = 0;
  CU_CHECK(api().cuLibraryGetKernelCount(&count, library_));
  std::vector<CUkernel> kernels(count);
  if (count > 0) CU_CHECK(api().cuLibraryEnumerateKernels(kernels.data(), count, library_));
  std::vector<std::string> names;
  for (CUkernel kernel : kernels) {
    const char* name = nullptr;
    CU_CHECK(api().cuKernelGetName(&name, kernel));
    names.emplace_back(name);
  }
  return names;
}

CUfunction Library::function(const std::string& name) const {
  CUfunction function = nullptr;
  CU_CHECK(api().cuKernelGetFunction(&function, kernel(name)));
  return function;
}

// ---- Memory and streams -----------------------------------------------------------------------
DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) CU_CHECK(api().cuMemAlloc(&pointer_, bytes));
}

DeviceMemory::~DeviceMemory() {
  if (pointer_) api().cuMemFree(pointer_);
}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    if (pointer_) api().cuMemFree(pointer_);
    pointer_ = std::exchange(other.pointer_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Stream::Stream(unsigned flags) { CU_CHECK(api().cuStreamCreate(&stream_, flags)); }

Stream::~Stream() {
  if (stream_) api().cuStreamDestroy(stream_);
}

void Stream::synchronize() const { CU_CHECK(api().cuStreamSynchronize(stream_)); }

int max_active_blocks_per_sm(CUfunction function, int block_size, std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  CU_CHECK(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, block_size, dynamic_shared_bytes));
  return blocks;
}

}  // namespace course::driver
