# The NumPy baseline of lessons 01 and 02 (issue: honest CPU rows): np.exp, np.add and a copy
# of float32 arrays on one thread, median of 7, GB/s counting bytes read + written. Needs NumPy,
# which the course does not depend on: run it where NumPy is installed.
import time, numpy as np, os, sys
for n in (10_000_000, 1 << 26):
    x = np.random.default_rng(42).standard_normal(n, dtype=np.float32); y = np.empty_like(x)
    for fn, name in ((lambda: np.exp(x, out=y), "np.exp"), (lambda: np.add(x, x, out=y), "np.add"), (lambda: np.copyto(y, x), "copy")):
        fn(); ts = []
        for _ in range(7):
            t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
        ts.sort(); med = ts[3]
        nbytes = 12 * n if name == "np.add" else 8 * n
        print(f"numpy {name:7s} n={n:>10d} 1 thread: {med*1e3:8.2f} ms  {nbytes/med/1e9:6.1f} GB/s")
