// Lesson 07, CPU side: the formula on SIMD lanes with glibc's vector exp and log (libmvec).
//
// Teaches: the CPU rows a GPU is compared with must be what a user would run. A plain loop of
// std::exp and std::log stays scalar (the compiler may not call a vector version unless it knows
// one exists and that errno need not be set), so this file calls glibc's vector functions
// directly: "_ZGV<isa>N<lanes>v_exp" in the x86-64 vector function ABI, 16 floats or 8 doubles
// per call with AVX-512, 8 or 4 with AVX2, 4 or 2 with SSE; glibc promises them within 4 ulp.
// The formula is written once (price_shared_exp in formula.hpp) for a vector type V: GCC's
// vector extensions give V the arithmetic operators, comparisons (masks) and ?: (a per-lane
// select), so the same source prices one option (V = T) or 16 (V = 16 floats).
//
// How it is compiled: the default x86-64 target has SSE2 only. Each instruction set gets its own
// copy of the loop, marked target("avx512f") or target("avx2,fma") and flatten (every call in it
// inlined, the formula and the policy's vector calls included, so all of it is compiled for that
// set); the widest this CPU supports is chosen at run time, so one binary runs anywhere.
// Prefetch: a core needs many cache lines in flight to stream at full speed, more than its
// hardware prefetchers keep for five arrays at once (lesson 01); the rows the GPU is compared with
// ask for each array's lines 2 KiB ahead, the others leave it to the hardware.
//
// GCC warns (-Wpsabi) that returning a 32- or 64-byte vector from a function compiled without
// AVX would use another calling convention than with it. No such call exists here: flatten
// inlines the formula's helpers into the one function that has the target, so the warning is off.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "black_scholes.hpp"

namespace black_scholes {

namespace {

// The options of one slice, [begin, end), and the market in T.
template <class T>
struct Slice {
  const T* price;
  const T* strike;
  const T* years;
  T* call;
  T* put;
  std::size_t begin, end;
  Coefficients<T> market;
};

// How far ahead the prefetches reach, per array (as in lesson 01: 2 KiB).
constexpr std::size_t kPrefetchBytes = 2048;

template <class T>
inline void prefetch_ahead(const Slice<T>& s, std::size_t i) {
  constexpr std::size_t ahead = kPrefetchBytes / sizeof(T);
  if (i + ahead < s.end) {  // a prefetch never faults, but the address must stay inside the arrays
    __builtin_prefetch(s.price + i + ahead, /*write=*/0, /*keep in every cache level=*/3);
    __builtin_prefetch(s.strike + i + ahead, 0, 3);
    __builtin_prefetch(s.years + i + ahead, 0, 3);
    __builtin_prefetch(s.call + i + ahead, 1, 3);
    __builtin_prefetch(s.put + i + ahead, 1, 3);
  }
}

// The slice, kLanes options at a time; the last few options (fewer than kLanes) are priced as
// one more vector whose spare lanes hold a harmless option (S = X = T = 1), so every option goes
// through the same vector code and the result does not depend on where a slice ends.
template <class Math, class V, class T, bool kPrefetch>
[[gnu::always_inline]] inline void price_slice(const Slice<T>& s) {
  constexpr std::size_t kLanes = sizeof(V) / sizeof(T);
  std::size_t i = s.begin;
  for (; i + kLanes <= s.end; i += kLanes) {
    if constexpr (kPrefetch) prefetch_ahead(s, i);
    V S, X, years;
    std::memcpy(&S, s.price + i, sizeof(V));  // unaligned vector loads
    std::memcpy(&X, s.strike + i, sizeof(V));
    std::memcpy(&years, s.years + i, sizeof(V));
    const Prices<V> p = price_shared_exp<Math, T>(S, X, years, s.market);
    std::memcpy(s.call + i, &p.call, sizeof(V));
    std::memcpy(s.put + i, &p.put, sizeof(V));
  }
  if (i < s.end) {
    const std::size_t rest = s.end - i;
    T S[kLanes], X[kLanes], years[kLanes], call[kLanes], put[kLanes];
    std::fill(S, S + kLanes, T(1));
    std::fill(X, X + kLanes, T(1));
    std::fill(years, years + kLanes, T(1));
    std::copy(s.price + i, s.price + s.end, S);
    std::copy(s.strike + i, s.strike + s.end, X);
    std::copy(s.years + i, s.years + s.end, years);
    V vS, vX, vyears;
    std::memcpy(&vS, S, sizeof(V));
    std::memcpy(&vX, X, sizeof(V));
    std::memcpy(&vyears, years, sizeof(V));
    const Prices<V> p = price_shared_exp<Math, T>(vS, vX, vyears, s.market);
    std::memcpy(call, &p.call, sizeof(V));
    std::memcpy(put, &p.put, sizeof(V));
    std::copy(call, call + rest, s.call + i);
    std::copy(put, put + rest, s.put + i);
  }
}

}  // namespace

}  // namespace black_scholes

