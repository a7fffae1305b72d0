#!/usr/bin/env bash
# Call 2 (session 12): the second candidates: 05 hist_l2_prefetch(_first), 06 separable with a
# balanced column pass; runs first, then their GPU and sanitizer tests. Results tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
fin() { echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt; cd /tmp && tar czf $OUT/c2.tgz c2; }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
(cd /tmp && tar czf $OUT/c2.tgz c2)
for x in a b c; do
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096_$x.json > $R/runs/r05_hist_4096_$x.txt 2>&1; step r05_hist_4096_$x $?
done
S="--kernel separable_lean --kernel separable_lean_persistent --kernel separable_lean_persistent_bands --kernel separable_lean_rows4"
timeout 120 $B/06_fft_convolve -n 4096 --filter gaussian --sweep filter-size --skip-cpu $S --json $R/runs/r06_lean4096.json > $R/runs/r06_lean4096.txt 2>&1; step r06_lean4096 $?
for k in 55 63; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S --json $R/runs/r06_lean4096_k$k.json > $R/runs/r06_lean4096_k$k.txt 2>&1; step r06_lean4096_k$k $?
done
(cd /tmp && tar czf $OUT/c2.tgz c2)
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '06_fft_convolve\..*(GpuLean|persistent)' > $R/ctest06.log 2>&1; step ctest06 $?
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '^05_mandelbrot\.(.*hist_l2|.*anitizer)' > $R/ctest05.log 2>&1; step ctest05 $?
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 300 --height 261 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel separable_lean_persistent --kernel separable_lean_persistent_bands > $R/sanitizer_06_$t.log 2>&1; step sanitizer_06_$t $?
done
for f in $R/ctest0*.log; do echo "$f: $(grep -E 'tests passed|tests failed' $f)" >> $R/steps.txt; done
fin
