/* The public entry points: the native repeat inline (cs_sel_start), then the call cache, the
 * rules and dispatch (dispatch.c), else the MPI library's collective. */
#include "collsel.h"

#include "select_int.h"

int collsel_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_BCAST, buffer, count, datatype, buffer, count,
                                       datatype, MPI_OP_NULL, root);
    switch (cs_sel_start(comm, &key, &at, buffer, buffer, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_bcast(&call, buffer, count, datatype, root);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, buffer, buffer));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int collsel_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, MPI_OP_NULL, root);
    switch (cs_sel_start(comm, &key, &at, sendbuf, recvbuf, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_gather(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                            root);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, sendbuf, recvbuf));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int collsel_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, MPI_OP_NULL, root);
    switch (cs_sel_start(comm, &key, &at, sendbuf, recvbuf, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_scatter(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             root);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, sendbuf, recvbuf));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int collsel_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_REDUCE, sendbuf, count, datatype, recvbuf, count,
                                       datatype, op, root);
    switch (cs_sel_start(comm, &key, &at, sendbuf, recvbuf, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_reduce(&call, sendbuf, recvbuf, count, datatype, op, root);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, sendbuf, recvbuf));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int collsel_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_ALLREDUCE, sendbuf, count, datatype, recvbuf, count,
                                       datatype, op, 0);
    switch (cs_sel_start(comm, &key, &at, sendbuf, recvbuf, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_allreduce(&call, sendbuf, recvbuf, count, datatype, op);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, sendbuf, recvbuf));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int collsel_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int rc;
    cs_sel_key_t key = cs_sel_make_key(CS_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, MPI_OP_NULL, 0);
    switch (cs_sel_start(comm, &key, &at, sendbuf, recvbuf, &rc)) {
    case CS_SEL_RAN:
        return cs_sel_mpi_status(rc);
    case CS_SEL_TO_DISPATCH:
        cs_call_fill_allgather(&call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, &key, sendbuf, recvbuf));
        }
        break;
    case CS_SEL_TO_PMPI:
        break;
    }
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int collsel_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm) {
    cs_sel_at_t at;
    cs_call_t call;
    int go_native = 1;
    /* The key (mean bytes per block) needs every count: normalisation computes it; calls with
     * count arrays are not cached. */
    if (cs_sel_enter(comm, &at.ctx, &at.sc) == CS_OK && !at.sc->native_only) {
        cs_call_fill_allgatherv(&call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype);
        if (cs_call_finish(&call, comm, at.ctx->rank, at.ctx->nprocs) == CS_OK) {
            go_native = cs_sel_goes_native(at.sc, CS_COLL_ALLGATHERV, call.bytes, &at.iv);
            if (go_native && cs_sel_hot.log_calls) {
                cs_sel_log_native(CS_COLL_ALLGATHERV, call.bytes);
            }
        }
    }
    if (!go_native) {
        return cs_sel_mpi_status(cs_sel_dispatch(&at, &call, NULL, sendbuf, recvbuf));
    }
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
}
