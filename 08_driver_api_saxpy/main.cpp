// 08_driver_api_saxpy: out = a * x + y, compiled at run time by NVRTC and launched through the
// CUDA driver API, next to the same kernel built by nvcc and launched with <<<>>>.
//
// Usage: 08_driver_api_saxpy [-l N] [-a A] [--block T] [--grid B] [--kernel-file PATH [--entry NAME]]
//                            [shared flags: --help]
//   08_driver_api_saxpy                          the classic: 16,777,216 floats (512 x 32768), a = 2
//   08_driver_api_saxpy -a 1.1                   an a whose products are not exact (see the docs)
//   08_driver_api_saxpy --kernel-file my.cu --entry my_saxpy
//                                                your own kernel, compiled and run in place of the lesson's
//
// Flow: the JIT cache's place (before any CUDA call) -> options, is there a GPU (asked without
// creating a context: Lesson::defer_gpu_context) -> random x, y -> driver: cuInit, the device and
// its compute capability -> NVRTC: compile for that GPU to CUBIN and to PTX -> driver: primary
// context, load times (module, library, PTX JIT cold and warm), cuMemAlloc, cuStreamCreate ->
// the harness runs the rows: CPU, then (the runtime joining the driver's context) the copy
// ceiling, the CUBIN, PTX and <<<>>> kernels, end to end, the --fmad=true demo -> what the rows
// showed: one context, identical bits, the time ratio, what contraction changed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "course/driver.hpp"
#include "course/errors.hpp"
#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "course/random.hpp"
#include "saxpy.hpp"
#include "saxpy_steps.hpp"

