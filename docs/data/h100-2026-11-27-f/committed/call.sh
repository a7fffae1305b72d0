#!/usr/bin/env bash
# Call 8 (2026-11-27, evening): lesson 05 as committed (steps 8 and 9 kept, step 9 the headline):
# three runs at 4096^2 and one at the classic size, then lesson 05's whole GPU and sanitizer suite.
# Everything under /tmp/c8, tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c8; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c8.tgz c8); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for x in a b c; do
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096_$x.json > $R/runs/r05_hist_4096_$x.txt 2>&1; step r05_hist_4096_$x $?
done
timeout 60 $B/05_mandelbrot --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_classic.json > $R/runs/r05_hist_classic.txt 2>&1; step r05_hist_classic $?
pack
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '^05_mandelbrot\.' -L 'gpu|sanitizer' > $R/ctest05.log 2>&1; step ctest05 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest05.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
