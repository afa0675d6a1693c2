/* Host memory: what a rank's share of a job needs, estimated from the
 * sizes the backends allocate, against what its node offers each of its
 * ranks, so that a job too large fails in `check` with the numbers
 * instead of as an allocation on every rank. (A CUDA backend checks the
 * GPU's memory when it is created.) */
#ifndef SF_MEMORY_CHECK_H
#define SF_MEMORY_CHECK_H

#include "sf_config.h"

/* What a physics allocates on the host, as its plug-in declares it from
 * its backends' sizes; a volume is an array over the slab's points. */
typedef struct {
    int model_volumes;    /* at the model's peak: its parameters, and what its
                             medium is built through */
    int field_volumes;    /* wavefields, with their z halos */
    int medium_volumes;   /* the backend's medium, over the owned planes */
    int medium_compact;   /* 1: kept without the layout's padding */
    int halo_fields;      /* the fields of a halo group */
    int cpml_arrays;      /* memory variables per absorbing-layer point */
    int cpml_reach;       /* 1: the layers' arrays also cover the stencil's
                             radius of points past each layer, whose
                             update reads its psi */
    int energy_volumes;   /* owned-plane arrays of the energy series, when kept */
    /* Per attenuation mechanism (physics.mechanisms): owned-plane arrays of
     * the backend. */
    int mechanism_volumes;
} sf_physics_memory;

typedef enum { SF_MEMORY_MODEL, SF_MEMORY_FIELDS, SF_MEMORY_CPML, SF_MEMORY_RECEIVERS,
               SF_MEMORY_PARTS } sf_memory_part;

/* Bytes by part for the slab of nz planes from z0, from what the job's
 * physics declares (sf_physics_memory): the model (and the medium built
 * from it while its backend is created); with the fields on
 * the host (the CPU backend) the wavefields, halo buffers and CPML memory;
 * the snapshot buffers;
 * the receiver positions and the traces of nsamples samples (every
 * channel on this rank, as when the receivers share a depth; a survey's
 * group leader gathers them twice more). */
void sf_memory_estimate(const sf_config *c, long z0, long nz, int host_fields, double nsamples,
                        double bytes[SF_MEMORY_PARTS]);

/* The bytes this node has available (MemAvailable, else the free
 * physical pages); 0 when unknown. */
double sf_memory_node_available(void);

/* Collective over MPI_COMM_WORLD: the bytes this rank's node has available
 * (MemAvailable, else the free physical pages) divided among the world's
 * ranks on it; 0 when unknown. */
double sf_memory_per_rank(int *ranks_on_node);

/* Collective over MPI_COMM_WORLD (every rank of a survey sets up at once):
 * 1, and one problem reported at the job's grid (or receivers) key, when
 * some rank needs more than `available` bytes; else 0. */
int sf_memory_check(const sf_config *c, const double bytes[SF_MEMORY_PARTS], double available,
                    int ranks_on_node);

#endif
