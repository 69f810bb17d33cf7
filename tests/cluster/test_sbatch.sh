#!/usr/bin/env bash
# scripts/slurm/tune.sbatch without a cluster: fake `srun` and `mpirun` on PATH record their
# arguments and run the command they were given once (as rank 0 would); a fake build directory
# (COLLSEL_TUNE_BIN) holds a collsel-bench that records its arguments and creates the --db file
# (rank 0 writes it), and a collsel-report that records its arguments. Each case runs the script
# in a clean environment with the variables sbatch sets (SLURM_NNODES, SLURM_NTASKS_PER_NODE,
# SLURM_TASKS_PER_NODE, SLURM_CPUS_ON_NODE, SLURM_SUBMIT_DIR, SLURM_JOB_PARTITION) and checks
# what was launched:
#
#   one node, N nodes (srun: nodes, ntasks = nodes x ppn, block distribution, cores bound;
#   collsel-bench --db --budget and COLLSEL_TUNE_ARGS; the report drawn from that database);
#   ppn from COLLSEL_TUNE_PPN, --ntasks-per-node, SLURM_TASKS_PER_NODE ("6(x2)") or the CPUs;
#   the default database results/<partition>.db under the submit directory; mpirun with and
#   without a hostfile; COLLSEL_TUNE_REPORT=0; a failing collsel-bench (no report, exit 1);
#   bad values (exit 2, one message naming the value, nothing launched); a node-local database
#   on several nodes (a warning); --help (the variables) and arguments (refused).
#
# Usage: test_sbatch.sh SCRIPT   (ctest passes scripts/slurm/tune.sbatch)
set -u

