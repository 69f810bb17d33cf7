#!/usr/bin/env bash
# mpi_nb_v_np<n>: gatherv, scatterv and alltoallv as nonblocking and persistent operations
# (tests/mpi/test_nb_v.c) with collsel algorithms forced and every call logged
# (COLLSEL_VERBOSE=3). The program checks the results against the MPI library's; this script
# checks in the log that collsel ran them: every rank's log names the forced algorithm for the
# nonblocking and the persistent calls of each of the three, gatherv/linear for the gatherv
# whose block types differ in size (np > 1), and no nonblocking call of the three went native.
# usage: test_nb_v.sh EXE MPIEXEC NP
set -u
exe=$1 mpiexec=$2 np=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/collsel-nb-v-XXXXXX")
log=$dir/log
fail() {
    echo "FAIL: $*"
    echo "kept $dir"
    exit 1
}
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader COLLSEL_VERBOSE=3
export COLLSEL_FORCE='gatherv/binomial;scatterv/binomial;alltoallv/pairwise'
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FALLBACK LD_PRELOAD
"$mpiexec" --allow-run-as-root --oversubscribe -np "$np" -x COLLSEL_VERBOSE -x COLLSEL_FORCE \
    "$exe" >"$dir/out" 2>"$log" || fail "cs_mpi_nb_v: $(cat "$dir/out"; tail -n 30 "$log")"
atleast() { # atleast N PATTERN: PATTERN (a regular expression) on N lines of the log or more
    local n
    n=$(grep -cE -- "$2" "$log")
    [ "$n" -ge "$1" ] || fail "'$2' on $n lines of the log, want at least $1"
}
atleast "$np" ' igatherv [0-9]+ bytes: gatherv/binomial \(forced\)'
atleast "$np" ' iscatterv [0-9]+ bytes: scatterv/binomial \(forced\)'
atleast "$np" ' ialltoallv [0-9]+ bytes: alltoallv/pairwise \(forced\)'
atleast "$np" ' gatherv_init [0-9]+ bytes: gatherv/binomial \(forced\)'
atleast "$np" ' scatterv_init [0-9]+ bytes: scatterv/binomial \(forced\)'
atleast "$np" ' alltoallv_init [0-9]+ bytes: alltoallv/pairwise \(forced\)'
if [ "$np" -gt 1 ]; then
    atleast "$np" ' igatherv [0-9]+ bytes: gatherv/linear \(agreed; no ranked or forced'
fi
if grep -E ' (igatherv|iscatterv|ialltoallv|gatherv_init|scatterv_init|alltoallv_init) [0-9]+ bytes: native' "$log"; then
    fail "a nonblocking or persistent call of the three went to the MPI library"
fi
rm -rf "$dir"
echo "mpi_nb_v: passed"
