#!/usr/bin/env bash
# Call 4: the tree as committed (step 25 in): lesson 06's whole test list with COURSE_REQUIRE_GPU=1
# (course_summary built, for the smoke test's read-back); compute-sanitizer on step 25 (K = 5 and
# 19, both copy paths); the 1024^2 sweep of steps 23 and 25. Under /tmp/c4, tarred.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c4.tgz c4); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
timeout 100 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu --kernel direct_register_lean --kernel direct_uniform --json $R/runs/r06_direct1024.json > $R/runs/r06_direct1024.txt 2>&1; step r06_direct1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 360 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter gaussian --filter-size 5 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_uniform > $R/san06_${t}_$w.log 2>&1; step san06_${t}_${w}_k5 $?
done
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
