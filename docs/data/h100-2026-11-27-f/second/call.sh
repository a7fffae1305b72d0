#!/usr/bin/env bash
# Call 3 (2026-11-27, evening): second candidates (05 hist_streamed_quads; 06 step 20 with 8 x 1
# outputs per thread), Nsight Compute readings of step 5 and of step 20 at K = 15 on 1024^2, the
# candidates' GPU and sanitizer tests. Everything under /tmp/c3, tarred into $OUT.
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 05_mandelbrot 05_mandelbrot_tests 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for x in a b c; do
timeout 60 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_4096_$x.json > $R/runs/r05_hist_4096_$x.txt 2>&1; step r05_hist_4096_$x $?
done
timeout 60 $B/05_mandelbrot --histogram --precision float --kernel mandel_fast --skip-cpu --json $R/runs/r05_hist_classic.json > $R/runs/r05_hist_classic.txt 2>&1; step r05_hist_classic $?
D="--kernel direct_register_2d --kernel direct_register_r1_512 --kernel direct_register_r1_256"
timeout 90 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024.json > $R/runs/r06_direct1024.txt 2>&1; step r06_direct1024 $?
timeout 150 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --metrics sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
for k in hist_private_streamed hist_streamed_quads; do
timeout 90 ncu $SEC -k regex:$k -s 1 -c 1 $B/05_mandelbrot --width 4096 --height 4096 --iters 1000 --histogram --precision float --kernel mandel_fast --skip-cpu --reps 2 --warmup 1 > $R/ncu/ncu_$k.txt 2>&1; step ncu_$k $?
done
for k in direct_register_2d direct_register_r1_512; do
timeout 90 ncu $SEC -k regex:direct_register_2d_kernel -s 1 -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 2 --warmup 1 --kernel $k > $R/ncu/ncu_${k}_k15.txt 2>&1; step ncu_${k}_k15 $?
done
pack
COURSE_REQUIRE_GPU=1 timeout 120 ctest --test-dir build/release -j8 -R '05_mandelbrot\.(Registry/GpuHistogramKernel|HistogramRegistry)' > $R/ctest05.log 2>&1; step ctest05 $?
COURSE_REQUIRE_GPU=1 timeout 150 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(EveryOddK/GpuRegisterAtEveryFilterSize|Registry/GpuKernels\..*direct_register_r1)' > $R/ctest06.log 2>&1; step ctest06 $?
for f in $R/ctest0*.log; do echo "$f: $(grep -E 'tests passed|tests failed' $f)" >> $R/steps.txt; done
pack
for t in racecheck memcheck; do
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/05_mandelbrot --width 300 --height 200 --iters 200 --histogram --precision float --kernel mandel_fast --skip-cpu --reps 1 --warmup 0 > $R/san05_$t.log 2>&1; step san05_$t $?
timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 520 --height 300 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel direct_register_r1_512 --kernel direct_register_r1_256 > $R/san06_$t.log 2>&1; step san06_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
