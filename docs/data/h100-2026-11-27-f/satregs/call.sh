#!/usr/bin/env bash
# Call 10 (2026-11-27, evening): candidates sat_lookback_3 / sat_lookback_4 (step 19 held to 3 or 4
# blocks per SM) beside sat_bands and sat_lookback at 4096^2 and 1024^2 (box 9), the table alone;
# the sat GPU tests and racecheck/memcheck. Under /tmp/c10, tarred.
source build/devtools/setup.sh
R=/tmp/c10; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c10.tgz c10); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_3 --kernel sat_lookback_4"
for x in a b; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(GpuSummedAreaTable|Registry/GpuKernels\..*sat_lookback)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
for t in racecheck memcheck; do
timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 67 --height 45 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_3 --kernel sat_lookback_4 > $R/san06_$t.log 2>&1; step san06_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
