// 08_driver_api_saxpy: out = a * x + y, compiled at run time by NVRTC and launched through the
// CUDA driver API, next to the same kernel built by nvcc and launched with <<<>>>.
//
// Usage: 08_driver_api_saxpy [-n N] [-a A] [--block T] [--grid B] [--kernel-file PATH [--entry NAME]]
//                            [shared flags: --help]
//   08_driver_api_saxpy                          the classic: 16,777,216 floats (512 x 32768), a = 2
//   08_driver_api_saxpy -a 1.1                   an a whose products are not exact (see the docs)
//   08_driver_api_saxpy --kernel-file my.cu --entry my_saxpy
//                                                your own kernel, compiled and run in place of the lesson's
//
// Flow: options -> the JIT cache's place (before any CUDA call) -> is there a GPU (asked without
// creating a context) -> random x, y -> CPU versions -> driver: cuInit, the device and its compute
// capability -> NVRTC: compile for that GPU to CUBIN and to PTX -> driver: primary context, load
// times (module, library, PTX JIT cold and warm) -> the classic's steps (cuMemAlloc, stream,
// async copies, cuLaunchKernel, copy back, sync, verify) -> the runtime API joins the same
// context -> copy ceiling -> the kernels timed -> contraction demo -> report (and JSON).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "course/ceilings.hpp"
#include "course/check.hpp"
#include "course/check_driver.hpp"
#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/driver.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/main.hpp"
#include "course/nvrtc.hpp"
#include "course/random.hpp"
#include "course/report.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "saxpy.hpp"

namespace {

using course::Role;
using course::Target;

constexpr std::int64_t kMaxLength = std::int64_t{1} << 34;
constexpr float kDemoA = 1.1f;  // the contraction demo: 1.1 * x is rarely exact, unlike 2 * x

struct LessonOptions {
  float a = driver_saxpy::kA;
  int block = 256;
  int grid = 0;
  std::string kernel_file;
  std::string entry = driver_saxpy::kEntry;
};

// The kernel source the run compiles: the lesson's, or the user's (--kernel-file).
struct Source {
  std::string text, name, entry;
  bool user = false;
};

struct Rows {
  std::string cubin, ptx, runtime, end_to_end, fused;
};

Rows row_names(const Source& source) {
  const std::string what = source.user ? source.entry + " from " + source.name : std::string("saxpy");
  return {"GPU driver API: " + what + ", NVRTC CUBIN, cuModuleLoadData",
          "GPU driver API: " + what + ", NVRTC PTX (JIT), cuLibraryLoadData",
          "GPU runtime API: saxpy built by nvcc, <<<>>>",
          "GPU driver API end-to-end: copy x, y in, " + what + ", copy out",
          "GPU --fmad=true against std::fma (contraction demo)"};
}

// Bitwise comparison of two GPU outputs: how many elements differ, and by how many ulps at most.
struct Difference {
  std::size_t count = 0;
  double max_ulp = 0;
};

Difference compare_bits(const std::vector<float>& a, const std::vector<float>& b) {
  Difference difference;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
      ++difference.count;
      difference.max_ulp = std::max(difference.max_ulp, course::ulp_error(a[i], static_cast<double>(b[i])));
    }
  }
  return difference;
}

// NVRTC: a compile error prints the compiler's log (stdout), then fails the run with a one-line
// error (stderr, exit code 3).
driver_saxpy::Compiled compile_or_show_log(const Source& source, const driver_saxpy::CompileTarget& target,
                                    const driver_saxpy::CompileOptions& options = {}) {
  try {
    return driver_saxpy::compile(source.text, source.name, target, options);
  } catch (const course::nvrtc::CompileError& error) {
    std::printf("NVRTC log for %s (%s):\n%s\n", source.name.c_str(), target.architecture().c_str(),
                error.log().c_str());
    std::fflush(stdout);
    throw;
  }
}

void print_compiled(const char* what, const driver_saxpy::Compiled& compiled) {
  std::printf("  NVRTC %-44s %9s ms  %s\n", (std::string(what) + " (" + compiled.target.architecture() + ")").c_str(),
              course::format_ms(compiled.compile_ms).c_str(),
              course::format_bytes(static_cast<double>(compiled.image.size())).c_str());
}

