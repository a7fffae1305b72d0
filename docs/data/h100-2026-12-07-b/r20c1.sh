#!/usr/bin/env bash
# Call 1: the SAT candidates (column look-back gathered by cp.async; bottom row first), their
# stamps, tests and sanitizers; probe2 (code fetch of a step-27-shaped kernel after the flush).
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/sass
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 28_sat_cand_gather.cu"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
nvcc -O3 -arch=sm_90 -std=c++17 build/devtools/probe2.cu -o /tmp/probe2 && for x in a b; do timeout 60 /tmp/probe2 > $R/runs/probe2_$x.txt 2>&1; step probe2_$x $?; done
sed -i 's/EXPECT_EQ(methods, 8)/EXPECT_EQ(methods, 16)/' 06_fft_convolve/test_sat.cpp
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
T="--kernel sat_lookback_sentinel --kernel sat_cand_gather16 --kernel sat_cand_gather27 --kernel sat_cand_gather16_bottom --kernel sat_cand_bottom --kernel sat_cand_persist --kernel sat_cand_persist_bottom"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 1024 8192; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box$n.json > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
pack
for s in gather16 step26; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --kernel sat_cand_${s}_stamps > $R/runs/r06_${s}_stamps4096.txt 2>&1; step stamps_$s $?
done
grep -h "stamps\|mean cycles" $R/runs/*stamps*.txt >> $R/steps.txt
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R 'sat_cand|GpuSummedAreaTable' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
O=$(ls build/release/06_fft_convolve/CMakeFiles/06_fft_convolve_lib.dir/kernels/2[68]_sat_*.o 2>/dev/null)
for o in $O; do cuobjdump -sass $o > $R/sass/$(basename $o).sass 2>&1; cuobjdump -res-usage $o > $R/sass/$(basename $o).res 2>&1; done
step sass $?
for t in racecheck memcheck synccheck; do for wh in 1000:3000 601:400; do w=${wh%:*}; h=${wh#*:}
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height $h --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_cand_gather16 --kernel sat_cand_gather27 --kernel sat_cand_gather16_bottom --kernel sat_cand_bottom --kernel sat_cand_persist --kernel sat_cand_persist_bottom > $R/san06_${t}_${w}x$h.log 2>&1; step san06_${t}_${w}x$h $?
pack
done; done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
grep -h "GPU sat" $R/runs/r06_box*.txt | head -40
