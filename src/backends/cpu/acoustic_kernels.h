/* The acoustic CPU kernels as other physics built on the same leapfrog
 * reuse them (src/backends/cpu/acoustic.c): a physics that adds a
 * point-wise law to the acoustic update (visco-acoustic's memory
 * variables) creates the acoustic state with its law and lists these
 * kernels in its own table. */
#ifndef SF_CPU_ACOUSTIC_KERNELS_H
#define SF_CPU_ACOUSTIC_KERNELS_H

#include "cpu_levels.h"

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

int sf_cpu_acoustic_source_point(const void *state, const sf_field_weight *w, float *coefficient);
float *sf_cpu_acoustic_halo_plane(void *state, int group, int array, long k, long *row_stride);

/* The CPU backend getter of a physics named physics_name that runs the
 * acoustic kernels, its state made by create_state. */
#define SF_CPU_ACOUSTIC_BACKEND(getter, physics_name, create_state)                              \
    SF_CPU_LEVELS_BACKEND(getter, physics_name, create_state, NULL, sf_cpu_acoustic_source_point, \
                          sf_cpu_acoustic_halo_plane)

#endif
