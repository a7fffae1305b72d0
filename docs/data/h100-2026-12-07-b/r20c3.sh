#!/usr/bin/env bash
# Call 3: the tip's whole build and GPU test list on the device (no valgrind there; docs-full left to reproduce_docs.py).
source build/devtools/setup.sh
R=/tmp/c3; rm -rf $R; mkdir -p $R
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(git rev-parse --short HEAD 2>/dev/null || cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c3.tgz c3); }
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
pack
COURSE_REQUIRE_GPU=1 timeout 420 ctest --test-dir build/release -j8 -LE 'docs-full|valgrind' --timeout 300 > $R/ctest_all.log 2>&1; step ctest_all $?
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run" $R/ctest_all.log >> $R/steps.txt
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
cat $R/steps.txt
