#!/usr/bin/env bash
# The collectives added after the first seven (alltoall, alltoallv, barrier,
# reduce_scatter_block, reduce_scatter, scan, exscan, gatherv, scatterv) through the whole
# chain, on a real database: a tiny collsel-bench tuning run at np 3, collsel-bench --validate
# on it, then collsel-report. Checks, with sqlite3 and on the report's files:
#   - the tuning run stored measurements and rules for each of the nine, and overlap rows
#     (the MPI library's MPI_I<coll> and collsel's) and nonblocking rules for the six whose
#     nonblocking calls collsel serves (none for gatherv, scatterv, alltoallv);
#   - --validate --validate-passes 2 stored a validation row for each of the nine (barrier: its
#     one 0-byte point), every time positive, one row per point, the passes recorded in the
#     run's options and said in the summary;
#   - with 2 CPUs or more, the core-to-core probe (docs/tuning.md "The host moves the cores")
#     stored a positive round trip for every point the tuning run measured (round 0) and for
#     every validated point in each of its passes, and the validation's summary says what it saw;
#   - index.html has a section for each; each collective with data has its latency plot (both
#     metrics), speedup plot, winner map and validation plot, barrier its winner map and the
#     latency table of its variants (no data: nothing to plot against; docs/report.md); the
#     overlap section has a table for each of the six, and a plot but for barrier.
# Nothing is timed against anything: the run is oversubscribed and short.
#
# Usage: test_validate_new.sh COLLSEL_BENCH COLLSEL_REPORT MPIEXEC SQLITE3
# The work directory is removed on success and kept (and named) on failure.
set -u

BENCH=${1:?usage: test_validate_new.sh COLLSEL_BENCH COLLSEL_REPORT MPIEXEC SQLITE3}
REPORT=${2:?}
MPIEXEC=${3:?}
SQLITE=${4:?}
NP=3
COLLS=(alltoall alltoallv barrier reduce_scatter_block reduce_scatter scan exscan gatherv scatterv)
OVERLAP=(alltoall barrier reduce_scatter_block reduce_scatter scan exscan)
LIST=$(
    IFS=,
    echo "${COLLS[*]}"
)
# one size (4 B: --validate adds the powers of two up to the largest tuned size), one
# point-to-point algorithm each, few repetitions: the chain is under test, not the timings
ALGS=alltoall/pairwise,alltoallv/linear,barrier/dissemination,reduce_scatter_block/ring
ALGS+=,reduce_scatter/recursive_halving,scan/linear,exscan/recursive_doubling,gatherv/binomial
ALGS+=,scatterv/linear
# the job size only (the default plan would add size 2: docs/tuning.md "Communicator sizes")
PLAN=(--colls "$LIST" --algorithms "$ALGS" --sizes 4 --comm-sizes "$NP" --reps-max 10 --no-refine
    --no-confirm --budget 20s --quiet)

export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE LD_PRELOAD

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-validate-new-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
KEEP=0
cleanup() {
    if [ "$KEEP" = 1 ]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    KEEP=1
    exit 1
}

sql() {
    "$SQLITE" -batch "$WORK/t.db" "$1"
}

bench() {
    local name=$1 start=$SECONDS
    shift
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$BENCH" --db "$WORK/t.db" "$@" \
        >"$WORK/$name.log" 2>&1 || {
        tail -n 20 "$WORK/$name.log" >&2
        fail "collsel-bench $*: exit status not 0"
    }
    echo "collsel-bench ($name): $((SECONDS - start)) s"
}

bench tune "${PLAN[@]}"
for c in "${COLLS[@]}"; do
    [ "$(sql "select count(*) from measurement where coll = '$c' and comm_size = $NP")" -gt 1 ] ||
        fail "the tuning run measured no algorithm of $c besides native"
    [ "$(sql "select count(*) from rule where coll = '$c' and comm_size = $NP and rank = 1")" -gt 0 ] ||
        fail "the tuning run stored no rule for $c"
done
echo "tuned: $(sql "select count(*) from measurement") measurements, $(sql "select count(*) from rule where rank = 1") rule intervals"
CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ "$CPUS" -ge 2 ]; then
    missing=$(sql "select count(*) from (select distinct run_id, coll, pattern, comm_size, ppn,
        bytes from measurement) m where not exists (select 1 from core_state s where
        s.run_id = m.run_id and s.round = 0 and s.coll = m.coll and s.pattern = m.pattern and
        s.comm_size = m.comm_size and s.ppn = m.ppn and s.bytes = m.bytes and s.rtt_ns > 0)")
    [ "$missing" = 0 ] || fail "$missing measured point(s) have no core-to-core state"