nlohmann::json compiled_json(const driver_saxpy::Compiled& compiled) {
  return {{"target", compiled.target.architecture()}, {"options", compiled.options},
          {"compile_ms", compiled.compile_ms}, {"bytes", compiled.image.size()}};
}

void run_cpu(const course::CommonOptions& options, float a, const std::vector<float>& x, const std::vector<float>& y,
             std::vector<float>& out, const course::ReferenceBlock& reference, double bytes, course::Report& report) {
  struct Version {
    std::string name;
    Role role;
    void (*function)(float, std::span<const float>, std::span<const float>, std::span<float>);
  };
  const Version versions[] = {
      {"CPU saxpy, 1 thread (a plain loop, teaching)", Role::cpu_serial, driver_saxpy::saxpy_serial},
      {"CPU saxpy, " + std::to_string(options.cpu_threads()) + " threads (OpenMP, SIMD)", Role::cpu_parallel,
       driver_saxpy::saxpy_parallel}};
  for (const Version& version : versions) {
    course::Row row{version.name, Target::cpu, version.role};
    course::poison(out);
    version.function(a, x, y, out);
    row.check = course::verify(out, reference, course::Tolerance::exact());  // no contraction: bit for bit
    row.time = course::time_host(options.cpu_repeat(), [&] { version.function(a, x, y, out); });
    row.work = bytes;
    report.add(std::move(row));
  }
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

struct GpuRun {
  const course::CommonOptions& options;
  const LessonOptions& lesson;
  const Source& source;
  const course::driver::Device& device;
  const driver_saxpy::Compiled& cubin;
  const driver_saxpy::Compiled& ptx;
  const driver_saxpy::JitCacheSetup& jit_cache;
  const std::vector<float>& x;
  const std::vector<float>& y;
  std::vector<float>& out;
  const course::ReferenceBlock& reference;
  double bytes;
  course::Report& report;
};

void run_gpu(const GpuRun& run) {
  const std::size_t n = run.x.size();
  const Rows rows = row_names(run.source);
  const float a = run.lesson.a;
  const std::string& entry = run.source.entry;

  // The device's primary context: retained, and current on this thread from here on.
  const course::HostTimer context_timer;
  const course::driver::PrimaryContext context(run.device);
  const double context_ms = context_timer.elapsed_ms();
  std::printf("  cuDevicePrimaryCtxRetain + cuCtxSetCurrent                %9s ms  (the primary context %s)\n",
              course::format_ms(context_ms).c_str(),
              context.was_active() ? "was already active: this retain shares it"
                                   : "was not active yet: the driver path created it");
  require_driver_memory(3 * n * sizeof(float),
                        "x, y and out (3 x " + course::format_bytes(4.0 * static_cast<double>(n)) + ")");

  // Load times: each a fresh load and lookup; the PTX loads are JIT-compiled by the driver.
  const driver_saxpy::LoadTimes loads = driver_saxpy::measure_loading(run.cubin, run.ptx, entry, run.jit_cache);
  std::printf("  %-50s %9s ms\n", "cuModuleLoadData(CUBIN) + cuModuleGetFunction",
              course::format_ms(loads.module_cubin_ms).c_str());
  std::printf("  %-50s %9s ms\n", "cuLibraryLoadData(CUBIN) + cuKernelGetFunction",
              course::format_ms(loads.library_cubin_ms).c_str());
  std::printf("  %-50s %9s ms  (JIT, cache %s)\n", "cuModuleLoadData(PTX) + cuModuleGetFunction, 1st",
              course::format_ms(loads.ptx_first_ms).c_str(),
              run.jit_cache.disabled() ? "disabled" : run.jit_cache.fresh() ? "cold" : "as found");
  std::printf("  %-50s %9s ms  (JIT cache %s)\n", "cuModuleLoadData(PTX) + cuModuleGetFunction, 2nd",
              course::format_ms(loads.ptx_second_ms).c_str(), run.jit_cache.disabled() ? "disabled" : "warm");
  std::printf("  JIT cache: %s", run.jit_cache.describe().c_str());
  if (run.jit_cache.fresh()) {
    std::printf("; %s in it after the 1st PTX load",
                course::format_bytes(static_cast<double>(loads.cache_bytes_after_first)).c_str());
  }
  std::printf("\n\n");
  run.report.extra()["loading"] = {{"context_ms", context_ms},
                                   {"context_was_active", context.was_active()},
                                   {"module_cubin_ms", loads.module_cubin_ms},
                                   {"library_cubin_ms", loads.library_cubin_ms},
                                   {"ptx_first_ms", loads.ptx_first_ms},
                                   {"ptx_second_ms", loads.ptx_second_ms},
                                   {"jit_cache", run.jit_cache.describe()},
                                   {"jit_cache_bytes_after_first", loads.cache_bytes_after_first}};

  // The code this run launches: CUBIN as a module (bound to this context), PTX as a library
  // (bound to none; its CUkernel is launched in whatever context is current).
  const course::driver::Module module(run.cubin.image.data());
  const CUfunction cubin_function = module.function(entry);
  const course::driver::Library library(run.ptx.image.data());
  const CUkernel ptx_kernel = library.kernel(entry);
  const CUfunction ptx_function = reinterpret_cast<CUfunction>(ptx_kernel);  // a CUkernel launches as a CUfunction

  const int sm_count = run.device.sm_count();
  const driver_saxpy::Launch launch =
      run.source.user ? driver_saxpy::one_thread_per_element(n, run.lesson.block)
                      : driver_saxpy::saxpy_launch(n, run.lesson.block, run.lesson.grid,
                                            course::driver::max_active_blocks_per_sm(cubin_function, run.lesson.block),
                                            sm_count);

  // The classic's steps: device memory (cuMemAlloc) and a stream (cuStreamCreate), inputs copied
  // in asynchronously, the output poisoned, the launch, the result copied back, the stream
  // synchronized, the result verified against the CPU.
  driver_saxpy::DriverBuffers buffers(n);
  buffers.upload(run.x, run.y);
  auto run_and_check = [&](CUfunction function, course::Row& row) {
    course::poison(run.out);
    buffers.poison_out();
    driver_saxpy::launch_driver(function, launch, a, buffers.x(), buffers.y(), buffers.out(), n, buffers.stream());
    buffers.download(run.out);
    row.check = course::verify(run.out, run.reference, course::Tolerance::exact());
    return run.out;
  };
  course::Row cubin_row{rows.cubin, Target::gpu, Role::gpu_kernel};
  const std::vector<float> cubin_out = run_and_check(cubin_function, cubin_row);
  course::Row ptx_row{rows.ptx, Target::gpu, Role::detail};
  const std::vector<float> ptx_out = run_and_check(ptx_function, ptx_row);

  // The runtime API joins in: cudaSetDevice finds the primary context this program already
  // holds and uses it, so the <<<>>> launch below runs on the cuMemAlloc'd buffers.
  const course::GpuStatus runtime_gpu = course::open_gpu(run.options);
  run.report.set_gpu(runtime_gpu);
  const bool same_context = course::driver::current_context() == context.get();
  const driver_saxpy::Launch runtime_launch =
      driver_saxpy::saxpy_launch(n, run.lesson.block, run.lesson.grid, driver_saxpy::runtime_blocks_per_sm(run.lesson.block),
                          sm_count);
  auto as_floats = [](CUdeviceptr pointer) { return reinterpret_cast<float*>(static_cast<std::uintptr_t>(pointer)); };
  auto enqueue_runtime = [&] {
    driver_saxpy::launch_runtime(runtime_launch, a, as_floats(buffers.x()), as_floats(buffers.y()), as_floats(buffers.out()),
                          n, buffers.stream());
  };
  course::Row runtime_row{rows.runtime, Target::gpu, Role::detail};
  course::poison(run.out);
  buffers.poison_out();
  enqueue_runtime();
  buffers.download(run.out);
  runtime_row.check = course::verify(run.out, run.reference, course::Tolerance::exact());
  const std::vector<float> runtime_out = run.out;

  const Difference cubin_vs_ptx = compare_bits(cubin_out, ptx_out);
  const Difference driver_vs_runtime = compare_bits(cubin_out, runtime_out);
  std::printf("Same context: the runtime's current context %s the driver's primary context (cudaSetDevice shared it)\n",
              same_context ? "is" : "is NOT");
  std::printf("Bit for bit: CUBIN and PTX outputs %s; driver-API and runtime-API outputs %s%s\n",
              cubin_vs_ptx.count == 0 ? "identical" : "DIFFER", driver_vs_runtime.count == 0 ? "identical" : "DIFFER",
              run.source.user ? " (the runtime row runs the lesson's kernel)" : "");

  // Timing: the copy ceiling of the same traffic, then each kernel with events in the same
  // stream, L2 flushed before each repetition (unless --no-flush-l2).
  const course::RepeatOptions repeat = run.options.gpu_repeat();
  const course::Ceiling ceiling =
      course::measure_device_copy(static_cast<std::size_t>(run.bytes), repeat, run.options.flush_l2);
  run.report.add_ceiling(ceiling);
  std::optional<course::L2Flusher> flusher;
  if (run.options.flush_l2) flusher.emplace();
  const course::L2Flusher* flush = flusher ? &*flusher : nullptr;
  auto time_driver = [&](CUfunction function) {
    return course::time_device(repeat, buffers.stream(), [&] {
      driver_saxpy::launch_driver(function, launch, a, buffers.x(), buffers.y(), buffers.out(), n, buffers.stream());
    }, flush);
  };
  cubin_row.time = time_driver(cubin_function);
  runtime_row.time = course::time_device(repeat, buffers.stream(), enqueue_runtime, flush);
  ptx_row.time = time_driver(ptx_function);
  for (course::Row* row : {&cubin_row, &ptx_row, &runtime_row}) {
    row->work = run.bytes;
    row->ceiling = ceiling.name;
  }
  cubin_row.note = ptx_row.note = launch.describe() + ", " + std::to_string(n) + " elements";
  runtime_row.note = runtime_launch.describe();
  const double ratio = cubin_row.time->median_ms / runtime_row.time->median_ms;
  std::printf("Driver-API kernel time / runtime-API kernel time (medians): %.3f\n\n", ratio);

  // End to end, as the classic runs it: copies from ordinary host memory, the kernel, the copy
  // back and the synchronization, timed on the host.
  course::Row end_row{rows.end_to_end, Target::gpu, Role::gpu_end_to_end};
  auto end_to_end = [&] {
    buffers.upload(run.x, run.y);
    driver_saxpy::launch_driver(cubin_function, launch, a, buffers.x(), buffers.y(), buffers.out(), n, buffers.stream());
    buffers.download(run.out);
  };
  course::poison(run.out);
  buffers.poison_out();
  end_to_end();
  end_row.check = course::verify(run.out, run.reference, course::Tolerance::exact());
  end_row.time = course::time_host({1, std::min(run.options.reps, 10)}, end_to_end);
  end_row.work = run.bytes;

  run.report.add(std::move(cubin_row));
  run.report.add(std::move(ptx_row));
  run.report.add(std::move(runtime_row));
  run.report.add(std::move(end_row));

  // Contraction: the same source with --fmad=true. Its results equal std::fma's bit for bit;
  // against the unfused results they differ wherever a * x is not exact.
  const driver_saxpy::Compiled fused = compile_or_show_log(run.source, run.cubin.target,
                                                             {.fmad = true, .defines = {}, .name_expressions = {}});
  const course::driver::Module fused_module(fused.image.data());
  const CUfunction fused_function = fused_module.function(entry);
  auto outputs = [&](CUfunction function, float value) {
    std::vector<float> result(n);
    buffers.poison_out();
    driver_saxpy::launch_driver(function, launch, value, buffers.x(), buffers.y(), buffers.out(), n, buffers.stream());
    buffers.download(result);
    return result;
  };
  nlohmann::json demo = nlohmann::json::array();
  std::printf("Contraction (--fmad=true fuses a * x + y into one FMA, one rounding instead of two):\n");
  std::vector<float> demo_values = {a};
  if (a != kDemoA) demo_values.push_back(kDemoA);
  for (const float value : demo_values) {
    const std::vector<float> fused_out = outputs(fused_function, value);
    const Difference difference = compare_bits(fused_out, outputs(cubin_function, value));
    const course::VerifyResult check =
        course::verify(fused_out, driver_saxpy::saxpy_fused_reference(value, run.x, run.y), course::Tolerance::exact());
    std::printf("  a = %g: %s of %s elements differ from --fmad=false (at most %.1f ulp); against std::fma: %s\n",
                static_cast<double>(value), course::format_count(difference.count).c_str(),
                course::format_count(n).c_str(), difference.max_ulp, check.summary().c_str());
    run.report.add_check(rows.fused + ", a = " + course::format_fixed(value, 2), Target::gpu, check);
    demo.push_back({{"a", value}, {"elements_differing", difference.count}, {"max_ulp", difference.max_ulp}});
  }
  std::printf("\n");

  run.report.extra()["driver_over_runtime_time"] = ratio;
  run.report.extra()["same_context"] = same_context;
  run.report.extra()["cubin_vs_ptx_differing"] = cubin_vs_ptx.count;
  run.report.extra()["driver_vs_runtime_differing"] = driver_vs_runtime.count;
  run.report.extra()["contraction"] = demo;
  run.report.extra()["launch"] = {{"driver", launch.describe()}, {"runtime", runtime_launch.describe()}};
}

int run(int argc, char** argv) {
  course::LessonCli cli("08_driver_api_saxpy",
                        "out = a * x + y compiled at run time (NVRTC) and launched through the CUDA driver API, "
                        "against nvcc and <<<>>> and the CPU",
                        {"-n,--length", "number of elements", static_cast<std::int64_t>(driver_saxpy::kClassicLength),
                         kMaxLength});
  LessonOptions lesson;
  cli.app().add_option("-a", lesson.a, "the scalar a (a finite float)")->capture_default_str();
  cli.app().add_option("--block", lesson.block, "threads per block")->check(CLI::Range(1, 1024))->capture_default_str();
  cli.app().add_option("--grid", lesson.grid, "blocks of the lesson's kernel (0 = 4 waves of what fits on the GPU)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  CLI::Option* file_option = cli.app().add_option(
      "--kernel-file", lesson.kernel_file,
      "compile and run your own kernel source instead of the lesson's (parameters: float a, const float* x, "
      "const float* y, float* out, unsigned long long n; one thread per element)");
  cli.app().add_option("--entry", lesson.entry, "the extern \"C\" kernel to run from --kernel-file")
      ->needs(file_option)->capture_default_str();
  const course::CommonOptions& options = cli.parse(argc, argv);
  if (!std::isfinite(lesson.a)) throw course::UsageError("-a: " + std::to_string(lesson.a) + " is not a finite float");

  // Before any CUDA call: the driver reads CUDA_CACHE_PATH when it initialises.
  const driver_saxpy::JitCacheSetup jit_cache;

  Source source;
  if (lesson.kernel_file.empty()) {
    source = {std::string(driver_saxpy::kernel_source()), driver_saxpy::kKernelSourceName, driver_saxpy::kEntry, false};
  } else {
    source = {driver_saxpy::read_kernel_file(lesson.kernel_file),
              std::filesystem::path(lesson.kernel_file).filename().string(), lesson.entry, true};
  }

  const std::size_t n = static_cast<std::size_t>(options.size);
  const double bytes = driver_saxpy::kBytesPerElement * static_cast<double>(n);
  course::Report report(cli, "out = a * x + y over " + course::format_count(n) + " floats, a = " +
                                 course::format_fixed(lesson.a, 2),
                        {"GB/s", 1e9, "bytes"});

  // Is there a GPU? Asked without creating a context: the driver path below creates it. With
  // --require-gpu and none usable, open_gpu throws (exit 3).
  course::GpuStatus gpu = options.skip_gpu ? course::open_gpu(options) : course::probe_gpu(options.device);
  if (!gpu.usable && !options.skip_gpu) gpu = course::open_gpu(options);
  report.set_gpu(gpu);
  course::require_host_memory(3 * n * sizeof(float), "x, y and out on the host (3 x " +
                                                         course::format_bytes(4.0 * static_cast<double>(n)) + ")");

  std::vector<float> x(n), y(n), out(n);
  course::fill_normal(x, options.seed);
  course::fill_normal(y, options.seed + 1);
  const course::ReferenceBlock reference = driver_saxpy::saxpy_reference(lesson.a, x, y);

  if (!options.skip_cpu) run_cpu(options, lesson.a, x, y, out, reference, bytes, report);

  // The driver API, step 1: cuInit, then the device and what it is.
  std::optional<course::driver::Device> device;
  int device_arch = 0;
  std::printf("\n");
  if (gpu.usable) {
    const course::HostTimer init_timer;
    course::driver::init();
    device = course::driver::Device::get(options.device);
    device_arch = device->compute_capability();
    int driver_version = 0;
    CU_CHECK(course::driver::api().cuDriverGetVersion(&driver_version));
    std::printf("Driver API: cuInit + cuDeviceGet(%d) in %s ms: %s, compute capability %d.%d, driver CUDA %d.%d\n",
                options.device, course::format_ms(init_timer.elapsed_ms()).c_str(), device->name().c_str(),
                device_arch / 10, device_arch % 10, driver_version / 1000, driver_version % 1000 / 10);
  }

  // Step 2: NVRTC compiles the kernel text for that GPU, to CUBIN and to PTX.
  const std::vector<int> supported = course::nvrtc::supported_architectures();
  const driver_saxpy::CompileTarget cubin_target = driver_saxpy::choose_target(device_arch, driver_saxpy::CodeKind::cubin, supported);
  const driver_saxpy::CompileTarget ptx_target = driver_saxpy::choose_target(device_arch, driver_saxpy::CodeKind::ptx, supported);
  std::printf("Run-time compilation of %s, kernel %s (NVRTC %s%s):\n", source.name.c_str(), source.entry.c_str(),
              course::nvrtc::version().c_str(),
              device_arch == 0 ? "; no GPU: PTX for the oldest architecture it knows" : "");
  // NVRTC's first compilation in a process also loads the compiler's built-in headers: measured
  // apart on an empty program, so that the two compilations below compare like with like.
  const driver_saxpy::Compiled startup =
      driver_saxpy::compile("", "empty.cu", ptx_target, {.fmad = false, .defines = {}, .name_expressions = {}});
  std::printf("  %-50s %9s ms\n", "NVRTC start-up (an empty program)", course::format_ms(startup.compile_ms).c_str());
  const driver_saxpy::Compiled cubin = compile_or_show_log(source, cubin_target);
  driver_saxpy::require_entry(cubin.ptx, source.entry, source.name);
  print_compiled(cubin_target.kind == driver_saxpy::CodeKind::cubin ? "to CUBIN" : "to PTX", cubin);
  // Without a GPU (or for a GPU newer than NVRTC) both targets are the same PTX: compiled once.
  const driver_saxpy::Compiled ptx =
      ptx_target.kind == cubin_target.kind ? cubin : compile_or_show_log(source, ptx_target);
  if (ptx_target.kind != cubin_target.kind) print_compiled("to PTX", ptx);
  if (!cubin.log.empty()) std::printf("  NVRTC log:\n%s\n", cubin.log.c_str());
  std::string joined;
  for (const std::string& option : cubin.options) joined += " " + option;
  std::printf("  options:%s\n", joined.c_str());
  report.extra()["nvrtc"] = {{"version", course::nvrtc::version()},
                             {"startup_ms", startup.compile_ms},
                             {"source", source.name},
                             {"entry", source.entry},
                             {"cubin", compiled_json(cubin)},
                             {"ptx", compiled_json(ptx)}};

  const Rows rows = row_names(source);
  if (gpu.usable) {
    run_gpu({options, lesson, source, *device, cubin, ptx, jit_cache, x, y, out, reference, bytes, report});
  } else {
    std::printf("\n");
    for (const auto& [name, role] : {std::pair{rows.cubin, Role::gpu_kernel}, {rows.ptx, Role::detail},
                                     {rows.runtime, Role::detail}, {rows.end_to_end, Role::gpu_end_to_end},
                                     {rows.fused, Role::detail}}) {
      report.add_skipped(name, Target::gpu, role, gpu.reason);
    }
  }

  report.print(std::cout);
  if (!options.json_path.empty()) report.write_json(options.json_path);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
