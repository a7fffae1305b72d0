#!/usr/bin/env bash
# Call 2: step 24 candidates with cache hints, and step 24 timestamped per phase (9 x 9 box,
# 4096^2 three times, 1024^2 once); the table rows beside step 24 and sat_bands.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback_fenced --kernel sat_cand_stream_stores --kernel sat_cand_stream_loads --kernel sat_cand_stream_both"
for x in a b c; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
for n in 4096 1024; do
timeout 60 $B/06_fft_convolve -n $n --filter box --filter-size 9 --skip-cpu --kernel sat_cand_stamps > $R/runs/r06_stamps$n.txt 2>&1; step stamps$n $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\..*(Sat|sat)' > $R/ctest06_sat.log 2>&1; step ctest06_sat $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_sat.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
