// Lesson 08: the library row. What a C++ programmer would call instead of writing saxpy at all:
// cuBLAS's cublasSaxpy, on the same buffers, in the same table.
//
// Teaches:
//  - BLAS level 1 works in place: cublasSaxpy computes y = a * x + y, overwriting y. So the row's
//    output buffer is filled with y before the verified run (the check's poison step copies y
//    into it), and each timed repetition then adds a * x again: the same traffic as the lesson's
//    kernels (read x, read y, write y: 12 bytes per element), so the GB/s compare directly.
//  - cuBLAS runs in the context the driver created: the runtime joined the primary context, and
//    a cuBLAS handle belongs to the context that is current when it is created.
//  - Which rounding a library uses is found out, not assumed: the result is compared bit for bit
//    with both references, unfused (a * x rounded, then + y) and fused (std::fma), and the row
//    says which it matched.
#include <cublas_v2.h>

#include <memory>
#include <string>

#include "course/check.hpp"
#include "course/check_cublas.hpp"
#include "course/cublas_ceiling.hpp"
#include "saxpy_steps.hpp"

namespace driver_saxpy {

void cublas_saxpy_in_place(const course::CublasHandle& handle, float a, const float* x, float* y, std::size_t n,
                           cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  // The _64 entry point: n may exceed 2^31 - 1 (the lesson allows up to 2^34 elements).
  CUBLAS_CHECK(cublasSaxpy_64(handle.get(), static_cast<std::int64_t>(n), &a, x, 1, y, 1));
}

void add_library_row(course::Lesson& lesson, RowData& d, DriverPath& path) {
  auto& handle = lesson.add_setup("", [] { return course::CublasHandle(); });  // cublasCreate: the row's setup ms
  const std::size_t n = d.x.size();
  auto matched = std::make_shared<std::string>();

  course::Check check = driver_check(path, d.out, d.reference);
  check.poison = [&d, &path, n, poison = check.poison] {
    poison();  // host out and device out to NaN, then y into the device out: cublasSaxpy's input
    // The NaN fill is queued on the buffers' own stream, which does not wait for (nor is waited
    // on by) the default stream that cudaMemcpy uses: without this wait the fill can land after
    // the copy (seen under compute-sanitizer, which changes the timing: every element NaN).
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(reinterpret_cast<void*>(path.buffers->out()), reinterpret_cast<const void*>(path.buffers->y()),
                          n * sizeof(float), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  };
  // Bit-equal to the unfused reference or to the fused one (std::fma): either passes, and the
  // note says which (both, where a * x is exact, as for a = 2).
  check.verify = [&d, verify = check.verify, matched] {
    const course::VerifyResult unfused = verify();
    if (unfused.nan_count > 0) return unfused;
    const course::VerifyResult fused = course::verify(std::span<const float>(d.out), saxpy_fused_reference(d.a, d.x, d.y),
                                                      course::Tolerance::exact());
    *matched = unfused.passed && fused.passed ? "bit-equal to both a * x + y and std::fma(a, x, y): a * x is exact for this a"
               : unfused.passed             ? "bit-equal to a * x + y (two roundings), not to std::fma"
               : fused.passed               ? "bit-equal to std::fma(a, x, y) (one rounding), not to a * x + y"
                                            : "matches neither rounding";
    return fused.passed && !unfused.passed ? fused : unfused;
  };
  lesson.add({.name = "GPU library: cublasSaxpy (in place, y = a * x + y)", .target = course::Target::gpu,
              .role = course::Role::gpu_library, .work = d.bytes, .ceiling = "d2d_copy",
              .setup = {*d.load, handle},
              .run = [&d, &path, &handle, n](cudaStream_t stream) {
                cublas_saxpy_in_place(handle.get(), d.a, as_floats(path.buffers->x()), as_floats(path.buffers->out()), n,
                                      stream);
              },
              .check = std::move(check), .note_after_run = [matched] { return *matched; }});
}

}  // namespace driver_saxpy
