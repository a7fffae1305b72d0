#!/usr/bin/env bash
# Call 2: step 25 with blocks taking tiles in turn, the next tile's copies in flight (one or two
# blocks an SM): the 1024^2 Gaussian sweep twice, 4096^2 at K = 15 and 19, the registry's GPU
# tests, compute-sanitizer on the candidate where blocks take several tiles.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
P="--kernel direct_register_lean --kernel direct_uniform --kernel direct_paired_1 --kernel direct_paired_2"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
for k in 15 19 5; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '06_fft_convolve\..*(GpuKernels|GpuMethods)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 1500 1501; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 1200 --filter gaussian --filter-size 5 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_paired_1 --kernel direct_paired_2 > $R/san06_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
