#!/usr/bin/env bash
# Call 1 (2026-11-27, night): candidates sat_lookback_early / _tall / _tall_late beside sat_bands and
# sat_lookback (4096^2 twice, 1024^2, box 9, the table alone), the sat GPU tests, racecheck/memcheck
# on the candidates, ncu L2/DRAM bytes of sat_lookback vs sat_lookback_tall. Under /tmp/c1, tarred.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
T="--kernel sat_bands --kernel sat_lookback --kernel sat_lookback_early --kernel sat_lookback_tall --kernel sat_lookback_tall_late"
for x in a b; do
timeout 90 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box4096_$x.txt 2>&1; step r06_box4096_$x $?
done
timeout 60 $B/06_fft_convolve -n 1024 --filter box --filter-size 9 --skip-cpu $T > $R/runs/r06_box1024.txt 2>&1; step r06_box1024 $?
pack
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum"
timeout 120 ncu $SEC -k regex:"sat_lookback" -c 4 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback --kernel sat_lookback_tall > $R/ncu/ncu_sat_tall_4096.txt 2>&1; step ncu $?
pack
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 -R '06_fft_convolve\.(GpuSummedAreaTable|Registry/GpuKernels\..*sat_lookback)' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
for t in racecheck memcheck; do
timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $B/06_fft_convolve --width 600 --height 400 --filter box --filter-size 9 --skip-cpu --reps 1 --warmup 0 --kernel sat_lookback_early --kernel sat_lookback_tall --kernel sat_lookback_tall_late > $R/san06_$t.log 2>&1; step san06_$t $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
