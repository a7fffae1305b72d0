"""NumPy on the GPU machine's host, for the pages' "at least as fast as NumPy" comparisons.
Run as: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 numpy_same_host.py elementwise
        python3 numpy_same_host.py matmul"""
import sys, time
import numpy as np

def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0]

rng = np.random.default_rng(1)
if sys.argv[1] == "elementwise":
    print(f"NumPy {np.__version__} one thread (OMP/OPENBLAS_NUM_THREADS=1), median of 11, time.perf_counter "
          "around the call, float32 normal(0,1) input")
    for n in (10_000_000, 67_108_864):
        x = rng.standard_normal(n, dtype=np.float32); b = rng.standard_normal(n, dtype=np.float32)
        y = np.empty_like(x)
        for label, fn, nbytes in (("np.exp(x, out=y)", lambda: np.exp(x, out=y), 8),
                                  ("np.add(x, b, out=y)", lambda: np.add(x, b, out=y), 12),
                                  ("np.copyto(y, x)", lambda: np.copyto(y, x), 8),
                                  ("np.sum(x)", lambda: np.sum(x), 4),
                                  ("x.max()", lambda: x.max(), 4)):
            med, _ = median_ms(fn, 11)
            print(f"n={n:>11,} {label:<22} median {med:9.3f} ms {n * nbytes / med / 1e6:9.2f} GB/s")
        def softmax():
            e = np.exp(x - x.max()); return e / e.sum()
        med, _ = median_ms(softmax, 5)
        print(f"n={n:>11,} {'softmax (e = exp(x - max); e / sum)':<22} median {med:9.3f} ms "
              f"{n * 12 / med / 1e6:9.2f} GB/s (12 B/elt)")
else:
    n = 4096
    a = rng.standard_normal((n, n), dtype=np.float32); b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b
    med, best = median_ms(lambda: a @ b, 7)
    np.show_config()
    print(f"numpy float32 matmul {n}: best {best:.1f} ms = {2 * n**3 / best / 1e6:.0f} GFLOP/s; median {med:.1f} ms, all cores")