#if defined(__x86_64__) && defined(__GLIBC__)
#include <immintrin.h>

extern "C" {
__m128 _ZGVbN4v_expf(__m128);  // SSE2 (every x86-64 CPU)
__m128 _ZGVbN4v_logf(__m128);
__m128d _ZGVbN2v_exp(__m128d);
__m128d _ZGVbN2v_log(__m128d);
__m256 _ZGVdN8v_expf(__m256);  // AVX2
__m256 _ZGVdN8v_logf(__m256);
__m256d _ZGVdN4v_exp(__m256d);
__m256d _ZGVdN4v_log(__m256d);
__m512 _ZGVeN16v_expf(__m512);  // AVX-512F
__m512 _ZGVeN16v_logf(__m512);
__m512d _ZGVeN8v_exp(__m512d);
__m512d _ZGVeN8v_log(__m512d);
}

namespace black_scholes {

namespace {

template <class T, int kLanes>
struct VectorOf {
  typedef T type __attribute__((vector_size(sizeof(T) * kLanes)));
};
template <class T, int kLanes>
using Vec = typename VectorOf<T, kLanes>::type;

using F16 = Vec<float, 16>;
using D8 = Vec<double, 8>;
using F8 = Vec<float, 8>;
using D4 = Vec<double, 4>;
using F4 = Vec<float, 4>;
using D2 = Vec<double, 2>;

// Square roots of whole vectors. For AVX-512 the masked form with every lane selected: GCC 12
// warns that _mm512_sqrt_ps's internal "undefined" pass-through value may be uninitialized.
[[gnu::target("avx512f")]] inline __m512 sqrt_avx512(__m512 x) { return _mm512_mask_sqrt_ps(x, 0xFFFF, x); }
[[gnu::target("avx512f")]] inline __m512d sqrt_avx512(__m512d x) { return _mm512_mask_sqrt_pd(x, 0xFF, x); }

// The math policies: price_shared_exp calls Math::exp, log, rsqrt and div on whole vectors.
#define BS_VECTOR_MATH(NAME, TARGET, F, D, EXPF, LOGF, EXPD, LOGD, SQRTF, SQRTD) \
  struct NAME {                                                                  \
    [[gnu::target(TARGET)]] static F exp(F x) { return EXPF(x); }                \
    [[gnu::target(TARGET)]] static F log(F x) { return LOGF(x); }                \
    [[gnu::target(TARGET)]] static F rsqrt(F x) { return 1.0f / F(SQRTF(x)); }     \
    [[gnu::target(TARGET)]] static D exp(D x) { return EXPD(x); }                \
    [[gnu::target(TARGET)]] static D log(D x) { return LOGD(x); }                \
    [[gnu::target(TARGET)]] static D rsqrt(D x) { return 1.0 / D(SQRTD(x)); }    \
    template <class A, class B>                                                  \
    [[gnu::target(TARGET)]] static auto div(A a, B b) {                          \
      return a / b;                                                              \
    }                                                                            \
  };

BS_VECTOR_MATH(Avx512Math, "avx512f", F16, D8, _ZGVeN16v_expf, _ZGVeN16v_logf, _ZGVeN8v_exp, _ZGVeN8v_log, sqrt_avx512,
               sqrt_avx512)
BS_VECTOR_MATH(Avx2Math, "avx2,fma", F8, D4, _ZGVdN8v_expf, _ZGVdN8v_logf, _ZGVdN4v_exp, _ZGVdN4v_log,
               _mm256_sqrt_ps, _mm256_sqrt_pd)
BS_VECTOR_MATH(SseMath, "sse2", F4, D2, _ZGVbN4v_expf, _ZGVbN4v_logf, _ZGVbN2v_exp, _ZGVbN2v_log, _mm_sqrt_ps,
               _mm_sqrt_pd)
#undef BS_VECTOR_MATH

// One copy of the loop per instruction set; T is float or double.
template <class T, bool kPrefetch>
[[gnu::target("avx512f"), gnu::flatten]] void slice_avx512(const Slice<T>& s) {
  price_slice<Avx512Math, Vec<T, 64 / sizeof(T)>, T, kPrefetch>(s);
}
template <class T, bool kPrefetch>
[[gnu::target("avx2,fma"), gnu::flatten]] void slice_avx2(const Slice<T>& s) {
  price_slice<Avx2Math, Vec<T, 32 / sizeof(T)>, T, kPrefetch>(s);
}
template <class T, bool kPrefetch>
[[gnu::flatten]] void slice_sse(const Slice<T>& s) {
  price_slice<SseMath, Vec<T, 16 / sizeof(T)>, T, kPrefetch>(s);
}

enum class Isa { avx512, avx2, sse };

Isa widest() {
  static const Isa chosen = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
    return Isa::sse;
  }();
  return chosen;
}

template <class T>
using SliceFunction = void (*)(const Slice<T>&);

template <class T>
SliceFunction<T> slice_function(Prefetch prefetch) {
  const bool ahead = prefetch == Prefetch::software;
  switch (widest()) {
    case Isa::avx512: return ahead ? &slice_avx512<T, true> : &slice_avx512<T, false>;
    case Isa::avx2: return ahead ? &slice_avx2<T, true> : &slice_avx2<T, false>;
    case Isa::sse: break;
  }
  return ahead ? &slice_sse<T, true> : &slice_sse<T, false>;
}

}  // namespace

