#!/usr/bin/env bash
# The selector under mpirun: libcollsel's decisions, fallbacks, environment and robustness, and
# unmodified MPI programs preloaded with libcollsel_pmpi. One group of checks per ctest:
#
#   make_db        cs_make_rules_db writes the test rules (rules_spec.c) for this machine, or for
#                  another machine, as one 'done' run; the rank-1 intervals cover every size.
#   dispatch_npN   cs_sel_dispatch at N processes, the 16 classic collectives (bcast, gather,
#                  scatter, reduce, allreduce, allgather, allgatherv, reduce_scatter_block,
#                  reduce_scatter, alltoall, alltoallv, barrier, scan, exscan, gatherv,
#                  scatterv): collsel_explain names the tuned algorithm for sizes at both ends
#                  of every interval (unknown winners and variants with parameters skipped,
#                  native last) and the tuned communicator size (exact: rules for 1,3,4,7
#                  processes; nearest: rules for 4 only, on N and on the halves of
#                  MPI_COMM_WORLD); COLLSEL_VERBOSE=3 logs, on every rank, the algorithm the
#                  rules name for every call (gatherv, scatterv, alltoallv: by the key agreed
#                  per call; barrier/orth(dims=2x2), the barrier rule for 4 processes, runs on
#                  4 and another communicator using those rules runs the next candidate); results equal PMPI's, non-commutative op, MPI_IN_PLACE and
#                  irregular counts included, repeated calls (the call cache) too; a
#                  barrier lets no rank out before the last one (entering 20 ms after the
#                  one before) came in, by a clock the ranks share;
#                  communicators created and freed in turn; an intercommunicator goes to MPI;
#                  nothing on stderr without COLLSEL_VERBOSE.
#   layouts        sizes and layouts without rules of their own (docs/selector.md): rules for
#                  2, 4 and 4 on nodes of 2 processes (cs_make_rules_db --comm-sizes 2,4,4:2
#                  --grids: allreduce ranks orth(dims=2x2) first at size 4); at np 8 the
#                  communicator of the lowest K ranks for every K from 1 to 8, on one node and
#                  with COLLSEL_NODE_SIZE=2: cs_sel_dispatch --prefix K checks that explain names
#                  the tuned size and ppn the documented rule picks ("borrowed" when not its
#                  own), that every collective equals PMPI's, and COLLSEL_VERBOSE=3 shows each
#                  call run by the algorithm expected (orth only at exactly 4 processes; a
#                  communicator that borrowed it runs the next candidate); the ranks outside run
#                  nothing. Then rules for 2 and 8 only: 4 processes take 8's (a tie: the larger).
#   force          COLLSEL_FORCE names each registered algorithm in turn: cs_mpi_test --quick
#                  for its collective, preloaded with libcollsel_pmpi, passes at 3 processes
#                  (some also at 4) and the log shows the forced algorithm running (one run
#                  forces one algorithm of each collective at once and tests those
#                  collectives: 7 runs at np 3 instead of ~90); then one
#                  point-to-point algorithm forced for every collective at once: cs_mpi_test
#                  (full) passes and cs_sel_dispatch sees every one forced.
#   force_nodb     COLLSEL_FORCE without COLLSEL_DB: the forced algorithm runs, every other
#                  collective is native, nothing is printed, and explain says why (no database).
#   bad_force      bad COLLSEL_FORCE values: one message naming the value, the rules still apply.
#   bad_db         missing, empty, text, truncated, corrupt, newer-schema, foreign, directory and
#                  other-machine databases: native dispatch, correct results, exit 0 and exactly
#                  one line on stderr, a "collsel: warning" from rank 0 naming the file (with
#                  cs_sel_dispatch and with cs_mpi_test preloaded).
#   locked_db      the same with a database another process holds an exclusive lock on (the
#                  reader waits for the db layer's busy timeout, 10 s; the time is printed);
#                  after the lock is released the rules apply again.
#   env            no COLLSEL_DB: native and silent, linked and preloaded; COLLSEL_DISABLE=1:
#                  explain says disabled, silent, even with a bad database; COLLSEL_DISABLE=0;
#                  a database of another node with this hardware and MPI library is used;
#                  COLLSEL_VERBOSE=1 prints one summary line; COLLSEL_NODE_SIZE=2 is used.
#   bad_env        bad COLLSEL_DISABLE, COLLSEL_FALLBACK, COLLSEL_VERBOSE, COLLSEL_NODE_SIZE and
#                  COLLSEL_PROGRESS values: one message each (from one rank), naming the value;
#                  results correct.
#   unknown_rules  a database whose rules are all for a collective this collsel does not know:
#                  native, and read once (COLLSEL_VERBOSE=1 prints one summary line, rank 0's).
#   setup          warm-up and setup cost (docs/selector.md): allreduce rules ranking
#                  allreduce/orth (setup 95 us, gain 10 us per call) before
#                  recursive_doubling; cs_sel_warm at np 4 with COLLSEL_VERBOSE=3: with
#                  COLLSEL_WARMUP=1, 12 calls on a fresh communicator run recursive_doubling 9
#                  times, then orth (its setup repaid at the 10th call; VERBOSE=2 says so);
#                  by default (warm-up
#                  8) five communicators of 3 calls each log no call (all went to MPI without a
#                  context) and one of 12 calls logs 5, all recursive_doubling; results right.
#   errh           cs_sel_errh at np 3 with bcast/linear and bcast/binomial forced: an erroneous
#                  bcast (the root sends 8 ints, the others expect 4) returns an error of class
#                  MPI_ERR_TRUNCATE on the receiving ranks through the communicator's error
#                  handler, called exactly once; nothing printed; the next bcast works.
#   reinit         collsel_finalize, then collsel_init(other database): every communicator,
#                  MPI_COMM_WORLD (used before) included, follows the new database.
#   threads        cs_sel_threads: 8 threads call collsel_init at once, then collectives on
#                  per-thread communicators at once, then (np 1 and 2 only) 4 threads creating, using and freeing
#                  communicators at once (MPI_THREAD_MULTIPLE); good and bad database; at np 1
#                  also collsel_finalize/collsel_init racing with collectives. (The same program
#                  runs under ThreadSanitizer in scripts/test: tests/selector/tsan_threads.sh.)
#   frees          cs_sel_dispatch at 3 processes under valgrind (rules for this machine): no
#                  loss record of any kind, still reachable included, was allocated by collsel's
#                  own code (valgrind's frames in algorithms/, selector/, db/): collsel frees
#                  everything it allocates by MPI_Finalize. MPI's own blocks are left alone.
#   preload_npN    cs_mpi_test (full) preloaded with libcollsel_pmpi and a database for this
#                  machine at N processes: every case passes, and COLLSEL_VERBOSE=2 lists the
#                  tuned (non-native) algorithms for MPI_COMM_WORLD.
#   bad_rules      rows no rule may be added to the rules (unknown algorithm, negative and
#                  overlapping intervals, an infinite time, absurd parameters, no processes):
#                  cs_sel_dispatch at 4 processes still finds every good rule, and
#                  COLLSEL_VERBOSE=1 prints one summary line, rank 0's, counting the bad rows.
#   vrules         rules for gatherv, scatterv and alltoallv (in place of the test rules' own)
#                  whose algorithm changes with the size, so that the selector agrees on every
#                  call's key before it chooses: cs_mpi_test --quick --only <coll>/ preloaded
#                  at 4 processes passes (a rank choosing otherwise than the others would hang
#                  or fail it), and the log shows both intervals' algorithms and no other.
#
#   neighbor_npN   cs_sel_neighbor at N processes (docs/neighbor.md): with cs_make_rules_db
#                  --patterns rules (cart2d: linear, hotspot: native) a Cartesian communicator
#                  matches cart2d, a hot spot hotspot, a 9-point stencil the nearer cart2d, a
#                  communicator without a topology has no rule, and COLLSEL_VERBOSE=2 names the
#                  pattern and the distance; without neighbourhood rules everything is native
#                  and silent; COLLSEL_FORCE=neighbor_alltoall/linear is forced on every
#                  topology; results equal PMPI's throughout (Open MPI's basic topology
#                  component, as tests/mpi).
#
#   fallback       COLLSEL_FORCE=allreduce/orth(dims=2x2) at 3 processes (a grid that does not
#                  fit, so the forced variant cannot run any call), cs_mpi_test --quick preloaded:
#                  COLLSEL_FALLBACK=silent passes and prints nothing; warn passes and prints only
#                  the warning naming the variant; error fails the job (MPI_ERRORS_ARE_FATAL)
#                  after the error line. Then alltoall/orth(dims=2x2) and barrier/orth(dims=2x2)
#                  forced at 3 processes: passes with the warning, the calls logged as native.
#
#   share_npN      cs_sel_share at N processes with allreduce/dpml forced and COLLSEL_VERBOSE=3
#                  (core/comm.h, "Sharing"): many communicators of the same groups and of
#                  different ones (the same ranks reversed, every rotation of MPI_COMM_WORLD),
#                  two of one group at once; results equal PMPI's (non-commutative op); every
#                  rank made and reused node resources exactly as often as the program's model
#                  of the cache says (at 4 processes more groups than a process keeps); DPML ran;
#                  the sets of their own that communicators get for DPML's nonblocking calls
#                  (docs/nonblocking.md, "The window (DPML)") were reused by later communicators
#                  of their group, also after the two of one group were freed in different orders;
#                  at 3 and 4 processes also with emulated nodes of 2 (COLLSEL_NODE_SIZE=2);
#                  under MPI_THREAD_MULTIPLE nothing is reused; at 3 processes under valgrind
#                  nothing of collsel's is left at exit (the kept resources are freed by
#                  MPI_Finalize).
#
# Usage: test_selector.sh GROUP MPIEXEC SQLITE3 CS_MAKE_RULES_DB CS_SEL_DISPATCH CS_SEL_THREADS
#                         CS_MPI_TEST LIBCOLLSEL_PMPI CS_SEL_NEIGHBOR  (ctest passes them all)
# The work directory is removed on success and kept (and named) on failure.
set -u

