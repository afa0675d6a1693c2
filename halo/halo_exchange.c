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

void sf_halo_exchange(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b,
                      sf_halo_group g, sf_timers *t)
{
    const int lower = h->peer[g][SF_SIDE_LOWER], upper = h->peer[g][SF_SIDE_UPPER];
    if (lower == MPI_PROC_NULL && upper == MPI_PROC_NULL) return;
    size_t count = ops->halo_count(b, g);
    if (count > INT_MAX)
        sf_fatal("a halo of %zu floats exceeds what one MPI message can carry; "
                 "use more ranks or a smaller nx*ny", count);

    sf_timer_start(t);
    if (lower != MPI_PROC_NULL) ops->halo_pack(b, g, SF_SIDE_LOWER);
    if (upper != MPI_PROC_NULL) ops->halo_pack(b, g, SF_SIDE_UPPER);
    ops->synchronize(b);
    sf_timer_stop(t, SF_PHASE_HALO_PACK);

    sf_timer_start(t);
    const int tag_down = 2 * (int)g, tag_up = 2 * (int)g + 1;
    MPI_Comm comm = h->slab->comm;
    char what[96];
    snprintf(what, sizeof what, "exchanging halo group %d with ranks %d and %d", (int)g, lower,
             upper);
    /* Send down / receive from above, then send up / receive from below. */
    SF_MPI_CHECK(MPI_Sendrecv(ops->halo_send_buffer(b, g, SF_SIDE_LOWER), (int)count, MPI_FLOAT,
                              lower, tag_down, ops->halo_recv_buffer(b, g, SF_SIDE_UPPER),
                              (int)count, MPI_FLOAT, upper, tag_down, comm, MPI_STATUS_IGNORE),
                 what);
    SF_MPI_CHECK(MPI_Sendrecv(ops->halo_send_buffer(b, g, SF_SIDE_UPPER), (int)count, MPI_FLOAT,
                              upper, tag_up, ops->halo_recv_buffer(b, g, SF_SIDE_LOWER),
                              (int)count, MPI_FLOAT, lower, tag_up, comm, MPI_STATUS_IGNORE),
                 what);
    sf_timer_stop(t, SF_PHASE_HALO_MPI);

    sf_timer_start(t);
    if (lower != MPI_PROC_NULL) ops->halo_unpack(b, g, SF_SIDE_LOWER);
    if (upper != MPI_PROC_NULL) ops->halo_unpack(b, g, SF_SIDE_UPPER);
    ops->synchronize(b);
    sf_timer_stop(t, SF_PHASE_HALO_UNPACK);
}
