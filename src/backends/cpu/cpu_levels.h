/* Two time levels of the fields that a second-order-in-time physics
 * advances (the acoustic pressure; the pseudo-acoustic p and q), for the
 * CPU kernels of such a physics. Its stages are the CPML memory update
 * and the advance, which writes the new level over the previous one; the
 * new level then becomes the current, imaged oddly above a free surface.
 * The first field is the pressure that receivers, snapshots and the guard
 * see. A state that begins with an sf_cpu_levels takes the kernel-table
 * entries of SF_CPU_LEVELS_KERNELS, giving only what is its own. */
#ifndef SF_CPU_LEVELS_H
#define SF_CPU_LEVELS_H

#include "cpu_backend.h"
#include "sf_acoustic.h"

enum { SF_CPU_MAX_LEVEL_FIELDS = SF_CPU_MAX_SOURCE_ARRAYS };

/* One stage of the physics over owned planes [k0, k1). */
typedef void (*sf_cpu_levels_stage)(void *state, long k0, long k1);

typedef struct {
    const sf_cpu_shared *shared;        /* the backend's: layout, arena, CPML coefficients, slab */
    int fields;
    float *prev[SF_CPU_MAX_LEVEL_FIELDS], *cur[SF_CPU_MAX_LEVEL_FIELDS];
    sf_cpu_levels_stage stage[SF_ACOUSTIC_STAGES];
} sf_cpu_levels;

/* Takes both levels of each field from the shared arena. */
void sf_cpu_levels_plan(sf_cpu_levels *v, const sf_cpu_shared *shared, int fields,
                        sf_cpu_levels_stage memory, sf_cpu_levels_stage advance);
/* Plane k (local, halos included) of field f's new level. */
float *sf_cpu_levels_plane(const sf_cpu_levels *v, int f, long k);

/* Kernel-table entries for a state that begins with an sf_cpu_levels. */
void sf_cpu_levels_update(void *state, int stage, long k0, long k1);
void sf_cpu_levels_finish_stage(void *state, int stage);
int sf_cpu_levels_source_arrays(void *state, int stage, int field, float *arrays[SF_CPU_MAX_SOURCE_ARRAYS]);
int sf_cpu_levels_halo_arrays(const void *state, int group);
const float *sf_cpu_levels_component(const void *state, sf_component c);
int sf_cpu_levels_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS]);

#define SF_CPU_LEVELS_KERNELS                                                                    \
    .halo_groups = SF_ACOUSTIC_STAGES, .update = sf_cpu_levels_update,                           \
    .finish_stage = sf_cpu_levels_finish_stage, .source_arrays = sf_cpu_levels_source_arrays,    \
    .halo_arrays = sf_cpu_levels_halo_arrays, .component = sf_cpu_levels_component,              \
    .guard_fields = sf_cpu_levels_guard_fields

/* The CPU backend getter of a physics named physics_name whose state,
 * made by create_state and freed by destroy_state (NULL: with free),
 * begins with an sf_cpu_levels; the rest of its table the levels'. */
#define SF_CPU_LEVELS_BACKEND(getter, physics_name, create_state, destroy_state, source_point_of,  \
                              halo_plane_of)                                                     \
    static const sf_cpu_physics getter##_kernels = {                                             \
        .name = physics_name, .create = create_state, .destroy = destroy_state,                  \
        .source_point = source_point_of, .halo_plane = halo_plane_of, SF_CPU_LEVELS_KERNELS};    \
    SF_CPU_BACKEND(getter, getter##_kernels, NULL)

#endif
