// Lesson 07, step 4: less arithmetic per option (price_shared_exp in formula.hpp).
//
// Teaches: when the memory side is as fast as it gets, what is left is the arithmetic, and in
// double it decides: an H100 runs FP64 at half the FP32 rate, and one option in double costs
// about as many FP64 instructions as the memory system's rate leaves it (docs, section 8). This
// step keeps step 3's memory pattern and changes the formula only:
//  - one exponential fewer: exp(-d2^2 / 2) is not computed, since S phi(d1) = X e^(-rT) phi(d2);
//  - one reciprocal square root instead of a square root and a division;
//  - each CND kept as its tail, so the put needs no 1 - (1 - tail): no cancellation.
//
// What changed from step 3: price_classic became price_shared_exp, in the kernel's two calls
// (the vectors' lanes and the last few options); the rest of vector_kernel is step 3's, line for
// line. Step 3 falls back to step 2's launcher for unaligned pointers, but that one prices with
// the classic formula, so this file has its own fallback: step 2's kernel with this formula.
// The headline kernel: formula.hpp holds the formula and the device math it calls.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "black_scholes.hpp"
#include "course/check.hpp"

namespace black_scholes {

namespace {

// One 16-byte vector of T: a float4 holds 4 options' worth of one array, a double2 holds 2. A warp
// moves 512 bytes per instruction instead of 128 (float) or 256 (double).
template <class T>
using Vector16 = std::conditional_t<std::is_same_v<T, float>, float4, double2>;
template <class T>
constexpr int kLanes = static_cast<int>(sizeof(Vector16<T>) / sizeof(T));

template <class T>
__device__ __forceinline__ T& lane(Vector16<T>& v, int k) {
  return reinterpret_cast<T*>(&v)[k];  // k is a compile-time constant after unrolling: a register
}

// Threads per block, fixed: __launch_bounds__ promises it to the compiler. kMinBlocks resident
// blocks of kVectorBlock threads per SM (1,024 threads: half of an H100 SM's 2,048) cap the
// registers at 64 per thread, enough for the formula without spilling (ptxas reports the count;
// docs/07_black_scholes.md, section 8).
constexpr int kVectorBlock = 256;
constexpr int kMinBlocks = 4;
constexpr int kVectorsPerThread = 2;

template <class T, int kVectors>
__global__ void __launch_bounds__(kVectorBlock, kMinBlocks)
    vector_kernel(Arrays<T> a, std::size_t n, Coefficients<T> market) {
  using V = Vector16<T>;
  const std::size_t vectors = n / kLanes<T>;  // whole vectors; the last n % kLanes options come after
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
      for (int l = 0; l < kLanes<T>; ++l) {
        const Prices<T> prices =
            price_shared_exp<detail::DeviceMath, T>(lane<T>(S[k], l), lane<T>(X[k], l), lane<T>(t[k], l), market);
        lane<T>(c, l) = prices.call;
        lane<T>(p, l) = prices.put;
      }
      call[v] = c;
      put[v] = p;
    }
  }
  // The last n % kLanes options (at most 3): the first threads of block 0, one option each.
  const std::size_t i = vectors * kLanes<T> + threadIdx.x;
  if (blockIdx.x == 0 && i < n) {
    const Prices<T> prices = price_shared_exp<detail::DeviceMath, T>(a.price[i], a.strike[i], a.years[i], market);
    a.call[i] = prices.call;
    a.put[i] = prices.put;
  }
}

// The fallback for pointers that are not 16-byte aligned: step 2's kernel (kernels/02_ilp.cu),
// one option at a time, kOptionsPerThread per thread, with this step's formula.
// __launch_bounds__(1024): any block size a user asks for must launch. Left to itself, ptxas
// gives the double version 70 registers per thread, and a block of 1,024 threads would then need
// 71,680 of the SM's 65,536: the launch would fail ("too many resources requested"). With the
// bound it stays at or below 64.
constexpr int kOptionsPerThread = 4;

template <class T, int kPerThread>
__global__ void __launch_bounds__(1024) ilp_kernel(Arrays<T> a, std::size_t n, Coefficients<T> market) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerThread * blockDim.x;
  T S[kPerThread], X[kPerThread], t[kPerThread];
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
      const Prices<T> p = price_shared_exp<detail::DeviceMath, T>(S[k], X[k], t[k], market);
      a.call[i] = p.call;
      a.put[i] = p.put;
    }
  }
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

// 16-byte accesses need 16-byte aligned addresses. cudaMalloc's are (256 bytes); a view into the
// middle of an array may not be, and then ilp_kernel above does the same work.
template <class T>
void launch_shared_exp(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  if (!aligned16(args.price) || !aligned16(args.strike) || !aligned16(args.years) || !aligned16(args.call) ||
      !aligned16(args.put)) {
    const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
    const std::size_t per_block = static_cast<std::size_t>(kOptionsPerThread) * block;
    const unsigned grid = checked_grid((args.count + per_block - 1) / per_block, "ilp_kernel");
    ilp_kernel<T, kOptionsPerThread><<<grid, block, 0, stream>>>(arrays_of(args), args.count, args.market);
    CUDA_CHECK_LAUNCH("ilp_kernel");
    return;
  }
  constexpr std::size_t kPerBlock = std::size_t{kVectorsPerThread} * kVectorBlock;
  const std::size_t vectors = args.count / kLanes<T>;
  // At least one block, so that the last few options of a tiny array are priced too.
  const unsigned grid = checked_grid(vectors == 0 ? 1 : (vectors + kPerBlock - 1) / kPerBlock, "vector_kernel");
  vector_kernel<T, kVectorsPerThread><<<grid, kVectorBlock, 0, stream>>>(arrays_of(args), args.count, args.market);
  CUDA_CHECK_LAUNCH("vector_kernel");
}

template void launch_shared_exp<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_shared_exp<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
