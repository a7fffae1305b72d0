#!/usr/bin/env bash
# Call 5: the tree with step 26 (sat_lookback_sentinel) as committed: the 9 x 9 box at 4096^2
# three times, 2048^2 and 1024^2 (the table rows of every sat step); the box filter-size sweeps at
# 4096^2 and 1024^2 (direct_tiled, both FFT paths, sat_bands, steps 24 and 26); lesson 06's whole
# test list with COURSE_REQUIRE_GPU=1; compute-sanitizer racecheck, memcheck, synccheck on step
# 26 at 600 x 400 and 601 x 400.
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c5.tgz c5); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_fenced --kernel sat_lookback_sentinel"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 1024; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box$n.json > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
S="--kernel direct_tiled --kernel fft_r2c --kernel fft_fused --kernel sat_bands --kernel sat_lookback_fenced --kernel sat_lookback_sentinel"
for n in 4096 1024; do
timeout 150 $B/06_fft_convolve -n $n --filter box --sweep filter-size --skip-cpu $S --json $R/runs/r06_boxsweep$n.json > $R/runs/r06_boxsweep$n.txt 2>&1; step r06_boxsweep$n $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 330 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_sentinel > $R/san06_sentinel_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
