#!/usr/bin/env bash
# Call 1 (session 11): candidates. 04: kernel 13 wide_fragments (5 shapes) at 2048-8192 and 4096x4096x1024,
# split_k candidates at 256-1024; 06: the pipelined table. GPU tests + sanitizer of the lessons; ncu on cuBLAS + best.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu; REAL_OUT=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 04_shared_matmul 04_shared_matmul_tests 06_fft_convolve 06_fft_convolve_tests course_device_info > $R/build.log 2>&1
step "build (warnings $(grep -c warning $R/build.log))" $?
B=build/release/bin
W="--kernel stream_k --kernel wide_thread --kernel wide_fragments --kernel wide_fragments_rolled --kernel wide_fragments_s4 --kernel wide_fragments_128x256 --kernel wide_fragments_256x128"
for n in 2048 4096 8192; do timeout 300 $B/04_shared_matmul -n $n --skip-cpu $W --json $R/runs/r04_$n.json > $R/runs/r04_$n.txt 2>&1; step "r04_$n" $?; done
timeout 300 $B/04_shared_matmul --m 4096 --n 4096 --k 1024 --skip-cpu $W --json $R/runs/r04_4096x1024.json > $R/runs/r04_4096x1024.txt 2>&1; step r04_4096x1024 $?
S="--kernel split_k --kernel split_k_sum --kernel split_k_w4 --kernel split_k_s8 --kernel split_k_w4s8 --kernel split_k_bk8 --kernel split_k_32 --kernel stream_k"
for n in 256 512 1024; do timeout 120 $B/04_shared_matmul -n $n --skip-cpu $S --json $R/runs/r04_$n.json > $R/runs/r04_$n.txt 2>&1; step "r04_$n" $?; done
timeout 120 $B/04_shared_matmul -n 512 --skip-cpu $S --json $R/runs/r04_512b.json > $R/runs/r04_512b.txt 2>&1; step "r04_512b" $?
SAT=$($B/06_fft_convolve --help | grep -oE "sat_[a-z0-9_]+" | sort -u | sed 's/^/--kernel /' | tr '\n' ' ')
echo "06 kernels: $SAT" >> $R/steps.txt
timeout 200 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $SAT --json $R/runs/r06_box4096.json > $R/runs/r06_box4096.txt 2>&1; step r06_box4096 $?
timeout 200 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu $SAT --json $R/runs/r06_box4096b.json > $R/runs/r06_box4096b.txt 2>&1; step r06_box4096b $?
COURSE_REQUIRE_GPU=1 timeout 420 ctest --test-dir build/release -j12 -R '^(04_shared_matmul|06_fft_convolve)\.' -L 'gpu|sanitizer' -E 'docs\.commands' > $R/ctest.log 2>&1; step ctest $?
tail -5 $R/ctest.log >> $R/steps.txt
timeout 150 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --launch-skip 3 --launch-count 1 --kernel-name regex:'gemm|sgemm' $B/04_shared_matmul -n 4096 --skip-cpu --kernel stream_k --reps 1 --warmup 3 > $R/ncu/ncu_cublas_4096.txt 2>&1; step ncu_cublas $?
timeout 150 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis --launch-count 1 --kernel-name regex:wide_fragments_kernel $B/04_shared_matmul -n 4096 --skip-cpu --kernel wide_fragments --reps 1 --warmup 0 > $R/ncu/ncu_wide_fragments_4096.txt 2>&1; step ncu_wide $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $REAL_OUT/c1.tgz c1
