#!/bin/bash
# The whole path, scene in to file out, on the device machine (issue targets
# in docs/benchmarks.md, "End to end"): wall time and peak RSS of each
# command (/usr/bin/time), warm page cache (every command runs twice, the
# second counts). Run after a build into build-dev (dev/device_ab.sh or
# dev/device_run.sh). Usage: bash dev/device_e2e.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
[ -x build-dev/quadrender ] || bash dev/device_run.sh > /dev/null 2>&1 || exit 1
Q=$PWD/build-dev/quadrender
D=$PWD/build-dev/dev
W=/tmp/e2e
mkdir -p $W && cd $W
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(1)
for n, name in ((1_000_000, "c1M.npy"), (10_000_000, "c10M.npy"), (100_000_000, "c100M.npy")):
    a = np.empty((n, 7), dtype=np.float32)
    a[:, 0:3] = rng.random((n, 3), dtype=np.float32)
    a[:, 3] = 0.0005 + 0.002 * rng.random(n, dtype=np.float32)
    a[:, 4:7] = rng.random((n, 3), dtype=np.float32)
    np.save(name, a)
PY
$Q dump rand1M -o rand1M.circles > /dev/null 2>&1
$Q dump micro2M -o micro2M.circles > /dev/null 2>&1
run() { # label, command...
    local label=$1; shift
    "$@" > /dev/null 2>&1
    /usr/bin/time -f "%e s  %M KB" -o /tmp/t.txt "$@" > /tmp/o.txt 2> /tmp/e.txt
    local rc=$?
    printf "%-44s rc=%d  %s\n" "$label" $rc "$(cat /tmp/t.txt | tail -1)"
    grep -E "upload|index|frames in|load" /tmp/e.txt | head -3 | sed 's/^/      /'
}
{
run "--version" $Q --version
run "render rgb -s 16 --device cpu (no CUDA)" $Q render rgb -s 16 --device cpu -o rgb.png
run "render rgb -s 16" $Q render rgb -s 16 -o rgb.png
run "render rand1M -s 1024 -o x.png" $Q render rand1M -s 1024 -o x.png
run "render rand1M.circles -s 1024" $Q render rand1M.circles -s 1024 -o x.png
run "1M .npy -> 1024 png" $Q render c1M.npy -s 1024 -o x.png
run "10M .npy -> 4096 png" $Q render c10M.npy -s 4096 -o x.png
run "100M .npy -> 8192 png" $Q render c100M.npy -s 8192 -o x.png
run "render rand100k -s 8192" $Q render rand100k -s 8192 -o x.png
run "render biglittle -s 16384" $Q render biglittle -s 16384 -o x.png
run "render rand1M -s 32768" $Q render rand1M -s 32768 -o x.png
run "render rand1M -s 32768 --exact .ppm" $Q render rand1M -s 32768 --exact -o x.ppm
run "hypnosis --frames 0:199 -s 1024" $Q render hypnosis --frames 0:199 -s 1024 -o h.png
run "snow --frames 0:199 -s 1024" $Q render snow --frames 0:199 -s 1024 -o s.png
} 2>&1 | tee "$OUT/e2e.txt"
$Q render rand100k -s 8192 -o r.ppm > /dev/null 2>&1
$D/png_timer --ppm r.ppm --threads 1,4,8,16 --levels 1 2>&1 | tail -12 | tee "$OUT/png_timer.txt"
$D/parse_timer -n 5 rand1M.circles micro2M.circles rand1M micro2M 2>&1 | tail -12 | tee "$OUT/parse_timer.txt"
$D/scene_gen_timer -n 11 rand1M micro2M 2>&1 | tail -6 | tee "$OUT/gen_timer.txt"
$Q bench --cpu rand1M rand100k biglittle micro2M --cpu-frames 5 2>&1 | tail -14 | tee "$OUT/bench_cpu.txt"
for k in 1 2 3; do $D/startup_timer; done 2>&1 | tail -14 | tee "$OUT/startup.txt"
for m in LAZY EAGER; do
    CUDA_MODULE_LOADING=$m /usr/bin/time -f "render rgb -s 16, CUDA_MODULE_LOADING=$m: %e s" $Q render rgb -s 16 -q -o /tmp/rgb.png
done 2>&1 | tee -a "$OUT/startup.txt"
rm -rf $W
