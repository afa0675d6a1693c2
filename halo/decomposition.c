#include "sf_decomp.h"
#include "sf_error.h"

long sf_slab_planes(long nz_global, int nranks, int rank, long *z0)
{
    long base = nz_global / nranks, extra = nz_global % nranks;
    long n = base + (rank < extra ? 1 : 0);
    if (z0) *z0 = (long)rank * base + (rank < extra ? rank : extra);
    return n;
}

void sf_slab_init(sf_slab *slab, MPI_Comm comm, long nz_global)
{
    slab->comm = comm;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &slab->rank), "querying the rank");
    SF_MPI_CHECK(MPI_Comm_size(comm, &slab->nranks), "querying the rank count");
    slab->nz = sf_slab_planes(nz_global, slab->nranks, slab->rank, &slab->z0);
    slab->lower = slab->rank > 0 ? slab->rank - 1 : MPI_PROC_NULL;
    slab->upper = slab->rank < slab->nranks - 1 ? slab->rank + 1 : MPI_PROC_NULL;
}

int sf_slab_max_ranks(long nz_global, long min_planes)
{
    long r = nz_global / min_planes;
    return r < 1 ? 1 : (int)(r > 1 << 30 ? 1 << 30 : r);
}
