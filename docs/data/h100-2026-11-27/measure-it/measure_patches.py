#!/usr/bin/env python3
"""Applied on the device to a COPY of the tree (argument: its root): the solutions whose pages
said "measure it", as code, so that the copy's programs run them.
  03: run_pipelined issues breadth first (solution 4).
  07: a kernel exact_cnd: shared_exp's memory pattern with N(d) from normcdf (solution 3).
"""
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])

p = root / "03_streams/pipeline.cpp"
s = p.read_text()
old = """    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const cudaStream_t stream = streams[i % streams.size()].get();
      for (Stage stage : kStages) issue_stage(stage, host, device, chunks[i], transform, stream);
    }"""
new = """    for (Stage stage : kStages) {
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        issue_stage(stage, host, device, chunks[i], transform, streams[i % streams.size()].get());
      }
    }"""
assert s.count(old) == 1, "03 pattern"
p.write_text(s.replace(old, new))

k = root / "07_black_scholes/kernels"
s = (k / "04_shared_exp.cu").read_text()
s = s.replace("launch_shared_exp", "launch_exact_cnd")
exact = '''
template <class T>
__device__ __forceinline__ T exact_tail(T d) {  // N(-|d|)
  if constexpr (sizeof(T) == 4) {
    return normcdff(-fabsf(d));
  } else {
    return normcdf(-fabs(d));
  }
}
// shared_exp's formula with the exact N(d): no density, two normcdf.
template <class Math, class T, class V>
__device__ __forceinline__ Prices<V> price_exact(const V& S, const V& X, const V& years, const Coefficients<T>& c) {
  const V inv_sqrt_t = Math::rsqrt(years);
  const V d1 = (Math::log(Math::div(S, X)) + c.drift * years) * (c.inverse_volatility * inv_sqrt_t);
  const V d2 = d1 - c.volatility * (years * inv_sqrt_t);
  const V discounted_strike = X * Math::exp(-c.rate * years);
  const V s_tail = S * exact_tail<T>(d1);
  const V x_tail = discounted_strike * exact_tail<T>(d2);
  const V s_above = d1 > T(0) ? S - s_tail : s_tail;
  const V s_below = d1 > T(0) ? s_tail : S - s_tail;
  const V x_above = d2 > T(0) ? discounted_strike - x_tail : x_tail;
  const V x_below = d2 > T(0) ? x_tail : discounted_strike - x_tail;
  return {s_above - x_above, x_below - s_below};
}
'''
s = s.replace("namespace {\n", "namespace {\n" + exact, 1)
s = s.replace("price_shared_exp<detail::DeviceMath, T>", "price_exact<detail::DeviceMath, T>")
(k / "06_exact_cnd.cu").write_text(s)
r = k / "registry.inc"
r.write_text(r.read_text() + 'COURSE_KERNEL(exact_cnd, "shared_exp with the exact N(d) (normcdf)", .precisions = course::Precisions::both)\n')
print("patched", root)

# 07 solution 4: shared_exp with 1 and 4 vectors per thread (the step has 2).
base = (k / "04_shared_exp.cu").read_text()
assert base.count("constexpr int kVectorsPerThread = 2;") == 1, "07 kVectorsPerThread"
for v, num in ((1, "07"), (4, "08")):
    s = base.replace("constexpr int kVectorsPerThread = 2;", f"constexpr int kVectorsPerThread = {v};")
    s = s.replace("launch_shared_exp", f"launch_shared_exp_v{v}")
    (k / f"{num}_shared_exp_v{v}.cu").write_text(s)
    r.write_text(r.read_text() + f'COURSE_KERNEL(shared_exp_v{v}, "shared_exp with {v} vectors per thread", .precisions = course::Precisions::both)\n')
