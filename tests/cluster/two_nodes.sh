#!/usr/bin/env bash
# Two "nodes" from tuning through selection, on one machine (docs/cluster.md): np 4 with
# COLLSEL_NODE_SIZE=2 (nodes of 2 consecutive ranks), as a two-node job would run.
#
#   1. collsel-bench tunes allreduce (two sizes, communicator sizes 2 and 4, a budget of
#      seconds): the run row says 4 processes, 2 nodes, 2 per node; every allreduce rule is
#      keyed (2, 2) or (4, 2): tuning takes the processes per node from cs_machine_node_size,
#      as the selector does.
#   2. cs_cluster_select at np 4, same layout, the database named on rank 0 only (the other
#      ranks get a path that does not exist: rank 0 reads, everyone gets its rules): for each
#      size, collsel_explain on every rank says "tuned at 4 processes, 2 per node" (its own
#      rules, not borrowed) and names the rank-1 rule of the database for that size;
#      COLLSEL_VERBOSE=3 shows every call it logs (the first of each size on every rank; the
#      call cache runs the others silently) run by a candidate of that interval, the rank-1
#      one when it has no setup cost to repay first; results equal PMPI's. The lowest 2 ranks (one
#      node) use the rules tuned at 2 processes, 2 per node.
#   3. The same database on one node of 4 (COLLSEL_NODE_SIZE unset): no rules for 4 per node,
#      so explain says the rules of 4 processes, 2 per node were borrowed.
#   4. A second tuning job whose rank 0 runs on another host (the machine row renamed) tunes
#      into the same machine row (same hwloc topology and MPI library): one row, two runs, the
#      first job's rules of other keys kept.
#
# Usage: two_nodes.sh MPIEXEC SQLITE3 COLLSEL_BENCH CS_CLUSTER_SELECT  (ctest passes them)
set -u

MPIEXEC=${1:?usage: two_nodes.sh MPIEXEC SQLITE3 COLLSEL_BENCH CS_CLUSTER_SELECT}
SQLITE=${2:?}
BENCH=${3:?}
SELECT=${4:?}
SIZES=(64 4096)

unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE COLLSEL_NODE_SIZE \
    COLLSEL_WARMUP
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-two-nodes-XXXXXX") || {
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
    echo "--- $* (${SECONDS}s)"
}

sql() {
    "$SQLITE" -batch "$DB" "$1"
}

# run NAME MPIRUN-ARGS...: stdout to $WORK/NAME.out, stderr to $WORK/NAME.err, per rank in
# $WORK/NAME.ranks/1/rank.R/; RC.
run() {
    local name=$1
    shift
    "$MPIEXEC" --allow-run-as-root --oversubscribe --output-filename "$WORK/$name.ranks" "$@" \
        </dev/null >"$WORK/$name.out" 2>"$WORK/$name.err"
    RC=$?
}

expect_pass() {
    local last
    last=$(tail -n 1 "$WORK/$1.out")
    if [ "$RC" != 0 ] || ! [[ "$last" =~ ^[1-9][0-9]*\ checks,\ 0\ failed$ ]]; then
        fail "$1: exit status $RC, last line '$last': $(head -n 20 "$WORK/$1.err")"
    fi
}

# The rank-1 rule of allreduce at (size, ppn) holding BYTES, as explain names it.
winner() {
    local size=$1 ppn=$2 bytes=$3
    sql "select algorithm || case when params = '' then '' else '(' || params || ')' end from rule
         where coll = 'allreduce' and comm_size = $size and ppn = $ppn and rank = 1
           and lo_bytes <= $bytes and (hi_bytes is null or $bytes < hi_bytes)"
}

# The candidates of that interval, in rank order, one per line.
candidates() {
    local size=$1 ppn=$2 bytes=$3
    sql "select algorithm || case when params = '' then '' else '(' || params || ')' end from rule
         where coll = 'allreduce' and comm_size = $size and ppn = $ppn
           and lo_bytes <= $bytes and (hi_bytes is null or $bytes < hi_bytes) order by rank"
}

# The setup cost of the rank-1 candidate there (0.0: none).
setup_us() {
    local size=$1 ppn=$2 bytes=$3
    sql "select printf('%.1f', coalesce(setup_us, 0)) from rule
         where coll = 'allreduce' and comm_size = $size and ppn = $ppn and rank = 1
           and lo_bytes <= $bytes and (hi_bytes is null or $bytes < hi_bytes)"
}

# The wrapper gives every rank but world rank 0 a database path that does not exist.
cat >"$WORK/rank0-only" <<'WRAP_EOF'
#!/usr/bin/env bash
if [ "${OMPI_COMM_WORLD_RANK:-0}" != 0 ] && [ -n "${COLLSEL_DB:-}" ]; then
    export COLLSEL_DB=/nonexistent/collsel-not-here.db
fi
exec "$@"
WRAP_EOF
chmod +x "$WORK/rank0-only"

DB=$WORK/two-nodes.db
step "collsel-bench at np 4, COLLSEL_NODE_SIZE=2: allreduce at ${SIZES[*]} bytes, communicators of 2 and 4"
run bench -np 4 -x COLLSEL_NODE_SIZE=2 "$BENCH" --db "$DB" --colls allreduce \
    --sizes "$(
        IFS=,
        echo "${SIZES[*]}"
    )" --comm-sizes 2,4 --budget 10s --no-refine --quiet
[ "$RC" = 0 ] || fail "collsel-bench: exit status $RC: $(tail -n 20 "$WORK/bench.err")"
[ "$(sql "select nprocs || ' ' || nnodes || ' ' || ppn || ' ' || status from run")" = "4 2 2 done" ] ||
    fail "the run row: $(sql 'select * from run')"
