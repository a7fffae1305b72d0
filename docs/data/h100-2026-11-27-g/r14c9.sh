#!/usr/bin/env bash
# Call 9 (second series): candidates of step 24 (the warps' prefix for all rows at once; the column
# flags set by the last warp to arrive, no barrier) beside step 24, step 19 and sat_bands; 4096^2
# three runs, 1024^2; the sat GPU tests; compute-sanitizer on the candidates. Under /tmp/c9, tarred.
source build/devtools/setup.sh
R=/tmp/c9; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c9.tgz c9); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_fenced --kernel sat_lookback_fenced_ilp --kernel sat_lookback_fenced_nobar"
for x in a b c; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box1024.json > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 240 ctest --test-dir build/release -j8 --output-on-failure -R '06_fft_convolve\.(GpuSummedAreaTable|Registry/GpuKernels\..*sat_lookback)|06_fft_convolve\..*[Ss]anitizer.*' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
for t in racecheck memcheck synccheck; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 600 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_fenced_ilp --kernel sat_lookback_fenced_nobar > $R/san06_sat_$t.log 2>&1; step san06_sat_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
