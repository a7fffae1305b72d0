#!/usr/bin/env bash
# Call 7: step 26 asking the L2, on taking a tile, for the pixels of the tile that a block will take
# one or two lifetimes later (candidates sat_cand_prefetch, sat_cand_prefetch2: one 128-byte
# prefetch.global.L2 per thread), beside steps 24 and 26: the 9 x 9 box at 4096^2 three times,
# 2048^2, 1024^2; the GpuSummedAreaTable tests; racecheck / memcheck / synccheck at 600 x 400.
source build/devtools/setup.sh
R=/tmp/c7; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + candidate"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c7.tgz c7); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_lookback_fenced --kernel sat_lookback_sentinel --kernel sat_cand_prefetch --kernel sat_cand_prefetch2"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 1024; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.GpuSummedAreaTable' > $R/ctest06_sat.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_sat.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 600 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_cand_prefetch > $R/san06_prefetch_$t.log 2>&1; step san06_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
