#!/usr/bin/env bash
# Call 7: sat_lookback_tall (32 x 512 tiles of 512 threads, one an SM) beside step 26: the table
# alone at 4096^2 (three runs), 2048^2, 1024^2, 8192^2; the SAT GPU tests and the new row's registry
# tests; sanitizers; the box sweeps.
source build/devtools/setup.sh
R=/tmp/c7; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c7.tgz c7); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
T="--kernel sat_lookback_sentinel --kernel sat_lookback_tall"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096_$x.json > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
for n in 2048 1024 8192; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box$n.json > $R/runs/r06_box$n.txt 2>&1; step r06_box$n $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\..*(SummedAreaTable|sat_lookback_tall)' > $R/ctest06_sat.log 2>&1; step ctest06_sat $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_sat.log)" >> $R/steps.txt
pack
for t in racecheck memcheck synccheck; do
for w in 600 601; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width $w --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_tall > $R/san06_tall_${t}_$w.log 2>&1; step san06_${t}_$w $?
done
done
pack
S="--kernel direct_tiled --kernel fft_fused --kernel sat_lookback_sentinel --kernel sat_lookback_tall"
for n in 4096 1024; do
timeout 150 $B/06_fft_convolve -n $n --filter box --sweep filter-size --skip-cpu $S --json $R/runs/r06_boxsweep$n.json > $R/runs/r06_boxsweep$n.txt 2>&1; step r06_boxsweep$n $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
