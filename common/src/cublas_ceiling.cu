// cuBLAS SGEMM in true FP32, row-major through the C^T = B^T A^T identity, and its ceiling.
#include "course/cublas_ceiling.hpp"

#include <optional>
#include <string>

#include "course/check.hpp"
#include "course/check_cublas.hpp"
#include "course/device_buffer.hpp"
#include "course/stream.hpp"

namespace course {

namespace {

// Fills x with values in [-1, 1) from a tiny hash: the ceiling needs realistic, finite inputs,
// not a particular distribution, and filling on the GPU avoids a host round trip.
__global__ void fill_kernel(float* x, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

void fill(DeviceBuffer<float>& buffer, unsigned seed, cudaStream_t stream) {
  fill_kernel<<<1024, 256, 0, stream>>>(buffer.data(), buffer.size(), seed);
  CUDA_CHECK_LAUNCH("fill_kernel");
}

}  // namespace

CublasHandle::CublasHandle() {
  CUBLAS_CHECK(cublasCreate(&handle_));
  // True FP32: no TF32 tensor cores, whatever NVIDIA_TF32_OVERRIDE or defaults say.
  const cublasStatus_t status = cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH);
  if (status != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle_);
    handle_ = nullptr;
    CUBLAS_CHECK(status);
  }
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

CublasHandle& CublasHandle::operator=(CublasHandle&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cublasDestroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void sgemm_row_major(const CublasHandle& handle, int m, int n, int k, const float* a, const float* b, float* c,
                     cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  // Column-major view: C^T (n x m) = B^T (n x k) x A^T (k x m); leading dimensions n, k, n.
  CUBLAS_CHECK(cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, n, a, k, &beta, c, n));
}

Ceiling measure_cublas_sgemm(int m, int n, int k, const RepeatOptions& options, bool flush_l2) {
  const auto count = [](int rows, int cols) { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); };
  DeviceBuffer<float> a(count(m, k), "cuBLAS ceiling A"), b(count(k, n), "cuBLAS ceiling B"),
      c(count(m, n), "cuBLAS ceiling C");
  Stream stream;
  fill(a, 1u, stream.get());
  fill(b, 2u, stream.get());
  CublasHandle handle;
  std::optional<L2Flusher> flusher;
  if (flush_l2) flusher.emplace();
  const TimingStats stats = time_device(
      options, stream.get(), [&] { sgemm_row_major(handle, m, n, k, a.data(), b.data(), c.data(), stream.get()); },
      flusher ? &*flusher : nullptr);

  Ceiling ceiling;
  ceiling.name = "cublas_sgemm";
  ceiling.unit = "GFLOP/s";
  ceiling.value = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (stats.median_ms * 1e6);
  ceiling.description = "cuBLAS SGEMM, FP32 (CUBLAS_PEDANTIC_MATH: no TF32), " + std::to_string(m) + " x " +
                        std::to_string(n) + " x " + std::to_string(k) + ", " + (flush_l2 ? "L2 flushed" : "L2 warm") +
                        ", median of " + std::to_string(stats.reps);
  return ceiling;
}

}  // namespace course
