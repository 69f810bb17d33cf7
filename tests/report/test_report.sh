#!/usr/bin/env bash
# collsel-report end to end: builds small databases (make_report_db), draws them, checks the
# output (check_report: files, PNG sizes, links of index.html), and checks that every failure
# (gnuplot failing or missing, a missing, corrupt or empty database, an unwritable or foreign
# output directory, bad usage) exits non-zero with a message and leaves nothing behind.
#   test_report.sh COLLSEL_REPORT MAKE_REPORT_DB CHECK_REPORT
set -euo pipefail

report=$1
make_db=$2
check=$3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cs_test_report.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Nothing half-written next to the output directories.
no_leftovers() {
    local left
    left=$(find "$tmp" -maxdepth 1 -name '.*.tmp-*' -o -maxdepth 1 -name '.*.old-*')
    [[ -z "$left" ]] || fail "$1: left behind: $left"
}

# expect_error WHAT PATTERN DIR -- command...: exits 1, says PATTERN, DIR not created.
expect_error() {
    local what=$1 pattern=$2 dir=$3
    shift 4
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    if [[ $rc -ne 1 ]]; then
        fail "$what: exit status $rc, expected 1 (output: $out)"
    elif ! grep -q -- "$pattern" <<<"$out"; then
        fail "$what: message does not say '$pattern': $out"
    else
        echo "ok: $what: $(head -n 1 <<<"$out")"
    fi
    [[ -z "$dir" || ! -e "$dir" ]] || fail "$what: $dir was created"
    no_leftovers "$what"
}

"$make_db" "$tmp/t.db" full

# The plots the "full" database must give (make_report_db.c says why).
plots=(
    bcast_latency_np4_ppn4:960x600 bcast_speedup:960x600 bcast_winners:960x340
    bcast_validation_np4_ppn4:960x600
    gather_latency_np4_ppn4:960x600 gather_speedup:960x600 gather_winners:960x340
    allreduce_latency_np2_ppn2:960x600 allreduce_latency_np4_ppn4:960x600
    allreduce_speedup:960x600 allreduce_winners:960x350
    allreduce_validation_np4_ppn4:960x600
    bcast_loop_latency_np4_ppn4:960x600 bcast_loop_speedup:960x600
    allreduce_loop_latency_np2_ppn2:960x600 allreduce_loop_latency_np4_ppn4:960x600
    allreduce_loop_speedup:960x600
    allreduce_loop_validation_np4_ppn4:960x600
    neighbor_alltoall_latency_cart2d_np4_ppn4:960x600
    neighbor_alltoall_latency_hotspot_np4_ppn4:960x600
    neighbor_alltoall_latency_iso_moore2d_r1_np4_ppn4:960x600
    neighbor_alltoall_speedup:960x600 neighbor_alltoall_winners:960x350
    barrier_winners:960x340
)
# gather's run (run 1) stands for a run made before the loop metric: NULL loop columns, so it
# has no loop plots (check_report refuses files it was not told about).

# 1. Default directory (next to the database), both formats; the last line is index.html.
start=$(date +%s%N)
out=$("$report" "$tmp/t.db")
echo "collsel-report took $(( ($(date +%s%N) - start) / 1000000 )) ms"
[[ $(tail -n 1 <<<"$out") == "$tmp/t-report/index.html" ]] ||
    fail "last line of output is not the path of index.html: $out"
"$check" "$tmp/t-report" both "${plots[@]}" || fail "report of t.db"
no_leftovers "first report"

# The newest done tuning run is shown (run 3, not the aborted run 2); gather comes from run 1.
grep -q "run 3" "$tmp/t-report/allreduce_latency_np4_ppn4.dat" || fail "allreduce not from run 3"
grep -q "run 1" "$tmp/t-report/gather_latency_np4_ppn4.dat" || fail "gather not from run 1"
if grep -q "1e+06" "$tmp/t-report/allreduce_latency_np4_ppn4.dat"; then
    fail "the aborted run's measurements are shown"
