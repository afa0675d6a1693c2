/* The acoustic CPU kernels as other physics built on the same leapfrog
 * reuse them (src/backends/cpu/acoustic.c): a physics that adds a
 * point-wise law to the acoustic update (visco-acoustic's memory
 * variables) creates the acoustic state with its law and lists these
 * kernels in its own table. */
#ifndef SF_CPU_ACOUSTIC_KERNELS_H
#define SF_CPU_ACOUSTIC_KERNELS_H

#include "cpu_physics.h"
#include "sf_acoustic.h"

/* Finishes the new level of rows [j0, j1) of local plane k once the
 * acoustic update (layer terms included) has written it: next and cur
 * are the rows' new and current levels in the field layout (row j at
 * (j - j0) * L->sx), before the level the update overwrote (row j at
 * (j - j0) * L->nx). Rows of one call are one thread's. */
typedef struct {
    void (*finish_rows)(void *state, const sf_layout *L, long j0, long j1, long k, float *next,
                        const float *cur, const float *before);
    void *state;
} sf_cpu_row_law;

/* The acoustic state for p with law applied after every block of rows
 * (NULL: none, the acoustic physics). p's first parameter is the
 * velocity the update uses. */
void *sf_cpu_acoustic_create(sf_cpu_shared *shared, const sf_problem *p, const sf_cpu_row_law *law);

void sf_cpu_acoustic_update(void *state, int stage, long k0, long k1);
void sf_cpu_acoustic_finish_stage(void *state, int stage);
int sf_cpu_acoustic_source_point(const void *state, const sf_field_weight *w, float *coefficient);
int sf_cpu_acoustic_source_arrays(void *state, int stage, int field,
                                  float *arrays[SF_CPU_MAX_SOURCE_ARRAYS]);
int sf_cpu_acoustic_halo_arrays(const void *state, int group);
float *sf_cpu_acoustic_halo_plane(void *state, int group, int array, long k, long *row_stride);
const float *sf_cpu_acoustic_component(const void *state, sf_component c);
int sf_cpu_acoustic_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS]);

/* A kernel table's entries for the acoustic kernels, create aside. */
#define SF_CPU_ACOUSTIC_KERNELS                                                                  \
    .halo_groups = SF_ACOUSTIC_STAGES, .update = sf_cpu_acoustic_update,                         \
    .finish_stage = sf_cpu_acoustic_finish_stage, .source_point = sf_cpu_acoustic_source_point,  \
    .source_arrays = sf_cpu_acoustic_source_arrays, .halo_arrays = sf_cpu_acoustic_halo_arrays,  \
    .halo_plane = sf_cpu_acoustic_halo_plane, .component = sf_cpu_acoustic_component,            \
    .guard_fields = sf_cpu_acoustic_guard_fields

#endif
