#!/bin/bash
# Speedup and efficiency of `quadrender render` split over 1..N GPUs: with
# --gpus (threads of one process) and, when the binary was built with MPI,
# with mpirun (a process per GPU). Two cases: one large image (bands) and a
# frame sequence. Each command runs REPEAT times after a warm-up; the table
# gives the median wall time, the speedup over one GPU and the efficiency
# (speedup / GPUs), and keeps the whole log in $OUT/split_scaling.log.
# Usage: bash dev/split_scaling.sh QUADRENDER [N] [REPEAT]
set -uo pipefail
Q=$1
N=${2:-$(nvidia-smi -L | wc -l)}
REPEAT=${3:-3}
OUT=${OUT:-/tmp/out}
W=${SPLIT_DIR:-/tmp/split}
mkdir -p "$OUT" "$W"
LOG=$OUT/split_scaling.log
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=0
if ldd "$Q" | grep -q -i mpi && command -v mpirun >/dev/null; then MPI=1; fi

# median wall seconds of REPEAT runs of "$@" after one warm-up
wall() {
    local t=() s e
    "$@" >> "$LOG" 2>&1 || { echo "FAILED: $*" >> "$LOG"; echo nan; return; }
    for ((i = 0; i < REPEAT; i++)); do
        s=$(date +%s%N)
        "$@" >> "$LOG" 2>&1
        e=$(date +%s%N)
        t+=($(( (e - s) / 1000000 )))
    done
    printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.3f\n", m/1000}'
}

cases=("rand1M -s 65536 -o $W/big.png"
       "hypnosis -s 1024 --frames 0:199 -o $W/h.png")
names=("rand1M 65536² PNG (bands)" "hypnosis 1024² 200 frames PNG")
printf "%-32s %-8s %5s %9s %8s %6s\n" case how GPUs wall_s speedup eff
for c in 0 1; do
    base=""
    for ((g = 1; g <= N; g++)); do
        list=$(seq -s, 0 $((g - 1)))
        hows=("--gpus")
        [ $MPI = 1 ] && hows+=("mpirun")
        for how in "${hows[@]}"; do
            echo "== ${names[$c]} $how $g" >> "$LOG"
            if [ "$how" = "--gpus" ]; then
                t=$(wall "$Q" render ${cases[$c]} --gpus "$list" -v)
            else
                t=$(wall mpirun --bind-to none -n "$g" "$Q" render ${cases[$c]} -v)
            fi
            [ -z "$base" ] && base=$t
            awk -v n="${names[$c]}" -v h="$how" -v g="$g" -v t="$t" -v b="$base" \
                'BEGIN {s = b / t; printf "%-32s %-8s %5d %9.3f %8.2f %6.2f\n", n, h, g, t, s, s / g}'
        done
    done
    rm -f "$W"/*.png
done
