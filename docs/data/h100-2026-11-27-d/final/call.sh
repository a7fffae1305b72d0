#!/usr/bin/env bash
# Call 2 (session 11): lesson 04 as committed (kernel 12's new 64 x 64 line): its GPU and sanitizer
# suite, the runs the page quotes at 256-1024 and the runs whose old ceiling was off (8192, 4096x4096x1024).
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/ncu; REAL_OUT=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 04_shared_matmul 04_shared_matmul_tests matmul_tune course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
python3 scripts/reproduce_docs.py --out $R/ref --part runs --lessons 04 --bin build/release/bin --skip '04_4096,04_1600,04_2048,04_sweep,04_tune' > $R/repro_runs_04.log 2>&1
step repro_04 $?
COURSE_REQUIRE_GPU=1 timeout 300 ctest --test-dir build/release -j12 -R '^04_shared_matmul\.' -L 'gpu|sanitizer' -E 'docs\.commands' > $R/ctest.log 2>&1; step ctest $?
tail -4 $R/ctest.log >> $R/steps.txt
timeout 90 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --launch-count 1 --kernel-name regex:split_k_kernel build/release/bin/04_shared_matmul -n 512 --skip-cpu --kernel split_k --reps 1 --warmup 0 > $R/ncu/ncu_split_k_512.txt 2>&1; step ncu_split_k_512 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $REAL_OUT/c2.tgz c2