SCRIPT=${1:?usage: test_sbatch.sh TUNE_SBATCH}
SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-sbatch-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
cleanup() {
    local status=$?
    if [ "$status" != 0 ]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

step() {
    echo "--- $*"
}

FAKE=$WORK/fake
BUILD=$WORK/build
LOG=$WORK/calls
mkdir -p "$FAKE" "$BUILD/bench" "$BUILD/report" "$WORK/submit"

# A launcher: records "NAME ARGS", then runs the command (from the first argument naming an
# existing executable file) once.
for launcher in srun mpirun; do
    cat >"$FAKE/$launcher" <<FAKE_EOF
#!/usr/bin/env bash
echo "$launcher \$*" >>"$LOG"
while [ \$# -gt 0 ] && ! { [ -f "\$1" ] && [ -x "\$1" ]; }; do
    shift
done
[ \$# -gt 0 ] || { echo "fake $launcher: no command" >&2; exit 99; }
exec "\$@"
FAKE_EOF
    chmod +x "$FAKE/$launcher"
done

cat >"$BUILD/bench/collsel-bench" <<FAKE_EOF
#!/usr/bin/env bash
echo "bench \$*" >>"$LOG"
[ -z "\${FAKE_BENCH_FAIL:-}" ] || exit 1
while [ \$# -gt 0 ]; do
    if [ "\$1" = --db ]; then
        : >"\$2"
    fi
    shift
done
FAKE_EOF
cat >"$BUILD/report/collsel-report" <<FAKE_EOF
#!/usr/bin/env bash
echo "report \$*" >>"$LOG"
[ -f "\$1" ] || { echo "fake collsel-report: no database \$1" >&2; exit 1; }
echo "\${1%.db}-report/index.html"
FAKE_EOF
chmod +x "$BUILD/bench/collsel-bench" "$BUILD/report/collsel-report"

# tune VAR=VALUE...: runs the script in a clean environment (plus these variables) from the
# submit directory; RC, $WORK/out, $WORK/err, $LOG (the calls).
tune() {
    : >"$LOG"
    (cd "$WORK/submit" && env -i PATH="$FAKE:$PATH" HOME="${HOME:-/tmp}" \
        SLURM_SUBMIT_DIR="$WORK/submit" COLLSEL_TUNE_BIN="$BUILD" "$@" \
        bash "$SCRIPT" >"$WORK/out" 2>"$WORK/err")
    RC=$?
}

# expect_calls LINE...: the calls, in order, are exactly these lines.
expect_calls() {
    printf '%s\n' "$@" >"$WORK/want"
    diff -u "$WORK/want" "$LOG" >"$WORK/diff" ||
        fail "calls differ (want -, got +):"$'\n'"$(cat "$WORK/diff")"$'\n'"stderr: $(cat "$WORK/err")"
}

expect_ok() {
    [ "$RC" = 0 ] || fail "exit status $RC: $(cat "$WORK/err")"
}

# expect_bad TEXT...: exit status 2, one line on stderr naming every TEXT, nothing launched.
expect_bad() {
    local t
    [ "$RC" = 2 ] || fail "want exit status 2, got $RC: $(cat "$WORK/err")"
    [ "$(wc -l <"$WORK/err")" = 1 ] || fail "want one line on stderr, got: $(cat "$WORK/err")"
    for t in "$@"; do
        grep -q -F -- "$t" "$WORK/err" || fail "the message does not name '$t': $(cat "$WORK/err")"
    done
    [ ! -s "$LOG" ] || fail "launched although the values are bad: $(cat "$LOG")"
}

SHARED=$WORK/shared/cluster.db
SRUN_OPTS="--distribution=block:block --cpu-bind=cores"

step "one node, 4 tasks per node"
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=4 SLURM_JOB_PARTITION=p1 \
    COLLSEL_TUNE_DB="$SHARED" COLLSEL_TUNE_BUDGET=5m
expect_ok
expect_calls "srun --nodes=1 --ntasks=4 --ntasks-per-node=4 $SRUN_OPTS $BUILD/bench/collsel-bench --db $SHARED --budget 5m" \
    "bench --db $SHARED --budget 5m" \
    "report $SHARED"
grep -q -F "report: $WORK/shared/cluster-report/index.html" "$WORK/out" ||
    fail "the report's path is not printed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "one node: stderr: $(cat "$WORK/err")"

step "3 nodes, 8 tasks per node, more collsel-bench options"
tune SLURM_NNODES=3 SLURM_NTASKS_PER_NODE=8 COLLSEL_TUNE_DB="$SHARED" \
    COLLSEL_TUNE_ARGS="--colls allreduce,bcast --resume"
expect_ok
expect_calls "srun --nodes=3 --ntasks=24 --ntasks-per-node=8 $SRUN_OPTS $BUILD/bench/collsel-bench --db $SHARED --budget 30m --colls allreduce,bcast --resume" \
    "bench --db $SHARED --budget 30m --colls allreduce,bcast --resume" \
    "report $SHARED"

step "COLLSEL_TUNE_PPN overrides Slurm's; the default database is results/<partition>.db"
tune SLURM_NNODES=2 SLURM_NTASKS_PER_NODE=8 SLURM_JOB_PARTITION=gpu COLLSEL_TUNE_PPN=2
expect_ok
expect_calls "srun --nodes=2 --ntasks=4 --ntasks-per-node=2 $SRUN_OPTS $BUILD/bench/collsel-bench --db results/gpu.db --budget 30m" \
    "bench --db results/gpu.db --budget 30m" \
    "report results/gpu.db"
[ -f "$WORK/submit/results/gpu.db" ] || fail "the default database is not under the submit directory"

step "--ntasks only: the tasks of the first node (SLURM_TASKS_PER_NODE=6(x2))"
tune SLURM_NNODES=2 SLURM_NTASKS=12 'SLURM_TASKS_PER_NODE=6(x2)' COLLSEL_TUNE_DB="$SHARED"
expect_ok
expect_calls "srun --nodes=2 --ntasks=12 --ntasks-per-node=6 $SRUN_OPTS $BUILD/bench/collsel-bench --db $SHARED --budget 30m" \
    "bench --db $SHARED --budget 30m" \
    "report $SHARED"

step "no tasks given: the node's CPUs (SLURM_CPUS_ON_NODE=16); no report"
tune SLURM_NNODES=2 SLURM_CPUS_ON_NODE=16 COLLSEL_TUNE_DB="$SHARED" COLLSEL_TUNE_REPORT=0
expect_ok
expect_calls "srun --nodes=2 --ntasks=32 --ntasks-per-node=16 $SRUN_OPTS $BUILD/bench/collsel-bench --db $SHARED --budget 30m" \
    "bench --db $SHARED --budget 30m"

step "mpirun with a hostfile, outside Slurm"
printf 'node001 slots=4\nnode002 slots=4\n' >"$WORK/hosts"
tune COLLSEL_TUNE_LAUNCHER=mpirun COLLSEL_TUNE_HOSTFILE="$WORK/hosts" COLLSEL_TUNE_NODES=2 \
    COLLSEL_TUNE_PPN=4 COLLSEL_TUNE_DB="$SHARED"
expect_ok
root=""
[ "$(id -u)" != 0 ] || root=" --allow-run-as-root"
expect_calls "mpirun -np 8 --map-by ppr:4:node --bind-to core --hostfile $WORK/hosts$root $BUILD/bench/collsel-bench --db $SHARED --budget 30m" \
    "bench --db $SHARED --budget 30m" \
    "report $SHARED"

step "mpirun inside a Slurm allocation (no hostfile)"
tune SLURM_NNODES=2 SLURM_NTASKS_PER_NODE=3 COLLSEL_TUNE_LAUNCHER=mpirun COLLSEL_TUNE_DB="$SHARED"
expect_ok
expect_calls "mpirun -np 6 --map-by ppr:3:node --bind-to core$root $BUILD/bench/collsel-bench --db $SHARED --budget 30m" \
    "bench --db $SHARED --budget 30m" \
    "report $SHARED"

step "collsel-bench fails: no report, the job fails"
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_DB="$SHARED" FAKE_BENCH_FAIL=1
[ "$RC" != 0 ] || fail "a failed collsel-bench must fail the job"
expect_calls "srun --nodes=1 --ntasks=2 --ntasks-per-node=2 $SRUN_OPTS $BUILD/bench/collsel-bench --db $SHARED --budget 30m" \
    "bench --db $SHARED --budget 30m"

step "a node-local database on several nodes: a warning"
tune SLURM_NNODES=2 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_DB="$WORK/local.db" COLLSEL_TUNE_REPORT=0
expect_ok
case $WORK in
/tmp/*) grep -q -F "node-local" "$WORK/err" || fail "no warning for $WORK/local.db: $(cat "$WORK/err")" ;;
*) echo "(the work directory is not under /tmp: the warning is not checked)" ;;
esac

step "bad values: one message each, nothing launched"
tune SLURM_NNODES=1 COLLSEL_TUNE_PPN=abc
expect_bad "'abc'" COLLSEL_TUNE_PPN
tune SLURM_NNODES=0 SLURM_NTASKS_PER_NODE=2
expect_bad "'0'" SLURM_NNODES
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_LAUNCHER=aprun
expect_bad "'aprun'" COLLSEL_TUNE_LAUNCHER
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_HOSTFILE="$WORK/hosts"
expect_bad COLLSEL_TUNE_HOSTFILE srun
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_LAUNCHER=mpirun COLLSEL_TUNE_HOSTFILE="$WORK/none"
expect_bad "'$WORK/none'"
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_REPORT=yes
expect_bad "'yes'" COLLSEL_TUNE_REPORT
tune SLURM_NNODES=1 SLURM_NTASKS_PER_NODE=2 COLLSEL_TUNE_BIN="$WORK/nowhere"
expect_bad "$WORK/nowhere/bench/collsel-bench" COLLSEL_TUNE_BIN
step "--help: the variables, nothing launched; an argument: refused"
: >"$LOG"
bash "$SCRIPT" --help >"$WORK/out" 2>"$WORK/err" || fail "--help: exit status $?"
for v in COLLSEL_TUNE_DB COLLSEL_TUNE_BUDGET COLLSEL_TUNE_PPN COLLSEL_TUNE_LAUNCHER; do
    grep -q -F "$v" "$WORK/out" || fail "--help does not describe $v"
done
[ ! -s "$LOG" ] || fail "--help launched: $(cat "$LOG")"
(cd "$WORK/submit" && env -i PATH="$FAKE:$PATH" bash "$SCRIPT" --nodes=2 >"$WORK/out" 2>"$WORK/err")
RC=$?
expect_bad "no arguments"
step "passed"