GROUP=${1:?usage: test_selector.sh GROUP MPIEXEC SQLITE3 MAKE_DB DISPATCH THREADS MPI_TEST PMPI}
MPIEXEC=${2:?}
SQLITE=${3:?}
MAKE_DB=${4:?}
DISPATCH=${5:?}
THREADS=${6:?}
MPI_TEST=${7:?}
PMPI=${8:?}
NEIGHBOR=${9:?}
WARM=${10:?}
ERRH=${11:?}
SHARE=${12:?}

# Only what a test sets reaches the ranks.
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE COLLSEL_NODE_SIZE \
    COLLSEL_WARMUP
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-selector-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
LOCK_FD=""
LOCK_PID=""

cleanup() {
    local status=$?
    release_lock
    if [ "$status" != 0 ]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

step() {
    echo "--- $* (${SECONDS}s)"
}

# run NAME NP MPIRUN-ARGS...: runs under mpirun, stdout to $WORK/NAME.out, stderr to
# $WORK/NAME.err, each rank's output also in $WORK/NAME.ranks/1/rank.R/; sets RC.
run() {
    local name=$1 np=$2
    shift 2
    rm -rf "$WORK/$name.ranks"
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" \
        --output-filename "$WORK/$name.ranks" "$@" </dev/null >"$WORK/$name.out" 2>"$WORK/$name.err"
    RC=$?
}

show() {
    echo "--- stdout (last lines):"
    tail -n 5 "$WORK/$1.out"
    echo "--- stderr (first lines):"
    head -n 20 "$WORK/$1.err"
}

# The program ran and every check passed (cs_sel_dispatch, cs_mpi_test or cs_sel_threads).
expect_pass() {
    local name=$1 last
    last=$(tail -n 1 "$WORK/$name.out")
    if [ "$RC" != 0 ] || ! [[ "$last" =~ ^[0-9]+\ (checks|passed),\ 0\ failed$ || "$last" == passed ]]; then
        show "$name" >&2
        fail "$name: exit status $RC, last line '$last'"
    fi
    case $last in
    "0 checks"* | "0 passed"*) fail "$name: nothing was tested" ;;
    esac
}

expect_silent() {
    [ ! -s "$WORK/$1.err" ] || fail "$1: want nothing on stderr, got: $(head -n 5 "$WORK/$1.err")"
}

# expect_one_line NAME TEXT...: stderr is exactly one line and contains every TEXT.
expect_one_line() {
    local name=$1 lines
    shift
    lines=$(wc -l <"$WORK/$name.err")
    [ "$lines" = 1 ] || fail "$name: want one line on stderr, got $lines: $(head -n 8 "$WORK/$name.err")"
    for text in "$@"; do
        grep -q -F -- "$text" "$WORK/$name.err" ||
            fail "$name: the message does not say '$text': $(cat "$WORK/$name.err")"
    done
}

# expect_warning NAME DB TEXT: exactly one line on stderr, a warning naming DB and saying TEXT;
# it comes from rank 0 (its own stderr file).
expect_warning() {
    local name=$1 db=$2 text=$3
    expect_one_line "$name" "collsel: warning" "$db" "$text"
    grep -q -F "collsel: warning" "$WORK/$name.ranks/1/rank.0/stderr" ||
        fail "$name: the warning does not come from rank 0"
}

# check_log NAME NP: every "expect COLL BYTES ALG" line rank 0 printed is logged by every rank
# ("collsel: COLL BYTES bytes: ALG", COLLSEL_VERBOSE=3) and no rank logs another algorithm for
# such a call, but one its own "allow COLL BYTES ALG" lines name (its calls on a communicator
# whose rules are another size's).
check_log() {
    local name=$1 np=$2 r
    grep '^expect ' "$WORK/$name.ranks/1/rank.0/stdout" | sort -u >"$WORK/$name.expect"
    [ -s "$WORK/$name.expect" ] || fail "$name: no expectations printed"
    for ((r = 0; r < np; r++)); do
        grep '^allow ' "$WORK/$name.ranks/1/rank.$r/stdout" 2>/dev/null | sort -u >"$WORK/$name.allow"
        awk -v rank="$r" '
            FILENAME ~ /[.]expect$/ { want[$2 " " $3] = $4; next }
            FILENAME ~ /[.]allow$/ { allow[$2 " " $3 " " $4] = 1; next }
            $1 == "collsel:" && $4 == "bytes:" {
                key = $2 " " $3
                if (key in want) {
                    seen[key] = 1
                    if ($5 != want[key] && !((key " " $5) in allow)) {
                        printf "rank %d ran %s for %s bytes, the rules say %s\n", rank, $5, key, want[key]
                        bad = 1
                    }
                }
            }
            END {
                for (k in want) {
                    if (!(k in seen)) {
                        printf "rank %d logged no call of %s bytes (want %s)\n", rank, k, want[k]
                        bad = 1
                    }
                }
                exit bad
            }' "$WORK/$name.expect" "$WORK/$name.allow" "$WORK/$name.ranks/1/rank.$r/stderr" >"$WORK/$name.log-check" ||
            fail "$name: dispatch differs from the rules: $(head -n 10 "$WORK/$name.log-check")"
    done
    echo "$name: $(wc -l <"$WORK/$name.expect") call sizes dispatched as the rules say on $np ranks"
}

