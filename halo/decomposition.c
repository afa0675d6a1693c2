#include "sf_decomp.h"
#include "sf_error.h"

#include <stdlib.h>

long sf_slab_planes(long nz_global, int nranks, int rank, long *z0)
{
    long base = nz_global / nranks, extra = nz_global % nranks;
    long n = base + (rank < extra ? 1 : 0);
    if (z0) *z0 = (long)rank * base + (rank < extra ? rank : extra);
    return n;
}

static int uniform(const double *cost, long nz)
{
    for (long z = 1; z < nz; ++z)
        if (cost[z] != cost[0]) return 0;
    return 1;
}

/* The plane boundary b (0..nz) whose prefix sum is nearest target; ties
 * go to the lower plane. */
static long nearest_boundary(const double *prefix, long nz, double target)
{
    long lo = 0, hi = nz;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (prefix[mid] <= target) lo = mid;
        else hi = mid;
    }
    return target - prefix[lo] <= prefix[hi] - target ? lo : hi;
}

static int neighbours(int rank, int nranks) { return (rank > 0) + (rank < nranks - 1); }

void sf_slab_cut(const double *plane_cost, long nz, int nranks, double neighbour_cost,
                 long min_planes, long *start)
{
    if (uniform(plane_cost, nz) && (neighbour_cost == 0.0 || nranks <= 2)) {
        for (int r = 0; r <= nranks; ++r)
            if (r < nranks) sf_slab_planes(nz, nranks, r, &start[r]);
        start[nranks] = nz;
        return;
    }
    double *prefix = sf_malloc((size_t)(nz + 1) * sizeof(double), "the slab cut");
    prefix[0] = 0.0;
    for (long z = 0; z < nz; ++z) prefix[z + 1] = prefix[z] + plane_cost[z];
    double share = prefix[nz];
    for (int r = 0; r < nranks; ++r) share += neighbours(r, nranks) * neighbour_cost;
    share /= nranks;
    start[0] = 0;
    start[nranks] = nz;
    double planes_before = 0.0;   /* the plane costs of ranks 0..r-1's shares */
    for (int r = 1; r < nranks; ++r) {
        planes_before += share - neighbours(r - 1, nranks) * neighbour_cost;
        start[r] = nearest_boundary(prefix, nz, planes_before);
    }
    free(prefix);
    for (int r = 1; r < nranks; ++r)
        if (start[r] < start[r - 1]) start[r] = start[r - 1];
    /* Thin slabs (a thick layer's planes cost most) grow to min_planes,
     * from either end, where nz holds that many per rank. */
    if (nz < (long)nranks * min_planes) min_planes = nz / nranks;
    for (int r = 1; r < nranks; ++r)
        if (start[r] < start[r - 1] + min_planes) start[r] = start[r - 1] + min_planes;
    for (int r = nranks - 1; r > 0; --r)
        if (start[r] > start[r + 1] - min_planes) start[r] = start[r + 1] - min_planes;
}

void sf_slab_init(sf_slab *slab, MPI_Comm comm, const long *start)
{
    slab->comm = comm;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &slab->rank), "querying the rank");
    SF_MPI_CHECK(MPI_Comm_size(comm, &slab->nranks), "querying the rank count");
    slab->z0 = start[slab->rank];
    slab->nz = start[slab->rank + 1] - start[slab->rank];
    slab->lower = slab->rank > 0 ? slab->rank - 1 : MPI_PROC_NULL;
    slab->upper = slab->rank < slab->nranks - 1 ? slab->rank + 1 : MPI_PROC_NULL;
}

int sf_slab_max_ranks(long nz_global, long min_planes)
{
    long r = nz_global / min_planes;
    return r < 1 ? 1 : (int)(r > 1 << 30 ? 1 << 30 : r);
}
