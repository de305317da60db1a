#!/usr/bin/env bash
# run-baseline.sh - build and run one Open MPI baseline configuration and print
# its JSON result line on stdout (everything else goes to stderr).
#
#   bench/mpi/run-baseline.sh allreduce|pingpong --np N --btl shm|tcp
#                             [--iterations I] [--warmup W] [--count C | --size S]
#                             [--bind core|none]
#
# Installs Open MPI with apt-get if mpicc or mpirun is missing (needs root),
# builds into bench/mpi/build/ with make, runs mpirun under `timeout 300`.
# Exit status: 0 on success; non-zero with a message on stderr otherwise. If the
# benchmark ran but a result was wrong, its JSON line (with "result_ok":false)
# is still printed before the non-zero exit.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD_DIR="$SCRIPT_DIR/build"
TIMEOUT_S=300

log() { printf 'run-baseline: %s\n' "$*" >&2; }
die() { printf 'run-baseline: error: %s\n' "$*" >&2; exit 1; }

usage() {
    cat >&2 <<'EOF'
usage: run-baseline.sh allreduce|pingpong --np N --btl shm|tcp
                       [--iterations I] [--warmup W] [--count C | --size S] [--bind core|none]
  allreduce  MPI_Allreduce(MPI_SUM) latency on C longs (default C=1, 8 bytes)
  pingpong   ranks 0 and 1 blocking send/recv of S bytes (default 8), one-way latency
  --btl shm  shared memory (self + vader on Open MPI 4.x, self + sm on 5.x)
  --btl tcp  TCP over the loopback interface (self + tcp, btl_tcp_if_include lo)
  --bind     core: each rank on a core of its own (mpirun's default up to 2 ranks;
             overload allowed beyond the cores); none: anywhere. Default: mpirun's.
EOF
    exit 2
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# ---- arguments -------------------------------------------------------------
[[ $# -ge 1 ]] || usage
bench="$1"; shift
case "$bench" in
    allreduce|pingpong) ;;
    -h|--help) usage ;;
    *) log "unknown benchmark '$bench'"; usage ;;
esac

np="" btl="" iterations="" warmup="" count="" size="" bind=""
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || { log "option $1 needs a value"; usage; }
    case "$1" in
        --np) np="$2" ;;
        --btl) btl="$2" ;;
        --iterations) iterations="$2" ;;
        --warmup) warmup="$2" ;;
        --count) count="$2" ;;
        --size) size="$2" ;;
        --bind) bind="$2" ;;
        *) log "unknown option '$1'"; usage ;;
    esac
    shift 2
done

[[ -n $np ]] || { log "--np is required"; usage; }
[[ -n $btl ]] || { log "--btl is required"; usage; }
[[ $btl == shm || $btl == tcp ]] || die "--btl must be shm or tcp, got '$btl'"
[[ -z $bind || $bind == core || $bind == none ]] || die "--bind must be core or none, got '$bind'"
is_uint "$np" && (( np >= 1 )) || die "--np must be a positive integer, got '$np'"
for v in iterations warmup count size; do
    [[ -z ${!v} ]] || is_uint "${!v}" || die "--$v must be a non-negative integer, got '${!v}'"
done
if [[ $bench == allreduce && -n $size ]]; then die "--size applies to pingpong; use --count for allreduce"; fi
if [[ $bench == pingpong && -n $count ]]; then die "--count applies to allreduce; use --size for pingpong"; fi
if [[ $bench == pingpong ]] && (( np < 2 )); then die "pingpong needs --np 2 (ranks 0 and 1)"; fi

# ---- Open MPI --------------------------------------------------------------
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    log "mpicc or mpirun missing: installing Open MPI (apt-get install openmpi-bin libopenmpi-dev)"
    [[ $(id -u) -eq 0 ]] || die "Open MPI is not installed and we are not root to apt-get install it"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || die "apt-get update failed"
    apt-get install -y -qq openmpi-bin libopenmpi-dev >&2 || die "apt-get install openmpi-bin libopenmpi-dev failed"
    command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 \
        || die "Open MPI installed but mpicc/mpirun still not on PATH"
fi
command -v ompi_info >/dev/null 2>&1 || die "ompi_info not found: this script needs Open MPI (not MPICH)"