make_db() {
    "$MAKE_DB" "$@" >"$WORK/make_db.log" 2>&1 || fail "cs_make_rules_db $*: $(cat "$WORK/make_db.log")"
}

sql() {
    "$SQLITE" -batch "$1" "$2"
}

EXACT=$WORK/exact.db # rules for 1, 3, 4 and 7 processes
FOUR=$WORK/four.db   # rules for 4 processes only
OTHER=$WORK/other.db # rules of another machine only
make_db --comm-sizes 1,3,4,7 "$EXACT"
make_db "$FOUR"
make_db --other-machine "$OTHER"

# --- groups ----------------------------------------------------------------------------------

group_make_db() {
    local per_size n gaps
    step "the test databases"
    per_size=$(sql "$FOUR" 'select count(*) from rule')
    [ "$per_size" -gt 0 ] || fail "no rules in $FOUR"
    # every size has the same rules but 4, which has barrier/orth(dims=2x2) of its own
    [ "$(sql "$EXACT" 'select count(*) from rule where comm_size = 4')" = "$per_size" ] ||
        fail "$EXACT has other rules for 4 processes than $FOUR"
    n=$(sql "$EXACT" 'select count(*) from rule where comm_size = 1')
    [ "$n" -gt 0 ] && [ "$(sql "$EXACT" 'select count(*) from rule where comm_size = 3')" = "$n" ] &&
        [ "$(sql "$EXACT" 'select count(*) from rule where comm_size = 7')" = "$n" ] ||
        fail "$EXACT: 1, 3 and 7 processes have different rules"
    [ "$(sql "$EXACT" "select group_concat(comm_size) from rule where algorithm = 'barrier/orth'
        and params = 'dims=2x2,phase=dissemination' and rank = 1")" = 4 ] ||
        fail "$EXACT: barrier/orth(dims=2x2) is not the barrier winner at 4 processes (only)"
    [ "$(sql "$EXACT" 'select group_concat(distinct comm_size) from
        (select comm_size from rule order by comm_size)')" = "1,3,4,7" ] ||
        fail "$EXACT: wrong communicator sizes"
    [ "$(sql "$EXACT" 'select count(*) from rule where ppn != comm_size')" = 0 ] ||
        fail "$EXACT: ppn differs from comm_size"
    [ "$(sql "$EXACT" 'select count(distinct coll) from rule')" = 16 ] ||
        fail "$EXACT: want rules for the 16 collectives of rules_spec.c"
    [ "$(sql "$EXACT" 'select status from run')" = "done" ] || fail "$EXACT: the run is not done"
    [ "$(sql "$EXACT" 'pragma application_id')" = $((0x43534C53)) ] ||
        fail "$EXACT: not a collsel database"
    # docs/database.md: rank-1 intervals start at 0, follow each other, the last unbounded
    gaps=$(sql "$EXACT" "select count(*) from (
        select lo_bytes, first, prev_hi from (
          select lo_bytes, lag(hi_bytes) over w as prev_hi, row_number() over w = 1 as first
          from rule where rank = 1
          window w as (partition by machine_id, coll, comm_size, ppn order by lo_bytes))
        where (first and lo_bytes != 0) or (not first and (prev_hi is null or lo_bytes != prev_hi)))")
    [ "$gaps" = 0 ] || fail "$EXACT: $gaps rank-1 intervals do not follow each other"
    [ "$(sql "$EXACT" 'select count(*) from (select coll, comm_size from rule where rank = 1
        group by coll, comm_size having sum(hi_bytes is null) != 1)')" = 0 ] ||
        fail "$EXACT: want exactly one unbounded interval per key"
    [ "$(sql "$EXACT" "select count(*) from rule where algorithm = 'allgather/ring' and
        params = 'no_such_parameter=4'")" = 4 ] || fail "$EXACT: the variant with parameters is missing"
    # another machine: same rules, another fingerprint
    [ "$(sql "$OTHER" 'select count(*) from rule')" = "$per_size" ] || fail "$OTHER: rules"
    [ "$(sql "$OTHER" 'select topology from machine')" != "$(sql "$FOUR" 'select topology from machine')" ] ||
        fail "$OTHER has this machine's topology"
    # the registry listing is the golden list's content
    "$MAKE_DB" --list-algorithms >"$WORK/algorithms" || fail "--list-algorithms failed"
    [ "$(wc -l <"$WORK/algorithms")" -gt 7 ] || fail "--list-algorithms: $(cat "$WORK/algorithms")"
    "$MAKE_DB" --comm-sizes 0 "$WORK/bad.db" 2>/dev/null
    [ $? = 2 ] || fail "cs_make_rules_db --comm-sizes 0 did not exit 2"
    [ ! -e "$WORK/bad.db" ] || fail "cs_make_rules_db --comm-sizes 0 created the database"
}

# dispatch NP: exact and nearest tuned sizes, the verbose log, silence without COLLSEL_VERBOSE.
group_dispatch() {
    local np=$1
    step "exact sizes at np $np, COLLSEL_VERBOSE=3"
    run exact "$np" -x COLLSEL_DB="$EXACT" -x COLLSEL_VERBOSE=3 "$DISPATCH" --tuned-sizes 1,3,4,7
    expect_pass exact
    check_log exact "$np"
    step "nearest size (rules for 4 processes only) at np $np"
    run nearest "$np" -x COLLSEL_DB="$FOUR" "$DISPATCH" --tuned-sizes 4
    expect_pass nearest
    expect_silent nearest
}

# The communicator of the lowest K of 8 ranks, K = 1..8: rules borrowed as documented.
group_layouts() {
    local k ns env db=$WORK/layouts.db r
    make_db --comm-sizes 2,4,4:2 --grids "$db"
    for ns in - 2; do
        for ((k = 1; k <= 8; k++)); do
            env=(-x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=3)
            [ "$ns" = - ] || env+=(-x COLLSEL_NODE_SIZE="$ns")
            step "np 8, the lowest $k ranks, COLLSEL_NODE_SIZE=${ns/-/unset}"
            run layouts 8 "${env[@]}" "$DISPATCH" --tuned-sizes 2,4,4:2 --grids --prefix "$k"
            expect_pass layouts
            check_log layouts "$k"
            for ((r = k; r < 8; r++)); do
                ! grep -q -F " bytes: " "$WORK/layouts.ranks/1/rank.$r/stderr" ||
                    fail "layouts: rank $r is not in the communicator of $k but ran calls"
            done
        done
    done
    # one spot check of COLLSEL_VERBOSE=2's words (the explanations are checked in C)
    grep -q -F -x "collsel: 8 processes (2 per node): allreduce: tuned at 4 processes, 2 per node (borrowed: the nearest): [0, 64) allreduce/orth(dims=2x2,phase=native) [64, 4096) allreduce/orth(dims=2x2,phase=native) [4096, inf) allreduce/orth(dims=2x2,phase=native)" \
        "$WORK/layouts.ranks/1/rank.0/stderr" ||
        fail "layouts: COLLSEL_VERBOSE=2 at 8 processes, 2 per node: $(grep -F 'allreduce: tuned' "$WORK/layouts.ranks/1/rank.0/stderr")"
    step "rules for 2 and 8 processes only: 4 processes are as near to both and take 8's"
    make_db --comm-sizes 2,8 "$WORK/tie.db"
    run tie 8 -x COLLSEL_DB="$WORK/tie.db" "$DISPATCH" --tuned-sizes 2,8 --prefix 4
    expect_pass tie
    expect_silent tie
}

group_force() {
    local alg coll n=0 np k lines all forced
    for np in 3 4; do
        # Round k forces the k-th chosen algorithm of every collective at once (COLLSEL_FORCE
        # takes one per collective) and tests those collectives in one cs_mpi_test run: as
        # many runs as the largest collective has algorithms, not one per algorithm (each
        # mpirun with MPI_Init costs about half a second here).
        local -a forces=() onlys=()
        local -A rounds=()
        while read -r alg; do
            # every algorithm at 3 processes, except the grids (3 has no 2D layout); at 4 the
            # grids and those whose schedule depends on a power of two
            if [ "$np" = 3 ] && [[ "$alg" == */orth ]]; then
                continue
            fi
            if [ "$np" = 4 ] && [[ "$alg" != */recursive_doubling && "$alg" != */scatter_allgather &&
                "$alg" != */orth ]]; then
                continue
            fi
            coll=${alg%%/*}
            k=${rounds[$coll]:-0}
            rounds[$coll]=$((k + 1))
            forces[k]+="${forces[k]:+;}$alg"
            onlys[k]+="${onlys[k]:+,}$coll/"
        done <"$WORK/algorithms"
        for ((k = 0; k < ${#forces[@]}; k++)); do
            step "COLLSEL_FORCE='${forces[k]}', cs_mpi_test --quick --only ${onlys[k]} at np $np"
            run force "$np" -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$FOUR" -x COLLSEL_FORCE="${forces[k]}" \
                -x COLLSEL_VERBOSE=3 "$MPI_TEST" --quick --only "${onlys[k]}"
            expect_pass force
            while read -r alg; do
                coll=${alg%%/*}
                # the log names the variant: "<alg>" or "<alg>(key=value,...)", then "(forced)"
                forced=" bytes: ${alg}(\\([^)]*\\))? \\(forced\\)"
                lines=$(cat "$WORK"/force.ranks/1/rank.*/stderr | grep -c -E "$forced")
                [ "$lines" -gt 0 ] || fail "COLLSEL_FORCE=$alg: the log shows no forced call: $(head -n 5 "$WORK/force.err")"
                # A call the forced algorithm declares it cannot run (e.g. a non-commutative op
                # for a grid reduction) falls back to native (COLLSEL_FALLBACK=silent); nothing
                # else.
                if grep -F " bytes: $coll/" "$WORK"/force.ranks/1/rank.*/stderr |
                    grep -v -E "$forced" | grep -q -v -F " bytes: $coll/native"; then
                    fail "COLLSEL_FORCE=$alg: other $coll algorithms ran: $(grep -F " bytes: $coll/" "$WORK"/force.ranks/1/rank.*/stderr | grep -v -E "$forced" | grep -v -F "$coll/native" | head -n 3)"
                fi
                n=$((n + 1))
            done < <(tr ';' '\n' <<<"${forces[k]}")
        done
    done
    [ "$n" -gt 7 ] || fail "only $n algorithms forced"
    echo "$n algorithms forced, every run passed"

    all="bcast/binomial;gather/binomial;scatter/binomial;reduce/binomial;allreduce/recursive_doubling;allgather/ring;allgatherv/ring"
    all+=";alltoall/pairwise;alltoallv/linear;barrier/binomial;scan/linear;exscan/recursive_doubling"
    all+=";gatherv/binomial;scatterv/binomial"
    step "every collective forced to a point-to-point algorithm, cs_mpi_test (full) at np 3"
    run force_all 3 -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$FOUR" -x COLLSEL_FORCE="$all" "$MPI_TEST"
    expect_pass force_all
    expect_silent force_all
    step "every collective forced, cs_sel_dispatch at np 4"
    # shellcheck disable=SC2046 # one --forced per key
    run force_dispatch 4 -x COLLSEL_DB="$FOUR" -x COLLSEL_FORCE="$all" -x COLLSEL_VERBOSE=3 \
        "$DISPATCH" $(tr ';' '\n' <<<"$all" | sed 's/^/--forced /')
    expect_pass force_dispatch
    check_log force_dispatch 4
}

group_force_nodb() {
    step "COLLSEL_FORCE without COLLSEL_DB: the forced algorithm runs, the rest is native"
    run force_nodb_log 3 -x COLLSEL_FORCE=allreduce/recursive_doubling -x COLLSEL_VERBOSE=3 \
        "$DISPATCH" --native --forced allreduce/recursive_doubling
    expect_pass force_nodb_log
    check_log force_nodb_log 3
    step "the same, silent, explain giving the reason for native"
    run force_nodb 3 -x COLLSEL_FORCE=allreduce/recursive_doubling "$DISPATCH" \
        --native "no tuning database" --forced allreduce/recursive_doubling
    expect_pass force_nodb
    expect_silent force_nodb
}

group_bad_force() {
    local value key
    for value in 'allreduce/rign' 'bcast/binomial(dims=2x4)' 'bcast/binomial(segments=4' \
        'allreduce' 'bcast/binomial;allreduce/nope'; do
        key=${value##*;}
        key=${key%%(*}
        step "COLLSEL_FORCE='$value'"
        run bad_force 3 -x COLLSEL_DB="$FOUR" -x COLLSEL_FORCE="$value" "$DISPATCH"
        expect_pass bad_force # the rules, not the force, decide
        expect_one_line bad_force "COLLSEL_FORCE" "$key" "ignored"
    done
    step "COLLSEL_FORCE='allreduce/rign', preloaded cs_mpi_test --quick"
    run bad_force_mpi 3 -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$FOUR" -x COLLSEL_FORCE=allreduce/rign \
        "$MPI_TEST" --quick
    expect_pass bad_force_mpi
    expect_one_line bad_force_mpi "COLLSEL_FORCE" "'allreduce/rign'"
}

# bad_case NAME DB TEXT: native, correct, one warning naming DB and saying TEXT.
bad_case() {
    local name=$1 db=$2 text=$3
    step "$name database"
    run "$name" 3 -x COLLSEL_DB="$db" "$DISPATCH" --native "$db"
    expect_pass "$name"
    expect_warning "$name" "$db" "$text"
    run "$name.mpi" 3 -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$db" "$MPI_TEST" --quick
    expect_pass "$name.mpi"
    expect_warning "$name.mpi" "$db" "$text"
}

group_bad_db() {
    local size
    size=$(stat -c %s "$FOUR")
    : >"$WORK/empty.db"
    echo "this is not a database" >"$WORK/text.db"
    cp "$FOUR" "$WORK/truncated.db" && truncate -s $((size / 2)) "$WORK/truncated.db"
    # every page after the third overwritten (the schema page intact)
    cp "$FOUR" "$WORK/corrupt.db" &&
        head -c $((size - 12288)) /dev/zero | tr '\0' 'A' |
        dd of="$WORK/corrupt.db" bs=4096 seek=3 conv=notrunc status=none
    cp "$FOUR" "$WORK/newer.db" && sql "$WORK/newer.db" 'pragma user_version = 999'
    sql "$WORK/foreign.db" 'create table t (x)'
    mkdir "$WORK/directory.db"
    bad_case missing "$WORK/missing.db" "does not exist"
    bad_case empty "$WORK/empty.db" "empty"
    bad_case text "$WORK/text.db" "not a database"
    bad_case truncated "$WORK/truncated.db" "malformed"
    bad_case corrupt "$WORK/corrupt.db" "malformed"
    bad_case newer "$WORK/newer.db" "999"
    bad_case foreign "$WORK/foreign.db" "not a collsel database"
    bad_case directory "$WORK/directory.db" "cannot open"
    bad_case other "$OTHER" "no rules for this machine"
    [ ! -e "$WORK/missing.db" ] || fail "the selector created the missing database"
    [ ! -s "$WORK/empty.db" ] || fail "the selector wrote into the empty database"
    [ "$(sql "$WORK/newer.db" 'pragma user_version')" = 999 ] || fail "the newer database was changed"
}

release_lock() {
    if [ -n "$LOCK_FD" ]; then
        echo 'COMMIT;' >&"$LOCK_FD"
        exec {LOCK_FD}>&-
        LOCK_FD=""
    fi
    if [ -n "$LOCK_PID" ]; then
        wait "$LOCK_PID" 2>/dev/null
        LOCK_PID=""
    fi
}

group_locked_db() {
    local db=$WORK/locked.db start elapsed deadline
    cp "$FOUR" "$db"
    mkfifo "$WORK/lock.fifo"
    "$SQLITE" -batch "$db" <"$WORK/lock.fifo" >"$WORK/lock.log" 2>&1 &
    LOCK_PID=$!
    exec {LOCK_FD}>"$WORK/lock.fifo"
    # the writer waits for the probes below to let go of their shared locks
    printf '.timeout 10000\nBEGIN EXCLUSIVE;\n' >&"$LOCK_FD"
    # wait until a reader is refused
    deadline=$((SECONDS + 20))
    while "$SQLITE" -batch -readonly "$db" 'select count(*) from rule' >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || fail "could not lock $db: $(cat "$WORK/lock.log")"
        sleep 0.1
    done
    step "locked database (another process holds an exclusive lock)"
    start=$(date +%s%N)
    run locked 3 -x COLLSEL_DB="$db" "$DISPATCH" --native "$db"
    elapsed=$((($(date +%s%N) - start) / 1000000))
    expect_pass locked
    expect_warning locked "$db" "locked"
    [ ! -s "$WORK/lock.log" ] || fail "the lock holder failed: $(cat "$WORK/lock.log")"
    echo "locked database: the job took ${elapsed} ms (its first collective waits out the busy timeout)"
    release_lock
    step "the same database, unlocked"
    run unlocked 3 -x COLLSEL_DB="$db" "$DISPATCH"
    expect_pass unlocked
    expect_silent unlocked
}

group_env() {
    step "no COLLSEL_DB"
    run nodb 3 "$DISPATCH" --native "no tuning database"
    expect_pass nodb
    expect_silent nodb
    run nodb.mpi 3 -x LD_PRELOAD="$PMPI" "$MPI_TEST" --quick
    expect_pass nodb.mpi
    expect_silent nodb.mpi
    step "COLLSEL_DISABLE=1"
    run disabled 3 -x COLLSEL_DB="$FOUR" -x COLLSEL_DISABLE=1 "$DISPATCH" --native "disabled (COLLSEL_DISABLE)"
    expect_pass disabled
    expect_silent disabled
    run disabled_bad 3 -x COLLSEL_DB="$WORK/missing.db" -x COLLSEL_DISABLE=1 -x COLLSEL_VERBOSE=3 \
        "$DISPATCH" --native "disabled (COLLSEL_DISABLE)"
    expect_pass disabled_bad
    expect_silent disabled_bad
    run disabled.mpi 3 -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$FOUR" -x COLLSEL_DISABLE=1 "$MPI_TEST" --quick
    expect_pass disabled.mpi
    expect_silent disabled.mpi
    step "COLLSEL_DISABLE=0"
    run enabled 3 -x COLLSEL_DB="$FOUR" -x COLLSEL_DISABLE=0 "$DISPATCH"
    expect_pass enabled
    expect_silent enabled
    step "a database tuned on another node with this hardware and MPI library"
    make_db --other-host "$WORK/node.db"
    run node 3 -x COLLSEL_DB="$WORK/node.db" "$DISPATCH"
    expect_pass node
    expect_silent node
    step "COLLSEL_VERBOSE=1: one summary line"
    run verbose1 3 -x COLLSEL_DB="$FOUR" -x COLLSEL_VERBOSE=1 "$DISPATCH"
    expect_pass verbose1
    expect_one_line verbose1 "$FOUR"
    [ -s "$WORK/verbose1.ranks/1/rank.0/stderr" ] || fail "verbose1: the summary is not rank 0's"
    step "COLLSEL_NODE_SIZE=2 at np 4"
    run nodesize 4 -x COLLSEL_DB="$FOUR" -x COLLSEL_NODE_SIZE=2 -x COLLSEL_VERBOSE=2 "$DISPATCH"
    expect_pass nodesize
    grep -q -F "collsel: 4 processes (2 per node): allreduce: tuned at 4 processes, 4 per node (borrowed: the nearest):" \
        "$WORK/nodesize.ranks/1/rank.0/stderr" ||
        fail "COLLSEL_NODE_SIZE=2: $(grep allreduce "$WORK/nodesize.ranks/1/rank.0/stderr")"
}

# bad_env NAME VALUE: one message naming VAR and VALUE, from one rank; the rules still apply.
bad_env() {
    local var=$1 value=$2
    step "$var='$value'"
    run bad_env 3 -x COLLSEL_DB="$FOUR" -x "$var=$value" "$DISPATCH"
    expect_pass bad_env
    expect_one_line bad_env "$var" "'$value'" "ignored"
}

group_fallback() {
    local force="allreduce/orth(dims=2x2)" msg="forced allreduce/orth(dims=2x2,phase=native) cannot run"
    local env=(-x LD_PRELOAD="$PMPI" -x COLLSEL_FORCE="$force")
    step "COLLSEL_FALLBACK=silent: the refused calls run natively, quietly"
    run fallback_silent 3 "${env[@]}" -x COLLSEL_FALLBACK=silent "$MPI_TEST" --quick --only allreduce/
    expect_pass fallback_silent
    expect_silent fallback_silent
    step "COLLSEL_FALLBACK=warn: natively, with a warning"
    run fallback_warn 3 "${env[@]}" -x COLLSEL_FALLBACK=warn "$MPI_TEST" --quick --only allreduce/
    expect_pass fallback_warn
    grep -q -F "collsel: warning: $msg" "$WORK/fallback_warn.err" ||
        fail "fallback_warn: no warning: $(head -n 5 "$WORK/fallback_warn.err")"
    ! grep -v -q -F "collsel: warning: $msg" "$WORK/fallback_warn.err" ||
        fail "fallback_warn: other output: $(grep -v -F "$msg" "$WORK/fallback_warn.err" | head -n 5)"
    step "COLLSEL_FALLBACK=error: the job fails, saying why"
    run fallback_error 3 "${env[@]}" -x COLLSEL_FALLBACK=error "$MPI_TEST" --quick --only allreduce/
    [ "$RC" != 0 ] || fail "fallback_error: the job passed (exit status 0)"
    grep -q -F "collsel: error: $msg" "$WORK/fallback_error.err" ||
        fail "fallback_error: no error line: $(head -n 5 "$WORK/fallback_error.err")"
    # The later collectives: a forced variant that cannot serve a call at 3 processes (a 2x2
    # grid) hands it to the MPI library unchanged: results right, the warning names the
    # variant, and the log shows native running the calls.
    local coll
    for force in "alltoall/orth(dims=2x2)" "barrier/orth(dims=2x2)"; do
        coll=${force%%/*}
        step "COLLSEL_FORCE=$force at 3 processes, COLLSEL_FALLBACK=warn"
        run fallback_new 3 -x LD_PRELOAD="$PMPI" -x COLLSEL_FORCE="$force" -x COLLSEL_FALLBACK=warn \
            -x COLLSEL_VERBOSE=3 "$MPI_TEST" --quick --only "$coll/"
        expect_pass fallback_new
        grep -q -F "collsel: warning: forced ${force%%(*}" "$WORK/fallback_new.err" ||
            fail "COLLSEL_FORCE=$force: no warning: $(grep -v ' bytes: ' "$WORK/fallback_new.err" | head -n 5)"
        grep -q -F " bytes: $coll/native" "$WORK/fallback_new.err" ||
            fail "COLLSEL_FORCE=$force: no call went to native"
    done
}

# Every case runs (in a subshell, so one failure does not hide the next).
group_bad_env() {
    local failed=0
    (bad_env COLLSEL_DISABLE maybe) || failed=$((failed + 1))
    (bad_env COLLSEL_FALLBACK sometimes) || failed=$((failed + 1))
    (bad_env COLLSEL_VERBOSE loud) || failed=$((failed + 1))
    (bad_env COLLSEL_NODE_SIZE abc) || failed=$((failed + 1))
    (bad_env COLLSEL_PROGRESS threads) || failed=$((failed + 1))
    [ "$failed" = 0 ] || fail "$failed of 5 bad values not reported as one message"
}

# Rules only for a collective this collsel does not know (a newer collsel tuned it): native,
# and the database is read once, by rank 0 (COLLSEL_VERBOSE=1: one summary line), however many
# communicators follow.
group_unknown_rules() {
    local db=$WORK/unknown.db
    cp "$FOUR" "$db"
    sql "$db" "delete from rule; insert into rule (machine_id, coll, comm_size, ppn, lo_bytes,
        hi_bytes, rank, algorithm, params) select id, 'alltoallw', 4, 4, 0, null, 1,
        'alltoallw/pairwise', '' from machine"
    step "rules for an unknown collective only"
    run unknown 3 -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=1 "$DISPATCH" --native
    expect_pass unknown
    expect_one_line unknown "$db"
    [ -s "$WORK/unknown.ranks/1/rank.0/stderr" ] || fail "unknown: the summary is not rank 0's"
}

group_bad_rules() {
    local db=$WORK/badrules.db
    cp "$FOUR" "$db"
    # rows no rule may be, the schema's CHECKs bypassed as a broken or hostile writer could:
    # an unknown algorithm, a negative and an overlapping interval, an infinite time, absurd
    # parameters, no processes
    sql "$db" "PRAGMA ignore_check_constraints = ON; insert or ignore into rule (machine_id,
        coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm, params, median_us, native_us)
        select id, 'allreduce', 4, 4, 0, null, 90, 'allreduce/from_the_future', '', 1, 2 from machine
        union all select id, 'bcast', 4, 4, -64, 0, 1, 'bcast/binomial', '', 1, 2 from machine
        union all select id, 'bcast', 4, 4, 3, 5, 1, 'bcast/binomial', '', 1, 2 from machine
        union all select id, 'reduce', 4, 4, 0, null, 91, 'reduce/linear', '', 1e999, 2 from machine
        union all select id, 'gather', 4, 4, 0, null, 92, 'gather/orth', 'dims=2x2,bogus=1', 1, 2
            from machine
        union all select id, 'scatter', 0, 4, 0, null, 1, 'scatter/linear', '', 1, 2 from machine"
    step "bad rows among the rules at np 4: the good rules apply, one summary line"
    run badrules 4 -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=1 "$DISPATCH" --tuned-sizes 4
    expect_pass badrules
    expect_one_line badrules "$db" "bad rules skipped"
    [ -s "$WORK/badrules.ranks/1/rank.0/stderr" ] || fail "badrules: the summary is not rank 0's"
}

group_vrules() {
    local db=$WORK/vrules.db spec coll small large lines
    cp "$FOUR" "$db"
    sql "$db" "delete from rule where coll in ('gatherv', 'scatterv', 'alltoallv')"
    # [0, 16) bytes and [16, inf): cs_mpi_test --quick's counts 0 and p + 1 fall on both sides
    for spec in "gatherv binomial linear" "scatterv linear binomial" "alltoallv pairwise linear"; do
        read -r coll small large <<<"$spec"
        sql "$db" "insert into rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank,
            algorithm, params) select id, '$coll', 4, 4, 0, 16, 1, '$coll/$small', '' from machine
            union all select id, '$coll', 4, 4, 16, null, 1, '$coll/$large', '' from machine"
    done
    for spec in "gatherv binomial linear" "scatterv linear binomial" "alltoallv pairwise linear"; do
        read -r coll small large <<<"$spec"
        step "$coll: $coll/$small below 16 bytes, $coll/$large above, cs_mpi_test preloaded at np 4"
        run vrules 4 -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=3 \
            "$MPI_TEST" --quick --only "$coll/"
        expect_pass vrules
        for alg in "$small" "$large"; do
            lines=$(cat "$WORK"/vrules.ranks/1/rank.*/stderr | grep -c -F " bytes: $coll/$alg")
            [ "$lines" -gt 0 ] || fail "vrules: no $coll call ran $coll/$alg: $(head -n 5 "$WORK/vrules.err")"
        done
        if cat "$WORK"/vrules.ranks/1/rank.*/stderr | grep -F " bytes: $coll/" |
            grep -q -v -E " bytes: $coll/($small|$large)\$"; then
            fail "vrules: other $coll algorithms ran: $(grep -h -F " bytes: $coll/" "$WORK"/vrules.ranks/1/rank.*/stderr | grep -v -E "$coll/($small|$large)\$" | head -n 3)"
        fi
    done
}

group_setup() {
    local db=$WORK/setup.db log orth rd
    cp "$FOUR" "$db"
    sql "$db" "delete from rule where coll = 'allreduce';
        insert into rule (machine_id, coll, comm_size, ppn, lo_bytes, hi_bytes, rank, algorithm,
            params, median_us, native_us, setup_us)
        select id, 'allreduce', 4, 4, 0, null, 1, 'allreduce/orth', 'dims=2x2,phase=native', 10,
            20, 95 from machine
        union all select id, 'allreduce', 4, 4, 0, null, 2, 'allreduce/recursive_doubling', '',
            15, 20, null from machine
        union all select id, 'allreduce', 4, 4, 0, null, 3, 'allreduce/native', '', 20, 20, null
            from machine"
    step "COLLSEL_WARMUP=1: orth from the 10th call (setup 95 us / gain 10 us), np 4"
    run setup1 4 -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=3 -x COLLSEL_WARMUP=1 "$WARM" 12
    expect_pass setup1
    log=$WORK/setup1.ranks/1/rank.0/stderr
    orth=$(grep -c -F " bytes: allreduce/orth(dims=2x2,phase=native)" "$log")
    rd=$(grep -c -F " bytes: allreduce/recursive_doubling" "$log")
    # (calls that run from the call cache are not logged: orth's first call is)
    [ "$rd" = 9 ] && [ "$orth" -ge 1 ] ||
        fail "setup: expected 9 recursive_doubling calls, then orth, got $rd and $orth: $(grep -F allreduce "$log" | head -n 14)"
    grep -q -F "allreduce/orth(dims=2x2,phase=native) (setup 95 us, from call 10)" "$log" ||
        fail "setup: COLLSEL_VERBOSE=2 does not say when orth's setup is repaid: $(grep -F 'tuned at' "$log" | grep allreduce)"
    grep -F " bytes: allreduce/" "$log" | head -n 9 | grep -q orth &&
        fail "setup: orth ran before its setup was repaid: $(grep -F allreduce "$log" | head -n 12)"
    step "default warm-up: 5 communicators of 3 calls, then one of 12, np 4"
    run setup2 4 -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=3 "$WARM" 3 5
    expect_pass setup2
    [ "$(cat "$WORK"/setup2.ranks/1/rank.*/stderr | grep -c -F ' bytes: allreduce/')" = 0 ] ||
        fail "setup: short-lived communicators logged calls: $(grep -h -F allreduce "$WORK"/setup2.ranks/1/rank.*/stderr | head -n 3)"
    run setup3 4 -x COLLSEL_DB="$db" -x COLLSEL_VERBOSE=3 "$WARM" 12
    expect_pass setup3
    log=$WORK/setup3.ranks/1/rank.0/stderr
    rd=$(grep -c -F " bytes: allreduce/recursive_doubling" "$log")
    [ "$(grep -c -F ' bytes: allreduce/' "$log")" = 5 ] && [ "$rd" = 5 ] ||
        fail "setup: expected calls 8 to 12 logged, all recursive_doubling: $(grep -F allreduce "$log")"
    echo "warm-up and setup amortisation as documented"
}

group_errh() {
    local alg
    for alg in bcast/linear bcast/binomial; do
        step "an erroneous bcast under $alg: MPI_ERR_TRUNCATE through the error handler, np 3"
        run errh 3 -x COLLSEL_FORCE="$alg" "$ERRH"
        expect_pass errh
        expect_silent errh
    done
}

group_reinit() {
    step "collsel_finalize, then collsel_init with a database collsel cannot use"
    run reinit 3 -x COLLSEL_DB="$FOUR" "$DISPATCH" --reinit "$OTHER"
    expect_pass reinit
    expect_warning reinit "$OTHER" "no rules for this machine"
}

group_threads() {
    step "8 threads in collsel_init, then 4 threads in collectives, np 3"
    run threads 3 -x COLLSEL_DB="$FOUR" "$THREADS" 8
    expect_pass threads
    expect_silent threads
    grep -q "^allreduce/reduce_bcast:" "$WORK/threads.out" || fail "threads: $(cat "$WORK/threads.out")"
    step "the same at np 1 (collsel_finalize and collsel_init racing with collectives)"
    run threads_np1 1 -x COLLSEL_DB="$FOUR" "$THREADS" 8
    expect_pass threads_np1
    expect_silent threads_np1
    step "the same with a missing database"
    run threads_nodb 3 -x COLLSEL_DB="$WORK/missing.db" "$THREADS" 8
    expect_pass threads_nodb
    expect_warning threads_nodb "$WORK/missing.db" "does not exist"
}

# Memory collsel allocated itself and still held at exit: valgrind's loss records (every kind,
# still reachable included) whose allocating frame, the first after the allocator, lies in
# collsel's sources. Prints them; empty when everything was freed.
collsel_blocks() {
    awk '/are (still reachable|definitely lost|indirectly lost|possibly lost) in loss record/ {
             rec = $0; n = 0; next
         }
         rec != "" && /(at|by) 0x/ {
             if (++n == 2) {
                 if ($0 ~ /\((algorithms|selector|db|bench)\//) print rec "\n" $0
                 rec = ""
             }
         }' "$@"
}

group_frees() {
    local vg src
    vg=$(command -v valgrind) || fail "valgrind not found (scripts/deps installs it)"
    src=$(cd "$(dirname "$0")/../.." && pwd)
    step "cs_sel_dispatch under valgrind, np 3: everything collsel allocated is freed by exit"
    run frees 3 -x COLLSEL_DB="$FOUR" "$vg" --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=definite --error-exitcode=3 --num-callers=40 \
        --fullpath-after="$src/" --suppressions="$src/tests/mpi/valgrind.supp" \
        --log-file="$WORK/frees.vg.%p" "$DISPATCH" --tuned-sizes 4
    expect_pass frees
    grep -q "in use at exit" "$WORK"/frees.vg.* || fail "frees: no leak summary in the valgrind logs"
    collsel_blocks "$WORK"/frees.vg.* >"$WORK/frees.ours"
    [ ! -s "$WORK/frees.ours" ] || fail "collsel still held memory at exit: $(head -n 40 "$WORK/frees.ours")"
    # the check finds collsel's blocks when there are some (a log line as valgrind writes it)
    printf '%s\n' '==1== 8 bytes in 1 blocks are still reachable in loss record 1 of 1' \
        '==1==    at 0x1: malloc (vg_replace_malloc.c:1)' \
        '==1==    by 0x2: cs_comm_get (algorithms/core/comm.c:1)' >"$WORK/frees.probe"
    [ -n "$(collsel_blocks "$WORK/frees.probe")" ] || fail "frees: the loss-record filter finds nothing"
    echo "frees: $(grep -h 'in use at exit' "$WORK"/frees.vg.* | sed 's/^==[0-9]*== *//' | head -n 1) (rank 0's; MPI's own)"
}

# share_run NAME NP [VAR=VALUE...] [-- ARG]: cs_sel_share with allreduce/dpml forced, checked.
share_run() {
    local name=$1 np=$2 vars=() r made reused want dpml
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        vars+=(-x "$1")
        shift
    done
    [ $# -gt 0 ] && shift
    run "$name" "$np" -x COLLSEL_FORCE="allreduce/dpml(leaders=1)" -x COLLSEL_VERBOSE=3 \
        "${vars[@]}" "$SHARE" "$@"
    expect_pass "$name"
    for ((r = 0; r < np; r++)); do
        want=$(grep -h '^share-expect ' "$WORK/$name.ranks/1/rank.$r/stdout") ||
            fail "$name: rank $r printed no share-expect line"
        made=$(grep -c -E '^collsel: node resources of [0-9]+ ranks made' "$WORK/$name.ranks/1/rank.$r/stderr")
        reused=$(grep -c -E '^collsel: node resources of [0-9]+ ranks reused' "$WORK/$name.ranks/1/rank.$r/stderr")
        dpml=$(grep -c -F ' bytes: allreduce/dpml(' "$WORK/$name.ranks/1/rank.$r/stderr")
        [ "$want" = "share-expect made $made reused $reused" ] ||
            fail "$name: rank $r: $want, but the log says made $made reused $reused"
        [ "$dpml" -ge 1 ] || fail "$name: rank $r never ran allreduce/dpml"
    done
    echo "$name: $want (rank $((np - 1))), $(tail -n 1 "$WORK/$name.out")"
}

group_share() {
    local np=$1 vg src
    step "communicators of the same and of different groups, np $np"
    share_run share "$np"
    grep -q -F "cached node resources freed at MPI_Finalize" "$WORK/share.ranks/1/rank.0/stderr" ||
        fail "share: MPI_Finalize freed no kept node resources"
    grep -q -E "^collsel: operations' node resources of [0-9]+ ranks reused" \
        "$WORK/share.ranks/1/rank.0/stderr" ||
        fail "share: no communicator reused the operations' node resources of an earlier one"
    if [ "$np" -ge 3 ]; then
        step "the same with emulated nodes of 2, np $np"
        share_run share_nodes "$np" COLLSEL_NODE_SIZE=2
    fi
    step "MPI_THREAD_MULTIPLE: nothing shared, np $np"
    share_run share_multiple "$np" -- multiple
    grep -q -E '^collsel: node resources of [0-9]+ ranks made \(not shared\)' \
        "$WORK/share_multiple.ranks/1/rank.0/stderr" ||
        fail "share_multiple: no 'not shared' resources in the log"
    ! grep -q -F "operations' node resources" "$WORK/share_multiple.ranks/1/rank.0/stderr" ||
        fail "share_multiple: operations' node resources apart from the communicator's own"
    if [ "$np" = 3 ]; then
        vg=$(command -v valgrind) || fail "valgrind not found (scripts/deps installs it)"
        src=$(cd "$(dirname "$0")/../.." && pwd)
        step "under valgrind, np 3: the kept node resources are freed by MPI_Finalize"
        run share_vg 3 -x COLLSEL_FORCE="allreduce/dpml(leaders=1)" "$vg" --leak-check=full \
            --show-leak-kinds=all --errors-for-leak-kinds=definite --error-exitcode=3 \
            --num-callers=40 --fullpath-after="$src/" \
            --suppressions="$src/tests/mpi/valgrind.supp" --log-file="$WORK/share.vg.%p" "$SHARE"
        expect_pass share_vg
        collsel_blocks "$WORK"/share.vg.* >"$WORK/share.ours"
        [ ! -s "$WORK/share.ours" ] || fail "collsel still held memory at exit: $(head -n 40 "$WORK/share.ours")"
    fi
}

group_preload() {
    local np=$1 coll winners
    step "cs_mpi_test preloaded, rules for this machine, np $np"
    run preload "$np" -x LD_PRELOAD="$PMPI" -x COLLSEL_DB="$EXACT" -x COLLSEL_VERBOSE=2 "$MPI_TEST"
    expect_pass preload
    "$MAKE_DB" --print-winners --comm-sizes "$np" >"$WORK/winners" || fail "--print-winners failed"
    while read -r coll winners; do
        grep -q -F -x "collsel: $np processes ($np per node): $coll tuned at $np processes, $np per node: $winners" \
            "$WORK/preload.ranks/1/rank.0/stderr" ||
            fail "COLLSEL_VERBOSE=2 does not list '$coll $winners' for $np processes: $(grep -F "$coll" "$WORK/preload.ranks/1/rank.0/stderr")"
    done <"$WORK/winners"
    grep -q -F "collsel: warning" "$WORK/preload.err" && fail "preload: $(cat "$WORK/preload.err")"
    echo "$(tail -n 1 "$WORK/preload.out"), tuned algorithms listed for every collective"
}

group_neighbor() {
    local np=$1
    export OMPI_MCA_topo=${OMPI_MCA_topo:-basic}
    make_db --patterns --comm-sizes "$np" "$WORK/nbr.db"
    make_db --comm-sizes "$np" "$WORK/nonbr.db"
    step "$np processes: pattern rules, COLLSEL_VERBOSE=2"
    run nbr_rules "$np" -x COLLSEL_DB="$WORK/nbr.db" -x COLLSEL_VERBOSE=2 "$NEIGHBOR" rules
    expect_pass nbr_rules
    for want in "neighbor_alltoall: nearest tuned pattern cart2d at $np processes, $np per node (signature distance 0.000" \
        "neighbor_alltoall: nearest tuned pattern hotspot at $np processes, $np per node (signature distance 0.000" \
        "neighbor_alltoallv: nearest tuned pattern cart2d at $np processes"; do
        grep -q -F -- "$want" "$WORK/nbr_rules.ranks/1/rank.0/stderr" ||
            fail "COLLSEL_VERBOSE=2 does not say '$want': $(grep -F neighbor "$WORK/nbr_rules.ranks/1/rank.0/stderr" | head -n 5)"
    done
    echo "$(tail -n 1 "$WORK/nbr_rules.out")"
    step "$np processes: no neighbourhood rules"
    run nbr_none "$np" -x COLLSEL_DB="$WORK/nonbr.db" "$NEIGHBOR" none
    expect_pass nbr_none
    expect_silent nbr_none
    step "$np processes: COLLSEL_FORCE=neighbor_alltoall/linear"
    run nbr_forced "$np" -x COLLSEL_FORCE=neighbor_alltoall/linear "$NEIGHBOR" forced
    expect_pass nbr_forced
    expect_silent nbr_forced
}

case $GROUP in
make_db) group_make_db ;;
neighbor_np*) group_neighbor "${GROUP#neighbor_np}" ;;
dispatch_np*) group_dispatch "${GROUP#dispatch_np}" ;;
layouts) group_layouts ;;
force)
    "$MAKE_DB" --list-algorithms >"$WORK/algorithms" || fail "--list-algorithms failed"
    group_force
    ;;
force_nodb) group_force_nodb ;;
bad_force) group_bad_force ;;
bad_db) group_bad_db ;;
locked_db) group_locked_db ;;
env) group_env ;;
bad_env) group_bad_env ;;
fallback) group_fallback ;;
unknown_rules) group_unknown_rules ;;
bad_rules) group_bad_rules ;;
vrules) group_vrules ;;
setup) group_setup ;;
errh) group_errh ;;
reinit) group_reinit ;;
threads) group_threads ;;
frees) group_frees ;;
preload_np*) group_preload "${GROUP#preload_np}" ;;
share_np*) group_share "${GROUP#share_np}" ;;
*) fail "unknown group '$GROUP'" ;;
esac
step "passed"
