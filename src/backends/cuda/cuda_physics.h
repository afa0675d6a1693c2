/* What a physics gives the CUDA backend (backend.cu): its kernels'
 * launches and the few facts about its device arrays that the backend's
 * plumbing needs (CUDA sources only). The backend owns the layout, the
 * streams and events, the halo buffers, the source and receiver tables,
 * the CPML coefficients, the timers and the guard; a physics owns its
 * fields, its medium and its CPML memory variables, whose device arrays
 * it requests through the common arrays (sf_cuda_want_state for the
 * per-shot ones) so that reset's zeroing, amplify and memory_bytes need
 * no physics. Stages and halo groups are the physics' (sf_physics_plugin). */
#ifndef SF_CUDA_PHYSICS_H
#define SF_CUDA_PHYSICS_H

#include "cuda_common.h"

/* The most arrays one source point feeds (the pseudo-acoustic p and q). */
enum { SF_CUDA_MAX_SOURCE_ARRAYS = 2 };

/* A physics' kernel table. Every entry is required unless it says what
 * NULL means. Work is queued on the stream given, in the order called. */
struct sf_cuda_physics {
    const char *name;                 /* for internal messages */
    int halo_groups;                  /* at most SF_MAX_HALO_GROUPS */
    int grouped_sources;              /* each source point belongs to one stage (the elastic half-steps) */
    int channel_components;           /* each channel records a component of its own and keeps
                                       * its previous sample (the elastic recording rule) */

    /* The physics' state for problem p, which keeps c for its life and
     * requests its device arrays from c->arrays (allocated after create
     * returns, with the backend's). */
    void *(*create)(sf_cuda_common *c, const sf_problem *p);
    /* Once the arrays are allocated and the CPML coefficients (c->cpml)
     * uploaded: the medium and the kernels' arguments, before the source
     * table is built. */
    void (*upload)(void *state, const sf_problem *p);
    /* Once the streams exist (NULL: nothing more). */
    void (*start)(void *state);
    /* Frees the state and what else it holds (NULL: the state is one
     * allocation, freed with free); called after the common arrays are
     * freed and the device is idle. */
    void (*destroy)(void *state);

    /* Stage over owned planes [k0, k1), k0 < k1, timed as the stencil. */
    void (*update)(void *state, int stage, long k0, long k1, cudaStream_t stream);
    /* What ends a stage on the host (the acoustic swap of time levels);
     * returns 1 when it leaves images above a free surface to queue with
     * mirror, which is timed as the stencil. */
    int (*finish_stage)(void *state, int stage);
    void (*mirror)(void *state, int stage, cudaStream_t stream);

    /* Places and scales source point w of shot p; 0 leaves it out. */
    int (*place_source)(const void *state, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out);
    /* The arrays each source point of stage feeds (0: none in that
     * stage); not called where inject is given. */
    int (*source_arrays)(void *state, int stage, float *arrays[SF_CUDA_MAX_SOURCE_ARRAYS]);
    /* The physics' own launch for the stage's source points in planes
     * [k0, k1), which hold at least one (NULL: sf_cuda_inject into each
     * of source_arrays). */
    void (*inject)(void *state, int stage, float amplitude, long k0, long k1, cudaStream_t stream);

    /* Halo group g exchanges halo_arrays(g) arrays of SF_HALO planes each,
     * in buffer order. halo_planes gives array a's planes from local plane
     * k0 on (halos included): each plane's first row, or NULL where the
     * plane holds nothing (sent as zeros, received into nothing), and
     * returns the floats from one row to the next. */
    int (*halo_arrays)(const void *state, int group);
    long (*halo_planes)(const void *state, int group, int array, long k0, float *plane[SF_HALO]);
    /* The physics' own launch that moves the group's SF_HALO planes from
     * k0 on to (to_buffer) or from buffer (NULL: the generic pack and
     * unpack kernels over halo_planes, one launch per array). */
    void (*move_halo)(void *state, int group, long k0, float *buffer, int to_buffer,
                      cudaStream_t stream);

    /* The device array holding component c on the nodes at the current
     * level (sf_layout's layout, with halos), which receivers and
     * snapshots read; NULL where c has none. Not called where both
     * overrides below are given. Without channel_components every
     * channel records SF_COMPONENT_P. */
    const float *(*component)(const void *state, sf_component c);
    /* Receivers that are not the interpolation of one array (NULL: from
     * component()): every channel into out, [count] floats. */
    void (*sample_receivers)(void *state, const sf_cuda_receivers *r, float *out,
                             cudaStream_t stream);
    /* A snapshot that is not a lattice of one array (NULL: from
     * component()): out holds extent = planes, rows, columns. */
    void (*gather_lattice)(void *state, sf_component c, const sf_sampling_lattice *s,
                           const long extent[3], float *out, cudaStream_t stream);

    /* The fields the instability guard measures, in sf_nonfinite's
     * numbering; returns how many (at most SF_GUARD_MAX_FIELDS). */
    int (*guard_fields)(const void *state, const float *fields[SF_GUARD_MAX_FIELDS]);
    /* The energy diagnostic (NULL: the physics has none). */
    void (*energy)(void *state, double out[2]);
};

#endif
