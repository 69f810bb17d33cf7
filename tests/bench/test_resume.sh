#!/usr/bin/env bash
# collsel-bench survives kill -9: a killed run, resumed, ends with exactly the measurements of
# an uninterrupted run of the same plan, without duplicates and with consistent run statuses.
#
#   a. the plan, uninterrupted, into database A: N measurements;
#   b. the same plan into B in the background, every collsel-bench rank killed with kill -9
#      once some but not all points are stored: the run row stays 'running';
#   c. the same plan with --resume into B: N measurements, no duplicate point, one run row,
#      'done', resumes = 1;
#   d. into C: a run killed the same way, then the same plan without --resume: the old run is
#      'aborted' (finished_at NULL, its measurements kept), a new run is 'done' with N;
#   e. bad options: exit status 2, one message naming the value, no database file;
#   f. the plan into D with --measure-only: the run stays 'running' with the measurements of A's
#      first pass and no confirmation and no rules; then --resume --one-round runs confirmation
#      round 1 in that fresh launch (the sizes it names, nothing measured twice) and stops, still
#      'running' without rules; then --resume runs round 2 (only sizes round 1 measured) and
#      derives the rules: 'done', resumes = 2.
#
# Usage: test_resume.sh COLLSEL_BENCH [MPIEXEC] [SQLITE3]   (ctest passes all three)
# Needs 2 processes; the work directory is removed on success and kept (and named) on failure.
set -u

BENCH=${1:?usage: test_resume.sh COLLSEL_BENCH [MPIEXEC] [SQLITE3]}
MPIEXEC=${2:-mpirun}
SQLITE=${3:-sqlite3}
NP=2
# 30 points committed one after another over about 10 s (the budget paces them).
PLAN=(--colls 'allreduce,bcast' --sizes 4:64K:2 --budget 10s)

export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-resume-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
BG_PID=""
KEEP=0

