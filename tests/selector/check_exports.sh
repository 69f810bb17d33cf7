#!/usr/bin/env bash
# The shared libraries export exactly the public API: libcollsel the COLLSEL_API functions of
# collsel.h and collsel_*.h, libcollsel_pmpi the MPI_* wrappers of coll.def (one per CS_COLL line, MPI_<Mpi>).
# Nothing internal (cs_*) may leak into applications that link or preload them.
# Usage: check_exports.sh collsel.h coll.def libcollsel.so libcollsel_pmpi.so
set -euo pipefail
header=$1 table=$2 lib=$3 pmpi=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Defined dynamic symbols, without what the linker itself defines.
exports() {
    nm -D --defined-only "$1" | awk '{ print $NF }' |
        grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u
}

# collsel.h and its siblings collsel_*.h (collsel_iso.h).
# (declarations may wrap after the return type: lines are joined first)
cat "$header" "${header%.h}"_*.h | tr '\n' ' ' | grep -oE 'COLLSEL_API [^(;]*[ *](collsel_[a-z_]+)\(' |
    sed -E 's/.*(collsel_[a-z_]+)\($/\1/' | sort -u >"$work/want.collsel"
sed -nE 's/^CS_COLL\([A-Z_]+, [a-z_]+, [01], [01], [01], ([A-Za-z_]+),.*/MPI_\1/p' "$table" |
    sort -u >"$work/want.collsel_pmpi"
exports "$lib" >"$work/got.collsel"
exports "$pmpi" >"$work/got.collsel_pmpi"

status=0
for which in collsel collsel_pmpi; do
    if [ ! -s "$work/want.$which" ]; then
        echo "check_exports: no expected symbols read for $which (header or table changed?)" >&2
        status=1
    elif ! diff -u "$work/want.$which" "$work/got.$which" >"$work/diff.$which"; then
        echo "check_exports: lib$which exports other symbols than its public API" \
            "(- missing, + extra):" >&2
        tail -n +3 "$work/diff.$which" | grep -E '^[-+]' >&2
        status=1
    else
        echo "lib$which: $(wc -l <"$work/got.$which") symbols, exactly the public API"
    fi
done
exit $status
