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
 * goes one plane each to the first ranks. */
long sf_slab_planes(long nz_global, int nranks, int rank, long *z0);

/* Fills slab for the calling rank of comm. */
void sf_slab_init(sf_slab *slab, MPI_Comm comm, long nz_global);

/* Largest number of ranks whose slabs all have at least min_planes. */
int sf_slab_max_ranks(long nz_global, long min_planes);

#endif