# An extended regular expression (pgrep, pkill) that matches the string $1 literally.
literal() {
    printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

cleanup() {
    local status=$?
    if [ -n "$BG_PID" ]; then
        kill -9 "$BG_PID" 2>/dev/null
        wait "$BG_PID" 2>/dev/null
    fi
    # Anything still running with the work directory in its command line is ours.
    pkill -9 -f -- "$(literal "$WORK")" 2>/dev/null
    if [ "$KEEP" = 1 ] || [ "$status" != 0 ]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL: $*" >&2
    KEEP=1
    exit 1
}

step() {
    echo "--- $* (${SECONDS}s)"
}

bench() {
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$NP" "$BENCH" "$@"
}

# sql DB QUERY: one query, waiting for the bench's write lock when needed.
sql() {
    "$SQLITE" -batch -cmd '.timeout 10000' "$1" "$2"
}

# Measurements stored so far in DB while a run writes it (0 before the schema exists).
# Read-only, so the poll never creates the file or changes it.
stored() {
    local n
    [ -s "$1" ] || {
        echo 0
        return
    }
    n=$("$SQLITE" -batch -readonly -cmd '.timeout 2000' "$1" \
        'select count(*) from measurement' 2>/dev/null) || n=0
    echo "${n:-0}"
}

# start_and_kill DB LOG: starts the plan into DB in the background and kills every rank with
# kill -9 as soon as at least one point is stored; then reaps mpirun.
start_and_kill() {
    local db=$1 log=$2 n deadline ranks
    bench --db "$db" "${PLAN[@]}" --quiet >"$log" 2>&1 &
    BG_PID=$!
    deadline=$((SECONDS + 120))
    while :; do
        n=$(stored "$db")
        [ "$n" -gt 0 ] && break
        kill -0 "$BG_PID" 2>/dev/null ||
            fail "the run into $db ended before it stored a point: $(cat "$log")"
        [ "$SECONDS" -lt "$deadline" ] || fail "no point stored in $db within 120 s"
        sleep 0.05
    done
    # The ranks' command lines start with the bench binary (mpirun's does not).
    ranks="^$(literal "$BENCH") .*$(literal "$db")"
    pkill -9 -f -- "$ranks" || fail "found no collsel-bench process writing $db"
    # mpirun notices its ranks died and exits; make sure of it.
    deadline=$((SECONDS + 10))
    while kill -0 "$BG_PID" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.1
    done
    kill -9 "$BG_PID" 2>/dev/null
    wait "$BG_PID" 2>/dev/null
    BG_PID=""
    if pgrep -f -- "$ranks" >/dev/null; then
        fail "collsel-bench processes writing $db survived kill -9"
    fi
}

# after_kill DB: the measurements and the status of run 1 as the killed run left them, read
# from a copy so that the bench itself meets any hot journal on --resume.
after_kill() {
    local db=$1
    cp "$db" "$db.copy" || fail "cannot copy $db"
    [ -e "$db-journal" ] && cp "$db-journal" "$db.copy-journal"
    sql "$db.copy" "select (select count(*) from measurement), status from run where id = 1"
    rm -f "$db.copy" "$db.copy-journal"
}

# --- a. uninterrupted ------------------------------------------------------------------------
A=$WORK/a.db
step "a: the plan into A, uninterrupted"
bench --db "$A" "${PLAN[@]}" --quiet >"$WORK/a.log" 2>&1 ||
    fail "uninterrupted run failed: $(cat "$WORK/a.log")"
N=$(sql "$A" 'select count(*) from measurement')
[ "${N:-0}" -gt 1 ] || fail "uninterrupted run stored ${N:-no} measurements"
[ "$(sql "$A" 'select count(*) from failure')" = 0 ] ||
    fail "verification failures in A: $(sql "$A" 'select algorithm, bytes, message from failure')"
[ "$(sql "$A" "select status from run")" = "done" ] || fail "run in A is not done"
echo "N = $N measurements"

# --- b. killed -------------------------------------------------------------------------------
B=$WORK/b.db
step "b: the same plan into B, killed with kill -9"
start_and_kill "$B" "$WORK/b.log"
IFS='|' read -r K STATUS <<<"$(after_kill "$B")"
echo "killed with $K of $N measurements stored"
[ "$STATUS" = running ] || fail "after kill -9 the run is '$STATUS', want 'running'"
if [ "$K" -lt 1 ] || [ "$K" -ge "$N" ]; then
    fail "killed run stored $K measurements, want between 1 and $((N - 1)) (plan too short?)"
fi

# --- c. resumed ------------------------------------------------------------------------------
step "c: the same plan into B with --resume"
bench --db "$B" "${PLAN[@]}" --resume >"$WORK/c.log" 2>&1 ||
    fail "resumed run failed: $(cat "$WORK/c.log")"
grep -q "resuming run 1" "$WORK/c.log" ||
    fail "the run did not say it resumes run 1: $(cat "$WORK/c.log")"
COUNT=$(sql "$B" 'select count(*) from measurement')
DISTINCT=$(sql "$B" 'select count(*) from (select distinct run_id, coll, algorithm, params,
    comm_size, ppn, bytes from measurement)')
[ "$COUNT" = "$N" ] || fail "resumed run has $COUNT measurements, the uninterrupted one $N"
[ "$DISTINCT" = "$N" ] || fail "resumed run has $DISTINCT distinct points in $COUNT rows"
[ "$(sql "$B" 'select count(*) from run')" = 1 ] ||
    fail "B has runs: $(sql "$B" 'select id, status, resumes from run')"
RUN=$(sql "$B" 'select status, resumes, finished_at is not null from run')
[ "$RUN" = "done|1|1" ] || fail "resumed run is '$RUN', want 'done|1|1' (status|resumes|finished)"
[ "$(sql "$B" 'select count(*) from failure')" = 0 ] || fail "verification failures in B"
# The same points as the uninterrupted run.
MISSING=$(sql "$B" "attach '$A' as a; select count(*) from (
    select coll, algorithm, params, comm_size, ppn, bytes from a.measurement except
    select coll, algorithm, params, comm_size, ppn, bytes from main.measurement)")
[ "$MISSING" = 0 ] || fail "$MISSING points of A are missing from the resumed B"
RULES=$(sql "$B" 'select count(distinct coll) from rule where rank = 1 and lo_bytes = 0
    and run_id = 1')
[ "$RULES" = 2 ] || fail "the resumed run has rules for $RULES collectives, want 2"

# --- d. interrupted, then a plain run ---------------------------------------------------------
C=$WORK/c.db
step "d: a killed run into C, then the same plan without --resume"
start_and_kill "$C" "$WORK/d1.log"
IFS='|' read -r KC STATUS <<<"$(after_kill "$C")"
[ "$STATUS" = running ] || fail "after kill -9 the run in C is '$STATUS', want 'running'"
bench --db "$C" "${PLAN[@]}" --quiet >"$WORK/d2.log" 2>&1 ||
    fail "plain run after the killed one failed: $(cat "$WORK/d2.log")"
RUNS=$(sql "$C" 'select group_concat(id || ":" || status || ":" || resumes || ":" ||
    (finished_at is null), " ") from (select * from run order by id)')
[ "$RUNS" = "1:aborted:0:1 2:done:0:0" ] ||
    fail "runs in C are '$RUNS', want '1:aborted:0:1 2:done:0:0' (id:status:resumes:unfinished)"
[ "$(sql "$C" 'select count(*) from measurement where run_id = 1')" -ge "$KC" ] ||
    fail "the aborted run lost measurements"
COUNT=$(sql "$C" 'select count(*) from measurement where run_id = 2')
[ "$COUNT" = "$N" ] || fail "the new run in C has $COUNT measurements, want $N"

# --- e. bad options --------------------------------------------------------------------------
# Two under mpirun (which takes a few seconds to wind down a job that exits non-zero), the
# rest as MPI singletons.
step "e: bad options write nothing"
bad_option() {
    local how=$1 needle=$2 db=$WORK/bad.db status lines
    shift 2
    if [ "$how" = mpirun ]; then
        bench --db "$db" "$@" >"$WORK/e.out" 2>"$WORK/e.err"
    else
        "$BENCH" --db "$db" "$@" >"$WORK/e.out" 2>"$WORK/e.err"
    fi
    status=$?
    [ "$status" = 2 ] || fail "collsel-bench $* ($how) exited $status, want 2: $(cat "$WORK/e.err")"
    [ ! -e "$db" ] || fail "collsel-bench $* ($how) created the database"
    lines=$(grep -c -F -- "$needle" "$WORK/e.err")
    [ "$lines" = 1 ] ||
        fail "collsel-bench $* ($how): want one message naming '$needle', got: $(cat "$WORK/e.err")"
}
bad_option mpirun "6 is not a multiple of 4" --sizes 6
bad_option mpirun "--comm-sizes: 3" --comm-sizes 3 # more than the job's processes
bad_option singleton "'--bogus'" --colls bcast --bogus
bad_option singleton "'nothing/*'" --algorithms 'nothing/*'
bad_option singleton "'0'" --comm-sizes 0
bad_option singleton "'xyz'" --budget xyz
bad_option singleton "'0'" --reps-max 0
bad_option singleton "--colls needs a value" --colls
bad_option singleton "--no-confirm" --measure-only --no-confirm
bad_option singleton "--validate" --measure-only --validate
bad_option singleton "--one-round" --measure-only --one-round
bad_option singleton "'5'" --confirm-rounds 5
bad_option singleton "applies to --validate only" --validate-passes 2
bad_option singleton "'10'" --validate --validate-passes 10
bench --db "$WORK/list.db" "${PLAN[@]}" --list >"$WORK/list.out" 2>&1 ||
    fail "--list failed: $(cat "$WORK/list.out")"
[ ! -e "$WORK/list.db" ] || fail "--list created the database"
grep -q "= 30 points" "$WORK/list.out" || fail "--list: unexpected plan: $(cat "$WORK/list.out")"

# --- f. the confirmation rounds in launches of their own ---------------------------------------
D=$WORK/d.db
step "f: the plan into D with --measure-only, then --resume --one-round, then --resume"
bench --db "$D" "${PLAN[@]}" --measure-only >"$WORK/f1.log" 2>&1 ||
    fail "--measure-only run failed: $(cat "$WORK/f1.log")"
grep -q "it has no rules yet" "$WORK/f1.log" ||
    fail "--measure-only did not say the run waits for --resume: $(cat "$WORK/f1.log")"
! grep -q "confirmation round" "$WORK/f1.log" ||
    fail "--measure-only ran a confirmation round: $(cat "$WORK/f1.log")"
FIRST=$(sql "$D" "select status, (select count(*) from measurement),
    (select count(*) from confirmation), (select count(*) from rule) from run")
[ "$FIRST" = "running|$N|0|0" ] ||
    fail "after --measure-only: '$FIRST', want 'running|$N|0|0' (status|measurements|confirmations|rules)"
bench --db "$D" "${PLAN[@]}" --resume --one-round >"$WORK/f2.log" 2>&1 ||
    fail "the resumed round-1 launch failed: $(cat "$WORK/f2.log")"
grep -q "resuming run 1" "$WORK/f2.log" || fail "the second launch did not resume: $(cat "$WORK/f2.log")"
# the sizes the launch said it confirms (none is as good: then it says nothing)
SAID=$(sed -n 's/.*confirmation round 1 of 2: \([0-9]*\) point(s).*/\1/p' "$WORK/f2.log")
! grep -q "confirmation round 2" "$WORK/f2.log" ||
    fail "--one-round went on to round 2: $(cat "$WORK/f2.log")"
SECOND=$(sql "$D" "select status, resumes, (select count(*) from measurement),
    (select count(distinct coll || ' ' || bytes) from confirmation where round = 1),
    (select count(*) from confirmation where round <> 1), (select count(*) from rule) from run")
[ "$SECOND" = "running|1|$N|${SAID:-0}|0|0" ] ||
    fail "after --resume --one-round: '$SECOND', want 'running|1|$N|${SAID:-0}|0|0' (status|resumes|measurements|sizes in round 1|other rounds' rows|rules)"
ROUND1_BEFORE=$(sql "$D" "select count(*) || ' ' || max(rowid) from confirmation where round = 1")
bench --db "$D" "${PLAN[@]}" --resume >"$WORK/f3.log" 2>&1 ||
    fail "the resumed round-2 launch failed: $(cat "$WORK/f3.log")"
SAID2=$(sed -n 's/.*confirmation round 2 of 2: \([0-9]*\) point(s).*/\1/p' "$WORK/f3.log")
ROUND1=$(sql "$D" "select count(*) || ' ' || max(rowid) from confirmation where round = 1")
[ "$ROUND1" = "$ROUND1_BEFORE" ] ||
    fail "the third launch changed round 1's rows: '$ROUND1', before '$ROUND1_BEFORE' (count, last rowid)"
THIRD=$(sql "$D" "select status, resumes, (select count(*) from measurement),
    (select count(distinct coll || ' ' || bytes) from confirmation where round = 1),
    (select count(distinct coll || ' ' || bytes) from confirmation where round = 2),
    (select count(*) from confirmation c where round = 2 and not exists (select 1 from
     confirmation o where o.round = 1 and o.coll = c.coll and o.bytes = c.bytes)) from run")
[ "$THIRD" = "done|2|$N|${SAID:-0}|${SAID2:-0}|0" ] ||
    fail "after --resume: '$THIRD', want 'done|2|$N|${SAID:-0}|${SAID2:-0}|0' (status|resumes|measurements|sizes in round 1|in round 2|round-2 rows at a size round 1 did not measure)"
RULES=$(sql "$D" 'select count(distinct coll) from rule where rank = 1 and lo_bytes = 0')
[ "$RULES" = 2 ] || fail "the confirmed run has rules for $RULES collectives, want 2"

step "passed"
