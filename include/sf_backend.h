/* The boundary between the solver and a compute backend (CPU, CUDA).
 * The solver describes one rank's slab in an sf_problem, then drives the
 * time loop through these operations only; it never knows where the
 * fields live. Plane ranges [k0, k1) are local owned planes. */
#ifndef SF_BACKEND_H
#define SF_BACKEND_H

#include "sf_cpml.h"
#include "sf_halo_transport.h"
#include "sf_layout.h"
#include "sf_stencil.h"
#include "sf_timers.h"

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
    sf_halo_transport halo_transport;   /* chosen with the backend (sf_device.h) */
} sf_problem;

/* Fields exchanged between neighbours: the new time level that advance
 * writes (exchanged before swap_time_levels), and the CPML memory variable
 * differentiated across z (exchanged after update_cpml_memory). */
typedef enum { SF_HALO_WAVEFIELD, SF_HALO_CPML_Z, SF_HALO_GROUPS } sf_halo_group;
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
 * the field (acoustic: 0, the pressure; elastic: an sf_elastic_field) and
 * the local point, k an owned plane. "First" is the lowest (field, k, j,
 * i) in that order. */
typedef struct {
    int field;
    long i, j, k;
} sf_nonfinite;

/* Operations may be queued (a GPU runs them in order on its streams);
 * they take effect for every later operation, and results reach the host
 * only through halo_wait_packed, fetch_receivers, fetch_wavefield and
 * synchronize. */
typedef struct {
    const char *name;
    sf_backend *(*create)(const sf_problem *problem);
    void (*destroy)(sf_backend *b);
    size_t (*memory_bytes)(const sf_backend *b);

    /* Halo planes: the floats exchanged per side for a group, and the
     * buffers MPI reads and writes (host memory, or device memory with
     * problem->halo_transport SF_HALO_DEVICE_BUFFERS). */
    size_t (*halo_count)(const sf_backend *b, sf_halo_group g);
    float *(*halo_send_buffer)(sf_backend *b, sf_halo_group g, sf_side s);
    float *(*halo_recv_buffer)(sf_backend *b, sf_halo_group g, sf_side s);
    /* Starts gathering a side's 4 boundary planes into its send buffer as
     * soon as the work queued before has produced them; work queued after
     * it may run meanwhile. halo_wait_packed returns once every started
     * pack is in its send buffer. */
    void (*halo_pack)(sf_backend *b, sf_halo_group g, sf_side s);
    void (*halo_wait_packed)(sf_backend *b);
    void (*halo_unpack)(sf_backend *b, sf_halo_group g, sf_side s);
    /* Fills the ghost planes above a free surface by odd mirroring. */
    void (*mirror_free_surface)(sf_backend *b);

    /* One time step over a range of planes: CPML memory variables first
     * (each plane exactly once per step), then the new time level, then
     * the source points of those planes. The ranges of one step may come
     * in any order so that boundary planes can go first. */
    void (*update_cpml_memory)(sf_backend *b, long k0, long k1);
    void (*advance)(sf_backend *b, long k0, long k1);
    void (*inject_source)(sf_backend *b, float amplitude, long k0, long k1);
    void (*swap_time_levels)(sf_backend *b);

    /* Receivers: sample the current time level into slot (< sample_block),
     * then copy slots [0, count) out as [count][receiver_count]. */
    void (*sample_receivers)(sf_backend *b, int slot);
    void (*fetch_receivers)(sf_backend *b, int count, float *out);
    /* The current time level on a lattice, as [planes][rows][columns]. */
    void (*fetch_wavefield)(sf_backend *b, const sf_sampling_lattice *lattice, float *out);

    /* Starts another shot on the same slab and model (surveys): zeroes
     * both time levels, the CPML memory variables and the receiver state,
     * takes the CPML coefficients of shot->cpml (same sizes; a shot with
     * another peak frequency has another frequency shift) and replaces the
     * source and receiver tables by shot's. shot is filled as for create;
     * the model arrays, halo buffers and streams stay. */
    void (*reset)(sf_backend *b, const sf_problem *shot);
    /* The instability guard: waits for the queued work, then returns 1 and
     * fills where when some owned point of the current time level is not
     * finite, else 0. A cheap reduction (OpenMP on the CPU, one kernel
     * with an atomic minimum on the GPU). */
    int (*find_nonfinite)(sf_backend *b, sf_nonfinite *where);

    /* Waits for all queued work. */
    void (*synchronize)(sf_backend *b);
    /* Adds the seconds the backend spent per phase since the last call
     * (kernels, packing, copies; measured on the device where there is
     * one) to seconds[SF_PHASE_COUNT], and starts counting afresh. */
    void (*take_timers)(sf_backend *b, double *seconds);
} sf_backend_ops;

const sf_backend_ops *sf_backend_cpu(void);
/* Builds with CUDA only (SF_HAVE_CUDA); needs sf_gpu_bind first. */
const sf_backend_ops *sf_backend_cuda(void);

#endif
