/* The instability guard's measure on the CPU, for every physics: sums of
 * squares per region (sf_regions.h), in double. Each plane is summed by
 * one thread and the planes are added in order, so the result does not
 * depend on the number of threads. */
#include "cpu_common.h"
#include "sf_error.h"

#include <stdlib.h>

static double squares(const float *row, long lo, long hi)
{
    double sum = 0.0;
    #pragma omp simd reduction(+ : sum)
    for (long i = lo; i < hi; ++i) sum += (double)row[i] * (double)row[i];
    return sum;
}

/* sf_region_of's rule by runs of the row: the x layers' points at least
 * as near their face as the row's y or z layer, then the rest. */
static void add_row(const sf_regions *r, const float *row, long j, long gk, double *sums)
{
    const long nx = r->n[0];
    int across;
    const long nearest = sf_row_region(r, j, gk, &across);
    long lo = r->thick[0][0], hi = nx - r->thick[0][1];
    if (nearest >= 0) {
        lo = lo < nearest + 1 ? lo : nearest + 1;
        hi = hi > nx - 1 - nearest ? hi : nx - 1 - nearest;
    }
    hi = hi > lo ? hi : lo;
    sums[SF_REGION_XMIN] += squares(row, 0, lo);
    sums[across] += squares(row, lo, hi);
    sums[SF_REGION_XMAX] += squares(row, hi, nx);
}

int sf_cpu_field_norms(const sf_layout *L, const sf_regions *r, const float *const *fields,
                       int count, double sums[][SF_REGIONS])
{
    if (count > SF_GUARD_MAX_FIELDS) sf_fatal("internal: %d fields for the guard", count);
    double *plane = sf_malloc((size_t)(L->nz ? L->nz : 1) * SF_REGIONS * sizeof(double),
                              "the instability guard's sums");
    for (int f = 0; f < count; ++f) {
        #pragma omp parallel for schedule(static)
        for (long k = 0; k < L->nz; ++k) {
            double *s = plane + k * SF_REGIONS;
            for (int q = 0; q < SF_REGIONS; ++q) s[q] = 0.0;
            for (long j = 0; j < L->ny; ++j)
                add_row(r, fields[f] + sf_field_index(L, 0, j, k), j, r->z0 + k, s);
        }
        for (int q = 0; q < SF_REGIONS; ++q) sums[f][q] = 0.0;
        for (long k = 0; k < L->nz; ++k)
            for (int q = 0; q < SF_REGIONS; ++q) sums[f][q] += plane[k * SF_REGIONS + q];
    }
    free(plane);
    return count;
}
