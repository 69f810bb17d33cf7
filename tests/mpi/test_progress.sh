#!/usr/bin/env bash
# The progress thread (COLLSEL_PROGRESS, docs/nonblocking.md) at NP processes, with
# cs_mpi_progress (test_progress.c) and multi-round schedules forced on 1 MiB messages sent in
# fragments (no single-copy mechanism, below):
#   1. COLLSEL_PROGRESS=thread under MPI_THREAD_MULTIPLE: every allreduce and allgather
#      completes while the ranks compute without calling MPI; nothing on stderr;
#   2. COLLSEL_PROGRESS=calls (the default): none does (nothing moves the messages on), and the
#      results are right once collsel_wait is called;
#   3. COLLSEL_PROGRESS=thread under MPI_THREAD_FUNNELED: no thread (as 2), and one message on
#      stderr, rank 0's, naming the variable and MPI_THREAD_MULTIPLE.
# Usage: test_progress.sh NP MPIEXEC CS_MPI_PROGRESS
set -u
np=${1:?usage: test_progress.sh NP MPIEXEC CS_MPI_PROGRESS}
mpiexec=${2:?}
exe=${3:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/collsel-progress-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# Shared memory without a single-copy mechanism: a large message goes as 32 KiB fragments that
# the sender pushes as it progresses. With CMA the receiver copies a whole message at once, inside
# its start call when the peer's request is already there, and at np 2 (one round) both ranks can
# then hold the result without any progress after the start.
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_VERBOSE COLLSEL_PROGRESS LD_PRELOAD
force='allreduce/recursive_doubling;allgather/ring'
failed=0

# run NAME PROGRESS ARGS...: cs_mpi_progress at np $np; stdout and stderr in $work/NAME.*
run() {
    local name=$1 progress=$2
    shift 2
    "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" -x COLLSEL_FORCE="$force" \
        -x COLLSEL_PROGRESS="$progress" --output-filename "$work/$name.ranks" "$exe" "$@" \
        >"$work/$name.out" 2>"$work/$name.err"
    local rc=$?
    if [[ $rc -ne 0 || $(tail -n 1 "$work/$name.out") != passed ]]; then
        cat "$work/$name.out" "$work/$name.err" >&2
        echo "test_progress: $name at np $np failed (exit status $rc)" >&2
        failed=$((failed + 1))
        return 1
    fi
    echo "test_progress: $name at np $np: passed"
}

if run thread thread --expect progress && [[ -s $work/thread.err ]]; then
    echo "test_progress: thread: unexpected output: $(head -n 5 "$work/thread.err")" >&2
    failed=$((failed + 1))
fi
run calls calls --expect none --limit 1
if run funneled thread --expect none --limit 1 --thread-level funneled; then
    lines=$(wc -l <"$work/funneled.err")
    if [[ $lines -ne 1 ]] || ! grep -q "COLLSEL_PROGRESS=thread.*MPI_THREAD_MULTIPLE" \
        "$work/funneled.err" || ! grep -rqs "COLLSEL_PROGRESS" "$work/funneled.ranks/1/rank.0"; then
        echo "test_progress: funneled: want one message from rank 0, got $lines lines:" >&2
        head -n 5 "$work/funneled.err" >&2
        failed=$((failed + 1))
    fi
fi
[[ $failed -eq 0 ]] || { echo "test_progress: $failed of 3 runs failed at np $np" >&2; exit 1; }
echo "test_progress: np $np passed"
