/* What a physics gives the CPU backend (backend.c): its kernels and the
 * few facts about its arrays that the backend's plumbing needs. The
 * backend owns the layout, the allocations, the CPML coefficients, the
 * source and receiver tables, the halo buffers and the timers; a physics
 * owns its fields, its medium and its memory variables, taken through the
 * backend's arena so that memory_bytes, reset's zeroing and amplify need
 * no physics. Stages and halo groups are the physics' (sf_physics_plugin). */
#ifndef SF_CPU_PHYSICS_H
#define SF_CPU_PHYSICS_H

#include "cpu_common.h"

#include <stddef.h>

/* The most arrays one source point feeds (the pseudo-acoustic p and q). */
enum { SF_CPU_MAX_SOURCE_ARRAYS = 2 };

/* What the backend lends a physics for the life of its state: the layout
 * of every field, the arena to allocate through, the CPML coefficients of
 * the three global axes (reloaded in place by reset) and where the slab
 * lies. */
typedef struct {
    sf_layout L;
    sf_cpu_arena *arena;
    sf_cpu_cpml_coefficients cpml[3];
    long z0;                          /* the slab's first global plane */
    int free_surface_here;            /* the slab holds a free surface at its plane 0 */
    sf_cpu_vectors vectors;           /* which copy of the row sweeps runs */
} sf_cpu_shared;

/* A physics' kernel table. Every entry is required unless it says what
 * NULL means. */
typedef struct {
    const char *name;                 /* for internal messages */
    int halo_groups;                  /* at most SF_MAX_HALO_GROUPS */
    long plane_pad;                   /* floats added to each plane of the layout */

    /* The physics' state for problem p, its arrays taken from
     * shared->arena (the per-shot ones with sf_cpu_take_state), which
     * frees them with the backend. */
    void *(*create)(sf_cpu_shared *shared, const sf_problem *p);
    /* What else the state holds (NULL: the state is one allocation, freed
     * with free). */
    void (*destroy)(void *state);
    /* What reset must redo beyond zeroing the state and replacing the
     * source and channel tables (NULL: nothing). */
    void (*reset)(void *state, const sf_problem *shot);

    void (*update)(void *state, int stage, long k0, long k1);
    void (*finish_stage)(void *state, int stage);
    /* A source point's factor on the signal (the medium's scaling of
     * w->weight); returns 0 to drop the point. */
    int (*source_point)(const void *state, const sf_field_weight *w, float *coefficient);
    /* The arrays that a source point on field takes in stage (0: none). */
    int (*source_arrays)(void *state, int stage, int field,
                         float *arrays[SF_CPU_MAX_SOURCE_ARRAYS]);

    /* Halo group g exchanges halo_arrays(g) arrays of SF_HALO planes each,
     * in buffer order; halo_plane gives plane k (local, halos included) of
     * the group's array a: its first row (nx floats) and the floats from
     * one row to the next, or NULL where that plane holds nothing (sent as
     * zeros, received into nothing). */
    int (*halo_arrays)(const void *state, int group);
    float *(*halo_plane)(void *state, int group, int array, long k, long *row_stride);

    /* The array holding component c on the nodes at the current level
     * (sf_layout's layout, with halos), which receivers and snapshots
     * read; NULL where c has none. Not called where both overrides below
     * are given. */
    const float *(*component)(const void *state, sf_component c);
    /* Receivers that are not the interpolation of one array (NULL: each
     * channel from component()): every channel of c into out. */
    void (*sample_receivers)(void *state, const sf_cpu_channels *c, float *out);
    /* A snapshot's value of c at field index n (NULL: component()[n]). */
    float (*node_value)(const void *state, sf_component c, size_t n);

    /* The fields the instability guard measures, in sf_nonfinite's
     * numbering; returns how many (at most SF_GUARD_MAX_FIELDS). */
    int (*guard_fields)(const void *state, const float *fields[SF_GUARD_MAX_FIELDS]);
    /* The energy diagnostic (NULL: the physics has none). */
    void (*energy)(void *state, double out[2]);
} sf_cpu_physics;

#endif
