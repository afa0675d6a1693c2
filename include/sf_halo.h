/* Halo exchange between Z-slab neighbours: the backend packs the 4
 * boundary planes of a field group into one contiguous buffer per
 * direction, nonblocking sends and receives swap them with both
 * neighbours at once, and the backend scatters what arrived into its halo
 * planes. */
#ifndef SF_HALO_H
#define SF_HALO_H

#include "sf_backend.h"
#include "sf_cpml.h"
#include "sf_decomp.h"
#include "sf_timers.h"

typedef struct {
    const sf_slab *slab;
    /* Neighbour rank per side for each group, MPI_PROC_NULL where nothing
     * crosses: a group of CPML z memory variables only crosses a boundary
     * that lies inside a z absorbing layer. */
    int peer[SF_MAX_HALO_GROUPS][2];
    int groups;
} sf_halo;

/* groups halo groups; in_z_layers[g]: group g crosses only where the
 * boundary lies in a z layer of z_axis. */
void sf_halo_init(sf_halo *h, const sf_slab *slab, const sf_cpml_axis *z_axis, int groups,
                  const int *in_z_layers);

/* Starts packing group g's boundary planes for the neighbours that take
 * them; the backend may go on computing while the packs complete. */
void sf_halo_begin(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, int g);
/* Waits for the packs, swaps them with the neighbours (MPI time goes to
 * t) and queues the unpacking of what arrived. */
void sf_halo_finish(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b, int g,
                    sf_timers *t);
/* The MPI part, for any backend: send[s] goes to peer[s] and recv[s]
 * comes from it, both sides and both directions in flight at once (tag
 * going down, tag + 1 going up); count floats each way, MPI time to t. */
void sf_halo_swap(const sf_slab *slab, const int peer[2], int tag, size_t count,
                  float *const send[2], float *const recv[2], sf_timers *t);
/* Both, back to back. */
void sf_halo_exchange(const sf_halo *h, const sf_backend_ops *ops, sf_backend *b,
                      int g, sf_timers *t);

#endif