keys=$(sql "select distinct comm_size || ':' || ppn from rule where coll = 'allreduce' order by 1")
keys=$(tr '\n' ' ' <<<"$keys")
[ "$keys" = "2:2 4:2 " ] || fail "allreduce rules keyed $keys, want 2:2 4:2"
echo "rules: $(sql "select count(*) from rule") (keys $keys)"

step "selection at np 4, COLLSEL_NODE_SIZE=2, the database named on rank 0 only"
run select -np 4 -x COLLSEL_DB="$DB" -x COLLSEL_NODE_SIZE=2 -x COLLSEL_VERBOSE=3 \
    "$WORK/rank0-only" "$SELECT" "${SIZES[@]}"
expect_pass select
for b in "${SIZES[@]}"; do
    w=$(winner 4 2 "$b")
    [ -n "$w" ] || fail "no allreduce rule at 4:2 holds $b bytes"
    line=$(grep "^explain $b " "$WORK/select.out")
    [[ "$line" == "explain $b $w: allreduce of $b bytes on 4 processes (2 per node) falls in "*" tuned at 4 processes, 2 per node; "* ]] ||
        fail "np 4 on 2 nodes, $b bytes: want $w tuned at 4 processes, 2 per node, got '$line'"
    # Every call of this size ran a candidate of that interval (rank 1 unless it has a setup
    # cost not yet repaid, docs/selector.md), the same on every rank.
    cands=$(candidates 4 2 "$b")
    ran=$(grep -h -F "collsel: allreduce $b bytes: " "$WORK"/select.ranks/1/rank.*/stderr |
        sed 's/.* bytes: //' | sort -u)
    [ -n "$ran" ] || fail "no allreduce of $b bytes logged"
    while read -r a; do
        grep -q -F -x -- "$a" <<<"$cands" ||
            fail "allreduce $b bytes ran $a, not a candidate of the rules at 4:2 ($(tr "\n" " " <<<"$cands"))"
    done <<<"$ran"
    # (calls run from the call cache are not logged: at least the first is)
    for r in 0 1 2 3; do
        grep -q -F "collsel: allreduce $b bytes: " "$WORK/select.ranks/1/rank.$r/stderr" ||
            fail "rank $r did not log its calls of $b bytes"
    done
    if [ "$(setup_us 4 2 "$b")" = 0.0 ] && [ "$ran" != "$w" ]; then
        fail "allreduce $b bytes ran $(tr "\n" " " <<<"$ran"), the rules say $w (no setup cost)"
    fi
    echo "$b bytes: $w (tuned at 4 processes, 2 per node)"
done
grep -q -F "collsel-not-here" "$WORK/select.err" && fail "a rank other than 0 opened its database: $(cat "$WORK/select.err")"

step "the lowest 2 ranks (one node of 2): the rules tuned at 2 processes, 2 per node"
run select2 -np 4 -x COLLSEL_DB="$DB" -x COLLSEL_NODE_SIZE=2 "$WORK/rank0-only" "$SELECT" \
    --split 2 "${SIZES[@]}"
expect_pass select2
for b in "${SIZES[@]}"; do
    w=$(winner 2 2 "$b")
    line=$(grep "^explain $b " "$WORK/select2.out")
    [[ -n "$w" && "$line" == "explain $b $w: allreduce of $b bytes on 2 processes (2 per node) falls in "*" tuned at 2 processes, 2 per node; "* ]] ||
        fail "2 processes on one node, $b bytes: want $w tuned at 2 processes, 2 per node, got '$line'"
done

step "the same database on one node of 4: the rules of 4 processes, 2 per node, borrowed"
run one_node -np 4 -x COLLSEL_DB="$DB" "$WORK/rank0-only" "$SELECT" "${SIZES[@]}"
expect_pass one_node
for b in "${SIZES[@]}"; do
    w=$(winner 4 2 "$b")
    line=$(grep "^explain $b " "$WORK/one_node.out")
    [[ "$line" == "explain $b $w: allreduce of $b bytes on 4 processes (4 per node) falls in "*" tuned at 4 processes, 2 per node (borrowed: the nearest tuned to 4 processes, 4 per node); "* ]] ||
        fail "np 4 on one node, $b bytes: want $w borrowed from 4 processes, 2 per node, got '$line'"
done
step "another node with this hardware and MPI library tunes into the same machine row"
# The database's row now names another host, as if the first job's rank 0 ran elsewhere.
sql "update machine set host = 'another-node'"
before=$(sql "select count(*) from rule where comm_size = 4 and ppn = 2")
run bench2 -np 2 -x COLLSEL_NODE_SIZE=2 "$BENCH" --db "$DB" --colls allreduce --sizes 64 \
    --comm-sizes 2 --budget 5s --no-refine --quiet
[ "$RC" = 0 ] || fail "collsel-bench (second job): exit status $RC: $(tail -n 20 "$WORK/bench2.err")"
[ "$(sql "select count(*) || ' ' || group_concat(host) from machine")" = "1 another-node" ] ||
    fail "want one machine row, got: $(sql 'select * from machine')"
[ "$(sql "select count(*) from run where status = 'done'")" = 2 ] ||
    fail "want two runs of that row: $(sql 'select * from run')"
[ "$(sql "select count(*) from rule where comm_size = 4 and ppn = 2")" = "$before" ] ||
    fail "the second job changed the rules it did not tune (4 processes, 2 per node)"
echo "one machine row, two runs; the rules of 4 processes, 2 per node kept ($before)"
step "passed"
