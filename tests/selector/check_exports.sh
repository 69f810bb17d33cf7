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
exports "$lib" >"$work/got.collsel"
exports "$pmpi" >"$work/got.collsel_pmpi"
# per CS_COLL line MPI_<Mpi> and its nonblocking MPI_<Impi> (the line's last argument), the
# persistent MPIX_<Mpi>_init where the MPI library has Open MPI's extension (MPI_<Mpi>_init
# under MPI 4), the completion and start functions, MPI_Init(_thread) and the communicator
# constructors (selector/pmpi.c)
mpis=$(sed -nE 's/^CS_COLL\([A-Z_]+, [a-z_]+, [01], [01], [01], ([A-Za-z_]+),.*/\1/p' "$table")
{
    for m in $mpis; do
        echo "MPI_$m"
        echo "MPI_I${m,}" # the nonblocking form: MPI_Ibcast, MPI_Ineighbor_allgather ...
        if grep -qx "MPIX_Bcast_init" "$work/got.collsel_pmpi"; then echo "MPIX_${m}_init"; fi
        if grep -qx "MPI_Bcast_init" "$work/got.collsel_pmpi"; then echo "MPI_${m}_init"; fi
    done
    printf 'MPI_%s\n' Wait Test Waitall Testall Waitany Testany Waitsome Testsome \
        Request_get_status Request_free Start Startall
    # MPI_Init (MPI_COMM_WORLD's context) and the communicator constructors (the new
    # communicator's context when its nonblocking calls could be served)
    printf 'MPI_%s\n' Init Init_thread Comm_dup Comm_dup_with_info Comm_split Comm_split_type \
        Comm_create Comm_create_group Cart_create Cart_sub Graph_create Dist_graph_create \
        Dist_graph_create_adjacent
} | sort -u >"$work/want.collsel_pmpi"

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
