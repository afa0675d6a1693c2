/* What the CPU kernels of an attenuating physics share: each point's
 * weights interpolated once, at creation, from the medium's table (a
 * portable build cannot vectorize the table's gathers, which every step
 * paid for: 20% of the visco-acoustic step at 96^3). */
#ifndef SF_CPU_RELAXATION_H
#define SF_CPU_RELAXATION_H

#include "cpu_physics.h"
#include "sf_relaxation.h"

/* Mechanism l's weight at every owned point of the slab (in a coarse
 * layout the point's own mechanism's, l unused), from law's table and each
 * point's coordinate in it (compact [nz][ny][nx]), in the owned-planes
 * layout; taken from the shared arena. */
float *sf_cpu_relaxation_weights(const sf_cpu_shared *shared, const sf_relaxation_law *law,
                                 const float *coordinate, int l);

#endif
