/* <coll>/native: the MPI library's own collectives, called through PMPI.
 *
 * These are the baseline every other algorithm is measured against and the selector's
 * fallback. The normalised call resolved MPI_IN_PLACE into aliasing pointers (call.h); MPI
 * forbids aliased buffers, so MPI_IN_PLACE is passed again here when the caller used it.
 * Rounds, cost and requirements: whatever the MPI library does. Parameters: none.
 */
#include "core/algo.h"

static int status(int err) {
    return err == MPI_SUCCESS ? CS_OK : CS_ERR_MPI;
}

static const void *send_arg(const cs_call_t *c) {
    return c->in_place ? MPI_IN_PLACE : c->sendbuf;
}

static int run_bcast(const cs_call_t *c) {
    return status(PMPI_Bcast(c->recvbuf, c->recvcount, c->recv.type, c->root, c->comm));
}

static int run_gather(const cs_call_t *c) {
    return status(PMPI_Gather(send_arg(c), c->sendcount, c->send.type, c->recvbuf, c->recvcount,
                              c->recv.type, c->root, c->comm));
}

static int run_scatter(const cs_call_t *c) {
    void *recvbuf = c->in_place ? MPI_IN_PLACE : c->recvbuf;
    return status(PMPI_Scatter(c->sendbuf, c->sendcount, c->send.type, recvbuf, c->recvcount,
                               c->recv.type, c->root, c->comm));
}

static int run_reduce(const cs_call_t *c) {
    return status(
        PMPI_Reduce(send_arg(c), c->recvbuf, c->recvcount, c->recv.type, c->op, c->root, c->comm));
}

static int run_allreduce(const cs_call_t *c) {
    return status(
        PMPI_Allreduce(send_arg(c), c->recvbuf, c->recvcount, c->recv.type, c->op, c->comm));
}

static int run_allgather(const cs_call_t *c) {
    return status(PMPI_Allgather(send_arg(c), c->sendcount, c->send.type, c->recvbuf, c->recvcount,
                                 c->recv.type, c->comm));
}

static int run_allgatherv(const cs_call_t *c) {
    return status(PMPI_Allgatherv(send_arg(c), c->sendcount, c->send.type, c->recvbuf,
                                  c->recvcounts, c->displs, c->recv.type, c->comm));
}

#define NATIVE(coll_id, coll_name)                                                                 \
    const cs_algo_t cs_algo_##coll_name##_native = {                                               \
        .name = #coll_name "/native",                                                              \
        .coll = CS_COLL_##coll_id,                                                                 \
        .desc = "the MPI library's own collective",                                                \
        .run = run_##coll_name,                                                                    \
    };

NATIVE(BCAST, bcast)
NATIVE(GATHER, gather)
NATIVE(SCATTER, scatter)
NATIVE(REDUCE, reduce)
NATIVE(ALLREDUCE, allreduce)
NATIVE(ALLGATHER, allgather)
NATIVE(ALLGATHERV, allgatherv)
