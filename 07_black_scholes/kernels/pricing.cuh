// Lesson 07: what kernels 02 to 05 share. The arithmetic (which math functions, which form of the
// formula) is a template parameter, the memory access pattern is the kernel, so each step of the
// progression changes one of the two and its file is a few lines.
//
//   DeviceMath, FastMath       the math policies of the formula on the GPU
//   ClassicPricer, SharedExpPricer   price_classic / price_shared_exp with a policy
//   ilp_kernel                 one pass, each thread kPerThread options, all loads issued first
//   vector_kernel              the same with 16-byte loads and stores (float4 / double2)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "black_scholes.hpp"
#include "course/check.hpp"

namespace black_scholes::detail {

// ---- Math policies -------------------------------------------------------------------------
// The accurate functions of CUDA's math library: expf within 2 ulp, logf 1 ulp, rsqrtf 2 ulp; in
// double exp and log within 1 ulp, rsqrt 1 ulp. Division and sqrt are IEEE-rounded (nvcc's
// defaults, -prec-div=true -prec-sqrt=true).
struct DeviceMath {
  __device__ static float exp(float x) { return ::expf(x); }
  __device__ static double exp(double x) { return ::exp(x); }
  __device__ static float log(float x) { return ::logf(x); }
  __device__ static double log(double x) { return ::log(x); }
  __device__ static float sqrt(float x) { return ::sqrtf(x); }
  __device__ static double sqrt(double x) { return ::sqrt(x); }
  __device__ static float rsqrt(float x) { return ::rsqrtf(x); }
  __device__ static double rsqrt(double x) { return ::rsqrt(x); }
  template <class A, class B>
  __device__ static auto div(A a, B b) {
    return a / b;
  }
};

// The special-function unit's approximations (float only; CUDA Programming Guide, intrinsic
// functions): __expf within 2 + floor(|1.173 x|) ulp, __logf within 2^-21.41 absolute for x in
// [0.5, 2] and 3 ulp elsewhere, __fdividef 2 ulp, rsqrtf 2 ulp. A few instructions each where
// the accurate ones take tens. Denormal results flush to zero.
struct FastMath {
  __device__ static float exp(float x) { return __expf(x); }
  __device__ static float log(float x) { return __logf(x); }
  __device__ static float sqrt(float x) { return __fsqrt_rn(x); }
  __device__ static float rsqrt(float x) { return ::rsqrtf(x); }
  __device__ static float div(float a, float b) { return __fdividef(a, b); }
};

// ---- The two forms of the formula, as functors the kernels call per option ------------------
template <class Math>
struct ClassicPricer {
  template <class T>
  __device__ Prices<T> operator()(T S, T X, T years, const Coefficients<T>& c) const {
    return price_classic<Math>(S, X, years, c.rate, c.volatility);
  }
};
template <class Math>
struct SharedExpPricer {
  template <class T>
  __device__ Prices<T> operator()(T S, T X, T years, const Coefficients<T>& c) const {
    return price_shared_exp<Math, T>(S, X, years, c);
  }
};

// Kernel arguments, by value (a few device pointers and the market).
template <class T>
struct Arrays {
  const T* __restrict__ price;
  const T* __restrict__ strike;
  const T* __restrict__ years;
  T* __restrict__ call;
  T* __restrict__ put;
};

template <class T>
Arrays<T> arrays_of(const PricingArgs<T>& args) {
  return {args.price, args.strike, args.years, args.call, args.put};
}

// A grid has at most 2^31 - 1 blocks in x.
inline unsigned checked_grid(std::size_t blocks, const char* kernel) {
  if (blocks > 2147483647ull) throw std::length_error(std::string(kernel) + ": more blocks than a grid may have");
  return static_cast<unsigned>(blocks);
}

// ---- Several options per thread, every load issued before the arithmetic ---------------------
// Each block owns a tile of kPerThread * blockDim.x consecutive options; thread t takes options
// t, t + blockDim.x, ... of it, so for every k a warp reads 32 consecutive elements of each
// array (coalesced). The 3 * kPerThread loads are independent: all are in flight at once.
inline constexpr int kOptionsPerThread = 4;

// __launch_bounds__(1024): any block size a user asks for must launch. Left to itself, ptxas
// gives the double version with the shared_exp pricer (the vector kernels' fallback) 70 registers
// per thread, and a block of 1,024 threads would then need 71,680 of the SM's 65,536: the launch
// would fail ("too many resources requested"). With the bound it stays at or below 64.
template <class T, class Pricer, int kPerThread>
__global__ void __launch_bounds__(1024) ilp_kernel(Arrays<T> a, std::size_t n, Coefficients<T> market) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kPerThread * blockDim.x;
  T S[kPerThread], X[kPerThread], years[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      S[k] = a.price[i];
      X[k] = a.strike[i];
      years[k] = a.years[i];
    }
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const std::size_t i = base + k * blockDim.x + threadIdx.x;
    if (i < n) {
      const Prices<T> p = Pricer{}(S[k], X[k], years[k], market);
      a.call[i] = p.call;
      a.put[i] = p.put;
    }
  }
}

