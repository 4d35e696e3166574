#!/bin/bash
# Bands on the device machine: a budget-banded render equals the whole-image
# render where one fits (file bytes), and the 65536 target (wall,
# peak RSS). Run after a build into build-dev (dev/device_run.sh).
# Usage: bash dev/device_bands.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
[ -x build-dev/quadrender ] || bash dev/device_run.sh > /dev/null 2>&1 || exit 1
Q=$PWD/build-dev/quadrender
W=/tmp/bands
mkdir -p $W && cd $W
run() { # label, command...
    local label=$1; shift
    /usr/bin/time -f "%e s  %M KB" -o /tmp/t.txt "$@" > /tmp/o.txt 2> /tmp/e.txt
    local rc=$?
    printf "%-52s rc=%d  %s\n" "$label" $rc "$(tail -1 /tmp/t.txt)"
    grep -E "bands|index|error|quadrender:" /tmp/e.txt | head -3 | sed 's/^/      /'
}
same() { cmp -s "$1" "$2" && echo "same bytes: $1 $2" || echo "DIFFERENT: $1 $2"; }
{
run "rand1M -s 32768 (whole)" $Q render rand1M -s 32768 -o whole.png
run "rand1M -s 32768 --gpu-memory 4G (bands)" $Q render rand1M -s 32768 --gpu-memory 4G -o bands.png
same whole.png bands.png
run "rand1M -s 16384 --exact .ppm (whole)" $Q render rand1M -s 16384 --exact -o whole.ppm
run "rand1M -s 16384 --exact .ppm --gpu-memory 1G" $Q render rand1M -s 16384 --exact --gpu-memory 1G -o bands.ppm
same whole.ppm bands.ppm
run "biglittle -s 20000x9000 .pfm (whole)" $Q render biglittle --width 20000 --height 9000 -o whole.pfm
run "biglittle -s 20000x9000 .pfm --gpu-memory 2G" $Q render biglittle --width 20000 --height 9000 --gpu-memory 2G -o bands.pfm
same whole.pfm bands.pfm
rm -f whole.* bands.*
run "rand1M -s 65536 --gpu-memory 8G" $Q render rand1M -s 65536 --gpu-memory 8G -o x.png
ls -l x.png | awk '{print "      " $5 " bytes"}'
run "rand1M -s 65536 (default budget)" $Q render rand1M -s 65536 -o x.png
rm -f x.png
run "rand10k -s 131072 --gpu-memory 8G" $Q render rand10k -s 131072 --gpu-memory 8G -o x.png
ls -l x.png | awk '{print "      " $5 " bytes"}'
rm -f x.png
run "rand1M -s 1024 --gpu-memory 1M (exit 6)" $Q render rand1M -s 1024 --gpu-memory 1M -o y.png
cat /tmp/e.txt | tail -2 | sed 's/^/      /'
} 2>&1 | tee "$OUT/bands.txt"
rm -rf $W