const char* simd_width_name() {
  switch (widest()) {
    case Isa::avx512: return "AVX-512: 16 floats or 8 doubles per vector";
    case Isa::avx2: return "AVX2: 8 floats or 4 doubles per vector";
    case Isa::sse: break;
  }
  return "SSE2: 4 floats or 2 doubles per vector";
}

}  // namespace black_scholes

#else  // not x86-64 glibc: the compiler vectorises what it can, with scalar math calls

namespace black_scholes {
namespace {
template <class T>
using SliceFunction = void (*)(const Slice<T>&);

template <class T>
void slice_scalar(const Slice<T>& s) {
  for (std::size_t i = s.begin; i < s.end; ++i) {
    const Prices<T> p = price_shared_exp<HostMath, T>(s.price[i], s.strike[i], s.years[i], s.market);
    s.call[i] = p.call;
    s.put[i] = p.put;
  }
}
template <class T>
SliceFunction<T> slice_function(Prefetch) {
  return &slice_scalar<T>;
}
}  // namespace
const char* simd_width_name() { return "scalar (no libmvec on this platform)"; }
}  // namespace black_scholes

#endif

namespace black_scholes {

namespace {

template <class T>
Slice<T> whole(Inputs<T> in, Outputs<T> out, Market market) {
  return {in.price.data(), in.strike.data(), in.years.data(), out.call.data(), out.put.data(), 0, in.size(),
          make_coefficients(static_cast<T>(market.rate), static_cast<T>(market.volatility))};
}

}  // namespace

template <class T>
void price_simd_serial(Inputs<T> in, Outputs<T> out, Market market, Prefetch prefetch) {
  slice_function<T>(prefetch)(whole(in, out, market));
}

template <class T>
void price_simd_parallel(Inputs<T> in, Outputs<T> out, Market market, Prefetch prefetch) {
  const SliceFunction<T> function = slice_function<T>(prefetch);
  const Slice<T> all = whole(in, out, market);
  const std::size_t n = in.size();
#pragma omp parallel
  {
    // Equal contiguous slices, one per thread, each a multiple of 16 options (whole vectors of any
    // width), so the results are the same bits whatever the number of threads.
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t slice = (n / threads + 15) / 16 * 16;
    Slice<T> mine = all;
    mine.begin = std::min(n, t * slice);
    mine.end = t + 1 == threads ? n : std::min(n, mine.begin + slice);
    if (mine.begin < mine.end) function(mine);
  }
}

template void price_simd_serial<float>(Inputs<float>, Outputs<float>, Market, Prefetch);
template void price_simd_serial<double>(Inputs<double>, Outputs<double>, Market, Prefetch);
template void price_simd_parallel<float>(Inputs<float>, Outputs<float>, Market, Prefetch);
template void price_simd_parallel<double>(Inputs<double>, Outputs<double>, Market, Prefetch);

}  // namespace black_scholes
