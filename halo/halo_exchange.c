#include "sf_halo.h"
#include "sf_error.h"
#include "sf_layout.h"

#include <limits.h>
#include <stdio.h>

/* Does any half plane exchanged across the boundary at global plane z
 * (ranks swap half planes [z - SF_HALO, z + SF_HALO)) lie in a z layer? */
static int boundary_in_layer(const sf_cpml_axis *z_axis, long z)
{
    for (int side = 0; side < 2; ++side) {
        if (z_axis->thick[side] == 0) continue;
        sf_cpml_span s = sf_cpml_layer_span(z_axis, side, 0);
        if (s.hlo < z + SF_HALO && s.hhi > z - SF_HALO) return 1;
    }
    return 0;
}

void sf_halo_init(sf_halo *h, const sf_slab *slab, const sf_cpml_axis *z_axis)
{
    h->slab = slab;
    h->peer[SF_HALO_WAVEFIELD][SF_SIDE_LOWER] = slab->lower;
    h->peer[SF_HALO_WAVEFIELD][SF_SIDE_UPPER] = slab->upper;
    h->peer[SF_HALO_CPML_Z][SF_SIDE_LOWER] =
        boundary_in_layer(z_axis, slab->z0) ? slab->lower : MPI_PROC_NULL;
    h->peer[SF_HALO_CPML_Z][SF_SIDE_UPPER] =
        boundary_in_layer(z_axis, slab->z0 + slab->nz) ? slab->upper : MPI_PROC_NULL;
}

static int has_peer(const sf_halo *h, sf_halo_group g)
{
    return h->peer[g][SF_SIDE_LOWER] != MPI_PROC_NULL || h->peer[g][SF_SIDE_UPPER] != MPI_PROC_NULL;
}

void sf_halo_begin(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, sf_halo_group g)
{
    for (int s = 0; s < 2; ++s)
        if (h->peer[g][s] != MPI_PROC_NULL) ops->halo_pack(b, g, (sf_side)s);
}

void sf_halo_swap(const sf_slab *slab, const int peer[2], int tag, size_t count,
                  float *const send[2], float *const recv[2], sf_timers *t)
{
    const int lower = peer[SF_SIDE_LOWER], upper = peer[SF_SIDE_UPPER];
    if (count > INT_MAX)
        sf_fatal("a halo of %zu floats exceeds what one MPI message can carry; "
                 "use more ranks or a smaller nx*ny", count);
    sf_timer_start(t);
    const int tag_down = tag, tag_up = tag + 1;
    MPI_Comm comm = slab->comm;
    char what[96];
    snprintf(what, sizeof what, "exchanging halo group %d with ranks %d and %d", tag / 2, lower,
             upper);
    /* Send down / receive from above, then send up / receive from below. */
    SF_MPI_CHECK(MPI_Sendrecv(send[SF_SIDE_LOWER], (int)count, MPI_FLOAT, lower, tag_down,
                              recv[SF_SIDE_UPPER], (int)count, MPI_FLOAT, upper, tag_down, comm,
                              MPI_STATUS_IGNORE),
                 what);
    SF_MPI_CHECK(MPI_Sendrecv(send[SF_SIDE_UPPER], (int)count, MPI_FLOAT, upper, tag_up,
                              recv[SF_SIDE_LOWER], (int)count, MPI_FLOAT, lower, tag_up, comm,
                              MPI_STATUS_IGNORE),
                 what);
    sf_timer_stop(t, SF_PHASE_HALO_MPI);
}

void sf_halo_finish(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, sf_halo_group g,
                    sf_timers *t)
{
    if (!has_peer(h, g)) return;
    size_t count = ops->halo_count(b, g);
    ops->halo_wait_packed(b);
    float *const send[2] = {ops->halo_send_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_send_buffer(b, g, SF_SIDE_UPPER)};
    float *const recv[2] = {ops->halo_recv_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_recv_buffer(b, g, SF_SIDE_UPPER)};
    sf_halo_swap(h->slab, h->peer[g], 2 * (int)g, count, send, recv, t);
    for (int s = 0; s < 2; ++s)
        if (h->peer[g][s] != MPI_PROC_NULL) ops->halo_unpack(b, g, (sf_side)s);
}

void sf_halo_exchange(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b,
                      sf_halo_group g, sf_timers *t)
{
    sf_halo_begin(h, ops, b, g);
    sf_halo_finish(h, ops, b, g, t);
}
