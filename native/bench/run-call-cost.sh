#!/usr/bin/env bash
# run-call-cost.sh - the interposition library's cost per MPI call, against the bare call in the same run.
#
#   native/bench/run-call-cost.sh [--mpi openmpi|mpich] [--np N] [--pairs P] [--iterations I] [--barrier]
#
# --mpi mpich builds with make MPI=mpich (into build-mpich/) and runs under MPICH's mpiexec.hydra; default: Open MPI.
#
# Builds the library and bench/call_cost.c with make, then
#  1. side by side in one process (the headline figure): call_cost -p 101 with the library preloaded and recording
#     alternates blocks of PMPI_Allreduce (the bare call) and MPI_Allreduce (through the wrapper) and prints the
#     median per-call time of each and the median of the 101 paired differences (with the 10th and 90th
#     percentiles); the same without the library is the control (both halves are the same function: ~0 ns);
#     then the same for an MPI_Irecv + MPI_Send + MPI_Wait iteration (call_cost -w: the request table's path);
#  2. whole runs: call_cost P times in each of three ways, interleaved: bare (no library), passive (library
#     preloaded, ES_MPI_DIR unset: it only forwards) and traced (preloaded, recording into a trace folder); each
#     way's median over the runs of the per-run best ns/call, and traced - bare in ns and as a ratio.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
np=1 pairs=7 iterations=1000000 extra=() mpi=openmpi
while [[ $# -gt 0 ]]; do
    case "$1" in
        --mpi) mpi="$2"; shift 2 ;;
        --np) np="$2"; shift 2 ;;
        --pairs) pairs="$2"; shift 2 ;;
        --iterations) iterations="$2"; shift 2 ;;
        --barrier) extra+=(-b); shift ;;
        *) echo "usage: run-call-cost.sh [--mpi openmpi|mpich] [--np N] [--pairs P] [--iterations I] [--barrier]" >&2; exit 2 ;;
    esac
done
case "$mpi" in
    openmpi) cc=mpicc build=build launcher=(mpirun --oversubscribe --mca btl self,vader)
             pkg="openmpi-bin libopenmpi-dev" ;;
    mpich)   cc=mpicc.mpich build=build-mpich launcher=(mpiexec.hydra) pkg="mpich libmpich-dev" ;;
    *) echo "run-call-cost: --mpi must be openmpi or mpich, got '$mpi'" >&2; exit 2 ;;
esac
command -v "$cc" >/dev/null || { echo "run-call-cost: $cc missing (apt-get install $pkg)" >&2; exit 1; }
make -s -C "$here" MPI="$mpi" BUILD_DIR="$build" all bench >&2
lib="$here/$build/libeventspace-mpi.so" prog="$here/$build/call_cost"
trace="$(mktemp -d)"; trap 'rm -rf "$trace"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one variable for every rank: Open MPI's -x VAR=VALUE, Hydra's -genv VAR VALUE
setenv() { if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$1=$2"; else printf '%s\n' -genv "$1" "$2"; fi; }
mapfile -t preload < <(setenv LD_PRELOAD "$lib")
mapfile -t tracing < <(setenv LD_PRELOAD "$lib"; setenv ES_MPI_DIR "$trace")
run() { # $1: bare|passive|traced
    local env=()
    case "$1" in
        passive) env=("${preload[@]}") ;;
        traced) env=("${tracing[@]}") ;;
    esac
    timeout 300 "${launcher[@]}" -np "$np" "${env[@]}" "$prog" -i "$iterations" -r 5 "${extra[@]}" \
        | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p'
}
echo "$mpi: side by side, one process, $np rank(s), 101 pairs of blocks of $((iterations / 10)) calls:"
echo "  traced:  $(timeout 300 "${launcher[@]}" -np "$np" "${tracing[@]}" "$prog" -i $((iterations / 10)) -p 101)"
echo "  control: $(timeout 300 "${launcher[@]}" -np "$np" "$prog" -i $((iterations / 10)) -p 101)"
echo "side by side, MPI_Irecv + MPI_Send + MPI_Wait to itself per iteration (ns per iteration of 3 calls):"
echo "  traced:  $(timeout 300 "${launcher[@]}" -np 1 "${tracing[@]}" "$prog" -i $((iterations / 10)) -p 101 -w)"
echo "  control: $(timeout 300 "${launcher[@]}" -np 1 "$prog" -i $((iterations / 10)) -p 101 -w)"
declare -a bare passive traced
for ((p = 0; p < pairs; p++)); do
    bare+=("$(run bare)"); passive+=("$(run passive)"); traced+=("$(run traced)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mb=$(median "${bare[@]}") mp=$(median "${passive[@]}") mt=$(median "${traced[@]}")
echo "mpi=$mpi np=$np pairs=$pairs iterations=$iterations op=$([[ ${#extra[@]} -gt 0 ]] && echo MPI_Barrier || echo MPI_Allreduce)"
echo "bare    ns/call: ${bare[*]}  median $mb"
echo "passive ns/call: ${passive[*]}  median $mp"
echo "traced  ns/call: ${traced[*]}  median $mt"
awk -v b="$mb" -v p="$mp" -v t="$mt" 'BEGIN { printf "added by tracing: %.1f ns/call (ratio %.3f); preloaded but passive: %+.1f ns/call\n", t-b, t/b, p-b }'
