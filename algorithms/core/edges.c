/* The blocks of a neighbourhood collective, edge by edge (see edges.h). */
#include "edges.h"

cs_edge_t cs_edges_out(const cs_call_t *c, int i) {
    cs_edge_t e;
    e.peer = c->nbrs->destinations[i];
    e.type = c->send.type;
    switch (c->coll) {
    case CS_COLL_NEIGHBOR_ALLTOALL:
        e.buf = cs_ref_at(cs_ref(CS_SLOT_SEND, 0), (MPI_Aint)i * c->sendcount, &c->send);
        e.count = c->sendcount;
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        e.buf = cs_ref_at(cs_ref(CS_SLOT_SEND, 0), c->sdispls[i], &c->send);
        e.count = c->sendcounts[i];
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        e.buf = cs_ref(CS_SLOT_SEND, c->sdispls_bytes[i]);
        e.count = c->sendcounts[i];
        e.type = c->sendtypes[i];
        break;
    default: /* allgather, allgatherv: the whole send buffer to every neighbour */
        e.buf = cs_ref(CS_SLOT_SEND, 0);
        e.count = c->sendcount;
        break;
    }
    return e;
}

cs_edge_t cs_edges_in(const cs_call_t *c, int j) {
    cs_edge_t e;
    e.peer = c->nbrs->sources[j];
    e.type = c->recv.type;
    switch (c->coll) {
    case CS_COLL_NEIGHBOR_ALLGATHERV:
    case CS_COLL_NEIGHBOR_ALLTOALLV:
        e.buf = cs_ref_at(cs_ref(CS_SLOT_RECV, 0), c->displs[j], &c->recv);
        e.count = c->recvcounts[j];
        break;
    case CS_COLL_NEIGHBOR_ALLTOALLW:
        e.buf = cs_ref(CS_SLOT_RECV, c->rdispls_bytes[j]);
        e.count = c->recvcounts[j];
        e.type = c->recvtypes[j];
        break;
    default: /* allgather, alltoall: uniform blocks */
        e.buf = cs_ref_at(cs_ref(CS_SLOT_RECV, 0), (MPI_Aint)j * c->recvcount, &c->recv);
        e.count = c->recvcount;
        break;
    }
    return e;
}

int cs_edges_send(cs_sched_t *s, const cs_call_t *c, int i) {
    cs_edge_t e;
    if (!cs_coll_is_neighbor(c->coll) || c->nbrs == NULL || i < 0 || i >= c->nbrs->outdegree) {
        return CS_ERR_ARG;
    }
    e = cs_edges_out(c, i);
    return e.peer == MPI_PROC_NULL ? CS_OK : cs_sched_send_raw(s, e.peer, e.buf, e.count, e.type);
}

int cs_edges_recv(cs_sched_t *s, const cs_call_t *c, int j) {
    cs_edge_t e;
    if (!cs_coll_is_neighbor(c->coll) || c->nbrs == NULL || j < 0 || j >= c->nbrs->indegree) {
        return CS_ERR_ARG;
    }
    e = cs_edges_in(c, j);
    return e.peer == MPI_PROC_NULL ? CS_OK : cs_sched_recv_raw(s, e.peer, e.buf, e.count, e.type);
}
