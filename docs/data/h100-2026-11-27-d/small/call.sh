#!/usr/bin/env bash
# Call 3 (session 11): lesson 04 at 256^3 and 512^3 again (call 2's 256^3 cuBLAS row ran at a third of its ceiling).
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R/runs; REAL_OUT=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 04_shared_matmul > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
for i in 1 2 3; do for n in 256 512; do
  build/release/bin/04_shared_matmul -n $n --skip-cpu --json $R/runs/04_${n}_$i.json > $R/runs/04_${n}_$i.txt 2>&1; step "04_${n}_$i" $?
done; done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
cd /tmp && tar czf $REAL_OUT/c3.tgz c3