template <class T, class Pricer>
void launch_ilp(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const int block = args.block_size > 0 ? args.block_size : kDefaultBlock;
  const std::size_t per_block = static_cast<std::size_t>(kOptionsPerThread) * block;
  const unsigned grid = checked_grid((args.count + per_block - 1) / per_block, "ilp_kernel");
  ilp_kernel<T, Pricer, kOptionsPerThread><<<grid, block, 0, stream>>>(arrays_of(args), args.count, args.market);
  CUDA_CHECK_LAUNCH("ilp_kernel");
}

// ---- 16-byte loads and stores -----------------------------------------------------------------
// One float4 holds 4 options' worth of one array, one double2 holds 2: a warp moves 512 bytes
// per instruction instead of 128 (float) or 256 (double), with a quarter (half) of the load and
// store instructions and of the index arithmetic.
template <class T>
struct Vector16;
template <>
struct Vector16<float> {
  using type = float4;
  static constexpr int lanes = 4;
};
template <>
struct Vector16<double> {
  using type = double2;
  static constexpr int lanes = 2;
};

template <class T>
__device__ __forceinline__ T& lane(typename Vector16<T>::type& v, int k) {
  return reinterpret_cast<T*>(&v)[k];  // k is a compile-time constant after unrolling: a register
}

// Threads per block of the vector kernels, fixed: __launch_bounds__ promises it to the compiler.
// kMinBlocks resident blocks of kVectorBlock threads per SM (1,024 threads: half of an H100 SM's
// 2,048) cap the registers at 64 per thread, enough for the formula without spilling (ptxas
// reports the count; docs/07_black_scholes.md, section 8).
inline constexpr int kVectorBlock = 256;
inline constexpr int kMinBlocks = 4;
inline constexpr int kVectorsPerThread = 2;

template <class T, class Pricer, int kVectors>
__global__ void __launch_bounds__(kVectorBlock, kMinBlocks)
    vector_kernel(Arrays<T> a, std::size_t n, Coefficients<T> market) {
  using V = typename Vector16<T>::type;
  constexpr int kLanes = Vector16<T>::lanes;
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
        const Prices<T> prices = Pricer{}(lane<T>(S[k], l), lane<T>(X[k], l), lane<T>(t[k], l), market);
        lane<T>(c, l) = prices.call;
        lane<T>(p, l) = prices.put;
      }
      call[v] = c;
      put[v] = p;
    }
  }
  // The last n % kLanes options (at most 3): the first threads of block 0, one option each.
  const std::size_t i = vectors * kLanes + threadIdx.x;
  if (blockIdx.x == 0 && i < n) {
    const Prices<T> prices = Pricer{}(a.price[i], a.strike[i], a.years[i], market);
    a.call[i] = prices.call;
    a.put[i] = prices.put;
  }
}

inline bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// 16-byte accesses need 16-byte aligned addresses. cudaMalloc's are (256 bytes); a view into the
// middle of an array may not be, and then the scalar one-pass kernel does the same work.
template <class T, class Pricer>
void launch_vector(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  if (!aligned16(args.price) || !aligned16(args.strike) || !aligned16(args.years) || !aligned16(args.call) ||
      !aligned16(args.put)) {
    launch_ilp<T, Pricer>(args, stream);
    return;
  }
  constexpr std::size_t kPerBlock = std::size_t{kVectorsPerThread} * kVectorBlock;
  const std::size_t vectors = args.count / Vector16<T>::lanes;
  // At least one block, so that the last few options of a tiny array are priced too.
  const unsigned grid = checked_grid(vectors == 0 ? 1 : (vectors + kPerBlock - 1) / kPerBlock, "vector_kernel");
  vector_kernel<T, Pricer, kVectorsPerThread><<<grid, kVectorBlock, 0, stream>>>(arrays_of(args), args.count,
                                                                                 args.market);
  CUDA_CHECK_LAUNCH("vector_kernel");
}

}  // namespace black_scholes::detail
