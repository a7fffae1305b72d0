// Lesson 08, the walkthrough: NVRTC and the driver API's steps, each printed with its time.
//
// Teaches: the cost of each step the runtime API takes at its first call, measured one by one:
// compiling (NVRTC's start-up, CUBIN, PTX), the primary context, loading a module and a library,
// the driver's JIT with its cache cold and warm. See saxpy_steps.hpp.
#include "saxpy_steps.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "course/check_driver.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/nvrtc.hpp"
#include "course/timing.hpp"

namespace driver_saxpy {

namespace {

void print_compiled(const char* what, const Compiled& compiled) {
  std::printf("  NVRTC %-44s %9s ms  %s\n", (std::string(what) + " (" + compiled.target.architecture() + ")").c_str(),
              course::format_ms(compiled.compile_ms).c_str(),
              course::format_bytes(static_cast<double>(compiled.image.size())).c_str());
}

nlohmann::json compiled_json(const Compiled& compiled) {
  return {{"target", compiled.target.architecture()}, {"options", compiled.options},
          {"compile_ms", compiled.compile_ms}, {"bytes", compiled.image.size()}};
}

// Free device memory through the driver (cudaMemGetInfo would make the runtime open the GPU).
void require_driver_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CU_CHECK(course::driver::api().cuMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes) {
    throw course::ResourceError("out of GPU memory: " + what + " needs " +
                                course::format_bytes(static_cast<double>(bytes)) + " but the GPU has " +
                                course::format_bytes(static_cast<double>(free_bytes)) + " free; use a smaller size");
  }
}

}  // namespace

// ---- The options ----------------------------------------------------------------------------
void add_options(CLI::App& app, Options& o) {
  app.add_option("-a", o.a, "the scalar a (a finite float)")->capture_default_str();
  app.add_option("--block", o.block, "threads per block")->check(CLI::Range(1, 1024))->capture_default_str();
  app.add_option("--grid", o.grid, "blocks of the lesson's kernel (0 = 4 waves of what fits on the GPU)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  CLI::Option* file_option = app.add_option(
      "--kernel-file", o.kernel_file,
      "compile and run your own kernel source instead of the lesson's (parameters: float a, const float* x, "
      "const float* y, float* out, unsigned long long n; one thread per element)");
  app.add_option("--entry", o.entry, "the extern \"C\" kernel to run from --kernel-file")
      ->needs(file_option)->capture_default_str();
}

Source source_of(const Options& options) {
  if (!std::isfinite(options.a)) throw course::UsageError("-a: " + std::to_string(options.a) + " is not a finite float");
  if (options.kernel_file.empty()) return {std::string(kernel_source()), kKernelSourceName, kEntry, false};
  return {read_kernel_file(options.kernel_file), std::filesystem::path(options.kernel_file).filename().string(),
          options.entry, true};
}

// ---- NVRTC ------------------------------------------------------------------------------------
Compiled compile_or_show_log(const Source& source, const CompileTarget& target, const CompileOptions& options) {
  try {
    return compile(source.text, source.name, target, options);
  } catch (const course::nvrtc::CompileError& error) {
    std::printf("NVRTC log for %s (%s):\n%s\n", source.name.c_str(), target.architecture().c_str(),
                error.log().c_str());
    std::fflush(stdout);
    throw;
  }
}

CompiledPair compile_both(const Source& source, int device_arch, course::Lesson& lesson) {
  const std::vector<int> supported = course::nvrtc::supported_architectures();
  const CompileTarget cubin_target = choose_target(device_arch, CodeKind::cubin, supported);
  const CompileTarget ptx_target = choose_target(device_arch, CodeKind::ptx, supported);
  std::printf("Run-time compilation of %s, kernel %s (NVRTC %s%s):\n", source.name.c_str(), source.entry.c_str(),
              course::nvrtc::version().c_str(),
              device_arch == 0 ? "; no GPU: PTX for the oldest architecture it knows" : "");
  // NVRTC's first compilation in a process also loads the compiler's built-in headers: measured
  // apart on an empty program, so that the two compilations below compare like with like.
  const Compiled startup = compile("", "empty.cu", ptx_target, {.fmad = false, .defines = {}, .name_expressions = {}});
  std::printf("  %-50s %9s ms\n", "NVRTC start-up (an empty program)", course::format_ms(startup.compile_ms).c_str());
  Compiled cubin = compile_or_show_log(source, cubin_target);
  require_entry(cubin.ptx, source.entry, source.name);  // a wrong --entry: exit 2, with or without a GPU
  print_compiled(cubin_target.kind == CodeKind::cubin ? "to CUBIN" : "to PTX", cubin);
  // Without a GPU (or for a GPU newer than NVRTC) both targets are the same PTX: compiled once.
  Compiled ptx = ptx_target.kind == cubin_target.kind ? cubin : compile_or_show_log(source, ptx_target);
  if (ptx_target.kind != cubin_target.kind) print_compiled("to PTX", ptx);
  if (!cubin.log.empty()) std::printf("  NVRTC log:\n%s\n", cubin.log.c_str());
  std::string joined;
  for (const std::string& option : cubin.options) joined += " " + option;
  std::printf("  options:%s\n", joined.c_str());
  lesson.record("nvrtc", {{"version", course::nvrtc::version()}, {"startup_ms", startup.compile_ms},
                          {"source", source.name}, {"entry", source.entry},
                          {"cubin", compiled_json(cubin)}, {"ptx", compiled_json(ptx)}});
  return {std::move(cubin), std::move(ptx)};
}

