#!/usr/bin/env bash
# Call 4: the self-flagged row carries with 3 blocks per SM, and with the column aggregates
# published before the row look-back (A' then L, the carries' sum, self-flagged), beside step 24;
# the sat GPU tests; racecheck / memcheck / synccheck on the early candidate at 600 x 400.
source build/devtools/setup.sh
R=/tmp/c4; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + candidates"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c4.tgz c4); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_lookback_fenced --kernel sat_cand_sentinel_rows --kernel sat_cand_sentinel_3 --kernel sat_cand_early --kernel sat_cand_early_3"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
timeout 60 $B/06_fft_convolve -n 2048 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box2048.txt 2>&1; step r06_box2048 $?
for n in 4096 1024; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu --kernel sat_cand_early_stamps > $R/runs/r06_early_stamps$n.txt 2>&1; step stamps$n $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\..*(Sat|sat)' > $R/ctest06_sat.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_sat.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 600 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_cand_early > $R/san06_early_$t.log 2>&1; step san06_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
