#!/usr/bin/env bash
# The installed tree works for an outside project: make install, then build examples/cg.c
# against the install only, three ways, and check that every build computes the same answer.
#
#   1. cmake --install BUILD --prefix WORK/prefix; the expected files are there, nothing
#      internal is; the .pc files name the prefix installed to (also with DESTDIR); installed
#      binaries and libraries find the installed libcollsel (relative RPATH).
#   2. the installed collsel-bench runs a tiny tuning run (np 2): WORK/tune.db; the installed
#      collsel-report draws it.
#   3. examples/ as a project of its own: find_package(collsel) with CMAKE_PREFIX_PATH=prefix
#      builds cg_plain, cg_collsel and cg_pmpi; and with pkg-config: mpicc
#      $(pkg-config --cflags --libs collsel) -DUSE_COLLSEL (cg_collsel_pc), and plain cc with
#      $(pkg-config --cflags --libs collsel_pmpi) (cg_pmpi_pc).
#   4. runs at np 2 and 3 (oversubscribed), the plain build also with
#      LD_PRELOAD=libcollsel_pmpi.so, some with algorithms forced (COLLSEL_FORCE): every run
#      converges (exit 0), and its iteration count (within 1) and checksum (relative 1e-9)
#      match cg_plain at np 2. Allreduce algorithms sum doubles in different orders, so the
#      comparison is not bit for bit. With COLLSEL_VERBOSE=2 every collsel build writes
#      "collsel:" lines and the plain build none: the calls really went through collsel.
#   The installed libraries export exactly the public API (tests/selector/check_exports.sh:
#   every collective's MPI_* wrapper in libcollsel_pmpi), and newcolls.c, an unmodified program
#   built with pkg-config collsel_pmpi, runs the collectives of issue 15 (alltoall(v), barrier,
#   reduce_scatter(_block), scan, exscan, gatherv, scatterv) at np 3 with a point-to-point
#   algorithm forced for each: results equal PMPI's and the log shows each forced algorithm.
#
# Usage: test_install.sh BUILD_DIR [LIBDIR [CMAKE [MPIEXEC [PKG_CONFIG [MPICC [CC]]]]]]
#   (ctest passes all; LIBDIR is CMAKE_INSTALL_LIBDIR, default lib)
# The work directory is removed on success and kept (and named) on failure.
set -u

BUILD=${1:?usage: test_install.sh BUILD_DIR [LIBDIR [CMAKE [MPIEXEC [PKG_CONFIG [MPICC [CC]]]]]]}
LIBDIR=${2:-lib}
CMAKE=${3:-cmake}
MPIEXEC=${4:-mpirun}
PKG_CONFIG=${5:-pkg-config}
MPICC=${6:-mpicc}
CC=${7:-cc}
SRC=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
EXAMPLES=$SRC/examples
FORCE='allreduce/recursive_doubling;allgather/ring;allgatherv/ring'

export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl=self,vader
unset COLLSEL_DB COLLSEL_DISABLE COLLSEL_FORCE COLLSEL_FALLBACK COLLSEL_VERBOSE LD_PRELOAD

WORK=$(mktemp -d "${TMPDIR:-/tmp}/collsel-install-XXXXXX") || {
    echo "FAIL: cannot make a work directory" >&2
    exit 1
}
PREFIX=$WORK/prefix
LIB=$PREFIX/$LIBDIR
KEEP=0

cleanup() {
    if [[ $KEEP -eq 0 ]]; then
        rm -rf "$WORK"
    else
        echo "work directory kept: $WORK" >&2
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    KEEP=1
    exit 1
}

# Runs a command, its output into WORK/$1.log; fails showing the log's end.
logged() {
    local name=$1
    shift
    "$@" >"$WORK/$name.log" 2>&1 || {
        tail -n 30 "$WORK/$name.log" >&2
        fail "$name: '$*' failed (log: $WORK/$name.log)"
    }
}

# The file (symbolic links resolved) that ldd finds for the library $2 needed by the object $1.
resolved() {
    local path
    path=$(ldd "$1" | awk -v lib="$2" '$1 == lib { print $3 }')
    [[ -n $path ]] && readlink -f "$path"
}

echo "== 1. install into $PREFIX"
logged install "$CMAKE" --install "$BUILD" --prefix "$PREFIX"
for f in include/collsel.h include/collsel_iso.h "$LIBDIR/libcollsel.so" "$LIBDIR/libcollsel.so.0" \
    "$LIBDIR/libcollsel_pmpi.so" "$LIBDIR/libcollsel_pmpi.so.0" \
    "$LIBDIR/cmake/collsel/collselConfig.cmake" \
    "$LIBDIR/cmake/collsel/collselConfigVersion.cmake" \
    "$LIBDIR/cmake/collsel/collselTargets.cmake" \
    "$LIBDIR/pkgconfig/collsel.pc" "$LIBDIR/pkgconfig/collsel_pmpi.pc" bin/collsel-bench \
    bin/collsel-report; do
    [[ -e $PREFIX/$f ]] || fail "not installed: $f"
