#!/usr/bin/env bash
# The ThreadSanitizer test (scripts/test, step 5): cs_sel_threads built with -DCOLLSEL_TSAN=ON
# (collsel and the test instrumented; the MPI library is not) runs at np 1, where one thread
# also calls collsel_finalize/collsel_init while the others run collectives, and at np 2; then
# cs_mpi_progress (tests/mpi/test_progress.c, built so too) at np 2 with the progress thread
# (COLLSEL_PROGRESS=thread) advancing nonblocking allreduces and allgathers while the main
# thread computes and then waits for them. Any report fails it; tests/tsan.supp names what is
# suppressed and why.
#
# Usage: tests/selector/tsan_threads.sh BUILD_DIR   (BUILD_DIR configured with COLLSEL_TSAN=ON)
set -euo pipefail
build=${1:?usage: tsan_threads.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/collsel-tsan-XXXXXX")
trap 'rm -rf "$work"' EXIT
threads=$build/tests/selector/cs_sel_threads
"$build/tests/selector/cs_make_rules_db" "$work/four.db" >/dev/null
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader
# tests/tsan.supp, plus called_from_lib for each of Open MPI's components (one library per line)
cp "$root/tests/tsan.supp" "$work/tsan.supp"
components=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p')
for lib in "${components:-/nonexistent}"/mca_*.so; do
    [ -e "$lib" ] && echo "called_from_lib:$(basename "$lib")" >>"$work/tsan.supp"
done
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$work/tsan.supp"
for np in 1 2; do
    if ! mpirun --allow-run-as-root --oversubscribe -np "$np" -x TSAN_OPTIONS \
        -x COLLSEL_DB="$work/four.db" "$threads" 8 >"$work/np$np.out" 2>"$work/np$np.err" ||
        [ "$(tail -n 1 "$work/np$np.out")" != passed ]; then
        head -n 80 "$work/np$np.err" >&2
        tail -n 5 "$work/np$np.out" >&2
        echo "tsan_threads: cs_sel_threads at np $np failed under ThreadSanitizer" >&2
        exit 1
    fi
    if grep -q "WARNING: ThreadSanitizer" "$work/np$np.err"; then
        head -n 80 "$work/np$np.err" >&2
        echo "tsan_threads: ThreadSanitizer reported at np $np" >&2
        exit 1
    fi
    echo "tsan_threads: np $np: passed, no ThreadSanitizer report"
done
progress=$build/tests/mpi/cs_mpi_progress
if ! mpirun --allow-run-as-root --oversubscribe -np 2 -x TSAN_OPTIONS -x COLLSEL_PROGRESS=thread \
    -x COLLSEL_FORCE='allreduce/recursive_doubling;allgather/ring' "$progress" --no-poll \
    --limit 0.2 >"$work/progress.out" 2>"$work/progress.err" ||
    [ "$(tail -n 1 "$work/progress.out")" != passed ] ||
    grep -q "WARNING: ThreadSanitizer" "$work/progress.err"; then
    head -n 80 "$work/progress.err" >&2
    tail -n 5 "$work/progress.out" >&2
    echo "tsan_threads: cs_mpi_progress (progress thread) at np 2 failed under ThreadSanitizer" >&2
    exit 1
fi
echo "tsan_threads: progress thread at np 2: passed, no ThreadSanitizer report"
