#!/usr/bin/env bash
# Call 1: step 25 on 1024^2 probed: per-block timestamps and SM placement, at most two blocks
# an SM, the SASS opcode counts of steps 25 and 23 at K = 15 and 19, per-SM CTA counts by ncu.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve course_device_info > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
[ $rc = 0 ] || { tail -50 $R/build.log; pack; exit 1; }
P="--kernel direct_uniform --kernel direct_probe_two --kernel direct_probe_stamps --kernel direct_register_lean"
for k in 15 19 3; do
for x in a b; do
timeout 60 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu $P > $R/runs/r06_1024_k${k}_$x.txt 2>&1; step r06_1024_k${k}_$x $?
done
done
for k in 15 19; do
timeout 60 $B/06_fft_convolve -n 4096 --filter gaussian --filter-size $k --skip-cpu $P > $R/runs/r06_4096_k$k.txt 2>&1; step r06_4096_k$k $?
done
pack
O=$(find build/release -name '25_direct_uniform.cu.o' | head -1); O23=$(find build/release -name '23_direct_register_lean.cu.o' | head -1)
cuobjdump -sass $O > $R/sass25.txt 2>&1; cuobjdump -sass $O23 > $R/sass23.txt 2>&1
for f in sass25 sass23; do
awk '/Function :/{fn=$3} /^ +\/\*[0-9a-f]+\*\//{op=$2; if(op ~ /^@/) op=$3; sub(/\..*/,"",op); sub(/;$/,"",op); c[fn" "op]++; t[fn]++} END{for(k in c) print k, c[k]; for(f in t) print f, "TOTAL", t[f]}' $R/$f.txt | sort > $R/${f}_counts.txt
done
gzip -f $R/sass25.txt $R/sass23.txt
pack
M="--metrics sm__ctas_launched.min,sm__ctas_launched.max,sm__ctas_launched.sum,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,gpc__cycles_elapsed.max,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
for kn in direct_uniform direct_probe_two; do
timeout 60 ncu $M -k regex:"direct_(uniform|probe)_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size 15 --skip-cpu --reps 1 --warmup 0 --kernel $kn > $R/ncu/ncu_${kn}_k15.txt 2>&1; step ncu_$kn $?
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
