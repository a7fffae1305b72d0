#!/usr/bin/env bash
# Call 5: the tree with step 27 (direct_uniform_rows) as committed: the 1024^2 Gaussian sweep
# twice and 4096^2 at K = 7 ... 23 beside steps 23 and 25; the SASS counts of step 27; lesson
# 06's whole test list with COURSE_REQUIRE_GPU=1; racecheck on step 27 at K = 23.
source build/devtools/setup.sh
R=/tmp/c5; rm -rf $R; mkdir -p $R/runs
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c5.tgz c5); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
P="--kernel direct_register_lean --kernel direct_uniform --kernel direct_uniform_rows"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $P --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
for k in 7 11 15 19 23; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P --json $R/runs/r06_4096_k$k.json > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
O=$(find build/release -name '27_direct_uniform_rows.cu.o' | head -1)
cuobjdump -sass $O > /tmp/sass27.txt 2>&1
awk '/Function :/{fn=$3} /^ +\/\*[0-9a-f]+\*\//{op=$2; if(op ~ /^@/) op=$3; sub(/\..*/,"",op); sub(/;$/,"",op); c[fn" "op]++; t[fn]++; if (op=="FFMA" && $0 ~ /UR[0-9]/) u[fn]++} END{for(k in c) print k, c[k]; for(f in t) print f, "TOTAL", t[f]; for(f in u) print f, "FFMA_WITH_UR", u[f]}' /tmp/sass27.txt | grep -E "ILi(15|19|23)E" | sort > $R/sass27_counts.txt
pack
COURSE_REQUIRE_GPU=1 timeout 320 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\.' > $R/ctest06.log 2>&1; step ctest06 $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06.log)" >> $R/steps.txt
pack
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $B/06_fft_convolve --width 601 --height 400 --filter gaussian --filter-size 23 --skip-cpu --reps 1 --warmup 0 --no-flush-l2 --kernel direct_uniform_rows > $R/san06_racecheck_601_k23.log 2>&1; step san06_racecheck_601_k23 $?
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