fi
# Variants collapse into their family: dpml once, with its two variants.
grep -q "allreduce/dpml, 2 variants" "$tmp/t-report/allreduce_latency_np4_ppn4.dat" ||
    fail "allreduce/dpml is not one family of 2 variants"
grep -q "oversubscribed" "$tmp/t-report/index.html" || fail "index.html does not say oversubscribed"
grep -q "neighbor_alltoall on pattern cart2d: latency on 4 processes" \
    "$tmp/t-report/neighbor_alltoall_latency_cart2d_np4_ppn4.gp" || fail "latency plot does not name the pattern"
grep -q '"hotspot, 4 procs' "$tmp/t-report/neighbor_alltoall_winners.gp" ||
    fail "winner map has no row for pattern hotspot"
grep -q "Rules on pattern hotspot, 4 processes" "$tmp/t-report/index.html" ||
    fail "index.html does not list the rules of pattern hotspot"
# The isomorphic pattern's rounds D and volume V next to its times (topo/iso.h: straightforward
# D = V = s = 8; torus D = 4, V = 12), only where an iso schedule was measured.
grep -q "Message combining on pattern iso_moore2d_r1, 4 processes" "$tmp/t-report/index.html" ||
    fail "index.html has no message-combining table for iso_moore2d_r1"
grep -q '<td>iso_straightforward</td><td class="num">8</td><td class="num">8</td>' \
    "$tmp/t-report/index.html" || fail "iso_straightforward on iso_moore2d_r1: not D 8, V 8"
grep -q '<td>iso_torus</td><td class="num">4</td><td class="num">12</td><td class="num">8' \
    "$tmp/t-report/index.html" || fail "iso_torus on iso_moore2d_r1: not D 4, V 12 and its time"
grep -q '<td>native</td><td class="num">–</td><td class="num">–</td><td class="num">16' \
    "$tmp/t-report/index.html" || fail "native on iso_moore2d_r1: not without D and V"
if grep -q "Message combining on pattern cart2d\|Message combining on pattern hotspot" \
    "$tmp/t-report/index.html"; then
    fail "a message-combining table for a pattern without an iso schedule measured"
fi
grep -q "oversubscribed" "$tmp/t-report/allreduce_latency_np4_ppn4.gp" ||
    fail "the plot of an oversubscribed run does not say so"
grep -q "element 3 is 7, not 9" "$tmp/t-report/index.html" || fail "failure not listed"
# Barrier has no data (0 bytes only): its variants' times in a table, since no plot can show them.
grep -q "<h4>Latency of each variant on 4 processes (4 per node)</h4>" "$tmp/t-report/index.html" ||
    fail "index.html has no latency table for barrier"
grep -q 'orth(dims=2x2,phase=dissemination)</td><td class="num">25.0</td><td class="num">24.0</td><td class="num">26.2</td><td class="num">15.0</td><td class="num"><span class="slower">0.50×' \
    "$tmp/t-report/index.html" || fail "barrier/orth's row of the latency table is not as measured"
grep -q 'dissemination</td><td class="num">10.0</td>.*<span class="faster">1.25×' \
    "$tmp/t-report/index.html" || fail "barrier/dissemination's row of the latency table is not as measured"
grep -q "back-to-back loop" "$tmp/t-report/index.html" || fail "index.html has no loop metric"
# The loop plots say which metric they show.
grep -q "back-to-back loop, mean over ranks" "$tmp/t-report/bcast_loop_latency_np4_ppn4.gp" ||
    fail "the loop latency plot does not say which metric it shows"
grep -q "back-to-back loop, mean over ranks" \
    "$tmp/t-report/allreduce_loop_validation_np4_ppn4.gp" ||
    fail "the loop validation plot does not say which metric it shows"
# Native B (allreduce's validation rows have it, bcast's not) is drawn as native's spread.
grep -q "run-to-run spread" "$tmp/t-report/allreduce_validation_np4_ppn4.gp" ||
    fail "the validation plot does not draw native B"
if grep -q "run-to-run spread" "$tmp/t-report/bcast_validation_np4_ppn4.gp"; then
    fail "the validation plot draws native B where it was not measured"
