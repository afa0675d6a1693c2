#include "sf_elastic_halo.h"
#include "sf_halo.h"

/* Tags apart from the acoustic groups' (0..3), two per half-step. */
enum { TAG_BASE = 8 };

void sf_elastic_halo_begin(const sf_slab *slab, const sf_elastic_backend_ops *ops,
                           sf_elastic_backend *b, sf_half_step g)
{
    if (slab->lower != MPI_PROC_NULL) ops->halo_pack(b, g, SF_SIDE_LOWER);
    if (slab->upper != MPI_PROC_NULL) ops->halo_pack(b, g, SF_SIDE_UPPER);
}

void sf_elastic_halo_finish(const sf_slab *slab, const sf_elastic_backend_ops *ops,
                            sf_elastic_backend *b, sf_half_step g, sf_timers *t)
{
    if (slab->lower == MPI_PROC_NULL && slab->upper == MPI_PROC_NULL) return;
    ops->halo_wait_packed(b);
    const int peer[2] = {slab->lower, slab->upper};
    float *const send[2] = {ops->halo_send_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_send_buffer(b, g, SF_SIDE_UPPER)};
    float *const recv[2] = {ops->halo_recv_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_recv_buffer(b, g, SF_SIDE_UPPER)};
    sf_halo_swap(slab, peer, TAG_BASE + 2 * (int)g, ops->halo_count(b, g), send, recv, t);
    if (slab->lower != MPI_PROC_NULL) ops->halo_unpack(b, g, SF_SIDE_LOWER);
    if (slab->upper != MPI_PROC_NULL) ops->halo_unpack(b, g, SF_SIDE_UPPER);
}
