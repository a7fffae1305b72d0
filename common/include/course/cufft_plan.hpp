// Owning a cuFFT plan (RAII).
//
// Teaches: a cuFFT plan is a handle to GPU resources (kernels chosen for one size and type, and a
// work area in device memory), created once and executed many times. cufftDestroy must run on
// every path, including the one where planning fails half-way; the owner does that in its
// destructor. Move-only: a copy would destroy the plan twice. Link course::cufft to use it.
//
//   course::CufftPlan forward(rows, cols, CUFFT_R2C);      // cufftMakePlan2d, checked
//   forward.set_stream(stream);
//   CUFFT_CHECK(cufftExecR2C(forward.get(), d_real, d_complex));
//
//   course::CufftPlan inverse;                              // cufftCreate: an empty handle, to
//   CUFFT_CHECK(cufftXtSetJITCallback(inverse.get(), ...)); // configure before planning
//   inverse.make_2d(rows, cols, CUFFT_C2R);                 // cufftMakePlan2d
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "course/check_cufft.hpp"

namespace course {

class CufftPlan {
 public:
  // An empty handle (cufftCreate): set options and callbacks on get(), then make_2d().
  CufftPlan() { CUFFT_CHECK(cufftCreate(&plan_)); }
  // A 2-D plan of `rows` x `cols` (row-major: a row's `cols` elements are contiguous).
  CufftPlan(int rows, int cols, cufftType type) : CufftPlan() { make_2d(rows, cols, type); }
  ~CufftPlan() {
    if (owned_) cufftDestroy(plan_);  // a destructor cannot report; the handle is gone either way
  }
  CufftPlan(CufftPlan&& other) noexcept
      : plan_(other.plan_), owned_(std::exchange(other.owned_, false)), work_size_(other.work_size_) {}
  CufftPlan& operator=(CufftPlan&& other) noexcept {
    if (this != &other) {
      if (owned_) cufftDestroy(plan_);
      plan_ = other.plan_;
      owned_ = std::exchange(other.owned_, false);
      work_size_ = other.work_size_;
    }
    return *this;
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  // cufftMakePlan2d on the handle: chooses the kernels and allocates the work area. cuFFT's
  // first size is the slowest-varying dimension (the rows of a row-major image).
  void make_2d(int rows, int cols, cufftType type) { CUFFT_CHECK(cufftMakePlan2d(plan_, rows, cols, type, &work_size_)); }
  // Later executions are enqueued in `stream` (a plan remembers one stream).
  void set_stream(cudaStream_t stream) const { CUFFT_CHECK(cufftSetStream(plan_, stream)); }

  cufftHandle get() const { return plan_; }
  std::size_t work_size() const { return work_size_; }  // bytes of device memory the plan holds

 private:
  cufftHandle plan_ = 0;
  bool owned_ = true;
  std::size_t work_size_ = 0;
};

}  // namespace course
