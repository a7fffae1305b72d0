#!/usr/bin/env bash
# Call 8: the table rows follow --kernel (sat_rows.cpp): a 9 x 9 box at 1024^2 with --kernel
# naming one table method, with none, and with none named (all); the GpuSummedAreaTable tests and
# the lesson's box sanitizer tests.
source build/devtools/setup.sh
R=/tmp/c8; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + sat_rows change"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c8.tgz c8); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu --kernel sat_lookback_sentinel > $R/runs/r06_box1024_one.txt 2>&1; step one $?
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu --kernel direct_tiled > $R/runs/r06_box1024_none.txt 2>&1; step none $?
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu > $R/runs/r06_box1024_all.txt 2>&1; step all $?
for f in one none all; do echo "$f: $(grep -c 'the table alone  ' $R/runs/r06_box1024_$f.txt) table rows" >> $R/steps.txt; done
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.(GpuSummedAreaTable|.*box)' > $R/ctest06_sat.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_sat.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
