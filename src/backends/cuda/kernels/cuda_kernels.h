/* The CUDA backend's kernels and the descriptions of their work (CUDA
 * sources only). Every launcher queues its kernels on the given stream and
 * checks the launch. Fields use sf_layout's layout on the device. */
#ifndef SF_CUDA_KERNELS_H
#define SF_CUDA_KERNELS_H

#include <cuda_runtime.h>

extern "C" {
#include "sf_layout.h"
#include "sf_regions.h"
#include "sf_relaxation.h"
#include "sf_stencil.h"
}

/* psi arrays carry this many zero half points before and after the layer
 * along their axis, so derivatives of psi need no bounds tests. */
enum { SF_PSI_PAD = 2 * SF_MAX_RADIUS };

/* A tile of the x-y plane is SF_CUDA_TILE_X points wide, one warp. */
enum { SF_CUDA_TILE_X = 32 };

typedef struct {
    int nx, ny, nz;
    long gx, sx, sp;   /* sf_layout's column offset, row and plane strides */
} sf_cuda_grid;

typedef struct {
    float second[3][SF_MAX_RADIUS + 1];   /* d2/dn2 over h^2 per axis: centre, then 1..R */
    float first[3][SF_MAX_RADIUS + 1];    /* staggered d/dn over h per axis: 1..R */
} sf_cuda_coefficients;

/* One absorbing layer as the stencil reads it. Points [lo, hi) (local
 * planes for z) read its psi; psi holds the half points from hlo on (half
 * point n is n + 1/2) after SF_PSI_PAD zeros, psi_width of them per line for
 * x and y; zeta has one value per point of [lo, hi). */
typedef struct {
    int lo, hi, hlo, psi_width;
    const float *psi;
    float *zeta;
} sf_cuda_layer;

/* Standard linear solids the acoustic update relaxes through
 * (sf_relaxation.h; law.mechanisms 0: none, the lossless update): each
 * point's memory variables and place in the law's table, on the owned
 * planes like v^2 dt^2. */
typedef struct {
    sf_relaxation_law law;
    float *memory[SF_MAX_MECHANISMS];
    const float *coordinate;
} sf_cuda_relaxation;

/* Everything one time step of the stencil reads and writes. */
typedef struct {
    float *next;             /* p_prev on entry, the new time level on exit */
    const float *cur;
    const float *vdt2;       /* v^2 dt^2 on the owned planes, in the field layout */
    sf_cuda_grid grid;
    int z0;                  /* global index of local plane 0 */
    int zero_plane0;         /* a free surface holds local plane 0 at zero */
    sf_cuda_coefficients c;
    sf_cuda_layer layer[3][2];          /* [axis][side] */
    const float *a[3], *b[3];           /* CPML coefficients at integer points, global index */
    sf_cuda_relaxation relax;
} sf_cuda_step;

/* How the stencil covers the x-y plane, in tiles of 32 x 8 points. Along
 * each axis, tiles start at 0 up to the end of the low layer's span and
 * end at n back to the start of the high layer's span, so no tile that a
 * layer's span needs is cut short by the grid's end; the interior between
 * them runs a kernel without layer terms in tiles of its own shape. The
 * frame, every tile outside the interior, runs the kernel with layer
 * terms, as do all tiles on the planes of a z layer span. */
enum { SF_CUDA_TILE_Y = 8 };

typedef struct {
    int inner_x0, inner_x1, inner_y0, inner_y1;   /* the interior, in points */
    int4 *tiles;              /* device list of (x0, y0, x_end, y_end): the frame's, then the interior's */
    int frame_count, tile_count;
    int z_chunk;              /* planes one block streams through */
} sf_cuda_tiling;

/* The room sf_cuda_tiling_plan's list needs, in tiles. */
long sf_cuda_tiling_room(int nx, int ny);

/* Fills the tiling's tile sets for a step; tiles_host receives the list
 * (room for sf_cuda_tiling_room tiles) to be copied to t->tiles. */
void sf_cuda_tiling_plan(sf_cuda_tiling *t, const sf_cuda_step *s, int4 *tiles_host);

/* The stencil's streams: the frame tiles run on `side` beside the
 * interior tiles on `main`, forked and joined through the two events. */
typedef struct {
    cudaStream_t main, side;
    cudaEvent_t fork, join;
} sf_cuda_streams;

/* The new time level on local planes [k0, k1), with the layer terms. */
void sf_cuda_advance(const sf_cuda_step *s, const sf_cuda_tiling *t, int radius, int k0, int k1,
                     const sf_cuda_streams *streams);

