// Lesson 07, step 5: the special-function unit's approximations, in float.
//
// Teaches: __expf, __logf and __fdividef are a few instructions each (the SFU's ex2 and lg2
// approximations and a reciprocal), where expf and logf are tens; their error is larger and, for
// __expf, grows with |x| (2 + 1.17 |x| ulp). Here the error it adds is measured against the long
// double reference and held to a looser bound (K = 64 instead of 16: the max_ulp trait in
// kernels/registry.inc). There are no such intrinsics for double: the lesson runs this kernel in
// float only (its precisions trait), and its double instantiation, which exists so that the
// registry's table links, refuses to run.
//
// What changed from step 4: the math policy, detail::DeviceMath became detail::FastMath
// (formula.hpp), in each call of price_shared_exp; and with float only, the vectors are float4.
// The memory pattern, the fallback and the launcher are step 4's.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "black_scholes.hpp"
#include "course/check.hpp"

namespace black_scholes {

namespace {

__device__ __forceinline__ float& lane(float4& v, int k) {
  return reinterpret_cast<float*>(&v)[k];  // k is a compile-time constant after unrolling: a register
}

// As in step 3: 4 resident blocks of 256 threads per SM, at most 64 registers per thread.
constexpr int kVectorBlock = 256;
constexpr int kMinBlocks = 4;
constexpr int kVectorsPerThread = 2;
constexpr int kLanes = 4;  // floats in a float4

template <int kVectors>
__global__ void __launch_bounds__(kVectorBlock, kMinBlocks)
    vector_kernel(Arrays<float> a, std::size_t n, Coefficients<float> market) {
  using V = float4;
  const std::size_t vectors = n / kLanes;  // whole vectors; the last n % kLanes options come after
  const V* price = reinterpret_cast<const V*>(a.price);
  const V* strike = reinterpret_cast<const V*>(a.strike);
  const V* years = reinterpret_cast<const V*>(a.years);
  V* call = reinterpret_cast<V*>(a.call);
  V* put = reinterpret_cast<V*>(a.put);

  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kVectors * kVectorBlock;
  V S[kVectors], X[kVectors], t[kVectors];
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {  // 3 * kVectors 16-byte loads in flight per thread
    const std::size_t v = base + k * kVectorBlock + threadIdx.x;
    if (v < vectors) {
      S[k] = price[v];
      X[k] = strike[v];
      t[k] = years[v];
    }
  }
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const std::size_t v = base + k * kVectorBlock + threadIdx.x;
    if (v < vectors) {
      V c, p;
#pragma unroll
      for (int l = 0; l < kLanes; ++l) {
        const Prices<float> prices =
            price_shared_exp<detail::FastMath, float>(lane(S[k], l), lane(X[k], l), lane(t[k], l), market);
        lane(c, l) = prices.call;
        lane(p, l) = prices.put;
      }
      call[v] = c;
      put[v] = p;
    }
  }
  // The last n % kLanes options (at most 3): the first threads of block 0, one option each.
  const std::size_t i = vectors * kLanes + threadIdx.x;
  if (blockIdx.x == 0 && i < n) {
    const Prices<float> prices =
        price_shared_exp<detail::FastMath, float>(a.price[i], a.strike[i], a.years[i], market);
    a.call[i] = prices.call;
    a.put[i] = prices.put;
  }
}

// The fallback for pointers that are not 16-byte aligned: step 4's, with the fast math.
constexpr int kOptionsPerThread = 4;

template <int kPerThread>
__global__ void __launch_bounds__(1024) ilp_kernel(Arrays<float> a, std::size_t n, Coefficients<float> market) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerThread * blockDim.x;
  float S[kPerThread], X[kPerThread], t[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {  // all 3 * kPerThread loads first
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      S[k] = a.price[i];
      X[k] = a.strike[i];
      t[k] = a.years[i];
    }
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      const Prices<float> p = price_shared_exp<detail::FastMath, float>(S[k], X[k], t[k], market);
      a.call[i] = p.call;
      a.put[i] = p.put;
    }
  }
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

void launch_fast_math_float(const PricingArgs<float>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  if (!aligned16(args.price) || !aligned16(args.strike) || !aligned16(args.years) || !aligned16(args.call) ||
      !aligned16(args.put)) {
    const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
    const std::size_t per_block = static_cast<std::size_t>(kOptionsPerThread) * block;
    const unsigned grid = checked_grid((args.count + per_block - 1) / per_block, "ilp_kernel");
    ilp_kernel<kOptionsPerThread><<<grid, block, 0, stream>>>(arrays_of(args), args.count, args.market);
    CUDA_CHECK_LAUNCH("ilp_kernel");
    return;
  }
  constexpr std::size_t kPerBlock = std::size_t{kVectorsPerThread} * kVectorBlock;
  const std::size_t vectors = args.count / kLanes;
  // At least one block, so that the last few options of a tiny array are priced too.
  const unsigned grid = checked_grid(vectors == 0 ? 1 : (vectors + kPerBlock - 1) / kPerBlock, "vector_kernel");
  vector_kernel<kVectorsPerThread><<<grid, kVectorBlock, 0, stream>>>(arrays_of(args), args.count, args.market);
  CUDA_CHECK_LAUNCH("vector_kernel");
}

}  // namespace

template <class T>
void launch_fast_math(const PricingArgs<T>& args, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float>) {
    launch_fast_math_float(args, stream);
  } else {
    (void)args;
    (void)stream;
    throw std::invalid_argument("fast_math: float only (CUDA has no fast double exp or log)");
  }
}

template void launch_fast_math<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_fast_math<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
