/* The instability guard's search: the first owned point of a field that
 * is not finite, as the CPU backends scan for it, and the position every
 * backend reports for an owned point's number (x fastest, then y, z). */
#ifndef SF_NONFINITE_H
#define SF_NONFINITE_H

#include "sf_backend.h"
#include "sf_layout.h"

static inline sf_nonfinite sf_nonfinite_at(int field, long first, long nx, long ny)
{
    sf_nonfinite at;   /* no compound literal: the CUDA sources include this too */
    at.field = field;
    at.i = first % nx, at.j = first / nx % ny, at.k = first / (nx * ny);
    return at;
}

/* The number of the first owned point of field (sf_layout's layout, with
 * halos) that is NaN or infinite, or -1. */
long sf_first_nonfinite(const sf_layout *L, const float *field);

#endif