fi
# the overlap pass (on by default): the six whose nonblocking calls collsel serves measured
# against the MPI library's MPI_I<coll>, with nonblocking rules; the three that agree on their
# key not measured (docs/nonblocking.md "Tuning for overlap")
for c in "${OVERLAP[@]}"; do
    [ "$(sql "select count(*) from overlap where coll = '$c' and comm_size = $NP and
        algorithm = '$c/native'")" -gt 0 ] || fail "the overlap pass measured no MPI_I$c"
    [ "$(sql "select count(*) from overlap where coll = '$c' and comm_size = $NP and
        algorithm <> '$c/native' and overhead_us > 0")" -gt 0 ] ||
        fail "the overlap pass measured no collsel algorithm of $c"
    [ "$(sql "select count(*) from nb_rule where coll = '$c' and comm_size = $NP and
        rank = 1")" -gt 0 ] || fail "the overlap pass stored no nonblocking rule for $c"
done
for c in gatherv scatterv alltoallv; do
    [ "$(sql "select count(*) from overlap where coll = '$c'")" = 0 ] ||
        fail "the overlap pass measured $c, whose nonblocking calls go to the MPI library"
done
[ "$(sql "select group_concat(distinct bytes) from overlap where coll = 'barrier'")" = 0 ] ||
    fail "barrier's overlap rows are not its one 0-byte point"

bench validate "${PLAN[@]}" --validate --validate-passes 2
# two passes: one row per point (each time the median of the two), the count recorded in the
# run's options and said in the summary
[ "$(sql "select count(*) from run where args like 'validate %passes=2%'")" = 1 ] ||
    fail "the validation run's options do not record passes=2: $(sql "select args from run")"
grep -q "each the median of 2 passes, loop metric" "$WORK/validate.log" ||
    fail "the summary does not say it took the median of 2 passes: $(tail -n 5 "$WORK/validate.log")"
[ "$(sql "select count(*) from validation") = $(sql "select count(*) from (select distinct
    coll, pattern, comm_size, ppn, bytes from validation)")" ] ||
    fail "a point has more than one validation row"
for c in "${COLLS[@]}"; do
    n=$(sql "select count(*) from validation where coll = '$c' and comm_size = $NP and
        native_us > 0 and selected_us > 0 and oracle_us > 0")
    [ "$n" -gt 0 ] || fail "--validate stored no validation row for $c"
done
[ "$(sql "select group_concat(bytes) from validation where coll = 'barrier'")" = 0 ] ||
    fail "barrier's validation rows are not its one 0-byte point"
if [ "$CPUS" -ge 2 ]; then
    n=$(sql "select count(*) from validation v join core_state s on s.run_id = v.run_id and
        s.coll = v.coll and s.pattern = v.pattern and s.comm_size = v.comm_size and
        s.ppn = v.ppn and s.bytes = v.bytes where s.round in (1, 2) and s.rtt_ns > 0")
    [ "$n" = $((2 * $(sql "select count(*) from validation"))) ] ||
        fail "$n core-to-core states for $(sql "select count(*) from validation") validated points in 2 passes"
    grep -q "core-to-core round trip before each point: " "$WORK/validate.log" ||
        fail "the validation does not say what the core-to-core probe saw"
fi
echo "validated: $(sql "select count(*) from validation") rows"

"$REPORT" "$WORK/t.db" --format png >"$WORK/report.log" 2>&1 || {
    cat "$WORK/report.log" >&2
    fail "collsel-report failed"
}
html=$WORK/t-report/index.html
[ -s "$html" ] || fail "collsel-report wrote no index.html"
for c in "${COLLS[@]}"; do
    grep -q "<h3 id=\"m1-$c\">$c</h3>" "$html" || fail "index.html has no section for $c"
    plots=("${c}_winners")
    if [ "$c" = barrier ]; then
        grep -q "<h4>Latency of each variant on $NP processes" "$html" ||
            fail "index.html has no latency table for barrier"
    else
        plots+=("${c}_latency_np${NP}_ppn${NP}" "${c}_loop_latency_np${NP}_ppn${NP}" "${c}_speedup"
            "${c}_validation_np${NP}_ppn${NP}")
    fi
    for p in "${plots[@]}"; do
        [ -s "$WORK/t-report/$p.png" ] || fail "collsel-report drew no $p.png"
        grep -q "src=\"$p.png\"" "$html" || fail "index.html does not show $p.png"
    done
done
for c in "${OVERLAP[@]}"; do
    grep -q "<h4>i$c on $NP processes" "$html" || fail "index.html has no overlap table for i$c"
    [ "$c" = barrier ] && continue
    p=${c}_overlap_np${NP}_ppn${NP}
    [ -s "$WORK/t-report/$p.png" ] || fail "collsel-report drew no $p.png"
done
echo "PASS: ${#COLLS[@]} collectives tuned, validated and reported"