namespace {

using course::Role;
using course::Target;
namespace ds = driver_saxpy;

constexpr std::int64_t kMaxLength = std::int64_t{1} << 34;
constexpr float kDemoA = 1.1f;  // the contraction demo: 1.1 * x is rarely exact, unlike 2 * x

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

// A GPU output in the classic's cuMemAlloc'd buffer: poisoned on both sides (cuMemsetD8Async
// 0xFF: NaN), copied back (cuMemcpyDtoHAsync, then the stream synchronized) and verified;
// `seen` then gets a look at it (the bit-for-bit comparisons between rows).
course::Check driver_check(ds::DriverPath& path, std::vector<float>& out, course::ReferenceBlock reference,
                           std::function<void(const std::vector<float>&)> seen = {}) {
  return {[&path, &out] {
            course::poison(out);
            path.buffers->poison_out();
          },
          [&path, &out, reference = std::move(reference), seen = std::move(seen)] {
            path.buffers->download(out);
            const course::VerifyResult result =
                course::verify(std::span<const float>(out), reference, course::Tolerance::exact());
            if (seen) seen(out);
            return result;
          }};
}

int run(int argc, char** argv) {
  // The driver side's objects, filled in below when there is a GPU. Declared before the lesson,
  // so they outlive the runtime's objects the harness holds (its stream, the L2 flusher): the
  // primary context is released last.
  ds::DriverPath path;
  course::Lesson lesson("08_driver_api_saxpy",
                        "out = a * x + y compiled at run time (NVRTC) and launched through the CUDA driver API, "
                        "against nvcc and <<<>>> and the CPU",
                        {"-l,--length", "number of elements", static_cast<std::int64_t>(ds::kClassicLength), kMaxLength});
  float a = ds::kA;
  int block = 256, grid = 0;
  std::string kernel_file, entry = ds::kEntry;
  lesson.cli().add_option("-a", a, "the scalar a (a finite float)")->capture_default_str();
  lesson.cli().add_option("--block", block, "threads per block")->check(CLI::Range(1, 1024))->capture_default_str();
  lesson.cli().add_option("--grid", grid, "blocks of the lesson's kernel (0 = 4 waves of what fits on the GPU)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
  CLI::Option* file_option = lesson.cli().add_option(
      "--kernel-file", kernel_file,
      "compile and run your own kernel source instead of the lesson's (parameters: float a, const float* x, "
      "const float* y, float* out, unsigned long long n; one thread per element)");
  lesson.cli().add_option("--entry", entry, "the extern \"C\" kernel to run from --kernel-file")
      ->needs(file_option)->capture_default_str();
  // Before any CUDA call (the GPU probe in parse() is one): the driver reads CUDA_CACHE_PATH
  // when it initialises.
  const ds::JitCacheSetup jit_cache;
  // The driver path opens the GPU itself: parse() only asks whether there is one.
  lesson.defer_gpu_context();
  const course::CommonOptions& options = lesson.parse(argc, argv);
  if (!std::isfinite(a)) throw course::UsageError("-a: " + std::to_string(a) + " is not a finite float");

  const ds::Source source = kernel_file.empty()
                                ? ds::Source{std::string(ds::kernel_source()), ds::kKernelSourceName, ds::kEntry, false}
                                : ds::Source{ds::read_kernel_file(kernel_file),
                                             std::filesystem::path(kernel_file).filename().string(), entry, true};
  const std::size_t n = static_cast<std::size_t>(options.size);
  const double bytes = ds::kBytesPerElement * static_cast<double>(n);  // x and y read, out written
  lesson.set_title("out = a * x + y over " + course::format_count(n) + " floats, a = " + course::format_fixed(a, 2));
  course::require_host_memory(3 * n * sizeof(float),
                              "x, y and out on the host (3 x " + course::format_bytes(4.0 * static_cast<double>(n)) + ")");
  std::vector<float> x(n), y(n), out(n);
  course::fill_normal(x, options.seed);
  course::fill_normal(y, options.seed + 1);
  const course::ReferenceBlock reference = ds::saxpy_reference(a, x, y);

  // The driver path, step by step, before the runtime touches the GPU; NVRTC compiles for the
  // GPU the driver found (or, without one, for the oldest architecture it knows).
  std::printf("\n");
  const int device_arch = lesson.has_gpu() ? ds::init_driver(path, options.device) : 0;
  const ds::CompiledPair compiled = ds::compile_both(source, device_arch, lesson.report().extra());
  if (lesson.has_gpu()) {
    ds::open_driver(path, {source, compiled, jit_cache, block, grid, n}, lesson.report().extra());
    path.buffers->upload(x, y);  // cuMemcpyHtoDAsync x 2, in the classic's stream
  }

  // ---- CPU ----
  // Both loops are SIMD (saxpy_cpu.cpp, no contraction), held against a host copy of the same
  // traffic: one core and all cores, what the GPU's speedups are quoted against.
  lesson.add_host_copy_ceiling(bytes);
  auto cpu_row = [&](std::string name, Role role, auto function) {
    lesson.add({.name = std::move(name), .role = role, .work = bytes, .ceiling = "host_copy",
                .run = [&, function](cudaStream_t) { function(a, x, y, out); },
                .check = course::check_host<float>(out, reference, course::Tolerance::exact())});  // bit for bit
  };
  cpu_row("CPU saxpy, 1 thread (SIMD)", Role::cpu_serial, ds::saxpy_serial);
  cpu_row("CPU saxpy, " + std::to_string(options.cpu_threads()) + " threads (OpenMP, SIMD)", Role::cpu_parallel,
          ds::saxpy_parallel);

  // ---- GPU ----
  // The runtime joins at the harness's first GPU call (creating its stream): it finds the primary
  // context the driver path made current and uses it, instead of creating one. open_gpu's
  // cudaSetDevice then finds it too, and checks that this build has code for the GPU.
  bool same_context = false;
  lesson.on_gpu([&] {
    lesson.report().set_gpu(course::open_gpu(options));
    same_context = course::driver::current_context() == path.context->get();
  });
  lesson.add_device_copy_ceiling(bytes);

  const std::string what = source.user ? source.entry + " from " + source.name : std::string("saxpy");
  const std::string shape = lesson.has_gpu() ? path.launch.describe() + ", " + std::to_string(n) + " elements" : "";
  // The driver rows launch into the harness's stream (a cudaStream_t is a CUstream), timed with
  // events there; the buffers are the classic's, from cuMemAlloc.
  auto driver_row = [&](std::string name, Role role, const CUfunction* function, course::Check check) {
    lesson.add({.name = std::move(name), .target = Target::gpu, .role = role, .work = bytes, .ceiling = "d2d_copy",
                .run = [&, function](cudaStream_t s) {
                  ds::launch_driver(*function, path.launch, a, path.buffers->x(), path.buffers->y(),
                                    path.buffers->out(), n, s);
                },
                .check = std::move(check), .note = shape});
  };
  std::vector<float> cubin_out;  // kept: the other GPU rows are compared with it bit for bit
  Difference cubin_vs_ptx, driver_vs_runtime;
  driver_row("GPU driver API: " + what + ", NVRTC CUBIN, cuModuleLoadData", Role::gpu_kernel, &path.cubin,
             driver_check(path, out, reference, [&](const std::vector<float>& result) { cubin_out = result; }));
  driver_row("GPU driver API: " + what + ", NVRTC PTX (JIT), cuLibraryLoadData", Role::detail, &path.ptx,
             driver_check(path, out, reference,
                          [&](const std::vector<float>& result) { cubin_vs_ptx = compare_bits(cubin_out, result); }));

  // The runtime API on the same cuMemAlloc'd buffers: one context, so the pointers are valid.
  auto as_floats = [](CUdeviceptr pointer) { return reinterpret_cast<float*>(static_cast<std::uintptr_t>(pointer)); };
  const std::string runtime_name = "GPU runtime API: saxpy built by nvcc, <<<>>>";
  lesson.add({.name = runtime_name, .target = Target::gpu, .work = bytes, .ceiling = "d2d_copy",
              .run = [&](cudaStream_t s) {
                ds::launch_runtime(path.runtime_launch, a, as_floats(path.buffers->x()), as_floats(path.buffers->y()),
                                   as_floats(path.buffers->out()), n, s);
              },
              .check = driver_check(path, out, reference,
                                    [&](const std::vector<float>& result) {
                                      driver_vs_runtime = compare_bits(cubin_out, result);
                                    }),
              .note = lesson.has_gpu() ? path.runtime_launch.describe() : ""});

  // End to end, as the classic runs it, all in its own stream: copies from ordinary host memory,
  // the kernel, the copy back and the synchronization, timed on the host.
  course::Check end_check = driver_check(path, out, reference);
  end_check.verify = [&] { return course::verify(std::span<const float>(out), reference, course::Tolerance::exact()); };
  lesson.add({.name = "GPU driver API end-to-end: copy x, y in, " + what + ", copy out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = bytes,
              .run = [&](cudaStream_t) {
                path.buffers->upload(x, y);
                ds::launch_driver(path.cubin, path.launch, a, path.buffers->x(), path.buffers->y(),
                                  path.buffers->out(), n, path.buffers->stream());
                path.buffers->download(out);
              },
              .check = end_check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(options.reps, 10)}});

  // Contraction: the same source compiled with --fmad=true. Its results must equal std::fma's
  // bit for bit; how far they are from the unfused ones is shown after the table.
  std::vector<float> demo_values = {a};
  if (a != kDemoA) demo_values.push_back(kDemoA);
  std::vector<std::vector<float>> fused_outs(demo_values.size());
  std::vector<course::VerifyResult> fused_checks(demo_values.size());
  for (std::size_t i = 0; i < demo_values.size(); ++i) {
    const float value = demo_values[i];
    course::Check check = driver_check(path, out, ds::saxpy_fused_reference(value, x, y),
                                       [&, i](const std::vector<float>& result) { fused_outs[i] = result; });
    check.verify = [verify = check.verify, &fused_checks, i] { return fused_checks[i] = verify(); };
    lesson.add({.name = "GPU --fmad=true against std::fma (contraction demo), a = " + course::format_fixed(value, 2),
                .target = Target::gpu,
                .run = [&, value](cudaStream_t s) {
                  ds::launch_driver(path.fused, path.launch, value, path.buffers->x(), path.buffers->y(),
                                    path.buffers->out(), n, s);
                },
                .check = check, .timed = false});
  }

  lesson.run_variants();

  if (lesson.has_gpu()) {
    std::printf("Same context: the runtime's current context %s the driver's primary context (its first call shared it)\n",
                same_context ? "is" : "is NOT");
    std::printf("Bit for bit: CUBIN and PTX outputs %s; driver-API and runtime-API outputs %s%s\n",
                cubin_vs_ptx.count == 0 ? "identical" : "DIFFER", driver_vs_runtime.count == 0 ? "identical" : "DIFFER",
                source.user ? " (the runtime row runs the lesson's kernel)" : "");
    const course::Report& report = lesson.report();
    const auto runtime_row = std::ranges::find(report.rows(), runtime_name, &course::Row::variant);
    const double ratio = report.find_role(Role::gpu_kernel)->time->median_ms / runtime_row->time->median_ms;
    std::printf("Driver-API kernel time / runtime-API kernel time (medians): %.3f\n\n", ratio);

    // What --fmad=true changed: each fused output against the unfused one (for the demo's a, one
    // more unfused launch on the same buffers), in ulps.
    nlohmann::json demo = nlohmann::json::array();
    std::printf("Contraction (--fmad=true fuses a * x + y into one FMA, one rounding instead of two):\n");
    for (std::size_t i = 0; i < demo_values.size(); ++i) {
      const float value = demo_values[i];
      std::vector<float> rerun;
      if (value != a) {
        rerun.resize(n);
        path.buffers->poison_out();
        ds::launch_driver(path.cubin, path.launch, value, path.buffers->x(), path.buffers->y(), path.buffers->out(), n,
                          path.buffers->stream());
        path.buffers->download(rerun);
      }
      const Difference difference = compare_bits(fused_outs[i], value == a ? cubin_out : rerun);
      std::printf("  a = %g: %s of %s elements differ from --fmad=false (at most %.1f ulp); against std::fma: %s\n",
                  static_cast<double>(value), course::format_count(difference.count).c_str(),
                  course::format_count(n).c_str(), difference.max_ulp, fused_checks[i].summary().c_str());
      demo.push_back({{"a", value}, {"elements_differing", difference.count}, {"max_ulp", difference.max_ulp}});
    }
    std::printf("\n");
    nlohmann::json& extra = lesson.report().extra();
    extra["driver_over_runtime_time"] = ratio;
    extra["same_context"] = same_context;
    extra["cubin_vs_ptx_differing"] = cubin_vs_ptx.count;
    extra["driver_vs_runtime_differing"] = driver_vs_runtime.count;
    extra["contraction"] = demo;
    extra["launch"] = {{"driver", path.launch.describe()}, {"runtime", path.runtime_launch.describe()}};
  }
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
