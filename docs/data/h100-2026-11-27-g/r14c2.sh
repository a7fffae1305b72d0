#!/usr/bin/env bash
# Call 2b (warm machine, incremental build): sat_lookback_lean beside sat_lookback and _early,
# 4096^2 three runs, 1024^2; the sat GPU tests. Under /tmp/c2, tarred.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_early --kernel sat_lookback_lean"
for x in a b c; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(GpuSummedAreaTable|Registry/GpuKernels\..*sat_lookback)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
