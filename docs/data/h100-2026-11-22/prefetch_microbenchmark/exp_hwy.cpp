#include <cstddef>
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
namespace hn = hwy::HWY_NAMESPACE;
void hwy_exp(const float* x, float* y, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Exp(d, hn::LoadU(d, x + i)), d, y + i);
  for (; i < n; ++i) y[i] = hn::GetLane(hn::Exp(hn::CappedTag<float, 1>(), hn::Set(hn::CappedTag<float, 1>(), x[i])));
}
