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

void sf_halo_init(sf_halo *h, const sf_slab *slab, const sf_cpml_axis *z_axis, int groups,
                  const int *in_z_layers)
{
    if (groups > SF_MAX_HALO_GROUPS) sf_fatal("internal: %d halo groups", groups);
    h->slab = slab;
    h->groups = groups;
    for (int g = 0; g < groups; ++g) {
        int lower = !in_z_layers[g] || boundary_in_layer(z_axis, slab->z0);
        int upper = !in_z_layers[g] || boundary_in_layer(z_axis, slab->z0 + slab->nz);
        h->peer[g][SF_SIDE_LOWER] = lower ? slab->lower : MPI_PROC_NULL;
        h->peer[g][SF_SIDE_UPPER] = upper ? slab->upper : MPI_PROC_NULL;
    }
}

static int has_peer(const sf_halo *h, int g)
{
    return h->peer[g][SF_SIDE_LOWER] != MPI_PROC_NULL || h->peer[g][SF_SIDE_UPPER] != MPI_PROC_NULL;
}

void sf_halo_begin(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, int g)
{
    if (g < 0 || g >= h->groups) sf_fatal("internal: halo group %d of %d", g, h->groups);
    for (int s = 0; s < 2; ++s)
        if (h->peer[g][s] != MPI_PROC_NULL) ops->halo_pack(b, g, (sf_side)s);
}

/* What an exchange was doing, for its error message: formatted only when
 * an MPI call fails (SF_MPI_CHECK evaluates it then), not every step. */
static const char *swap_what(char *what, size_t len, int tag, const int peer[2])
{
    char side[2][16];
    for (int s = 0; s < 2; ++s)
        if (peer[s] != MPI_PROC_NULL) snprintf(side[s], sizeof side[s], "%d", peer[s]);
        else snprintf(side[s], sizeof side[s], "none");
    snprintf(what, len, "exchanging halo group %d with the ranks below (%s) and above (%s)",
             tag / 2, side[SF_SIDE_LOWER], side[SF_SIDE_UPPER]);
    return what;
}

void sf_halo_swap(const sf_slab *slab, const int peer[2], int tag, size_t count,
                  float *const send[2], float *const recv[2], sf_timers *t)
{
    if (count > INT_MAX)
        sf_fatal("a halo of %zu floats exceeds what one MPI message can carry; "
                 "use more ranks or a smaller nx*ny", count);
    sf_timer_start(t);
    char what[128];
    /* Both directions at once, receives posted first: a message down is
     * tagged tag, one up tag + 1. A side without a rank posts nothing (a
     * backend keeps no buffers there). */
    const int arriving[2] = {tag + 1, tag}, leaving[2] = {tag, tag + 1};
    MPI_Request request[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int s = 0; s < 2; ++s)
        if (peer[s] != MPI_PROC_NULL)
            SF_MPI_CHECK(MPI_Irecv(recv[s], (int)count, MPI_FLOAT, peer[s], arriving[s], slab->comm,
                                   &request[s]),
                         swap_what(what, sizeof what, tag, peer));
    for (int s = 0; s < 2; ++s)
        if (peer[s] != MPI_PROC_NULL)
            SF_MPI_CHECK(MPI_Isend(send[s], (int)count, MPI_FLOAT, peer[s], leaving[s], slab->comm,
                                   &request[2 + s]),
                         swap_what(what, sizeof what, tag, peer));
    SF_MPI_CHECK(MPI_Waitall(4, request, MPI_STATUSES_IGNORE), swap_what(what, sizeof what, tag, peer));
    sf_timer_stop(t, SF_PHASE_HALO_MPI);
}

void sf_halo_finish(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, int g,
                    sf_timers *t)
{
    if (!has_peer(h, g)) return;
    size_t count = ops->halo_count(b, g);
    ops->halo_wait_packed(b);
    float *const send[2] = {ops->halo_send_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_send_buffer(b, g, SF_SIDE_UPPER)};
    float *const recv[2] = {ops->halo_recv_buffer(b, g, SF_SIDE_LOWER),
                            ops->halo_recv_buffer(b, g, SF_SIDE_UPPER)};
    sf_halo_swap(h->slab, h->peer[g], 2 * g, count, send, recv, t);
    for (int s = 0; s < 2; ++s)
        if (h->peer[g][s] != MPI_PROC_NULL) ops->halo_unpack(b, g, (sf_side)s);
}

void sf_halo_exchange(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b,
                      int g, sf_timers *t)
{
    sf_halo_begin(h, ops, b, g);
    sf_halo_finish(h, ops, b, g, t);
}
