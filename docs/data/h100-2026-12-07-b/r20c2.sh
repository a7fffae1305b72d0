#!/usr/bin/env bash
# Call 2: SAT stamps with the column look-back's walk counted (step 26's own look-back, and the
# gathered one); lesson 04: Nsight Compute on wide_thread and cp_async at 4096^3, and the 4096 rows.
source build/devtools/setup.sh
R=/tmp/c2; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV) + 28_sat_cand_gather.cu (walk counts)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c2.tgz c2); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
grep -i "openblas" $R/configure.log | head -3 >> $R/steps.txt
cmake --build build/release -j16 --target 06_fft_convolve 04_shared_matmul > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
for s in step26 step26 gather16; do
timeout 60 $B/06_fft_convolve -n 4096 --filter box --filter-size 9 --skip-cpu --kernel sat_lookback_sentinel --kernel sat_cand_${s}_stamps > $R/runs/r06_${s}_stamps4096_$RANDOM.txt 2>&1; step stamps_$s $?
done
grep -h "table alone  \|stamps\|mean cycles\|walked" $R/runs/*stamps*.txt >> $R/steps.txt
pack
timeout 120 $B/04_shared_matmul -n 4096 --skip-cpu --json $R/runs/r04_4096.json > $R/runs/r04_4096.txt 2>&1; step r04_4096 $?
pack
for k in wide_thread cp_async; do
timeout 150 ncu --set full -k regex:${k}_kernel -c 1 $B/04_shared_matmul -n 4096 --skip-cpu --kernel $k > $R/ncu/ncu_$k.txt 2> $R/ncu/ncu_$k.log; step ncu_$k $?
pack
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
gzip -9n $R/runs/*.json
pack
cat $R/steps.txt
grep -E "GPU (cuBLAS|cp_async|stream_k|wide_thread|split_k)  " $R/runs/r04_4096.txt
for k in wide_thread cp_async; do grep -E "Issue Slots Busy|Executed Ipc Active|No Eligible|Registers Per Thread|Achieved Occupancy|Duration|Stall" $R/ncu/ncu_$k.txt | head -20; done
