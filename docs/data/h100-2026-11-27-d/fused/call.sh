#!/usr/bin/env bash
# Call 5 (session 11): 06 step 23 separable_fused (four rows) against step 22 in the Gaussian sweeps at 4096 and 1024;
# 06's GPU tests and compute-sanitizer (the suite's runs and racecheck/memcheck of step 23 at K = 63).
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs; REAL_OUT=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
B=build/release/bin/06_fft_convolve
F="--kernel separable_lean --kernel separable_fused --kernel separable_fused_h512 --kernel separable_fused_h1024 --kernel separable_fused_staged"
timeout 200 $B -n 4096 --filter gaussian --sweep filter-size --skip-cpu $F --json $R/runs/r06_sep4096.json > $R/runs/r06_sep4096.txt 2>&1; step sep4096 $?
timeout 120 $B -n 1024 --filter gaussian --sweep filter-size --skip-cpu $F --json $R/runs/r06_sep1024.json > $R/runs/r06_sep1024.txt 2>&1; step sep1024 $?
for t in racecheck memcheck; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 9 $B --width 300 --height 261 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel separable_fused --kernel separable_fused_staged > $R/san_$t.txt 2>&1; step "san_$t" $?
done
COURSE_REQUIRE_GPU=1 timeout 330 ctest --test-dir build/release -j12 -R '^06_fft_convolve\.' -L 'gpu|sanitizer' -E 'docs\.commands' > $R/ctest.log 2>&1; step ctest $?
tail -4 $R/ctest.log >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $REAL_OUT/c5.tgz c5
