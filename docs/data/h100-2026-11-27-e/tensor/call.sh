#!/usr/bin/env bash
# Call 5 (session 12): candidate step separable_tc (lesson 06): both separable passes on the
# tensor cores with the 3xTF32 split, against step 22; its GPU and sanitizer tests. Tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
S="--kernel separable_lean --kernel separable_tc"
timeout 120 $B/06_fft_convolve -n 4096 --filter gaussian --sweep filter-size --skip-cpu $S --json $R/runs/r06_tc4096.json > $R/runs/r06_tc4096.txt 2>&1; step r06_tc4096 $?
timeout 60 $B/06_fft_convolve -n 1024 --filter gaussian --sweep filter-size --skip-cpu $S --json $R/runs/r06_tc1024.json > $R/runs/r06_tc1024.txt 2>&1; step r06_tc1024 $?
for k in 5 31 63; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $S --json $R/runs/r06_tc4096_k$k.json > $R/runs/r06_tc4096_k$k.txt 2>&1; step r06_tc4096_k$k $?
done
(cd /tmp && tar czf $OUT/c5.tgz c5)
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(EveryOddK/GpuLeanAtEveryFilterSize|GpuLean\.|GpuSeparableTc\.|Registry/GpuKernels\..*separable_tc)' > $R/ctest06.log 2>&1; step ctest06 $?
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 300 --height 261 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel separable_tc > $R/sanitizer_$t.log 2>&1; step sanitizer_$t $?
done
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $OUT/c5.tgz c5