# Read ompi_info once; grep the text later (grep -q on a live pipe could cut
# ompi_info off with SIGPIPE, which pipefail would turn into a false "no").
ompi_params="$(ompi_info --parsable 2>/dev/null)" || die "ompi_info --parsable failed"
ompi_version="$(sed -n 's/^ompi:version:full://p' <<<"$ompi_params" | head -n1)"
[[ -n $ompi_version ]] || ompi_version="unknown"

# ---- build -----------------------------------------------------------------
log "building into $BUILD_DIR"
make -s -C "$SCRIPT_DIR" BUILD_DIR="$BUILD_DIR" >&2 || die "build failed (make -C $SCRIPT_DIR)"
binary="$BUILD_DIR/$bench"
[[ -x $binary ]] || die "build produced no $binary"

# ---- transport -------------------------------------------------------------
# The shared-memory BTL is called 'vader' in Open MPI 4.x and 'sm' in 5.x; ask
# ompi_info which one this installation has.
have_btl() { grep -q "^mca:btl:$1:" <<<"$ompi_params"; }
case "$btl" in
    shm)
        if have_btl vader; then btl_list="self,vader"
        elif have_btl sm; then btl_list="self,sm"
        else die "no shared-memory BTL (vader or sm) in this Open MPI ($ompi_version)"
        fi
        btl_args=(--mca btl "$btl_list")
        ;;
    tcp)
        have_btl tcp || die "no tcp BTL in this Open MPI ($ompi_version)"
        btl_list="self,tcp"
        # Only loopback exists here; keep both the MPI traffic and mpirun's own
        # out-of-band channel on it.
        btl_args=(--mca btl "$btl_list" --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
        ;;
esac

# Force the ob1 PML: the BTL list only takes effect under ob1. If another PML
# (ucx, or cm with an MTL) were selected, --mca btl would be silently ignored
# and we would not be measuring the transport we name.
pml_args=(--mca pml ob1)

# Open MPI busy-polls while waiting. With more ranks than cores the pollers
# steal the CPU from the rank that has work, so ask them to yield.
cores="$(nproc)"
yield=false
yield_args=()
if (( np > cores )); then
    yield=true
    yield_args=(--mca mpi_yield_when_idle 1)
fi

bind_args=()
case "$bind" in
    core) bind_args=(--bind-to core:overload-allowed) ;;
    none) bind_args=(--bind-to none) ;;
esac

bench_args=()
[[ -z $iterations ]] || bench_args+=(-i "$iterations")
[[ -z $warmup ]] || bench_args+=(-w "$warmup")
[[ -z $count ]] || bench_args+=(-c "$count")
[[ -z $size ]] || bench_args+=(-s "$size")

# ---- run -------------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmd=(timeout -k 10 "$TIMEOUT_S" mpirun --allow-run-as-root --oversubscribe -np "$np"
     "${pml_args[@]}" "${btl_args[@]}" "${yield_args[@]}" "${bind_args[@]}" "$binary" "${bench_args[@]}")
log "running: ${cmd[*]}"

out_file="$(mktemp)"
trap 'rm -f "$out_file"' EXIT
set +e
"${cmd[@]}" >"$out_file"   # mpirun's stderr passes straight through to ours
rc=$?
set -e

if (( rc == 124 || rc == 137 )); then
    die "mpirun did not finish within ${TIMEOUT_S}s (timeout exit $rc)"
fi

# The benchmark prints exactly one JSON line on rank 0; anything else on stdout
# is unexpected and goes to stderr so stdout stays machine-readable.
json="$(grep -E '^\{.*\}$' "$out_file" || true)"
other="$(grep -vE '^\{.*\}$' "$out_file" || true)"
[[ -z $other ]] || printf '%s\n' "$other" >&2
lines=0
[[ -z $json ]] || lines="$(printf '%s\n' "$json" | wc -l)"
if (( lines != 1 )); then
    die "expected one JSON line from $bench, got $lines (mpirun exit $rc)"
fi

# Append what only this script knows about the run.
json="${json%\}},\"btl\":\"$btl\",\"btl_components\":\"$btl_list\",\"pml\":\"ob1\""
json+=",\"yield_when_idle\":$yield,\"nproc\":$cores,\"bind\":\"${bind:-default}\""
json+=",\"openmpi\":\"$ompi_version\"}"
printf '%s\n' "$json"

if (( rc != 0 )); then
    if [[ $json == *'"result_ok":false'* ]]; then
        die "$bench produced wrong results (mpirun exit $rc)"
    fi
    die "mpirun exited with status $rc"
fi