done
headers=$(cd "$PREFIX/include" && echo *)
[[ $headers == "collsel.h collsel_iso.h" ]] ||
    fail "include/ holds other headers than collsel.h collsel_iso.h: $headers"
grep -qx "prefix=$PREFIX" "$LIB/pkgconfig/collsel.pc" ||
    fail "collsel.pc does not name the prefix $PREFIX: $(head -n 1 "$LIB/pkgconfig/collsel.pc")"
where=$(resolved "$LIB/libcollsel_pmpi.so" libcollsel.so.0)
[[ $where == "$(readlink -f "$LIB/libcollsel.so.0")" ]] ||
    fail "libcollsel_pmpi.so finds libcollsel.so.0 at '$where', not in $LIB (RPATH)"
# collsel-bench carries the internals (collsel_static): one copy of the selector, none shared.
! ldd "$PREFIX/bin/collsel-bench" | grep -q libcollsel.so ||
    fail "collsel-bench links libcollsel.so (it must carry collsel_static alone)"
# libcollsel exports collsel.h's API, libcollsel_pmpi every collective's MPI_* wrapper (the
# 16 classic and 5 neighbourhood ones, their nonblocking and persistent forms), nothing else
logged exports "$SRC/tests/selector/check_exports.sh" "$PREFIX/include/collsel.h" \
    "$SRC/algorithms/core/coll.def" "$LIB/libcollsel.so" "$LIB/libcollsel_pmpi.so"
logged install-destdir env DESTDIR="$WORK/stage" "$CMAKE" --install "$BUILD" --prefix /opt/cs
grep -qx "prefix=/opt/cs" "$WORK/stage/opt/cs/$LIBDIR/pkgconfig/collsel.pc" ||
    fail "with DESTDIR, collsel.pc does not name the prefix /opt/cs"

echo "== 2. the installed collsel-bench: a tiny tuning run"
logged tune "$MPIEXEC" --allow-run-as-root -np 2 "$PREFIX/bin/collsel-bench" \
    --db "$WORK/tune.db" --colls allreduce,allgather,allgatherv --sizes 8 --quiet
[[ -s $WORK/tune.db ]] || fail "collsel-bench wrote no database"
logged report "$PREFIX/bin/collsel-report" "$WORK/tune.db" --format png
[[ -s $WORK/tune-report/index.html ]] || fail "the installed collsel-report drew no index.html"

echo "== 3. examples/ built against the install: find_package(collsel) and pkg-config"
logged configure "$CMAKE" -S "$EXAMPLES" -B "$WORK/ex" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found=$(sed -n 's/^collsel_DIR:PATH=//p' "$WORK/ex/CMakeCache.txt")
[[ $found == "$LIB/cmake/collsel" ]] || fail "find_package(collsel) found '$found'"
logged build "$CMAKE" --build "$WORK/ex" -j 2
for exe in cg_collsel cg_pmpi; do
    where=$(resolved "$WORK/ex/$exe" libcollsel.so.0)
    [[ $where == "$(readlink -f "$LIB/libcollsel.so.0")" ]] ||
        fail "$exe links libcollsel.so.0 at '$where'"
done
[[ -z $(resolved "$WORK/ex/cg_plain" libcollsel.so.0) ]] || fail "cg_plain links libcollsel"

export PKG_CONFIG_PATH=$LIB/pkgconfig
flags=$("$PKG_CONFIG" --cflags --libs collsel) || fail "pkg-config --cflags --libs collsel"
read -ra pc_collsel <<<"$flags"
flags=$("$PKG_CONFIG" --cflags --libs collsel_pmpi) || fail "pkg-config ... collsel_pmpi"
read -ra pc_pmpi <<<"$flags"
logged pc-collsel "$MPICC" -std=c11 -O2 -DUSE_COLLSEL "$EXAMPLES/cg.c" -o "$WORK/cg_collsel_pc" \
    "${pc_collsel[@]}" -lm -Wl,-rpath,"$LIB"
logged pc-pmpi "$CC" -std=c11 -O2 "$EXAMPLES/cg.c" -o "$WORK/cg_pmpi_pc" \
    "${pc_pmpi[@]}" -lm -Wl,-rpath,"$LIB"
logged pc-newcolls "$CC" -std=c11 -O2 "$SRC/tests/install/newcolls.c" -o "$WORK/newcolls" \
    "${pc_pmpi[@]}" -Wl,-rpath,"$LIB"

echo "== 4. runs"
REF_ITERS=""
REF_SUM=""

