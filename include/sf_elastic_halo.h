/* Halo exchange of the elastic solver: after each half-step the backend
 * packs the fields the other half-step reads across z (see
 * sf_elastic_backend.h) into one buffer per side, MPI swaps them
 * with the slab's neighbours, and the backend unpacks them. */
#ifndef SF_ELASTIC_HALO_H
#define SF_ELASTIC_HALO_H

#include "sf_decomp.h"
#include "sf_elastic_backend.h"
#include "sf_timers.h"

/* Starts packing half-step g's boundary planes for the neighbours. */
void sf_elastic_halo_begin(const sf_slab *slab, const sf_elastic_backend_ops *ops,
                           sf_elastic_backend *b, sf_half_step g);
/* Waits for the packs, swaps them (MPI time to t), queues the unpacking. */
void sf_elastic_halo_finish(const sf_slab *slab, const sf_elastic_backend_ops *ops,
                            sf_elastic_backend *b, sf_half_step g, sf_timers *t);

#endif
