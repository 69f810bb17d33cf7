#!/usr/bin/env bash
# examples/pcg.c at NP processes (oversubscribed), both forms (--blocking: MPI_Allreduce;
# --nonblocking: MPI_Iallreduce overlapped with the matrix-vector product, then MPI_Wait):
#   pcg_plain                           plain MPI;
#   pcg_plain + LD_PRELOAD              libcollsel_pmpi preloaded, allreduce forced to
#                                       allreduce/recursive_doubling (COLLSEL_FORCE), so the
#                                       nonblocking form runs collsel's operation;
#   pcg_collsel, pcg_pmpi               collsel.h and the linked interposer, forced the same;
#   pcg_plain + LD_PRELOAD + thread     the same with COLLSEL_PROGRESS=thread.
# Every run exits 0 (converged, error below 1e-8) with the iteration count (within 1) and
# checksum (relative 1e-9) of pcg_plain --blocking; with COLLSEL_VERBOSE=3 the collsel runs log
# their calls ("collsel: allreduce ..." blocking, "collsel: iallreduce ..." nonblocking), the
# plain ones nothing.
# Usage: test_pcg.sh NP MPIEXEC PCG_PLAIN PCG_COLLSEL PCG_PMPI LIBCOLLSEL_PMPI
set -u
np=${1:?usage: test_pcg.sh NP MPIEXEC PCG_PLAIN PCG_COLLSEL PCG_PMPI LIBCOLLSEL_PMPI}
mpiexec=${2:?}
plain=${3:?}
collsel=${4:?}
pmpi=${5:?}
lib=${6:?}
n=30000
work=$(mktemp -d "${TMPDIR:-/tmp}/collsel-pcg-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_VERBOSE COLLSEL_PROGRESS LD_PRELOAD
ref_iters=""
ref_sum=""

fail() {
    echo "test_pcg: FAIL at np $np: $*" >&2
    exit 1
}

# run NAME FORM MODE EXE [mpirun options...]: MODE plain (no collsel line wanted) or collsel
# (the form's calls logged)
run() {
    local name=$1 form=$2 mode=$3 exe=$4
    shift 4
    local out=$work/$name.$form.out err=$work/$name.$form.err line iters sum
    "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" -x COLLSEL_VERBOSE=3 "$@" "$exe" \
        "--$form" "$n" >"$out" 2>"$err" || {
        cat "$out" >&2
        tail -n 20 "$err" >&2
        fail "$name --$form: exit status not 0"
    }
    [[ $(grep -c '^pcg: ' "$out") -eq 1 ]] || fail "$name --$form: not one result line"
    line=$(grep '^pcg: ' "$out")
    [[ $line == *" form=$form n=$n nprocs=$np "* ]] || fail "$name --$form: $line"
    iters=$(sed -n 's/.* iterations=\([0-9]*\) .*/\1/p' <<<"$line")
    sum=$(sed -n 's/.* checksum=\([^ ]*\).*/\1/p' <<<"$line")
    if [[ $mode == plain ]]; then
        ! grep -q '^collsel:' "$err" || fail "$name --$form: collsel output from a plain run"
    else
        local call=allreduce
        [[ $form == nonblocking ]] && call=iallreduce
        grep -q "^collsel: $call 16 bytes: allreduce/recursive_doubling" "$err" ||
            fail "$name --$form: no '$call 16 bytes: allreduce/recursive_doubling' logged"
    fi
    if [[ -z $ref_iters ]]; then
        ref_iters=$iters
        ref_sum=$sum
    fi
    awk -v i="$iters" -v s="$sum" -v ri="$ref_iters" -v rs="$ref_sum" 'BEGIN {
            d = s - rs; if (d < 0) d = -d; a = rs < 0 ? -rs : rs;
            exit !((i - ri) * (i - ri) <= 1 && d <= 1e-9 * a) }' ||
        fail "$name --$form: iterations=$iters checksum=$sum, pcg_plain --blocking: $ref_iters $ref_sum"
    printf '  %-24s %-12s %s\n' "$name" "$form" "${line#pcg: }"
}

force=(-x COLLSEL_FORCE=allreduce/recursive_doubling)
for form in blocking nonblocking; do
    run pcg_plain "$form" plain "$plain"
    run pcg_plain+preload "$form" collsel "$plain" -x LD_PRELOAD="$lib" "${force[@]}"
    run pcg_collsel "$form" collsel "$collsel" "${force[@]}"
    run pcg_pmpi "$form" collsel "$pmpi" "${force[@]}"
    run pcg_plain+preload+thread "$form" collsel "$plain" -x LD_PRELOAD="$lib" "${force[@]}" \
        -x COLLSEL_PROGRESS=thread
done
echo "test_pcg: np $np passed"