fi

# 2. Again onto the existing report: replaced as a whole; PNG only.
touch "$tmp/t-report/stale.png"
"$report" "$tmp/t.db" --format png >/dev/null || fail "second report"
[[ ! -e "$tmp/t-report/stale.png" ]] || fail "the old report was not replaced"
"$check" "$tmp/t-report" png "${plots[@]}" || fail "PNG-only report"
no_leftovers "replacing a report"

# 3. SVG only, into a directory named with -o; the re-plot instructions work.
"$report" -o "$tmp/svg" --format=svg "$tmp/t.db" >/dev/null || fail "SVG report"
"$check" "$tmp/svg" svg "${plots[@]}" || fail "SVG-only report"
if ! (cd "$tmp/svg" && gnuplot bcast_speedup.gp) || [[ ! -s "$tmp/svg/bcast_speedup.png" ]]; then
    fail "re-plotting with the written script"
fi
rm -f "$tmp/svg/bcast_speedup.png"

# 4. Two machines: files prefixed per machine, every link still fine.
"$make_db" "$tmp/two.db" two
"$report" "$tmp/two.db" >/dev/null || fail "two-machine report"
"$check" "$tmp/two-report" both || fail "two-machine report"
[[ -s "$tmp/two-report/m2_allreduce_latency_np2_ppn2.png" ]] || fail "no m2_ plot"

# 4b. Overlap (docs/nonblocking.md "Tuning for overlap"): the freed-CPU-share and overhead plot
# of allreduce on 4 processes, in the page with its table and the nonblocking rule's choice;
# per family the variant with the least overhead (ring: segments=4, freed 70 %).
"$make_db" "$tmp/ov.db" overlap
"$report" "$tmp/ov.db" >/dev/null || fail "overlap report"
"$check" "$tmp/ov-report" both "${plots[@]}" allreduce_overlap_np4_ppn4:960x600 ||
    fail "overlap report"
grep -q 'Overlap: nonblocking collectives' "$tmp/ov-report/index.html" ||
    fail "no overlap section in index.html"
grep -q 'src="allreduce_overlap_np4_ppn4.png"' "$tmp/ov-report/index.html" ||
    fail "the overlap plot is not in index.html"
grep -q '^1048576 70 .* "segments=4"$' "$tmp/ov-report/allreduce_overlap_np4_ppn4.dat" ||
    fail "ring's best variant (segments=4, 70 % freed) not in the overlap data"
if grep -q 'segments=1' "$tmp/ov-report/allreduce_overlap_np4_ppn4.dat"; then
    fail "the overlap plot shows a variant that is not its family's best"
fi
grep -q 'freed CPU share' "$tmp/ov-report/allreduce_overlap_np4_ppn4.gp" ||
    fail "the overlap plot does not say what it shows"
ring_rows=$(grep -c '>ring(segments=4)</td></tr>' "$tmp/ov-report/index.html")
[[ $ring_rows == 2 ]] || fail "nonblocking rule ring(segments=4) in $ring_rows table rows, want 2"
# Without overlap rows, no such section (the "full" report above).
if grep -q 'Overlap: nonblocking collectives' "$tmp/t-report/index.html"; then
    fail "an overlap section without overlap measurements"
fi

# 5. gnuplot failing: an error exit, no output, a missing program, a real gnuplot error.
# (COLLSEL_GNUPLOT names the program; docs/report.md.) The existing report stays as it was.
listing() {
    find "$1" -type f -printf '%f %s %T@\n' | sort | md5sum
}
before=$(listing "$tmp/t-report")
printf '#!/bin/sh\necho "fake gnuplot: line 1: something is wrong" >&2\nexit 3\n' >"$tmp/fail-gp"
printf '#!/bin/sh\nexit 0\n' >"$tmp/silent-gp"
printf '#!/bin/sh\nexec gnuplot -e "set no_such_option" "$@"\n' >"$tmp/error-gp"
chmod +x "$tmp/fail-gp" "$tmp/silent-gp" "$tmp/error-gp"
expect_error "gnuplot exits 3" "something is wrong" "$tmp/f1" -- \
    env COLLSEL_GNUPLOT="$tmp/fail-gp" "$report" "$tmp/t.db" -o "$tmp/f1"
