#!/usr/bin/env bash
# Call 1 (session 12): candidates for issues 33 (05 histogram), 34 (06 direct small image, separable
# large K) and 35 (04 stream_k at large sizes): build, the runs that decide, then their GPU tests.
source build/devtools/setup.sh
R=/tmp/c1b; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
B=build/release/bin
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests 04_shared_matmul 04_shared_matmul_tests 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096.json > $R/runs/r05_hist_4096.txt 2>&1; step r05_hist_4096 $?
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096_b.json > $R/runs/r05_hist_4096_b.txt 2>&1; step r05_hist_4096_b $?
K="--kernel stream_k --kernel wide_thread --kernel stream_k_zigzag --kernel stream_k_rolled --kernel stream_k_3stage"
for s in "4096 4096 4096" "2048 2048 2048" "8192 8192 8192" "4096 4096 1024"; do set -- $s
  timeout 90 $B/04_shared_matmul --m $1 --n $2 --k $3 --skip-cpu $K --json $R/runs/r04_$1x$2x$3.json > $R/runs/r04_$1x$2x$3.txt 2>&1; step r04_$1x$2x$3 $?
done
D="--kernel direct_register_2d --kernel direct_register_split --kernel direct_register_staged --kernel direct_register_banded"
timeout 90 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024.json > $R/runs/r06_direct1024.txt 2>&1; step r06_direct1024 $?
S="--kernel separable_lean --kernel separable_lean_c128 --kernel separable_lean_rows4 --kernel separable_lean_both"
timeout 120 $B/06_fft_convolve -n 4096 --filter gaussian --sweep filter-size --skip-cpu $S --json $R/runs/r06_lean4096.json > $R/runs/r06_lean4096.txt 2>&1; step r06_lean4096 $?
timeout 120 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $OUT/c1b.tgz c1b