# run NAME NP EXE MODE [mpirun options...]: MODE is plain (no "collsel:" line expected) or
# collsel (some expected); every run has COLLSEL_VERBOSE=2 and the tuning database.
run() {
    local name=$1 np=$2 exe=$3 mode=$4
    shift 4
    local out=$WORK/$name.np$np.out err=$WORK/$name.np$np.err
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np "$np" -x COLLSEL_VERBOSE=2 \
        -x COLLSEL_DB="$WORK/tune.db" "$@" "$exe" >"$out" 2>"$err" || {
        cat "$out" >&2
        tail -n 20 "$err" >&2
        fail "$name at np $np: exit status not 0"
    }
    local line iters sum
    line=$(grep '^cg: ' "$out")
    [[ $(grep -c '^cg: ' "$out") -eq 1 ]] || fail "$name at np $np: not one result line"
    [[ $line == *" nprocs=$np "* ]] || fail "$name at np $np: $line"
    iters=$(sed -n 's/.* iterations=\([0-9]*\) .*/\1/p' <<<"$line")
    sum=$(sed -n 's/.* checksum=\([^ ]*\).*/\1/p' <<<"$line")
    if [[ $mode == plain ]]; then
        if grep -q '^collsel:' "$err"; then
            fail "$name at np $np: collsel output from a plain build"
        fi
    else
        grep -q '^collsel:' "$err" || fail "$name at np $np: no collsel output (not dispatched?)"
    fi
    if [[ -z $REF_ITERS ]]; then
        REF_ITERS=$iters
        REF_SUM=$sum
    fi
    awk -v i="$iters" -v s="$sum" -v ri="$REF_ITERS" -v rs="$REF_SUM" 'BEGIN {
            d = s - rs; if (d < 0) d = -d; a = rs < 0 ? -rs : rs;
            exit !((i - ri) * (i - ri) <= 1 && d <= 1e-9 * a) }' ||
        fail "$name at np $np: iterations=$iters checksum=$sum, cg_plain np 2: $REF_ITERS $REF_SUM"
    printf '  %-22s np %d  %s\n' "$name" "$np" "${line#cg: }"
}

EX=$WORK/ex
run cg_plain 2 "$EX/cg_plain" plain
run cg_collsel 2 "$EX/cg_collsel" collsel
run cg_pmpi 2 "$EX/cg_pmpi" collsel
run cg_collsel_pc 2 "$WORK/cg_collsel_pc" collsel
run cg_pmpi_pc 2 "$WORK/cg_pmpi_pc" collsel
run cg_plain+preload 2 "$EX/cg_plain" collsel -x LD_PRELOAD="$LIB/libcollsel_pmpi.so"
for exe in cg_plain cg_collsel cg_pmpi; do
    mode=collsel
    [[ $exe == cg_plain ]] && mode=plain
    run "$exe" 3 "$EX/$exe" "$mode"
done
run cg_pmpi+force 3 "$EX/cg_pmpi" collsel -x COLLSEL_FORCE="$FORCE"
run cg_plain+preload+force 3 "$EX/cg_plain" collsel -x COLLSEL_FORCE="$FORCE" \
    -x LD_PRELOAD="$LIB/libcollsel_pmpi.so"
for name in cg_pmpi+force cg_plain+preload+force; do
    for alg in allreduce/recursive_doubling allgatherv/ring; do
        grep -q "$alg" "$WORK/$name.np3.err" || fail "$name: no mention of forced $alg"
    done
done

# The collectives of issue 15 through the installed wrappers, a point-to-point algorithm forced
# for each: results equal the MPI library's, and the log shows every forced algorithm running.
NEW_FORCE='alltoall/bruck;alltoallv/pairwise;barrier/dissemination;reduce_scatter_block/recursive_halving'
NEW_FORCE+=';reduce_scatter/ring;scan/recursive_doubling;exscan/linear;gatherv/binomial;scatterv/binomial'
"$MPIEXEC" --allow-run-as-root --oversubscribe -np 3 -x COLLSEL_FORCE="$NEW_FORCE" \
    -x COLLSEL_VERBOSE=3 "$WORK/newcolls" >"$WORK/newcolls.out" 2>"$WORK/newcolls.err" || {
    tail -n 20 "$WORK/newcolls.err" >&2
    fail "newcolls at np 3: exit status not 0"
}
grep -qx "newcolls: [1-9][0-9]* checks, 0 failed" "$WORK/newcolls.out" ||
    fail "newcolls at np 3: $(cat "$WORK/newcolls.out")"
for alg in ${NEW_FORCE//;/ }; do
    grep -q -E " bytes: ${alg}(\([^)]*\))? \(forced\)" "$WORK/newcolls.err" ||
        fail "newcolls: the log shows no call of forced $alg"
done
printf '  %-22s np %d  %s, forced: %s\n' newcolls 3 "$(cat "$WORK/newcolls.out")" "$NEW_FORCE"

echo "PASS"
