// Throwaway microbenchmark: single-thread float exp throughput, several implementations.
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <gnu/libc-version.h>
extern "C" __m512 _ZGVeN16v_expf(__m512);
extern "C" __m256 _ZGVdN8v_expf(__m256);
void hwy_exp(const float* x, float* y, size_t n);  // exp_hwy.cpp

__attribute__((target("avx512f"))) void mvec16(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}
__attribute__((target("avx2,fma"))) void mvec8(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _ZGVdN8v_expf(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}

template <int D> __attribute__((target("avx512f"))) void mvec16_pf(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_prefetch(reinterpret_cast<const char*>(x + i + D), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(y + i + D), _MM_HINT_ET0);
    _mm512_storeu_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}
template <int D> __attribute__((target("avx512f"))) void mvec16_pfx(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_prefetch(reinterpret_cast<const char*>(x + i + D), _MM_HINT_T0);
    _mm512_storeu_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}
__attribute__((target("avx512f"))) void mvec16_nt(const float* x, float* y, size_t n) {
  size_t i = 0;  // y 64-byte aligned here
  for (; i + 16 <= n; i += 16) _mm512_stream_ps(y + i, _ZGVeN16v_expf(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = std::exp(x[i]);
  _mm_sfence();
}
// The same work on 4096 floats that stay in L1: the compute rate alone.
__attribute__((target("avx512f"))) void mvec16_l1(const float* x, float* y, size_t n) {
  for (size_t done = 0; done < n; done += 4096) mvec16(x, y, 4096);
}
__attribute__((target("avx512f"))) void copy16(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_loadu_ps(x + i));
}
template <class F> double time_ms(F f) {
  f(); std::vector<double> t;
  for (int r = 0; r < 15; ++r) { auto a = std::chrono::steady_clock::now(); f(); t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count()); }
  std::sort(t.begin(), t.end()); return t[7];
}
int main() {
  std::printf("glibc %s\n", gnu_get_libc_version());
  for (int round = 0; round < 3; ++round)
  for (size_t n : {size_t(10000000), size_t(1) << 26}) {
    float* xb = static_cast<float*>(std::aligned_alloc(64, (n + 64) * 4));
    float* yb = static_cast<float*>(std::aligned_alloc(64, (n + 64) * 4));
    std::mt19937 g(42); std::normal_distribution<float> d;
    for (size_t i = 0; i < n + 64; ++i) { xb[i] = d(g); yb[i] = 0; }
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = std::exp(double(xb[i]));
    auto err = [&](float* y) { double m = 0; for (size_t i = 0; i < n; ++i) { double u = std::abs(y[i] - ref[i]) / (std::nextafter(float(ref[i]), INFINITY) - float(ref[i])); m = std::max(m, u);} return m; };
    struct V { const char* name; float* x; float* y; void (*f)(const float*, float*, size_t); } vs[] = {
      {"mvec16 aligned64", xb, yb, mvec16}, {"mvec16 offset16", xb + 4, yb + 4, mvec16},
      {"mvec8 aligned64", xb, yb, mvec8}, {"highway Exp", xb, yb, hwy_exp},
      {"mvec16 pf x+y 512", xb, yb, mvec16_pf<512>}, {"mvec16 pf x+y 2048", xb, yb, mvec16_pf<2048>},
      {"mvec16 pf x 1024", xb, yb, mvec16_pfx<1024>}, {"mvec16 nt store", xb, yb, mvec16_nt},
      {"mvec16 L1 only", xb, yb, mvec16_l1}, {"avx512 copy", xb, yb, copy16}};
    for (auto& v : vs) {
      double ms = time_ms([&] { v.f(v.x, v.y, n); });
      std::printf("n=%-9zu %-18s %7.2f ms %6.1f GB/s  max %.2f ulp\n", n, v.name, ms, 8.0 * n / ms / 1e6, (v.x == xb && v.f != mvec16_l1 && v.f != copy16) ? err(v.y) : -1.0);
    }
    std::free(xb); std::free(yb);
  }
}