expect_error "gnuplot writes nothing" "wrote no" "$tmp/f2" -- \
    env COLLSEL_GNUPLOT="$tmp/silent-gp" "$report" "$tmp/t.db" -o "$tmp/f2"
expect_error "gnuplot missing" "cannot run gnuplot" "$tmp/f3" -- \
    env COLLSEL_GNUPLOT="$tmp/no-such-gnuplot" "$report" "$tmp/t.db" -o "$tmp/f3"
expect_error "gnuplot error" "no_such_option" "$tmp/f4" -- \
    env COLLSEL_GNUPLOT="$tmp/error-gp" "$report" "$tmp/t.db" -o "$tmp/f4"
expect_error "gnuplot fails replacing a report" "gnuplot" "" -- \
    env COLLSEL_GNUPLOT="$tmp/fail-gp" "$report" "$tmp/t.db"
[[ $(listing "$tmp/t-report") == "$before" ]] || fail "a failed run changed the report"

# 6. Databases that cannot be drawn.
expect_error "missing database" "does not exist" "$tmp/missing-report" -- \
    "$report" "$tmp/missing.db"
for _ in {1..200}; do echo "this is not a database"; done >"$tmp/text.db"
expect_error "not a database" "not a database" "$tmp/text-report" -- "$report" "$tmp/text.db"
cp "$tmp/t.db" "$tmp/corrupt.db"
# Overwrite pages 2 to 5 (the schema on page 1 stays readable): only a full check notices.
page=$(od -An -tu1 -j16 -N2 "$tmp/corrupt.db" | awk '{print $1 * 256 + $2}')
head -c $((4 * page)) /dev/zero | tr '\0' '\245' |
    dd of="$tmp/corrupt.db" bs="$page" seek=1 conv=notrunc status=none
expect_error "corrupt database" "damaged" "$tmp/corrupt-report" -- "$report" "$tmp/corrupt.db"
"$make_db" "$tmp/empty.db" empty
expect_error "database without runs" "no tuning runs" "$tmp/empty-report" -- \
    "$report" "$tmp/empty.db"

# 7. Output directories that cannot be written.
expect_error "parent is a file" "not a directory" "" -- "$report" "$tmp/t.db" -o "$tmp/t.db/x"
expect_error "parent missing" "No such file" "$tmp/nowhere" -- \
    "$report" "$tmp/t.db" -o "$tmp/nowhere/report"
mkdir "$tmp/mine" && echo "keep me" >"$tmp/mine/notes.txt"
expect_error "directory of someone else" "not a collsel report" "" -- \
    "$report" "$tmp/t.db" -o "$tmp/mine"
[[ $(cat "$tmp/mine/notes.txt") == "keep me" ]] || fail "a foreign directory was touched"
expect_error "output is a file" "not a directory" "" -- "$report" "$tmp/t.db" -o "$tmp/text.db"
if [[ $(id -u) -ne 0 ]]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    expect_error "read-only directory" "Permission denied" "$tmp/ro/report" -- \
        "$report" "$tmp/t.db" -o "$tmp/ro/report"
fi

# 8. Usage.
for args in "" "--bogus $tmp/t.db" "--format jpeg $tmp/t.db" "$tmp/t.db $tmp/two.db" \
    "$tmp/t.db -o"; do
    rc=0
    # shellcheck disable=SC2086 # word splitting of args is intended
    "$report" $args >/dev/null 2>"$tmp/err" || rc=$?
    [[ $rc -eq 2 ]] || fail "'collsel-report $args': exit status $rc, expected 2"
    grep -q "see collsel-report --help" "$tmp/err" || fail "'collsel-report $args': no hint"
done
"$report" --help | grep -q "COLLSEL_GNUPLOT" || fail "--help does not name COLLSEL_GNUPLOT"

if [[ $failures -gt 0 ]]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "all report tests passed"
