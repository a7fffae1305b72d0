#!/usr/bin/env bash
# Call 2 (2026-11-27, evening): candidate steps for issues 33 (05 histogram, 06 table) and 34 (06
# direct at small K on 1024^2, separable at large K): build 05 + 06 with tests, the runs that
# decide, the candidates' GPU and sanitizer tests. Everything under /tmp/c2, tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for x in a b; do
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096_$x.json > $R/runs/r05_hist_4096_$x.txt 2>&1; step r05_hist_4096_$x $?
done
timeout 60 $B/05_mandelbrot --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_classic.json > $R/runs/r05_hist_classic.txt 2>&1; step r05_hist_classic $?
D="--kernel direct_register_2d --kernel direct_register_pipelined --kernel direct_register_pipelined_wide"
timeout 90 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024.json > $R/runs/r06_direct1024.txt 2>&1; step r06_direct1024 $?
timeout 120 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
S="--kernel separable_lean --kernel separable_mma"
timeout 120 $B/06_fft_convolve -n 4096 --filter gaussian --sweep filter-size --skip-cpu $S --json $R/runs/r06_sep4096.json > $R/runs/r06_sep4096.txt 2>&1; step r06_sep4096 $?
T="--kernel sat_bands --kernel sat_lookback --kernel sat_full_bands"
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box4096.json > $R/runs/r06_box4096.txt 2>&1; step r06_box4096 $?
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T --json $R/runs/r06_box1024.json > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
COURSE_REQUIRE_GPU=1 timeout 120 ctest --test-dir build/release -j8 -R '05_mandelbrot\.(Registry/GpuHistogramKernel|GpuHistogramOneLaunch|HistogramRegistry)' > $R/ctest05.log 2>&1; step ctest05 $?
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(EveryOddK/GpuPipelinedAtEveryFilterSize|Registry/GpuKernels\..*(direct_register_pipelined|separable_mma|sat_full_bands)|.*Mma|GpuSummedAreaTable|GpuExclusiveBlocked|GpuBlocked\.ANan)' > $R/ctest06.log 2>&1; step ctest06 $?
for f in $R/ctest0*.log; do echo "$f: $(grep -E 'tests passed|tests failed' $f)" >> $R/steps.txt; done
pack
S5="--width 300 --height 200 --iters 200 --histogram --precision float --kernel mandel_fast --skip-cpu --reps 1 --warmup 0"
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/05_mandelbrot $S5 > $R/san05_$t.log 2>&1; step san05_$t $?
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 67 --height 45 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_full_bands > $R/san06box_$t.log 2>&1; step san06box_$t $?
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 301 --height 200 --filter gaussian --filter-size 63 --skip-cpu --reps 1 --warmup 0 --kernel separable_mma > $R/san06mma_$t.log 2>&1; step san06mma_$t $?
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 520 --height 300 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel direct_register_pipelined --kernel direct_register_pipelined_wide > $R/san06pipe_$t.log 2>&1; step san06pipe_$t $?
pack
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
