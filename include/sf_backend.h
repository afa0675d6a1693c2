/* The boundary between the solver and a compute backend (CPU, CUDA).
 * The solver describes one rank's slab in an sf_problem, then drives the
 * time loop through these operations only; it never knows where the
 * fields live. Plane ranges [k0, k1) are local owned planes. */
#ifndef SF_BACKEND_H
#define SF_BACKEND_H

#include "sf_cpml.h"
#include "sf_layout.h"
#include "sf_stencil.h"

#include <stddef.h>

/* One interpolation weight at local point (i, j, k); for receivers k may
 * lie in the halo planes. */
typedef struct {
    int i, j, k;
    float weight;
} sf_point_weight;

typedef struct {
    long nx, ny, nz;          /* points of this rank's slab */
    long z0;                  /* global index of local plane 0 */
    sf_stencil stencil;
    double h[3], dt;
    const float *vp;          /* owned planes, compact [nz][ny][nx], m/s */
    const sf_cpml_axis *cpml; /* three global axes: x, y, z */
    int free_surface;         /* global plane 0 is a pressure-free surface */
    /* Source points owned by this rank; weights already divided by the cell
     * volume (the discrete delta function). */
    const sf_point_weight *source;
    long source_count;
    /* Receivers sampled by this rank: receiver r uses points
     * [receiver_offset[r], receiver_offset[r + 1]). */
    const sf_point_weight *receiver_points;
    const long *receiver_offset;
    long receiver_count;
    int sample_block;         /* receiver samples kept on the backend before a fetch */
} sf_problem;

typedef enum { SF_HALO_WAVEFIELD, SF_HALO_CPML_Z, SF_HALO_GROUPS } sf_halo_group;
typedef enum { SF_SIDE_LOWER, SF_SIDE_UPPER } sf_side;

typedef struct sf_backend sf_backend;

typedef struct {
    const char *name;
    sf_backend *(*create)(const sf_problem *problem);
    void (*destroy)(sf_backend *b);
    size_t (*memory_bytes)(const sf_backend *b);

    /* Halo planes: the floats exchanged per side for a group, and the
     * buffers MPI reads and writes (host memory, or device memory when the
     * MPI library can take it). */
    size_t (*halo_count)(const sf_backend *b, sf_halo_group g);
    float *(*halo_send_buffer)(sf_backend *b, sf_halo_group g, sf_side s);
    float *(*halo_recv_buffer)(sf_backend *b, sf_halo_group g, sf_side s);
    void (*halo_pack)(sf_backend *b, sf_halo_group g, sf_side s);
    void (*halo_unpack)(sf_backend *b, sf_halo_group g, sf_side s);
    /* Fills the ghost planes above a free surface by odd mirroring. */
    void (*mirror_free_surface)(sf_backend *b);

    /* One time step, split so that plane ranges can be scheduled around
     * halo exchanges: CPML memory variables first, then the new time level. */
    void (*update_cpml_memory)(sf_backend *b, long k0, long k1);
    void (*advance)(sf_backend *b, long k0, long k1);
    void (*inject_source)(sf_backend *b, float amplitude);
    void (*swap_time_levels)(sf_backend *b);

    /* Receivers: sample the current time level into slot (< sample_block),
     * then copy slots [0, count) out as [count][receiver_count]. */
    void (*sample_receivers)(sf_backend *b, int slot);
    void (*fetch_receivers)(sf_backend *b, int count, float *out);

    /* Waits for queued work (a no-op where work is synchronous). */
    void (*synchronize)(sf_backend *b);
} sf_backend_ops;

const sf_backend_ops *sf_backend_cpu(void);

#endif
