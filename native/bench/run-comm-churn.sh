#!/usr/bin/env bash
# run-comm-churn.sh - whether communicator churn slows the library's lookups: the per-call time of MPI_Allreduce on a
# split communicator before and after CYCLES MPI_Comm_split + MPI_Comm_free cycles, in one traced run.
#
#   native/bench/run-comm-churn.sh [--np N] [--cycles C] [--iterations I]
#
# Builds the library and test/es_comm_churn.c with make and runs es_comm_churn CYCLES I -t with the library
# preloaded and recording: it prints "comm_churn cycles=C before_ns=<best of 5 runs of I calls> after_ns=<the same
# after the churn>". Then the same without the library (the bare calls, for scale).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
np=2 cycles=100000 iterations=100000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --np) np="$2"; shift 2 ;;
        --cycles) cycles="$2"; shift 2 ;;
        --iterations) iterations="$2"; shift 2 ;;
        *) echo "usage: run-comm-churn.sh [--np N] [--cycles C] [--iterations I]" >&2; exit 2 ;;
    esac
done
command -v mpicc >/dev/null || { echo "run-comm-churn: mpicc missing (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
make -s -C "$here" all build/es_comm_churn >&2
lib="$here/build/libeventspace-mpi.so" prog="$here/build/es_comm_churn"
trace="$(mktemp -d)"; trap 'rm -rf "$trace"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "np=$np, allreduce on a split communicator, before and after $cycles split/free cycles:"
echo "  traced: $(timeout 900 mpirun -np "$np" --oversubscribe --mca btl self,vader -x LD_PRELOAD="$lib" -x ES_MPI_DIR="$trace" "$prog" "$cycles" "$iterations" -t | grep comm_churn)"
echo "  bare:   $(timeout 900 mpirun -np "$np" --oversubscribe --mca btl self,vader "$prog" "$cycles" "$iterations" -t | grep comm_churn)"
