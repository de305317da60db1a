#!/bin/sh
# check-bindings.sh [openmpi|mpich] [ranks] - the count programs (es_counts.c, es_counts_cxx.cpp,
# es_fcounts_{mpif,mpi,f08}.f90) under one MPI library, with the interposition library preloaded: each program prints
# its own count of calls and bytes per MPI function; the library's meta files must hold the same, no call more, no
# call fewer (so under MPICH, whose mpif.h/use mpi bindings call the C MPI_X, nothing is counted twice). Also with the
# library built -DES_FPMPI=0 (the Fortran wrappers' C fallback). MpiBindingsTest does the same under Open MPI through
# eventspace mpirun; this runs MPICH natively, without the Java launcher.
set -eu
mpi=${1:-openmpi}
np=${2:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
case $mpi in
openmpi) cc=mpicc.openmpi; cxx=mpicxx.openmpi; fc=mpifort.openmpi; fortlib=-lmpi_mpifh
  run() { OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun.openmpi --oversubscribe \
    --mca btl self,vader -np "$np" -x LD_PRELOAD="$1" -x ES_MPI_DIR="$2" "$3"; } ;;
mpich) cc=mpicc.mpich; cxx=mpicxx.mpich; fc=mpifort.mpich; fortlib=
  run() { timeout 120 mpiexec.hydra -n "$np" -genv LD_PRELOAD "$1" -genv ES_MPI_DIR "$2" "$3"; } ;;
*) echo "check-bindings: expected openmpi or mpich, got '$mpi'" >&2; exit 2 ;;
esac
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
flags="-O2 -std=c11 -fPIC -shared"
$cc $flags -o "$t/lib.so" "$here/es_mpi.c" $fortlib -ldl -lpthread
$cc $flags -DES_FPMPI=0 -o "$t/lib-fallback.so" "$here/es_mpi.c" $fortlib -ldl -lpthread
$cc -O2 -o "$t/es_counts" "$here/test/es_counts.c" 2>/dev/null
$cxx -O2 -o "$t/es_counts_cxx" "$here/test/es_counts_cxx.cpp" 2>/dev/null
for v in mpif mpi f08; do
  $fc -O2 -fallow-argument-mismatch -o "$t/es_fcounts_$v" "$here/test/es_fcounts_$v.f90" 2>/dev/null
done
# the op codes: ES_OP(name, code) in es_mpi_layout.h
ops=$(grep -o 'ES_OP([A-Za-z_]*, [0-9]*)' "$here/es_mpi_layout.h" | sed 's/ES_OP(\([A-Za-z_]*\), \([0-9]*\))/\1 \2/')
counter() { # counter DIR OP FIELD(0 calls, 1 bytes): summed over the ranks' meta files
  code=$(echo "$ops" | awk -v n="$2" '$1 == n { print $2 }')
  off=$((192 + 16 * (code - 256) + 8 * $3))
  s=0
  for m in "$1"/host-*/rank-*.meta; do
    s=$((s + $(od -An -t d8 -j "$off" -N 8 "$m" | tr -d ' ')))
  done
  echo "$s"
}
fail=0
for lib in lib lib-fallback; do
  for p in es_counts es_counts_cxx es_fcounts_mpif es_fcounts_mpi es_fcounts_f08; do
    rm -rf "$t/trace"
    out=$(run "$t/$lib.so" "$t/trace" "$t/$p")
    case "$out" in *"counts ok"*) ;; *) echo "check-bindings: $mpi $lib $p printed no 'counts ok'" >&2; fail=1; continue ;; esac
    bad=0
    listed=""
    for line in $(echo "$out" | awk '$1 == "calls" || $1 == "bytes" { print $1 ":" $2 ":" $3 }'); do
      kind=${line%%:*}; rest=${line#*:}; name=${rest%%:*}; want=${rest#*:}
      field=0; [ "$kind" = bytes ] && field=1
      got=$(counter "$t/trace" "${name#MPI_}" $field)
      [ "$got" = "$want" ] || { echo "check-bindings: $mpi $lib $p: $kind $name: program $want, library $got" >&2; bad=1; }
      listed="$listed ${name#MPI_}"
    done
    for op in $(echo "$ops" | awk '{ print $1 }'); do
      case " $listed " in *" $op "*) continue ;; esac
      n=$(counter "$t/trace" "$op" 0)
      [ "$n" = 0 ] || { echo "check-bindings: $mpi $lib $p: MPI_$op counted $n times, the program made none" >&2; bad=1; }
    done
    [ $bad = 0 ] && echo "check-bindings: ok  $mpi $lib $p" || fail=1
  done
done
exit $fail