/* psi <- b psi + a dp/dn over a box of half points along one axis. */
typedef struct {
    int lo[3], n[3];          /* first point and extent along x, y, z (local planes) */
    int axis;                 /* the derivative's axis */
    float *psi;
    long psi_base;            /* offset of the box's first half point */
    long psi_stride[3];
    const float *a_half, *b_half;
    int coefficient_shift;    /* global index of the axis coordinate minus the local one */
    float first[SF_MAX_RADIUS + 1];
} sf_cuda_memory_box;

/* Up to SF_CUDA_MEMORY_BOXES boxes, the x and y ones in one launch. */
enum { SF_CUDA_MEMORY_BOXES = 6 };
void sf_cuda_update_memory(const sf_cuda_memory_box *boxes, int count, const float *p,
                           sf_cuda_grid g, int radius, cudaStream_t stream);

/* SF_HALO planes, each given by its point (0, 0) and rows row_stride
 * apart, to and from a packed [SF_HALO][ny][nx] buffer. A NULL source
 * plane packs as zeros; a NULL destination plane is skipped. */
typedef struct {
    const float *plane[SF_HALO];
} sf_cuda_plane_sources;
typedef struct {
    float *plane[SF_HALO];
} sf_cuda_plane_targets;

void sf_cuda_pack_planes(float *packed, sf_cuda_plane_sources from, long row_stride, int nx,
                         int ny, cudaStream_t stream);
void sf_cuda_unpack_planes(sf_cuda_plane_targets to, long row_stride, const float *packed, int nx,
                           int ny, cudaStream_t stream);

/* The SF_HALO ghost planes above local plane 0: p(-k) = -p(k). */
void sf_cuda_mirror_surface(float *field, sf_cuda_grid g, cudaStream_t stream);

/* field at i = 0, di, ..; j = 0, dj, ..; k = k0, k0 + dk, .. into
 * out[planes][rows][columns]. */
void sf_cuda_gather_lattice(float *out, const float *field, sf_cuda_grid g, long di, long dj,
                            long dk, long k0, long planes, long rows, long columns,
                            cudaStream_t stream);

/* field[index[n]] += coef[n] * amplitude for the points whose plane lies
 * in [k0, k1). */
void sf_cuda_inject(float *field, const long *index, const float *coef, const int *plane,
                    int count, float amplitude, int k0, int k1, cudaStream_t stream);

/* out[r] = sum of weight[n] * field[index[n]] over n in [offset[r], offset[r + 1]). */
void sf_cuda_sample(float *out, const float *field, const long *index, const float *weight,
                    const long *offset, int receivers, cudaStream_t stream);

/* The instability guard: the lowest linear index k nx ny + j nx + i of an
 * owned point of field (sf_layout's layout, halos excluded) whose value
 * is NaN or Inf, or SF_CUDA_ALL_FINITE. scratch is one device word; the
 * kernel runs after the work queued on stream, which this call waits for. */
#define SF_CUDA_ALL_FINITE 0xffffffffffffffffull
unsigned long long sf_cuda_first_nonfinite(const float *field, sf_cuda_grid g,
                                           unsigned long long *scratch, cudaStream_t stream);

/* The instability guard's measure of fields[0, count) (count at most
 * SF_GUARD_MAX_FIELDS): out[f][region] = the sum of the squares of field
 * f's owned points in each region of r, in double. partial (device) and
 * partial_host (pinned) hold SF_CUDA_NORM_BLOCKS x SF_GUARD_MAX_FIELDS x
 * SF_REGIONS doubles; the kernel runs after the work queued on stream,
 * which this call waits for. */
enum { SF_CUDA_NORM_BLOCKS = 1024 };
void sf_cuda_region_squares(const float *const *fields, int count, sf_cuda_grid g,
                            const sf_regions *r, double *partial, double *partial_host,
                            cudaStream_t stream, double out[][SF_REGIONS]);

/* The staggered first derivative of u (read through the read-only cache)
 * at the half point above u[0], between u[0] and u[step], and below it,
 * between u[-step] and u[0]; c: sf_stencil_scaled's first on that axis. */
template <int R>
__device__ __forceinline__ float sf_cuda_staggered_up(const float *u, long step, const float *c)
{
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m) d += c[m] * (__ldg(u + m * step) - __ldg(u - (m - 1) * step));
    return d;
}

template <int R>
__device__ __forceinline__ float sf_cuda_staggered_down(const float *u, long step, const float *c)
{
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m) d += c[m] * (__ldg(u + (m - 1) * step) - __ldg(u - m * step));
    return d;
}

#endif
