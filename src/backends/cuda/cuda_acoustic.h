/* The acoustic CUDA kernels (acoustic.cu) as a physics built on the same
 * update takes them (CUDA sources only): their table, whose entries it
 * keeps or replaces, and their state with standard linear solids that the
 * update relaxes through (the visco-acoustic memory variables). */
#ifndef SF_CUDA_ACOUSTIC_H
#define SF_CUDA_ACOUSTIC_H

#include "cuda_physics.h"

extern "C" {
#include "sf_relaxation.h"
}

extern const sf_cuda_physics sf_cuda_acoustic_kernels;

/* The acoustic state for p, whose first parameter is the velocity the
 * update uses, relaxing through relaxing's solids (NULL: none), which
 * must stay until the table's upload has run. */
void *sf_cuda_acoustic_create_relaxing(sf_cuda_common *c, const sf_problem *p,
                                       const sf_relaxation_medium *relaxing);

#endif
