/* The boundary between the solver and a compute backend, for every
 * physics. The solver describes one rank's slab in an sf_problem, then
 * drives the time loop through these operations only; it never knows
 * where the fields live, and it never branches on the physics: a physics
 * (sf_physics_plugin, sf_simulation.h) says what its stages, halo groups
 * and fields are, and
 * each backend implements its kernels behind this table. Plane ranges
 * [k0, k1) are local owned planes. */
#ifndef SF_BACKEND_H
#define SF_BACKEND_H

#include "sf_config.h"
#include "sf_cpml.h"
#include "sf_halo_transport.h"
#include "sf_layout.h"
#include "sf_regions.h"
#include "sf_stencil.h"
#include "sf_timers.h"

#include <stddef.h>

/* One interpolation weight at local point (i, j, k); for receivers k may
 * lie in the halo planes. */
typedef struct {
    int i, j, k;
    float weight;
} sf_point_weight;

/* One source interpolation weight on one of the physics' fields. */
typedef struct {
    int field;
    int i, j, k;
    float weight;
} sf_field_weight;

typedef struct {
    long nx, ny, nz;          /* points of this rank's slab */
    long z0;                  /* global index of local plane 0 */
    sf_stencil stencil;
    double h[3], dt;
    /* The medium over the owned planes as the physics declares it: its
     * model parameters on the nodes in the order of its declaration
     * (compact [nz][ny][nx], on a reset too), and what its plug-in builds
     * for its backends on create, of the physics' own type (elastic:
     * sf_elastic_medium; NULL on a reset and where it builds none). */
    const float *const *param;
    int nparams;
    const void *medium;
    /* NULL, or for each owned plane the first owned plane whose model
     * values all equal its own (sf_model's first_equal_plane): anything
     * formed point by point from the model repeats with them, so a
     * backend may send such a plane once. */
    const long *first_equal_plane;
    const sf_cpml_axis *cpml; /* three global axes: x, y, z */
    int free_surface;         /* global plane 0 is a pressure- or traction-free surface */
    /* A rank below (SF_SIDE_LOWER) and above the slab: the sides halo
     * planes cross, and the only ones that need buffers. */
    int neighbour[2];
    /* Source points owned by this rank, each on one field; weights already
     * divided by the cell volume (the discrete delta function), with the
     * physics' own factors (an elastic force's direction, a moment). */
    const sf_field_weight *source;
    long source_count;
    /* Channels sampled by this rank: channel c records component
     * channel_component[c] from points [channel_offset[c],
     * channel_offset[c + 1]) (on that component's staggered grid); points
     * may lie in the halo planes. */
    const sf_component *channel_component;
    const sf_point_weight *channel_points;
    const long *channel_offset;
    long channel_count;
    int sample_block;         /* samples kept on the backend before a fetch */
    int exchange_normal_stresses; /* elastic: pressure channels near a slab edge read sxx, syy halos */
    int energy;               /* elastic: keep what the energy diagnostic needs */
    sf_precision precision;   /* how the state and the medium are stored */
    sf_halo_transport halo_transport;   /* chosen with the backend (sf_device.h) */
} sf_problem;

typedef enum { SF_SIDE_LOWER, SF_SIDE_UPPER } sf_side;

/* A decimated copy of the owned planes: every di-th point along x, dj-th
 * along y, and planes k0, k0 + dk, ... (local indices) while < nz. */
typedef struct {
    long di, dj, dk, k0;
} sf_sampling_lattice;

/* Lattice points along an axis of n samples from first by step. */
static inline long sf_lattice_points(long n, long first, long step)
{
    return n > first ? (n - first + step - 1) / step : 0;
}

typedef struct sf_backend sf_backend;

/* Where a backend found the first value that is not finite (NaN or Inf):
 * the physics' field index and the local point, k an owned plane. "First"
 * is the lowest (field, k, j, i) in that order. */
typedef struct {
    int field;
    long i, j, k;
} sf_nonfinite;

/* The most fields a backend measures for the instability guard (the
 * elastic nine). */
enum { SF_GUARD_MAX_FIELDS = 9 };

/* The most halo groups a physics has (one per stage of its step): the
 * driver's schedule and every backend's buffers are sized by this one
 * bound, so a physics with more stages changes this line alone. */
enum { SF_MAX_HALO_GROUPS = 4 };

/* Operations may be queued (a GPU runs them in order on its streams);
 * they take effect for every later operation, and results reach the host
 * only through halo_wait_packed, fetch_receivers, fetch_field, energy and
 * synchronize. Stages and halo groups are the physics' (sf_physics_plugin). */
