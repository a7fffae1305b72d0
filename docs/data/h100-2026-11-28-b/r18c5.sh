#!/usr/bin/env bash
# Call 5: lesson 04 on the device with the package set that includes OpenBLAS (build/debs04,
# possible once docs/data keeps its JSON gzipped): configure and build lesson 04, its test list
# with COURSE_REQUIRE_GPU=1, and the runs the goals name (256 to 8192, 4096 x 4096 x 1024)
# for the kernels at the top of the table, each beside the cuBLAS row of its own run.
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; ls build/debs/; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c5.tgz c5); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1; step configure $?
grep -i -E "openblas|lesson.*(left out|skipped)" $R/configure.log >> $R/steps.txt
cmake --build build/release -j16 --target 04_shared_matmul 04_shared_matmul_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
K="--kernel cp_async --kernel stream_k --kernel wide_thread --kernel split_k"
for n in 256 512 1024 2048 4096 8192; do
timeout 90 $B/04_shared_matmul -n $n --skip-cpu $K --json $R/runs/r04_$n.json > $R/runs/r04_$n.txt 2>&1; step r04_$n $?
done
timeout 60 $B/04_shared_matmul --m 4096 --n 4096 --k 1024 --skip-cpu $K --json $R/runs/r04_4096x4096x1024.json > $R/runs/r04_4096x4096x1024.txt 2>&1; step r04_4096x4096x1024 $?
timeout 60 $B/04_shared_matmul -n 512 --threads 16 --kernel stream_k --json $R/runs/r04_512_cpu.json > $R/runs/r04_512_cpu.txt 2>&1; step r04_512_cpu $?
pack
COURSE_REQUIRE_GPU=1 timeout 240 ctest --test-dir build/release -j8 --output-on-failure -R '^04_shared_matmul\.' > $R/ctest04.log 2>&1; step ctest04 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest04.log)" >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
