// 08_driver_api_saxpy: out = a * x + y, compiled at run time by NVRTC and launched through the
// CUDA driver API, next to the same kernel built by nvcc and launched with <<<>>>.
//
// Usage: 08_driver_api_saxpy [-l N] [-a A] [--block T] [--grid B] [--kernel-file PATH [--entry NAME]]
//                            [shared flags: --help]
//   08_driver_api_saxpy                          the classic: 16,777,216 floats (512 x 32768), a = 2
//   08_driver_api_saxpy -a 1.1                   an a whose products are not exact (see the docs)
//   08_driver_api_saxpy --kernel-file my.cu --entry my_saxpy   your kernel, run in place of the lesson's
//
// Flow: the JIT cache's place (before any CUDA call) -> driver: cuInit, the device -> NVRTC: CUBIN
// and PTX for it -> driver: the primary context -> the rows: CPU, then (the runtime joining the
// driver's context) the setup step (load times, module, library, cuMemAlloc), the CUBIN, PTX and
// <<<>>> kernels, end to end, the --fmad=true demo -> what the rows showed (saxpy_rows.cpp).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "course/format.hpp"
#include "course/harness.hpp"
#include "course/main.hpp"
#include "saxpy_steps.hpp"

namespace {

using course::Role;
using course::Target;
namespace ds = driver_saxpy;

using Data = ds::RowData;  // what every row refers to, alive until the end

// Both CPU loops are SIMD (saxpy_cpu.cpp, no contraction), held against a host copy of the same
// traffic: one core and all cores, what the GPU's speedups are quoted against. Bit for bit.
void add_cpu_rows(course::Lesson& lesson, Data& d) {
  lesson.add_host_copy_ceiling(d.bytes);
  auto row = [&](std::string name, Role role, auto function) {
    lesson.add({.name = std::move(name), .role = role, .work = d.bytes, .ceiling = "host_copy",
                .run = [&d, function](cudaStream_t) { function(d.a, d.x, d.y, d.out); },
                .check = course::check_host<float>(d.out, d.reference, course::Tolerance::exact())});
  };
  row("CPU saxpy, 1 thread (SIMD)", Role::cpu_serial, ds::saxpy_serial);
  row("CPU saxpy, " + std::to_string(lesson.options().cpu_threads()) + " threads (OpenMP, SIMD)", Role::cpu_parallel,
      ds::saxpy_parallel);
}

// The driver rows launch into the harness's stream (a cudaStream_t is a CUstream), timed with
// events there, on the classic's cuMemAlloc'd buffers; the runtime row uses the same buffers
// (one context, so the pointers are valid).
void add_kernel_rows(course::Lesson& lesson, Data& d, ds::DriverPath& path, const std::string& what,
                     const std::string& runtime_row) {
  const std::size_t n = d.x.size();
  auto shape = [&path, n] { return path.launch.describe() + ", " + std::to_string(n) + " elements"; };
  auto driver_row = [&](std::string name, Role role, const CUfunction* function, course::Check check) {
    lesson.add({.name = std::move(name), .target = Target::gpu, .role = role, .work = d.bytes, .ceiling = "d2d_copy",
                .setup = {*d.load},
                .run = [&d, &path, function, n](cudaStream_t s) {
                  ds::launch_driver(*function, path.launch, d.a, path.buffers->x(), path.buffers->y(),
                                    path.buffers->out(), n, s);
                },
                .check = std::move(check), .note_after_run = shape});
  };
  driver_row("GPU driver API: " + what + ", NVRTC CUBIN, cuModuleLoadData", Role::gpu_kernel, &path.cubin,
             ds::driver_check(path, d.out, d.reference, [&d](const std::vector<float>& out) { d.seen.cubin_out = out; }));
  driver_row("GPU driver API: " + what + ", NVRTC PTX (JIT), cuLibraryLoadData", Role::detail, &path.ptx,
             ds::driver_check(path, d.out, d.reference, [&d](const std::vector<float>& out) {
               d.seen.cubin_vs_ptx = ds::compare_bits(d.seen.cubin_out, out);
             }));
  lesson.add({.name = runtime_row, .target = Target::gpu, .work = d.bytes, .ceiling = "d2d_copy", .setup = {*d.load},
              .run = [&d, &path, n](cudaStream_t s) {
                using ds::as_floats;
                ds::launch_runtime(path.runtime_launch, d.a, as_floats(path.buffers->x()), as_floats(path.buffers->y()),
                                   as_floats(path.buffers->out()), n, s);
              },
              .check = ds::driver_check(path, d.out, d.reference, [&d](const std::vector<float>& out) {
                d.seen.driver_vs_runtime = ds::compare_bits(d.seen.cubin_out, out);
              }),
              .note_after_run = [&path] { return path.runtime_launch.describe(); }});
}

// The second kernel text (saxpy_one_pass.cuh): one pass, no loop, the grid covering the array
// once; NVRTC's CUBIN through the driver and nvcc's build through <<<>>>, on the same buffers.
ds::OnePassRows add_one_pass_rows(course::Lesson& lesson, Data& d, ds::DriverPath& path, int block) {
  const ds::OnePassRows names{"GPU driver API: saxpy_one_pass (one pass), NVRTC CUBIN, cuModuleLoadData",
                              "GPU runtime API: saxpy_one_pass (one pass) built by nvcc, <<<>>>"};
  const std::size_t n = d.x.size();
  auto driver_shape = std::make_shared<course::LaunchShape>(), runtime_shape = std::make_shared<course::LaunchShape>();
  lesson.add({.name = names.driver, .target = Target::gpu, .work = d.bytes, .ceiling = "d2d_copy", .setup = {*d.load},
              .run = [&d, &path, n, block, driver_shape](cudaStream_t s) {
                *driver_shape = ds::launch_driver_one_pass(path.one_pass, block, d.a, path.buffers->x(), path.buffers->y(),
                                                    path.buffers->out(), n, s);
              },
              .check = ds::driver_check(path, d.out, d.reference, [&d](const std::vector<float>& out) {
                d.seen.one_pass_driver_vs_cubin = ds::compare_bits(d.seen.cubin_out, out);
              }),
              .note_after_run = [driver_shape] { return driver_shape->describe(); }});
  lesson.add({.name = names.runtime, .target = Target::gpu, .work = d.bytes, .ceiling = "d2d_copy", .setup = {*d.load},
              .run = [&d, &path, n, block, runtime_shape](cudaStream_t s) {
                using ds::as_floats;
                *runtime_shape = ds::launch_runtime_one_pass(block, d.a, as_floats(path.buffers->x()), as_floats(path.buffers->y()),
                                                     as_floats(path.buffers->out()), n, s);
              },
              .check = ds::driver_check(path, d.out, d.reference, [&d](const std::vector<float>& out) {
                d.seen.one_pass_runtime_vs_cubin = ds::compare_bits(d.seen.cubin_out, out);
              }),
              .note_after_run = [runtime_shape] { return runtime_shape->describe(); }});
  return names;
}

// End to end, as the classic runs it, all in its own stream: copies from ordinary host memory,
// the kernel, the copy back and the synchronization, timed on the host.
void add_end_to_end(course::Lesson& lesson, Data& d, ds::DriverPath& path, const std::string& what) {
  course::Check end_check = ds::driver_check(path, d.out, d.reference);
  end_check.verify = [&d] { return course::verify(std::span<const float>(d.out), d.reference, course::Tolerance::exact()); };
  lesson.add({.name = "GPU driver API end-to-end: copy x, y in, " + what + ", copy out", .target = Target::gpu,
              .role = Role::gpu_end_to_end, .work = d.bytes, .setup = {*d.load},
              .run = [&d, &path](cudaStream_t) {
                path.buffers->upload(d.x, d.y);
                ds::launch_driver(path.cubin, path.launch, d.a, path.buffers->x(), path.buffers->y(),
                                  path.buffers->out(), d.x.size(), path.buffers->stream());
                path.buffers->download(d.out);
              },
              .check = end_check, .timing = course::Timing::host,
              .repeat = course::RepeatOptions{1, std::min(lesson.options().reps, 10)}});
}

int run(int argc, char** argv) {
  course::Lesson lesson("08_driver_api_saxpy",
                        "out = a * x + y compiled at run time (NVRTC) and launched through the CUDA driver API, "
                        "against nvcc and <<<>>> and the CPU",
                        {"-l,--length", "number of elements", static_cast<std::int64_t>(ds::kClassicLength), std::int64_t{1} << 34});
  // Before any CUDA call (the GPU probe in parse() is one): the driver reads CUDA_CACHE_PATH when
  // it initialises. The lesson owns it: the fresh folder goes when the lesson ends.
  ds::JitCacheSetup jit_cache;
  ds::Options o;
  ds::add_options(lesson.cli(), o);
  lesson.defer_gpu_context();  // the driver path opens the GPU itself: parse() only asks whether there is one
  const course::CommonOptions& options = lesson.parse(argc, argv);
  const ds::Source source = ds::source_of(o);

  const auto n = static_cast<std::size_t>(options.size);
  lesson.set_title("out = a * x + y over " + course::format_count(n) + " floats, a = " + course::format_fixed(o.a, 2));
  Data d;
  ds::prepare(d, o.a, n, options.seed);  // x and y random, the reference

  // The driver path, step by step, before the runtime touches the GPU; NVRTC compiles for the
  // GPU the driver found (or, without one, for the oldest architecture it knows).
  std::printf("\n");
  ds::DriverPath path;
  const int device_arch = lesson.has_gpu() ? ds::init_driver(path, options.device) : 0;
  const ds::CompiledPair compiled = ds::compile_both(source, device_arch, lesson);
  if (lesson.has_gpu()) ds::open_context(path, n, lesson);
  add_cpu_rows(lesson, d);
  // The runtime joins at the harness's first GPU call: it finds the primary context the driver
  // made current and uses it. The GPU rows' setup step then runs open_gpu (its cudaSetDevice
  // checks this build has code for the GPU) and loads the code.
  lesson.add_device_copy_ceiling(d.bytes);
  d.load = &lesson.add_setup("driver API: load times, cuModuleLoadData, cuLibraryLoadData, NVRTC --fmad=true, cuMemAlloc", [&] {
    lesson.report().set_gpu(course::open_gpu(options));
    d.seen.same_context = course::driver::current_context() == path.context->get();
    ds::load_code(path, {source, compiled, jit_cache, o.block, o.grid}, d.x, d.y, lesson);
  });
  const std::string what = source.user ? source.entry + " from " + source.name : std::string("saxpy");
  const std::string runtime_row = "GPU runtime API: saxpy built by nvcc, <<<>>>";
  add_kernel_rows(lesson, d, path, what, runtime_row);
  const ds::OnePassRows one_pass_rows = source.user ? ds::OnePassRows{} : add_one_pass_rows(lesson, d, path, o.block);
  ds::add_library_row(lesson, d, path);  // cublasSaxpy: what a C++ user would call instead
  add_end_to_end(lesson, d, path, what);
  ds::add_contraction_demo(lesson, d, path);

  lesson.run_variants();
  if (lesson.has_gpu()) ds::report_findings(lesson, path, d.seen, d.a, source.user, runtime_row, one_pass_rows);
  return lesson.finish();
}

}  // namespace

int main(int argc, char** argv) { return course::run_lesson(argc, argv, run); }
