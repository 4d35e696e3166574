set -uo pipefail
nproc; nvidia-smi -L; which mpirun mpiexec mpicc 2>&1; python3 -c "import mpi4py; print(mpi4py.get_config())" 2>&1 | tail -2
bash dev/device_run.sh > /dev/null 2>&1 || { echo build failed; exit 1; }
export LD_LIBRARY_PATH=$PWD/.criterion/lib
Q=$PWD/build-dev/quadrender
cd /tmp
t() { local s=$(date +%s.%N); "$@" > /tmp/o.txt 2>/tmp/e.txt; local rc=$?; local e=$(date +%s.%N); printf "%-60s rc=%d %.2f s\n" "$*" $rc $(echo "$e - $s" | bc); grep -E "upload|bands|frames in" /tmp/e.txt | head -3; }
t $Q render rand1M -s 65536 -o big.png
t $Q render rand1M -s 65536 -o big.png
ls -la big.png; rm -f big.png
t $Q render rand1M -s 65536 --format ppm -o /dev/null
t $Q render rand1M -s 65536 --png-level 0 -o big0.png; rm -f big0.png
t $Q render hypnosis --frames 0:199 -s 1024 -o h.png
t $Q render hypnosis --frames 0:199 -s 1024 -o h.png
t $Q render hypnosis --frames 0:199 -s 1024 --format ppm -o /dev/null
t $Q render hypnosis --frame 0 -s 1024 -o h1.png
t $Q --version
