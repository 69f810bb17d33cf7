/* Common clock and start windows (see sync.h). */
#include "sync.h"

#include <sched.h>

enum { PINGS = 20, BCASTS = 20 };
#define MIN_LEAD_S 20e-6

double cs_bench_sync_now(const cs_bench_sync_t *s) {
    return PMPI_Wtime() + s->offset;
}

int cs_bench_sync_init(cs_bench_sync_t *s, MPI_Comm comm) {
    int rc = CS_OK;
    int rank, p;
    double t0, bcast = 0;
    s->offset = 0;
    s->lead = s->lead0 = MIN_LEAD_S;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &p));
    for (int peer = 1; peer < p; peer++) {
        double best_rtt = 1e30, best_offset = 0;
        for (int k = 0; k < PINGS; k++) {
            if (rank == 0) {
                double dummy = 0, now;
                CS_MPI_CHECK(PMPI_Recv(&dummy, 1, MPI_DOUBLE, peer, 1, comm, MPI_STATUS_IGNORE));
                now = PMPI_Wtime();
                CS_MPI_CHECK(PMPI_Send(&now, 1, MPI_DOUBLE, peer, 2, comm));
            } else if (rank == peer) {
                double sent = PMPI_Wtime(), remote = 0, back;
                CS_MPI_CHECK(PMPI_Send(&sent, 1, MPI_DOUBLE, 0, 1, comm));
                CS_MPI_CHECK(PMPI_Recv(&remote, 1, MPI_DOUBLE, 0, 2, comm, MPI_STATUS_IGNORE));
                back = PMPI_Wtime();
                if (back - sent < best_rtt) {
                    best_rtt = back - sent;
                    best_offset = remote - 0.5 * (sent + back);
                }
            }
        }
        if (rank == peer) {
            s->offset = best_offset;
        }
    }
    CS_MPI_CHECK(PMPI_Barrier(comm));
    t0 = PMPI_Wtime();
    for (int k = 0; k < BCASTS; k++) {
        double v = t0;
        CS_MPI_CHECK(PMPI_Bcast(&v, 1, MPI_DOUBLE, 0, comm));
        CS_MPI_CHECK(PMPI_Barrier(comm));
    }
    bcast = (PMPI_Wtime() - t0) / BCASTS;
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &bcast, 1, MPI_DOUBLE, MPI_MAX, comm));
    s->lead = 2 * bcast > MIN_LEAD_S ? 2 * bcast : MIN_LEAD_S;
    s->lead0 = s->lead;
out:
    return rc;
}

int cs_bench_sync_start(const cs_bench_sync_t *s, MPI_Comm comm, double *start, int *late) {
    int rc = CS_OK;
    int rank;
    double t = 0;
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    if (rank == 0) {
        t = cs_bench_sync_now(s) + s->lead;
    }
    CS_MPI_CHECK(PMPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm));
    *late = cs_bench_sync_now(s) > t;
    while (cs_bench_sync_now(s) < t) {
        sched_yield(); /* oversubscribed ranks need the core to reach the start at all */
    }
    *start = t;
out:
    return rc;
}

int cs_bench_sync_late(cs_bench_sync_t *s) {
    int at_max = s->lead >= CS_BENCH_LEAD_MAX_S;
    s->lead = 2 * s->lead < CS_BENCH_LEAD_MAX_S ? 2 * s->lead : CS_BENCH_LEAD_MAX_S;
    return at_max;
}

void cs_bench_sync_on_time(cs_bench_sync_t *s) {
    s->lead = 0.75 * s->lead > s->lead0 ? 0.75 * s->lead : s->lead0;
}