typedef struct {
    const char *name;         /* the backend: "cpu", "cuda" */
    sf_backend *(*create)(const sf_problem *problem);
    void (*destroy)(sf_backend *b);
    size_t (*memory_bytes)(const sf_backend *b);

    /* Halo planes of a group, all its fields in one contiguous buffer per
     * side: the floats exchanged per side, and the buffers MPI reads and
     * writes (host memory, or device memory with halo_transport
     * SF_HALO_DEVICE_BUFFERS). halo_pack starts gathering a side's planes
     * into its send buffer as soon as the work queued before has produced
     * them; work queued after it may run meanwhile. halo_wait_packed
     * returns once every started pack is in its send buffer. */
    size_t (*halo_count)(const sf_backend *b, int group);
    float *(*halo_send_buffer)(sf_backend *b, int group, sf_side s);
    float *(*halo_recv_buffer)(sf_backend *b, int group, sf_side s);
    void (*halo_pack)(sf_backend *b, int group, sf_side s);
    void (*halo_wait_packed)(sf_backend *b);
    void (*halo_unpack)(sf_backend *b, int group, sf_side s);

    /* A stage of a time step over a range of planes (each plane exactly
     * once per stage; the ranges of a stage may come in any order so that
     * boundary planes can go first), the source points of those planes
     * with the signal's value for the stage, and what ends the stage once
     * every range is done and its halos are in (the images above a free
     * surface; the acoustic swap of time levels). */
    void (*update)(sf_backend *b, int stage, long k0, long k1);
    void (*inject_source)(sf_backend *b, int stage, float amplitude, long k0, long k1);
    void (*finish_stage)(sf_backend *b, int stage);

    /* Receivers: sample every channel into slot (< sample_block), then
     * copy slots [0, count) out as [count][channel_count]. */
    void (*sample_receivers)(sf_backend *b, int slot);
    void (*fetch_receivers)(sf_backend *b, int count, float *out);
    /* A component on a lattice of the nodes, as [planes][rows][columns],
     * at the current time level. */
    void (*fetch_field)(sf_backend *b, sf_component c, const sf_sampling_lattice *lattice,
                        float *out);
    /* The physics' energy diagnostic of this slab (NULL where it has none). */
    void (*energy)(sf_backend *b, double out[2]);

    /* Starts another shot on the same slab and medium (surveys): zeroes
     * the fields, the CPML memory variables and the receiver state, takes
     * the CPML coefficients of shot->cpml (same sizes; another dominant
     * frequency gives another frequency shift) and replaces the source and
     * channel tables by shot's; the medium, halo buffers and streams stay. */
    void (*reset)(sf_backend *b, const sf_problem *shot);
    /* The instability guard: waits for the queued work, then returns 1 and
     * fills where when some owned point of a field is not finite, else 0. */
    int (*find_nonfinite)(sf_backend *b, sf_nonfinite *where);
    /* The guard's measure of growth: waits for the queued work, then
     * returns how many fields the physics has (at most
     * SF_GUARD_MAX_FIELDS, in sf_nonfinite's numbering) and fills
     * sums[f][region] with the sum of the squares of field f's owned
     * points in each region of r (sf_regions.h). */
    int (*field_norms)(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS]);
    /* For tests only (SEISFD_TEST_GROWTH): multiplies the shot's whole
     * state (the fields at every time level kept, the CPML memory
     * variables) by factor, so that a run grows by factor a step. */
    void (*amplify)(sf_backend *b, float factor);

    /* Waits for all queued work. */
    void (*synchronize)(sf_backend *b);
    /* Adds the seconds the backend spent per phase since the last call
     * (kernels, packing, copies; measured on the device where there is
     * one) to seconds[SF_PHASE_COUNT], and starts counting afresh. */
    void (*take_timers)(sf_backend *b, double *seconds);
} sf_backend_ops;

/* Each physics on each backend; the CUDA ones in CUDA builds only
 * (SF_HAVE_CUDA), after sf_gpu_bind. */
const sf_backend_ops *sf_backend_cpu_acoustic(void);
const sf_backend_ops *sf_backend_cpu_elastic(void);
const sf_backend_ops *sf_backend_cuda_acoustic(void);
const sf_backend_ops *sf_backend_cuda_elastic(void);
/* vti and tti: one backend each, the tilt given or not (sf_problem). */
const sf_backend_ops *sf_backend_cpu_anisotropic(void);
const sf_backend_ops *sf_backend_cuda_anisotropic(void);
const sf_backend_ops *sf_backend_cpu_visco_acoustic(void);
const sf_backend_ops *sf_backend_cuda_visco_acoustic(void);
const sf_backend_ops *sf_backend_cpu_visco_elastic(void);
const sf_backend_ops *sf_backend_cuda_visco_elastic(void);

#endif
