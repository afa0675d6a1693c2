/* Z-slab domain decomposition: rank r owns planes [z0, z0 + nz). */
#ifndef SF_DECOMP_H
#define SF_DECOMP_H

#include <mpi.h>

typedef struct {
    MPI_Comm comm;
    int rank, nranks;
    long z0, nz;        /* first owned global plane and count */
    int lower, upper;   /* neighbours at smaller / larger z, or MPI_PROC_NULL */
} sf_slab;

/* Planes owned by rank of nranks for nz_global planes: the remainder
 * goes one plane each to the first ranks (the equal cut). */
long sf_slab_planes(long nz_global, int nranks, int rank, long *z0);

/* The cut by cost: start[r] is rank r's first plane (start[0] = 0,
 * start[nranks] = nz), each slab at least min_planes where nz allows. A
 * rank's cost is its planes' and, per neighbour (one at either end of
 * the grid, two between), neighbour_cost. Every rank's share is the
 * total over nranks; rank r's slab ends at the plane where the summed
 * plane costs are nearest the shares of ranks 0..r less their
 * neighbours' costs, so no rank costs more than its share by over one
 * plane's cost (before min_planes pushes a boundary). Where the planes
 * cost the same and so do the ranks' neighbours (no z layers, or at most
 * 2 ranks) it is the equal cut. */
void sf_slab_cut(const double *plane_cost, long nz, int nranks, double neighbour_cost,
                 long min_planes, long *start);

/* Fills slab for the calling rank of comm, which owns planes
 * [start[rank], start[rank + 1]). */
void sf_slab_init(sf_slab *slab, MPI_Comm comm, const long *start);

/* Largest number of ranks whose slabs all have at least min_planes. */
int sf_slab_max_ranks(long nz_global, long min_planes);

#endif
