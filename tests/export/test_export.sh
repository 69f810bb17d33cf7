#!/bin/sh
# Proof that collsel-report's exports work (docs/export.md):
#   1. a crafted database (make_report_db ompi: at np 4, a different <coll>/ompi variant wins
#      allreduce and bcast at 8 B, 64 KiB and 1 MiB, native at 4 KiB) is exported with
#      --export ompi-rules; the file must say algorithm 0 (Open MPI's own decision) at 4 KiB,
#      and keep allreduce's ring at 16 KiB, which a rule ranks above native there;
#   2. export_probe (one call) runs under Open MPI with OMPI_MCA_coll_tuned_use_dynamic_rules=1
#      and the exported file, and again with the expected algorithm forced through its MCA
#      variable; Open MPI's own message count (pml/monitoring's output) must be the same as the
#      forced algorithm's at every size, and differ from Open MPI's default decision at one size
#      at least (else the file changed nothing);
#   3. --export env names the algorithms, --export mpich-json passes check_mpich_json (the
#      structure MPICH's csel parser reads) and maps the expected algorithms.
# Non-debug Open MPI builds print no per-call algorithm in their verbose output, hence the
# message counts.
#
# usage: test_export.sh COLLSEL_REPORT MAKE_REPORT_DB EXPORT_PROBE CHECK_MPICH_JSON MPIEXEC
set -u
report=$1 make_db=$2 probe=$3 check_json=$4 mpiexec=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

fail() {
    echo "FAIL: $*"
    failed=1
}

"$make_db" "$dir/ompi.db" ompi || { echo "FAIL: make_report_db"; exit 1; }

# 1. The rules file.
"$report" "$dir/ompi.db" --export ompi-rules "$dir/rules.conf" || { echo "FAIL: export"; exit 1; }
cat "$dir/rules.conf"
first=$(grep -v '^#' "$dir/rules.conf" | head -n 1 | cut -d' ' -f1)
[ "$first" = 2 ] || fail "the rules file should start with 2 collectives, not '$first'"
[ "$(grep -c '^[0-9]* 0 0 0 # default$' "$dir/rules.conf")" = 2 ] ||
    fail "allreduce and bcast at 4 KiB, where native won, should each have one algorithm-0 rule"

# messages COLL:BYTES ENV...: the internal (collective) messages all ranks sent in a run of
# export_probe, as Open MPI's pml/monitoring writes them at MPI_Finalize ("I" lines: rank, peer,
# bytes, "N msgs sent"), one file per rank (enable_output=3 with a filename: on stdout, the four
# ranks' lines arrive through mpirun interleaved, and a mangled line lost one rank's count under
# load). MPI_Init and MPI_Finalize add the same number to every run. "none" unless all 4 ranks
# wrote their file.
runs=0
messages() {
    arg=$1
    shift
    runs=$((runs + 1))
    mon="$dir/mon$runs"
    env OMPI_MCA_pml_monitoring_enable=2 OMPI_MCA_pml_monitoring_enable_output=3 \
        OMPI_MCA_pml_monitoring_filename="$mon" \
        OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader "$@" \
        "$mpiexec" --allow-run-as-root --oversubscribe -np 4 "$probe" "$arg" >/dev/null 2>&1
    if [ "$(ls "$mon".*.prof 2>/dev/null | wc -l)" != 4 ]; then
        echo none
        return
    fi
    cat "$mon".*.prof |
        awk -F'\t' '$1 == "I" { split($5, a, " "); s += a[1]; n++ } END { print (n ? s : "none") }'
}

# 2. What ran, counted by Open MPI: the rules file against Open MPI's default decision and
# against the expected algorithm forced.
differs=0
for expect in "allreduce 8 recursive_doubling 0" "allreduce 65536 ring 0" \
    "allreduce 1048576 rabenseifner 0" "bcast 8 basic_linear 0" \
    "bcast 65536 scatter_allgather 0" "bcast 1048576 pipeline 65536" \
    "allreduce 4096 default 0" "bcast 4096 default 0" "allreduce 16384 ring 0"; do
    set -- $expect
    ruled=$(messages "$1:$2" OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        OMPI_MCA_coll_tuned_dynamic_rules_filename="$dir/rules.conf")
    default=$(messages "$1:$2")
    if [ "$3" = default ]; then # native won there: the file leaves it to Open MPI's decision
        forced=$default
    else
        forced=$(messages "$1:$2" OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
            OMPI_MCA_coll_tuned_$1_algorithm=$3 OMPI_MCA_coll_tuned_$1_algorithm_segmentsize=$4)
    fi
    if [ "$ruled" = none ] || [ "$forced" = none ] || [ "$ruled" != "$forced" ]; then
        fail "$1 at $2 bytes: the rules file gave $ruled messages, $3 forced gives $forced"
    else
        echo "ok $1 at $2 bytes ran $3: $ruled messages (Open MPI's default: $default)"
    fi
    [ "$ruled" != "$default" ] && differs=1
done
[ "$differs" = 1 ] || fail "the rules file changed no algorithm: the probe cannot tell"

# 3. env and mpich-json.
env_out=$("$report" "$dir/ompi.db" --export env --comm-size 4) || fail "--export env"
echo "$env_out"
echo "$env_out" | grep -q '^export OMPI_MCA_coll_tuned_use_dynamic_rules=1$' ||
    fail "--export env lacks use_dynamic_rules"
echo "$env_out" | grep -q '^export OMPI_MCA_coll_tuned_allreduce_algorithm=[1-9]' ||
    fail "--export env lacks the allreduce algorithm"
"$report" "$dir/ompi.db" --export env --comm-size 3 >/dev/null 2>&1 &&
    fail "--export env at a size never tuned should fail"
"$report" "$dir/ompi.db" --export mpich-json "$dir/tuning.json" || fail "--export mpich-json"
cat "$dir/tuning.json"
"$check_json" "$dir/tuning.json" || fail "the MPICH JSON has the wrong structure"
for alg in MPIR_Allreduce_intra_recursive_doubling MPIR_Allreduce_intra_ring \
    MPIR_Allreduce_intra_reduce_scatter_allgather \
    MPIR_Bcast_intra_scatter_recursive_doubling_allgather; do
    grep -q "\"algorithm=$alg\"" "$dir/tuning.json" || fail "the MPICH JSON lacks $alg"
done
[ "$failed" = 0 ] && echo "export: all checks passed"
exit $failed
