#!/usr/bin/env bash
# Call 4: candidates direct_register_lean (beside step 20: the 1024^2 and 4096^2 filter-size
# sweeps) and sat_lookback_fence / _lean / _tileflag (beside sat_bands and sat_lookback, 4096^2
# three runs, 1024^2); their GPU tests; compute-sanitizer on the candidates. Under /tmp/c4, tarred.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c4.tgz c4); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
D="--kernel direct_register_2d --kernel direct_register_lean"
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct1024.txt 2>&1; step r06_direct1024 $?
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct1024_b.txt 2>&1; step r06_direct1024_b $?
timeout 150 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_tileflag --kernel sat_lookback_split"
for x in a b c; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 240 ctest --test-dir build/release -j8 --output-on-failure -R '06_fft_convolve\.(GpuSummedAreaTable|Registry/GpuKernels\..*(sat_lookback|direct_register)|.*GpuRegisterLeanAtEveryFilterSize.*)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
for t in racecheck memcheck; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 600 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_tileflag --kernel sat_lookback_split > $R/san06_sat_$t.log 2>&1; step san06_sat_$t $?
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 68 --height 45 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel direct_register_lean > $R/san06_direct_$t.log 2>&1; step san06_direct_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