// ---- The driver path --------------------------------------------------------------------------
int init_driver(DriverPath& path, int ordinal) {
  const course::HostTimer timer;
  course::driver::init();
  path.device.emplace(course::driver::Device::get(ordinal));
  const int arch = path.device->compute_capability();
  int driver_version = 0;
  CU_CHECK(course::driver::api().cuDriverGetVersion(&driver_version));
  std::printf("Driver API: cuInit + cuDeviceGet(%d) in %s ms: %s, compute capability %d.%d, driver CUDA %d.%d\n",
              ordinal, course::format_ms(timer.elapsed_ms()).c_str(), path.device->name().c_str(), arch / 10,
              arch % 10, driver_version / 1000, driver_version % 1000 / 10);
  return arch;
}

void open_context(DriverPath& path, std::size_t n, course::Lesson& lesson) {
  const course::HostTimer context_timer;
  path.context.emplace(*path.device);
  const double context_ms = context_timer.elapsed_ms();
  std::printf("  cuDevicePrimaryCtxRetain + cuCtxSetCurrent                %9s ms  (the primary context %s)\n",
              course::format_ms(context_ms).c_str(),
              path.context->was_active() ? "was already active: this retain shares it"
                                         : "was not active yet: the driver path created it");
  path.loading = {{"context_ms", context_ms}, {"context_was_active", path.context->was_active()}};
  lesson.record("loading", path.loading);
  require_driver_memory(3 * n * sizeof(float), "x, y and out (3 x " + course::format_bytes(4.0 * static_cast<double>(n)) + ")");
}

namespace {

// The load times: each a fresh load and lookup; the PTX loads are JIT-compiled by the driver.
nlohmann::json print_loading(const LoadTimes& loads, const JitCacheSetup& cache) {
  std::printf("  %-50s %9s ms\n", "cuModuleLoadData(CUBIN) + cuModuleGetFunction",
              course::format_ms(loads.module_cubin_ms).c_str());
  std::printf("  %-50s %9s ms\n", "cuLibraryLoadData(CUBIN) + cuKernelGetFunction",
              course::format_ms(loads.library_cubin_ms).c_str());
  std::printf("  %-50s %9s ms  (JIT, cache %s)\n", "cuModuleLoadData(PTX) + cuModuleGetFunction, 1st",
              course::format_ms(loads.ptx_first_ms).c_str(),
              cache.disabled() ? "disabled" : cache.fresh() ? "cold" : "as found");
  std::printf("  %-50s %9s ms  (JIT cache %s)\n", "cuModuleLoadData(PTX) + cuModuleGetFunction, 2nd",
              course::format_ms(loads.ptx_second_ms).c_str(), cache.disabled() ? "disabled" : "warm");
  std::printf("  JIT cache: %s", cache.describe().c_str());
  if (cache.fresh()) {
    std::printf("; %s in it after the 1st PTX load",
                course::format_bytes(static_cast<double>(loads.cache_bytes_after_first)).c_str());
  }
  std::printf("\n\n");
  return {{"module_cubin_ms", loads.module_cubin_ms},
          {"library_cubin_ms", loads.library_cubin_ms},
          {"ptx_first_ms", loads.ptx_first_ms},
          {"ptx_second_ms", loads.ptx_second_ms},
          {"jit_cache", cache.describe()},
          {"jit_cache_bytes_after_first", loads.cache_bytes_after_first}};
}

}  // namespace

void load_code(DriverPath& path, const DriverSetup& setup, std::span<const float> x, std::span<const float> y,
               course::Lesson& lesson) {
  const std::string& entry = setup.source.entry;
  std::printf("Driver API, loading the code (the GPU rows' setup step):\n");
  path.loading.update(print_loading(measure_loading(setup.compiled.cubin, setup.compiled.ptx, entry, setup.jit_cache), setup.jit_cache));
  lesson.record("loading", path.loading);

  // The code this run launches: CUBIN as a module (bound to this context), PTX as a library
  // (bound to none; its CUkernel is launched in whatever context is current), and the same
  // source with --fmad=true for the contraction demo.
  path.module.emplace(setup.compiled.cubin.image.data());
  path.cubin = path.module->function(entry);
  path.library.emplace(setup.compiled.ptx.image.data());
  path.ptx = reinterpret_cast<CUfunction>(path.library->kernel(entry));  // a CUkernel launches as a CUfunction
  const Compiled fused =
      compile_or_show_log(setup.source, setup.compiled.cubin.target, {.fmad = true, .defines = {}, .name_expressions = {}});
  path.fused_module.emplace(fused.image.data());
  path.fused = path.fused_module->function(entry);
  if (!setup.source.user) {  // the second kernel text, for the same GPU, with the same options
    const Source one_pass{std::string(one_pass_source()), kOnePassSourceName, kOnePassEntry, false};
    const Compiled compiled = compile_or_show_log(one_pass, setup.compiled.cubin.target);
    path.one_pass_module.emplace(compiled.image.data());
    path.one_pass = path.one_pass_module->function(kOnePassEntry);
  }

  const std::size_t n = x.size();
  const int sm_count = path.device->sm_count();
  path.launch = setup.source.user ? one_thread_per_element(n, setup.block)
                                  : saxpy_launch(n, setup.block, setup.grid,
                                                 course::driver::max_active_blocks_per_sm(path.cubin, setup.block),
                                                 sm_count);
  path.runtime_launch = saxpy_launch(n, setup.block, setup.grid, runtime_blocks_per_sm(setup.block), sm_count);
  path.buffers.emplace(n);
  path.buffers->upload(x, y);  // cuMemcpyHtoDAsync x 2, in the classic's stream
}

}  // namespace driver_saxpy
