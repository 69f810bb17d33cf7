/* LogGP parameters by ping-pong (see loggp.h). */
#include "loggp.h"

#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 10, TAG = 7 };

int cs_bench_loggp_fit(const cs_bench_loggp_raw_t *raw, cs_db_loggp_t *l) {
    const double in[] = {raw->rtt_small_us, raw->rtt_large_us, raw->send_us, raw->burst_us};
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        if (!isfinite(in[i]) || in[i] < 0) {
            return CS_ERR_ARG;
        }
    }
    l->o_us = raw->send_us > CS_BENCH_LOGGP_MIN_O ? raw->send_us : CS_BENCH_LOGGP_MIN_O;
    l->g_us = raw->burst_us;
    l->l_us = fmax(0.0, raw->rtt_small_us / 2 - 2 * l->o_us);
    l->g_per_byte_us = fmax(0.0, (raw->rtt_large_us - raw->rtt_small_us) / 2 /
                                     (CS_BENCH_LOGGP_LARGE - CS_BENCH_LOGGP_SMALL));
    return CS_OK;
}

/* The median of x[0..n-1] (sorted in place). */
static int median(double *x, int n, double *m) {
    int rc = CS_OK;
    CS_CHECK(cs_stats_sort(x, (size_t)n));
    CS_CHECK(cs_stats_quantile(x, (size_t)n, 0.5, m));
out:
    return rc;
}

/* Rank 0's median round trip of `bytes` with rank 1. */
static int ping_pong(int rank, char *buf, int bytes, double *t, MPI_Comm comm, double *rtt) {
    int rc = CS_OK;
    for (int i = -WARMUP; i < CS_BENCH_LOGGP_REPS; i++) {
        double t0 = PMPI_Wtime();
        if (rank == 0) {
            CS_MPI_CHECK(PMPI_Send(buf, bytes, MPI_BYTE, 1, TAG, comm));
            CS_MPI_CHECK(PMPI_Recv(buf, bytes, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE));
        } else {
            CS_MPI_CHECK(PMPI_Recv(buf, bytes, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE));
            CS_MPI_CHECK(PMPI_Send(buf, bytes, MPI_BYTE, 0, TAG, comm));
        }
        if (i >= 0) {
            t[i] = (PMPI_Wtime() - t0) * 1e6;
        }
    }
    if (rank == 0) {
        CS_CHECK(median(t, CS_BENCH_LOGGP_REPS, rtt));
    }
out:
    return rc;
}

/* Rank 0's median time per send in bursts of `burst` small sends (1: one send), each burst
 * acknowledged by rank 1. */
static int sends(int rank, char *buf, int burst, double *t, MPI_Comm comm, double *per_send) {
    int rc = CS_OK;
    for (int i = -WARMUP; i < CS_BENCH_LOGGP_REPS; i++) {
        if (rank == 0) {
            double t0 = PMPI_Wtime();
            for (int j = 0; j < burst; j++) {
                CS_MPI_CHECK(PMPI_Send(buf, CS_BENCH_LOGGP_SMALL, MPI_BYTE, 1, TAG, comm));
            }
            if (i >= 0) {
                t[i] = (PMPI_Wtime() - t0) * 1e6 / burst;
            }
            CS_MPI_CHECK(PMPI_Recv(buf, 1, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE));
        } else {
            for (int j = 0; j < burst; j++) {
                CS_MPI_CHECK(PMPI_Recv(buf, CS_BENCH_LOGGP_SMALL, MPI_BYTE, 0, TAG, comm,
                                       MPI_STATUS_IGNORE));
            }
            CS_MPI_CHECK(PMPI_Send(buf, 1, MPI_BYTE, 0, TAG, comm));
        }
    }
    if (rank == 0) {
        CS_CHECK(median(t, CS_BENCH_LOGGP_REPS, per_send));
    }
out:
    return rc;
}

int cs_bench_loggp_measure(MPI_Comm comm, cs_bench_loggp_raw_t *raw, cs_db_loggp_t *l) {
    int rc = CS_OK, rank, nprocs, status = CS_OK;
    char *buf = NULL;
    double *t = NULL;
    double v[4] = {0, 0, 0, 0};
    CS_MPI_CHECK(PMPI_Comm_rank(comm, &rank));
    CS_MPI_CHECK(PMPI_Comm_size(comm, &nprocs));
    CS_REQUIRE(nprocs >= 2, CS_ERR_ARG);
    if (rank < 2) {
        buf = calloc(CS_BENCH_LOGGP_LARGE, 1);
        t = calloc(CS_BENCH_LOGGP_REPS, sizeof(double));
        status = buf == NULL || t == NULL ? CS_ERR_NOMEM : CS_OK;
    }
    CS_MPI_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MIN, comm));
    CS_CHECK(status);
    if (rank < 2) {
        CS_CHECK(ping_pong(rank, buf, CS_BENCH_LOGGP_SMALL, t, comm, &v[0]));
        CS_CHECK(ping_pong(rank, buf, CS_BENCH_LOGGP_LARGE, t, comm, &v[1]));
        CS_CHECK(sends(rank, buf, 1, t, comm, &v[2]));
        CS_CHECK(sends(rank, buf, CS_BENCH_LOGGP_BURST, t, comm, &v[3]));
    }
    CS_MPI_CHECK(PMPI_Bcast(v, 4, MPI_DOUBLE, 0, comm));
    raw->rtt_small_us = v[0];
    raw->rtt_large_us = v[1];
    raw->send_us = v[2];
    raw->burst_us = v[3];
    CS_CHECK(cs_bench_loggp_fit(raw, l));
out:
    free(buf);
    free(t);
    return rc;
}
