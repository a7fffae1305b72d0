#!/usr/bin/env bash
# Call 3 (session 12): candidate step 23 sat_strips (lesson 06): the table at 4096 x 4096 against
# steps 13 and 19, then its GPU and compute-sanitizer tests. Results tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for x in a b; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --kernel sat_bands --kernel sat_lookback --kernel sat_strips --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu --kernel sat_bands --kernel sat_lookback --kernel sat_strips --json $R/runs/r06_box1024.json > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
(cd /tmp && tar czf $OUT/c3.tgz c3)
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(.*GpuSummedAreaTable|Registry/GpuKernels\..*sat_|.*OnePassSteps)' > $R/ctest06.log 2>&1; step ctest06 $?
for t in racecheck memcheck synccheck; do
timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 1057 --height 769 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_strips --kernel sat_lookback > $R/sanitizer_$t.log 2>&1; step sanitizer_$t $?
done
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $OUT/c3.tgz c3
