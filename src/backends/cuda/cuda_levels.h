/* Two time levels of the fields that a second-order-in-time physics
 * advances (the acoustic pressure; the pseudo-acoustic p and q), for the
 * CUDA kernels of such a physics (CUDA sources only). Its advance stage
 * writes the new level over the previous one, which then becomes the
 * current; every field is mirrored alike above a free surface, and the
 * first is the pressure that receivers, snapshots and the source see.
 * A state that begins with an sf_cuda_levels takes its kernel table from
 * SF_CUDA_LEVELS_PHYSICS, giving only what is its own. */
#ifndef SF_CUDA_LEVELS_H
#define SF_CUDA_LEVELS_H

#include "cuda_backend.h"

extern "C" {
#include "sf_acoustic.h"
}

enum { SF_CUDA_MAX_LEVEL_FIELDS = SF_CUDA_MAX_SOURCE_ARRAYS };

/* One stage of the physics over owned planes [k0, k1), queued on stream:
 * the CPML memory update, then the advance. */
typedef void (*sf_cuda_levels_stage)(void *state, long k0, long k1, cudaStream_t stream);

typedef struct {
    sf_cuda_common *c;                  /* the backend's: layout, arrays, streams */
    int fields;
    int free_surface_here;
    float *prev[SF_CUDA_MAX_LEVEL_FIELDS], *cur[SF_CUDA_MAX_LEVEL_FIELDS];
    sf_cuda_levels_stage stage[SF_ACOUSTIC_STAGES];
} sf_cuda_levels;

/* Requests both levels of each field from c's arrays. */
void sf_cuda_levels_plan(sf_cuda_levels *v, sf_cuda_common *c, const sf_problem *p, int fields,
                         sf_cuda_levels_stage memory, sf_cuda_levels_stage advance);
/* Plane k (local, halos included) of field f's new level. */
float *sf_cuda_levels_plane(const sf_cuda_levels *v, int f, long k);

/* Kernel-table entries for a state that begins with an sf_cuda_levels. */
void sf_cuda_levels_update(void *state, int stage, long k0, long k1, cudaStream_t stream);
int sf_cuda_levels_finish_stage(void *state, int stage);
void sf_cuda_levels_mirror(void *state, int stage, cudaStream_t stream);
int sf_cuda_levels_source_arrays(void *state, int stage, float *arrays[SF_CUDA_MAX_SOURCE_ARRAYS]);
int sf_cuda_levels_halo_arrays(const void *state, int group);
const float *sf_cuda_levels_component(const void *state, sf_component c);
int sf_cuda_levels_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS]);

/* The kernel table of a second-order physics named name: its own state's
 * create, upload, start (NULL: none) and destroy, its source placement
 * and halo planes, the rest the levels'. */
#define SF_CUDA_LEVELS_PHYSICS(name, create, upload, start, destroy, place_source, halo_planes)   \
    {name, SF_ACOUSTIC_STAGES, 0, 0, create, upload, start, destroy, sf_cuda_levels_update,        \
     sf_cuda_levels_finish_stage, sf_cuda_levels_mirror, place_source,                             \
     sf_cuda_levels_source_arrays, NULL, sf_cuda_levels_halo_arrays, halo_planes, NULL,            \
     sf_cuda_levels_component, NULL, NULL, sf_cuda_levels_guard_fields, NULL}

/* The CUDA backend getter of such a physics, from its table's entries. */
#define SF_CUDA_LEVELS_BACKEND(getter, name, create, upload, start, destroy, place_source, halo_planes) \
    static const sf_cuda_physics getter##_kernels =                                                \
        SF_CUDA_LEVELS_PHYSICS(name, create, upload, start, destroy, place_source, halo_planes);    \
    SF_CUDA_BACKEND(getter, getter##_kernels, NULL)

#endif
