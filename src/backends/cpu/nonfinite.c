#include "sf_nonfinite.h"

#include <limits.h>
#include <math.h>

/* The first non-finite value of a row, or -1. x * 0 is NaN exactly when x
 * is not finite, so one vectorised sum tells whether to look closer. */
static long first_in_row(const float *row, long n)
{
    float probe = 0.0f;
    #pragma omp simd reduction(+ : probe)
    for (long i = 0; i < n; ++i) probe += row[i] * 0.0f;
    if (probe == probe) return -1;
    for (long i = 0; i < n; ++i)
        if (!isfinite(row[i])) return i;
    return -1;
}

long sf_first_nonfinite(const sf_layout *L, const float *field)
{
    long first = LONG_MAX;
    #pragma omp parallel for collapse(2) reduction(min : first) schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j) {
            long i = first_in_row(field + sf_field_index(L, 0, j, k), L->nx);
            if (i >= 0 && (k * L->ny + j) * L->nx + i < first) first = (k * L->ny + j) * L->nx + i;
        }
    return first == LONG_MAX ? -1 : first;
}
