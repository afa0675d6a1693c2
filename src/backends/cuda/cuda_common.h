/* What the CUDA backend keeps besides its physics (CUDA sources only): the
 * slab's layout, its device arrays (for the run, and per shot the source
 * and receiver tables), the CPML coefficients, the compute and halo
 * streams with the halo buffers, the phase timers, the instability guard's
 * word and sums, and the snapshot buffer. The backend (backend.cu) embeds
 * one; its physics' kernels read the layout, the arrays, the coefficients
 * and the acquisition tables from it. */
#ifndef SF_CUDA_COMMON_H
#define SF_CUDA_COMMON_H

#include "kernels/cuda_halo.h"
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_memory.h"

#include <cuda_runtime.h>

extern "C" {
#include "sf_backend.h"
#include "sf_gpu_timers.h"
#include "sf_layout.h"
#include "sf_nonfinite.h"
}

/* A source point as its physics places and scales it. */
typedef struct {
    long index;     /* into its field, or into the block of all fields (elastic) */
    float coef;     /* times the signal's amplitude */
    int group;      /* the stage that injects it, where sources are grouped */
} sf_cuda_source_point;

/* A physics' kernel table (cuda_physics.h). */
typedef struct sf_cuda_physics sf_cuda_physics;

/* The shot's source points on the device, with the host's copy of their
 * planes (and groups), which says whether a range of planes has any. */
typedef struct {
    long count;
    long *index;
    float *coef;
    int *plane, *group;              /* group: grouped physics only */
    int *plane_host, *group_host;
} sf_cuda_sources;

/* The shot's receiver channels; samples stay on the device for
 * sample_block time levels and come back through pinned memory. */
typedef struct {
    long count;
    int sample_block;
    int *component;                  /* with components only */
    long *offset, *index;            /* index: into a field with halos */
    float *weight, *previous;        /* previous: with components only */
    float *samples, *samples_host;   /* [sample_block][count] */
} sf_cuda_receivers;

/* The CPML coefficients of a global axis on the device (sf_cpml_axis). */
typedef struct {
    float *a, *b, *a_half, *b_half;
} sf_cuda_cpml_coefficients;

typedef struct {
    sf_layout L;
    sf_cuda_grid grid;
    const sf_cuda_physics *physics;
    sf_cuda_halo xfer;               /* the compute and halo streams, halo buffers */
    sf_gpu_timers *timers;
    unsigned long long *guard;       /* the instability guard's result word */
    double *norm_partial;            /* its blocks' sums, per field and region */
    double *norm_partial_host;       /* pinned, as many */
    sf_cuda_cpml_coefficients cpml[3];   /* the global axes x, y, z; a shot's own */
    sf_cuda_sources source;
    sf_cuda_receivers receivers;
    float *lattice;                  /* snapshots, grown on demand */
    size_t lattice_floats;
    sf_cuda_arrays arrays;           /* for the whole run */
    sf_cuda_arrays acquisition;      /* the source and receiver tables: per shot */
} sf_cuda_common;

/* ---- the backend's life ----------------------------------------------- */

/* The layout and grid of p's slab; requests the CPML coefficients. */
void sf_cuda_common_init(sf_cuda_common *c, const sf_problem *p, const sf_cuda_physics *physics);
/* Requests the halo buffers, halo_count[g] floats a side of group g, and
 * the guard's word; the backend requests its own arrays around this. */
void sf_cuda_common_plan(sf_cuda_common *c, const size_t halo_count[SF_MAX_HALO_GROUPS],
                         const int neighbour[2]);
/* Allocates every requested array of the run. */
void sf_cuda_common_allocate(sf_cuda_common *c);
/* Uploads shot p's CPML coefficients (reset: another dominant frequency
 * gives another frequency shift). */
void sf_cuda_common_upload_cpml(sf_cuda_common *c, const sf_problem *p);
/* The shot's source and receiver tables, uploaded; state is the
 * physics', which places the source points. */
void sf_cuda_common_setup_acquisition(sf_cuda_common *c, const void *state, const sf_problem *p);
/* After the uploads: the streams and timers, then waits for the uploads. */
void sf_cuda_common_start(sf_cuda_common *c, sf_halo_transport transport);
/* Waits for the queued work and frees all of the above. */
void sf_cuda_common_destroy(sf_cuda_common *c);
size_t sf_cuda_common_memory_bytes(const sf_cuda_common *c);
/* The reset operation: zeroes the state arrays, uploads shot p's CPML
 * coefficients and replaces the acquisition tables by p's (state: the
 * physics', which places the source points). */
void sf_cuda_common_reset(sf_cuda_common *c, void *state, const sf_problem *p);

/* ---- during the time loop ----------------------------------------------- */

/* The find_nonfinite operation over fields[0, count), checked in order. */
int sf_cuda_common_find_nonfinite(sf_cuda_common *c, const float *const *fields, int count,
                                  sf_nonfinite *where);
/* The amplify operation: every state array times factor, queued on the
 * compute stream. */
void sf_cuda_common_amplify(sf_cuda_common *c, float factor);
/* The field_norms operation over fields[0, count); returns count. */
int sf_cuda_common_field_norms(sf_cuda_common *c, const float *const *fields, int count,
                               const sf_regions *r, double sums[][SF_REGIONS]);
/* Does a source point of the group (any, ungrouped) lie in planes [k0, k1)? */
int sf_cuda_common_sources_in(const sf_cuda_common *c, int group, long k0, long k1);
/* An ungrouped physics' source points in planes [k0, k1) into each of
 * fields[0, count). */
void sf_cuda_common_inject(sf_cuda_common *c, float *const *fields, int count, float amplitude,
                           long k0, long k1);
/* Every channel's sample of field into slot (a physics without components). */
void sf_cuda_common_sample(sf_cuda_common *c, int slot, const float *field);
void sf_cuda_common_fetch_receivers(sf_cuda_common *c, int count, float *out);
/* The snapshot buffer for lattice s, extent = planes, rows and columns;
 * NULL when the lattice has no point. */
float *sf_cuda_common_lattice(sf_cuda_common *c, const sf_sampling_lattice *s, long extent[3]);

static inline long sf_cuda_max(long a, long b) { return a > b ? a : b; }
static inline long sf_cuda_min(long a, long b) { return a < b ? a : b; }

/* A CPML memory box (sf_cuda_memory_box) of psi on the layout's nx * ny
 * lines or planes, the a, b and first-derivative coefficients of its axis.
 * Across x or y (axis 0 or 1): half points [start, start + count) of every
 * line over planes [k0, k1), psi stored a line of `width` floats after
 * another, the box's first half point at `offset` in its line. Along z:
 * planes [lo, hi) of psi's planes, the first of them its plane
 * `first_plane`; z0 is the slab's first global plane. */
void sf_cuda_memory_box_across(sf_cuda_memory_box *box, const sf_layout *L, int axis, long start,
                               long count, long k0, long k1, long width, long offset);
void sf_cuda_memory_box_along_z(sf_cuda_memory_box *box, const sf_layout *L, long lo, long hi,
                                long first_plane, long z0);
void sf_cuda_memory_box_of(sf_cuda_memory_box *box, float *psi, const sf_cuda_cpml_coefficients *c,
                           const float first[SF_MAX_RADIUS + 1]);

#endif
