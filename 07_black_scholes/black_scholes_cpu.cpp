// Lesson 07, CPU side: one thread, one option at a time, the formula as the classic wrote it.
//
// Teaches: this is the loop a first port starts from, and the teaching row of the table: scalar
// std::log, std::exp and std::sqrt (glibc's, correctly rounded or within 1 ulp), 3 exponentials
// and 1 logarithm per option, the put from 1 - cnd. It is not the CPU baseline the GPU is
// compared with: that is black_scholes_simd.cpp (vector math, all cores).
#include "black_scholes.hpp"

namespace black_scholes {

// [docs:price_serial]
template <class T>
void price_serial(Inputs<T> in, Outputs<T> out, Market market) {
  const T rate = static_cast<T>(market.rate);
  const T volatility = static_cast<T>(market.volatility);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Prices<T> p = price_classic<HostMath>(in.price[i], in.strike[i], in.years[i], rate, volatility);
    out.call[i] = p.call;
    out.put[i] = p.put;
  }
}
// [docs:end price_serial]

template void price_serial<float>(Inputs<float>, Outputs<float>, Market);
template void price_serial<double>(Inputs<double>, Outputs<double>, Market);

}  // namespace black_scholes
