#!/usr/bin/env bash
# Call 1: direct candidates (step 25 with its middle rows rolled: loops of 2 or (K-1)/2 rows)
# in the 1024 and 4096 sweeps beside steps 23 and 25; their SASS counts; Nsight Compute at K = 15
# and 19 on 1024^2; the float->double streaming bench (what a table build could reach); the
# registry GPU tests of lesson 06.
source build/devtools/setup.sh
R=/tmp/c1; rm -rf $R; mkdir -p $R/runs $R/ncu
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; echo "tree: $(cat build/devtools/REV)"; } > $R/machine.txt
t0=$(date +%s)
step() { echo "$1 rc=$2 $(( $(date +%s) - t0 )) s" >> $R/steps.txt; }
pack() { (cd /tmp && tar czf $OUT/c1.tgz c1); }
B=build/release/bin
nvcc -O3 -arch=sm_90 -std=c++17 build/devtools/widen_bench.cu -o /tmp/wb && /tmp/wb > $R/runs/widen_bench.txt 2>&1; step widen $?
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/configure.log 2>&1
cmake --build build/release -j16 --target 06_fft_convolve 06_fft_convolve_tests course_device_info course_summary > $R/build.log 2>&1
rc=$?; step "build (warnings $(grep -c warning $R/build.log))" $rc
/tmp/wb > $R/runs/widen_bench_b.txt 2>&1; step widen_b $?
D="--kernel direct_register_lean --kernel direct_uniform --kernel direct_uniform_r2 --kernel direct_uniform_half"
for x in a b; do
timeout 120 $B/06_fft_convolve -n 1024 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct1024_$x.json > $R/runs/r06_direct1024_$x.txt 2>&1; step r06_direct1024_$x $?
done
pack
timeout 200 $B/06_fft_convolve -n 4096 --sweep filter-size --skip-cpu $D --json $R/runs/r06_direct4096.json > $R/runs/r06_direct4096.txt 2>&1; step r06_direct4096 $?
pack
O=$(find build/release -name '26_direct_uniform_rolled.cu.o' | head -1)
cuobjdump -sass $O > /tmp/sass26.txt 2>&1; step sass $?
python3 - > $R/sass26_counts.txt <<'PY'
import re
fn=None; c={}
for l in open('/tmp/sass26.txt'):
    m=re.search(r'Function : (\S+)',l)
    if m: fn=m.group(1); c[fn]={'all':0,'ffma':0,'ffma_ur':0,'uldc':0,'ldc':0,'lds':0}; continue
    if fn is None: continue
    m=re.search(r'/\*[0-9a-f]{4,}\*/\s+(@!?U?P\d+\s+)?([A-Z0-9_.]+)\s*(.*?);',l)
    if not m: continue
    op=m.group(2); k=c[fn]; k['all']+=1
    if op.startswith('FFMA'):
        k['ffma']+=1
        if re.search(r'\bUR\d+',m.group(3)): k['ffma_ur']+=1
    if op.startswith('ULDC'): k['uldc']+=1
    if op.startswith('LDC'): k['ldc']+=1
    if op.startswith('LDS'): k['lds']+=1
for fn,k in c.items():
    if 'Li15E' in fn or 'Li19E' in fn: print(fn[-40:], k)
PY
gzip -c /tmp/sass26.txt > $R/sass26.txt.gz
COURSE_REQUIRE_GPU=1 timeout 200 ctest --test-dir build/release -j8 --output-on-failure -R '^06_fft_convolve\..*Gpu' > $R/ctest06_gpu.log 2>&1; step ctest06_gpu $?
echo "$(grep -E 'tests passed|tests failed' $R/ctest06_gpu.log)" >> $R/steps.txt
pack
M="--section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max"
for k in 15 19; do
for v in direct_uniform_r2 direct_uniform_half; do
timeout 60 ncu $M -k regex:"direct_uniform_rolled_kernel" -c 1 $B/06_fft_convolve -n 1024 --filter gaussian --filter-size $k --skip-cpu --reps 1 --warmup 0 --kernel $v > $R/ncu/ncu_${v}_k$k.txt 2>&1; step ncu_${v}_$k $?
done
done
echo "total $(( $(date +%s) - t0 )) s" >> $R/steps.txt
pack
