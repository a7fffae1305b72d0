// Lesson 07, step 3: 16-byte loads and stores, and a block size promised to the compiler.
//
// Teaches: one float4 (double2) load moves 4 (2) options' worth of one array with one
// instruction, so the load/store and index instructions shrink by 4x (2x), and each thread keeps
// 3 x 2 x 16 = 96 bytes in flight. The block size is fixed (256) and declared with
// __launch_bounds__(256, 4): ptxas then keeps the registers at or below 64 per thread, so that 4
// blocks (1,024 threads) fit on an SM, instead of spending registers on a schedule that lowers
// occupancy. Pointers that are not 16-byte aligned take step 2's kernel instead. The arithmetic
// is still step 1's.
//
// What changed from step 2: each thread loads kVectorsPerThread 16-byte vectors of each array
// instead of 4 options, and prices the vectors' lanes one by one; the block size is a constant;
// the last n % lanes options (at most 3) are priced one by one by the first threads of block 0.
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
        const Prices<T> prices = price_classic<detail::DeviceMath>(lane<T>(S[k], l), lane<T>(X[k], l),
                                                                   lane<T>(t[k], l), market.rate, market.volatility);
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
    const Prices<T> prices = price_classic<detail::DeviceMath>(a.price[i], a.strike[i], a.years[i], market.rate,
                                                               market.volatility);
    a.call[i] = prices.call;
    a.put[i] = prices.put;
  }
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

// 16-byte accesses need 16-byte aligned addresses. cudaMalloc's are (256 bytes); a view into the
// middle of an array may not be, and then step 2's kernel does the same work (kernels/02_ilp.cu).
template <class T>
void launch_vector(const PricingArgs<T>& args, cudaStream_t stream) {
  if (args.count == 0) return;
  if (!aligned16(args.price) || !aligned16(args.strike) || !aligned16(args.years) || !aligned16(args.call) ||
      !aligned16(args.put)) {
    launch_ilp<T>(args, stream);
    return;
  }
  constexpr std::size_t kPerBlock = std::size_t{kVectorsPerThread} * kVectorBlock;
  const std::size_t vectors = args.count / kLanes<T>;
  // At least one block, so that the last few options of a tiny array are priced too.
  const unsigned grid = checked_grid(vectors == 0 ? 1 : (vectors + kPerBlock - 1) / kPerBlock, "vector_kernel");
  vector_kernel<T, kVectorsPerThread><<<grid, kVectorBlock, 0, stream>>>(arrays_of(args), args.count, args.market);
  CUDA_CHECK_LAUNCH("vector_kernel");
}

template void launch_vector<float>(const PricingArgs<float>&, cudaStream_t);
template void launch_vector<double>(const PricingArgs<double>&, cudaStream_t);

}  // namespace black_scholes
