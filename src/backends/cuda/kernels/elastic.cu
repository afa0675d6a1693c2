/* Elastic kernels. The two half-step updates stream along z: a block owns
 * a TILE_X x TILE_Y column of the slab and walks a chunk of its planes,
 * keeping each z-differentiated field's 2R + 1 planes in registers and
 * the x- and y-differentiated fields of the current plane in shared
 * tiles (with halos), so every field is read from DRAM about once per
 * half-step. The medium
 * comes as three node arrays (rho, mu, lambda) and the staggered averages
 * are formed here, which is 12 bytes per point instead of 32. The
 * arithmetic follows the CPU backend term by term (same coefficients,
 * same order of the sums), so results differ from it only by rounding. */
#include "../cuda_elastic.h"

#include <cuda_pipeline.h>

extern "C" {
#include "sf_error.h"
}

/* A block's column and planes per chunk; blocks per SM asked of the
 * compiler (interior kernels: 64 registers without spills, 4 blocks of
 * 8 warps each). Measured on an H100 in docs/performance.md: taller
 * tiles, 16 or 64 planes per chunk and 3 interior blocks per SM were
 * within 1%. */
enum {
    TILE_X = 32, TILE_Y = 8, CHUNK = 32,
    INTERIOR_BLOCKS = 4, ABSORBING_BLOCKS = 3,
    /* The stress kernels that relax through solids hold their memory
     * variables' sums too: at 64 or 80 registers they spilled 100 to 250
     * bytes a thread; with the memory variables prefetched, 3 blocks (80
     * registers, 64 bytes spilled) ran 10% slower than 2. */
    RELAXING_BLOCKS = 2,
    SHARED_X = TILE_X + 2 * SF_PAD, SHARED_Y = TILE_Y + 2 * SF_PAD,
    THREADS = 256
};

typedef sf_cuda_elastic_step step;
typedef float tile[SHARED_Y][SHARED_X];

__device__ __forceinline__ long field_at(const step &s, int i, int j, int k)
{
    return (long)(k + SF_HALO) * s.sp + (long)(j + SF_PAD) * s.sx + i + s.gx;
}

__device__ __forceinline__ long plane_at(const step &s, int i, int j, int k)
{
    return (long)k * s.sp + (long)(j + SF_PAD) * s.sx + i + s.gx;
}

/* The CPML correction of one derivative term, both ends of its axis in
 * the CPU's order. */
__device__ float absorb(const step &s, int g, int t, int axis, int up, int i, int j, int k, float d)
{
    const float *A = up ? s.a_half[axis] : s.a[axis], *B = up ? s.b_half[axis] : s.b[axis];
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_elastic_layer &ly = s.layer[axis][side];
        float *psi = ly.psi[g][t];
        if (!psi) continue;
        long q;
        int c;
        if (axis == 0) {
            if (i < ly.lo || i >= ly.hi) continue;
            q = ((long)k * s.ny + j) * (ly.hi - ly.lo) + (i - ly.lo), c = i;
        } else if (axis == 1) {
            if (j < ly.lo || j >= ly.hi) continue;
            q = ((long)k * (ly.hi - ly.lo) + (j - ly.lo)) * s.nx + i, c = j;
        } else {
            if (k < ly.plo || k >= ly.phi) continue;
            q = ((long)(k - ly.plo) * s.ny + j) * s.nx + i, c = s.z0 + k;
        }
        float p = B[c] * psi[q] + A[c] * d;
        psi[q] = p;
        d += p;
    }
    return d;
}

/* The staggered derivative from a shared tile along x (dx = 1) or y
 * (dy = 1) at the thread's point: forward (up) or backward. */
template <int R>
__device__ __forceinline__ float tile_derivative(const tile &t, const float *c, int dx, int dy,
                                                 int up)
{
    const int x = threadIdx.x + SF_PAD, y = threadIdx.y + SF_PAD;
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m)
        d += up ? c[m] * (t[y + m * dy][x + m * dx] - t[y - (m - 1) * dy][x - (m - 1) * dx])
                : c[m] * (t[y + (m - 1) * dy][x + (m - 1) * dx] - t[y - m * dy][x - m * dx]);
    return d;
}

/* The same along z from planes k - R .. k + R held in registers. */
template <int R>
__device__ __forceinline__ float queue_derivative(const float *q, const float *c, int up)
{
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m)
        d += up ? c[m] * (q[R + m] - q[R - m + 1]) : c[m] * (q[R + m - 1] - q[R - m]);
    return d;
}

template <bool ABSORB>
__device__ __forceinline__ float absorbed(const step &s, int g, int t, int axis, int up, int i,
                                          int j, int k, float d)
{
    return ABSORB ? absorb(s, g, t, axis, up, i, j, k, d) : d;
}

/* Which of a thread's reads exist: its point (padding included), and the
 * halo points TILE_X to the right and TILE_Y below it. */
struct reach {
    bool here, right, below;
};

__device__ __forceinline__ float load(const float *f, long n, bool ok) { return ok ? __ldg(f + n) : 0.0f; }

/* Three fields' planes k - R .. k + R at a thread's column, in registers:
 * start() reads the 2R below the head, each plane's load_head() plane
 * k + R (it is first needed R planes later), shift() moves one plane up. */
template <int R>
struct z_queues {
    const float *f[3];
    float q[3][2 * R + 1];

    __device__ __forceinline__ void start(long n, long sp, bool ok)
    {
#pragma unroll
        for (int m = 0; m < 2 * R; ++m)
#pragma unroll
            for (int c = 0; c < 3; ++c) q[c][m] = load(f[c], n + (m - R) * sp, ok);
    }
    __device__ __forceinline__ void load_head(long n, long sp, bool ok)
    {
#pragma unroll
        for (int c = 0; c < 3; ++c) q[c][2 * R] = load(f[c], n + R * sp, ok);
    }
    __device__ __forceinline__ void shift()
    {
#pragma unroll
        for (int c = 0; c < 3; ++c)
#pragma unroll
            for (int m = 0; m < 2 * R; ++m) q[c][m] = q[c][m + 1];
    }
};

/* 4 / (1/a + 1/b + 1/c + 1/d), 0 when any is a fluid: as the CPU medium. */
__device__ __forceinline__ float harmonic4(float a, float b, float c, float d)
{
    if (a <= 0.0f || b <= 0.0f || c <= 0.0f || d <= 0.0f) return 0.0f;
    return 4.0f / (1.0f / a + 1.0f / b + 1.0f / c + 1.0f / d);
}

struct tile_point {
    int i, j;
    bool active;   /* an owned point: computed and written */
    reach r;
};

__device__ __forceinline__ tile_point locate(const step &s, int2 tile)
{
    tile_point p;
    p.i = tile.x * TILE_X + threadIdx.x, p.j = tile.y * TILE_Y + threadIdx.y;
    p.active = p.i < s.nx && p.j < s.ny;
    p.r.here = p.i < s.nx + SF_PAD && p.j < s.ny + SF_PAD;
    p.r.right = p.i + TILE_X < s.nx + SF_PAD;
    p.r.below = p.j + TILE_Y < s.ny + SF_PAD;
    return p;
}

/* Plane k + 1's tiles and point values are copied into shared memory
 * asynchronously (cp.async) while plane k is computed from the other
 * buffer, so the loop does not wait for memory; the z-differentiated
 * fields run R planes ahead in registers. */
__device__ __forceinline__ void copy_async(float *dst, const float *f, long n, bool ok)
{
    __pipeline_memcpy_async(dst, ok ? f + n : f, sizeof(float), ok ? 0 : sizeof(float));
}

template <int R>
__device__ __forceinline__ void tile_async(tile &t, const float *f, long n, long sx, bool along_x,
                                           bool along_y, reach r)
{
    const int x = threadIdx.x + SF_PAD, y = threadIdx.y + SF_PAD;
    copy_async(&t[y][x], f, n, r.here);
    if (along_x && threadIdx.x < R) {
        copy_async(&t[y][x - R], f, n - R, r.here);
        copy_async(&t[y][x + TILE_X], f, n + TILE_X, r.here && r.right);
    }
    if (along_y && threadIdx.y < R) {
        copy_async(&t[y - R][x], f, n - R * sx, r.here);
        copy_async(&t[y + TILE_Y][x], f, n + TILE_Y * sx, r.here && r.below);
    }
}

typedef float points[TILE_Y][TILE_X];

struct velocity_buffer {
    tile t[5];          /* sxx, syy, sxy, sxz, syz */
    points v[3];        /* vx, vy, vz before the update */
};

struct stress_buffer {
    tile t[3];          /* vx, vy, vz */
    points s[6];        /* the stresses before the update */
    points lambda;
};

/* rho at (i, j), (i + 1, j), (i, j + 1) of a plane. */
struct rho_triple {
    float o, x, y;
};

__device__ __forceinline__ rho_triple rho_at(const float *rho, long n, long sx, bool ok)
{
    if (!ok) return {1.0f, 1.0f, 1.0f};
    return {__ldg(rho + n), __ldg(rho + n + 1), __ldg(rho + n + sx)};
}

template <int R>
__device__ __forceinline__ void velocity_async(velocity_buffer &b, const step &s, long n,
                                               const tile_point &P)
{
    const long sx = s.sx;
    tile_async<R>(b.t[0], s.f[SF_FIELD_SXX], n, sx, true, false, P.r);
    tile_async<R>(b.t[1], s.f[SF_FIELD_SYY], n, sx, false, true, P.r);
    tile_async<R>(b.t[2], s.f[SF_FIELD_SXY], n, sx, true, true, P.r);
    tile_async<R>(b.t[3], s.f[SF_FIELD_SXZ], n, sx, true, false, P.r);
    tile_async<R>(b.t[4], s.f[SF_FIELD_SYZ], n, sx, false, true, P.r);
    for (int q = 0; q < 3; ++q)
        copy_async(&b.v[q][threadIdx.y][threadIdx.x], s.f[SF_FIELD_VX + q], n, P.active);
    __pipeline_commit();
}

template <int R, bool ABSORB>
__device__ void velocity_planes(const step &s, velocity_buffer *buffers, int2 tile, int k0, int k1)
{
    const tile_point P = locate(s, tile);
    const int V = SF_HALF_VELOCITY;
    const float *rho = s.node[SF_NODE_RHO];
    const long sx = s.sx, sp = s.sp;
    long n = field_at(s, P.i, P.j, k0);
    enum { ZZ, XZ, YZ };
    z_queues<R> z = {{s.f[SF_FIELD_SZZ], s.f[SF_FIELD_SXZ], s.f[SF_FIELD_SYZ]}};
    z.start(n, sp, P.r.here);
    rho_triple here = rho_at(rho, n, sx, P.active), above = rho_at(rho, n + sp, sx, P.active);
    velocity_async<R>(buffers[0], s, n, P);
    for (int k = k0; k < k1; ++k, n += sp) {
        const velocity_buffer &b = buffers[(k - k0) & 1];
        z.load_head(n, sp, P.r.here);
        const rho_triple next = rho_at(rho, n + 2 * sp, sx, P.active);
        velocity_async<R>(buffers[((k - k0) & 1) ^ 1], s, n + sp, P);
        __pipeline_wait_prior(1);
        __syncthreads();
        if (P.active) {
            const float *cx = s.d1[0], *cy = s.d1[1], *cz = s.d1[2];
            const int i = P.i, j = P.j, x = threadIdx.x, y = threadIdx.y;
            float d0 = absorbed<ABSORB>(s, V, 0, 0, 1, i, j, k, tile_derivative<R>(b.t[0], cx, 1, 0, 1));
            float d1 = absorbed<ABSORB>(s, V, 1, 1, 0, i, j, k, tile_derivative<R>(b.t[2], cy, 0, 1, 0));
            float d2 = absorbed<ABSORB>(s, V, 2, 2, 0, i, j, k, queue_derivative<R>(z.q[XZ], cz, 0));
            s.f[SF_FIELD_VX][n] = b.v[0][y][x] + s.dt * (2.0f / (here.o + here.x)) * (d0 + d1 + d2);
            d0 = absorbed<ABSORB>(s, V, 3, 0, 0, i, j, k, tile_derivative<R>(b.t[2], cx, 1, 0, 0));
            d1 = absorbed<ABSORB>(s, V, 4, 1, 1, i, j, k, tile_derivative<R>(b.t[1], cy, 0, 1, 1));
            d2 = absorbed<ABSORB>(s, V, 5, 2, 0, i, j, k, queue_derivative<R>(z.q[YZ], cz, 0));
            s.f[SF_FIELD_VY][n] = b.v[1][y][x] + s.dt * (2.0f / (here.o + here.y)) * (d0 + d1 + d2);
            d0 = absorbed<ABSORB>(s, V, 6, 0, 0, i, j, k, tile_derivative<R>(b.t[3], cx, 1, 0, 0));
            d1 = absorbed<ABSORB>(s, V, 7, 1, 0, i, j, k, tile_derivative<R>(b.t[4], cy, 0, 1, 0));
            d2 = absorbed<ABSORB>(s, V, 8, 2, 1, i, j, k, queue_derivative<R>(z.q[ZZ], cz, 1));
            s.f[SF_FIELD_VZ][n] = b.v[2][y][x] + s.dt * (2.0f / (here.o + above.o)) * (d0 + d1 + d2);
        }
        here = above, above = next;
        z.shift();
        __syncthreads();
    }
    __pipeline_wait_prior(0);
}

/* mu at the four nodes (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1) of a plane. */
struct node_square {
    float o, x, y, xy;
};

__device__ __forceinline__ node_square square_at(const float *mu, long n, long sx, bool ok)
{
    if (!ok) return {0.0f, 0.0f, 0.0f, 0.0f};
    return {__ldg(mu + n), __ldg(mu + n + 1), __ldg(mu + n + sx), __ldg(mu + n + sx + 1)};
}

/* A relaxing kernel's point values beside each stress buffer (dynamic
 * shared memory, as their count follows the solids'): the two table
 * coordinates, then every memory variable, solid after solid. Fetched a
 * plane ahead like the fields; read in the update's dependent chain
 * instead, they left the kernel waiting on DRAM at 0.47 of copy. */
enum { RELAXING_COORDINATES = 2 };

__host__ __device__ __forceinline__ int relaxing_values(const step &s)
{
    return RELAXING_COORDINATES + SF_CUDA_ELASTIC_MEMORY * s.law.mechanisms;
}

__device__ __forceinline__ float *relaxing_buffer(float *shared, const step &s, int which)
{
    return shared + which * relaxing_values(s) * TILE_X * TILE_Y;
}

/* Into buffer b, plane k's values at the thread's point; ok false past
 * the owned planes or the grid. */
__device__ __forceinline__ void relaxing_async(float *b, const step &s, long p, bool ok)
{
    const int t = threadIdx.y * TILE_X + threadIdx.x, points = TILE_X * TILE_Y;
    copy_async(b + t, s.bulk_coordinate, p, ok);
    copy_async(b + points + t, s.shear_coordinate, p, ok);
    const int memory = SF_CUDA_ELASTIC_MEMORY * s.law.mechanisms;
    for (int v = 0; v < memory; ++v)
        copy_async(b + (RELAXING_COORDINATES + v) * points + t, s.memory + v * s.plane_size, p, ok);
}

template <int R, bool RELAX>
__device__ __forceinline__ void stress_async(stress_buffer &b, float *relaxing, const step &s, long n,
                                             int k, int k1, const tile_point &P)
{
    const long sx = s.sx;
    for (int q = 0; q < 3; ++q) tile_async<R>(b.t[q], s.f[SF_FIELD_VX + q], n, sx, true, true, P.r);
    for (int q = 0; q < 6; ++q)
        copy_async(&b.s[q][threadIdx.y][threadIdx.x], s.f[SF_FIELD_SXX + q], n, P.active);
    copy_async(&b.lambda[threadIdx.y][threadIdx.x], s.node[SF_NODE_LAMBDA], n, P.active);
    if (RELAX) relaxing_async(relaxing, s, plane_at(s, P.i, P.j, k), P.active && k < k1);
    __pipeline_commit();
}

/* The increments D[6] (sxx, syy, szz, sxy, sxz, syz) of the lossless update
 * at owned-planes offset p, less what the point's solids take: the bulk
 * part, the normal increments' mean, through the bulk Q's weights; the
 * deviatoric rest through the shear Q's (sf_relaxation.h). */
__device__ __forceinline__ void relax_stresses(const step &s, const float *b, long p, float D[6])
{
    const int t = threadIdx.y * TILE_X + threadIdx.x, points = TILE_X * TILE_Y;
    float fb, fs;
    const int ob = sf_relaxation_node(&s.law, b[t], &fb);
    const int os = sf_relaxation_node(&s.law, b[points + t], &fs);
    const float bulk = (D[0] + D[1] + D[2]) * (1.0f / 3.0f);
    float lb = 0.0f, lx = 0.0f, ly = 0.0f, ls[3] = {0.0f, 0.0f, 0.0f};
    const float *before = b + RELAXING_COORDINATES * points + t;
    float *m = s.memory + p;
    const long stride = s.plane_size;
#pragma unroll
    for (int l = 0; l < SF_MAX_MECHANISMS; ++l) {
        if (l == s.law.mechanisms) break;
        const float a = s.law.decay[l];
        const float wb = sf_relaxation_weight(&s.law, ob, fb, l);
        const float ws = sf_relaxation_weight(&s.law, os, fs, l);
        float v[SF_CUDA_ELASTIC_MEMORY];
        for (int q = 0; q < SF_CUDA_ELASTIC_MEMORY; ++q) v[q] = before[q * points];
        lb += sf_relaxation_advance(a, wb, bulk, &v[0]);
        lx += sf_relaxation_advance(a, ws, D[0] - bulk, &v[1]);
        ly += sf_relaxation_advance(a, ws, D[1] - bulk, &v[2]);
        for (int q = 0; q < 3; ++q) ls[q] += sf_relaxation_advance(a, ws, D[3 + q], &v[3 + q]);
        for (int q = 0; q < SF_CUDA_ELASTIC_MEMORY; ++q) m[q * stride] = v[q];
        before += SF_CUDA_ELASTIC_MEMORY * points;
        m += SF_CUDA_ELASTIC_MEMORY * stride;
    }
    D[0] -= 0.5f * (lb + lx);
    D[1] -= 0.5f * (lb + ly);
    D[2] -= 0.5f * (lb - lx - ly);   /* the deviatoric zz memory is minus xx's and yy's */
    for (int q = 0; q < 3; ++q) D[3 + q] -= 0.5f * ls[q];
}

/* The normal stresses old + D; szz stays zero on a free surface (its
 * memory variables still advance). */
__device__ __forceinline__ void store_normal(const step &s, long n, int k, const float old[6],
                                             const float D[6])
{
    s.f[SF_FIELD_SXX][n] = old[0] + D[0];
    s.f[SF_FIELD_SYY][n] = old[1] + D[1];
    s.f[SF_FIELD_SZZ][n] = s.free_surface_here && k == 0 ? 0.0f : old[2] + D[2];
}

/* The moduli are stored times dt. */
template <int R, bool ABSORB, bool RELAX>
__device__ void stress_planes(const step &s, stress_buffer *buffers, float *relaxing, int2 tile, int k0,
                              int k1)
{
    const tile_point P = locate(s, tile);
    const int S = SF_HALF_STRESS;
    const float *mu = s.node[SF_NODE_MU];
    const long sx = s.sx, sp = s.sp;
    long n = field_at(s, P.i, P.j, k0);
    enum { VX, VY, VZ };
    z_queues<R> z = {{s.f[SF_FIELD_VX], s.f[SF_FIELD_VY], s.f[SF_FIELD_VZ]}};
    z.start(n, sp, P.r.here);
    node_square here = square_at(mu, n, sx, P.active), above = square_at(mu, n + sp, sx, P.active);
    stress_async<R, RELAX>(buffers[0], relaxing_buffer(relaxing, s, 0), s, n, k0, k1, P);
    for (int k = k0; k < k1; ++k, n += sp) {
        const int which = (k - k0) & 1;
        const stress_buffer &b = buffers[which];
        z.load_head(n, sp, P.r.here);
        const node_square next = square_at(mu, n + 2 * sp, sx, P.active);
        stress_async<R, RELAX>(buffers[which ^ 1], relaxing_buffer(relaxing, s, which ^ 1), s, n + sp, k + 1,
                               k1, P);
        __pipeline_wait_prior(1);
        __syncthreads();
        if (P.active) {
            const float *cx = s.d1[0], *cy = s.d1[1], *cz = s.d1[2];
            const int i = P.i, j = P.j, x = threadIdx.x, y = threadIdx.y;
            float old[6];
            for (int q = 0; q < 6; ++q) old[q] = b.s[q][y][x];
            if (s.before[0]) {
                const long p = plane_at(s, i, j, k);
                for (int q = 0; q < 6; ++q) s.before[q][p] = old[q];
            }
            const float dx = absorbed<ABSORB>(s, S, 0, 0, 0, i, j, k, tile_derivative<R>(b.t[0], cx, 1, 0, 0));
            const float dy = absorbed<ABSORB>(s, S, 1, 1, 0, i, j, k, tile_derivative<R>(b.t[1], cy, 0, 1, 0));
            const float dz = absorbed<ABSORB>(s, S, 2, 2, 0, i, j, k, queue_derivative<R>(z.q[VZ], cz, 0));
            const float lam = b.lambda[y][x], two_mu = 2.0f * here.o, sum = dx + dy + dz;
            /* The increments D, each stored as soon as it is formed unless
             * the solids take their share of all six first (storing the
             * normal stresses before the shear terms' memory variables is
             * 0.4% faster for the lossless kernel). */
            float D[6];
            D[0] = lam * sum + two_mu * dx;
            D[1] = lam * sum + two_mu * dy;
            D[2] = lam * sum + two_mu * dz;
            if (!RELAX) store_normal(s, n, k, old, D);
            float a = absorbed<ABSORB>(s, S, 3, 1, 1, i, j, k, tile_derivative<R>(b.t[0], cy, 0, 1, 1));
            float c = absorbed<ABSORB>(s, S, 4, 0, 1, i, j, k, tile_derivative<R>(b.t[1], cx, 1, 0, 1));
            D[3] = harmonic4(here.o, here.x, here.y, here.xy) * (a + c);
            if (!RELAX) s.f[SF_FIELD_SXY][n] = old[3] + D[3];
            a = absorbed<ABSORB>(s, S, 5, 2, 1, i, j, k, queue_derivative<R>(z.q[VX], cz, 1));
            c = absorbed<ABSORB>(s, S, 6, 0, 1, i, j, k, tile_derivative<R>(b.t[2], cx, 1, 0, 1));
            D[4] = harmonic4(here.o, here.x, above.o, above.x) * (a + c);
            if (!RELAX) s.f[SF_FIELD_SXZ][n] = old[4] + D[4];
            a = absorbed<ABSORB>(s, S, 7, 2, 1, i, j, k, queue_derivative<R>(z.q[VY], cz, 1));
            c = absorbed<ABSORB>(s, S, 8, 1, 1, i, j, k, tile_derivative<R>(b.t[2], cy, 0, 1, 1));
            D[5] = harmonic4(here.o, here.y, above.o, above.y) * (a + c);
            if (!RELAX) {
                s.f[SF_FIELD_SYZ][n] = old[5] + D[5];
            } else {
                relax_stresses(s, relaxing_buffer(relaxing, s, which), plane_at(s, i, j, k), D);
                store_normal(s, n, k, old, D);
                for (int q = 3; q < 6; ++q) s.f[SF_FIELD_SXX + q][n] = old[q] + D[q];
            }
        }
        here = above, above = next;
        z.shift();
        __syncthreads();
    }
    __pipeline_wait_prior(0);
}

/* Whether [lo, hi) along an axis (z: local planes) meets one of its layers. */
__host__ __device__ bool meets_layers(const step &s, int axis, int lo, int hi)
{
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_elastic_layer &ly = s.layer[axis][side];
        const int first = axis == 2 ? ly.plo : ly.lo, last = axis == 2 ? ly.phi : ly.hi;
        if (first < last && lo < last && first < hi) return true;
    }
    return false;
}

__device__ bool in_layers(const step &s, int2 tile, int k0, int k1)
{
    return meets_layers(s, 0, tile.x * TILE_X, (tile.x + 1) * TILE_X) ||
           meets_layers(s, 1, tile.y * TILE_Y, (tile.y + 1) * TILE_Y) || meets_layers(s, 2, k0, k1);
}

/* A chunk of planes of one tile per block. The absorbing kernels run on
 * every tile and leave those outside the layers to the interior kernels,
 * which skip the memory-variable checks and so need fewer registers. */

template <int R, bool ABSORB>
__global__ void __launch_bounds__(TILE_X *TILE_Y, ABSORB ? ABSORBING_BLOCKS : INTERIOR_BLOCKS)
    velocity_kernel(const step s, int k0, int k1, int2 first)
{
    __shared__ velocity_buffer t[2];
    const int kb = k0 + blockIdx.z * CHUNK, ke = min(k1, kb + CHUNK);
    const int2 tile = make_int2(first.x + blockIdx.x, first.y + blockIdx.y);
    if (ABSORB && !in_layers(s, tile, kb, ke)) return;
    velocity_planes<R, ABSORB>(s, t, tile, kb, ke);
}

template <int R, bool ABSORB, bool RELAX>
__global__ void __launch_bounds__(TILE_X *TILE_Y,
                                  RELAX ? RELAXING_BLOCKS : ABSORB ? ABSORBING_BLOCKS : INTERIOR_BLOCKS)
    stress_kernel(const step s, int k0, int k1, int2 first)
{
    __shared__ stress_buffer t[2];
    extern __shared__ float relaxing[];
    const int kb = k0 + blockIdx.z * CHUNK, ke = min(k1, kb + CHUNK);
    const int2 tile = make_int2(first.x + blockIdx.x, first.y + blockIdx.y);
    if (ABSORB && !in_layers(s, tile, kb, ke)) return;
    stress_planes<R, ABSORB, RELAX>(s, t, relaxing, tile, kb, ke);
}

/* Two planes of the relaxing values: above 48 KiB with the static
 * buffers from 2 solids on, which a kernel must be allowed, once for the
 * most it has been launched with (a rank keeps its one device). */
template <int R, bool ABSORB>
static void launch_relaxing(const step *s, dim3 grid, dim3 block, int k0, int k1, int2 first,
                            cudaStream_t stream)
{
    static size_t allowed = 0;
    const size_t bytes = 2 * sizeof(float) * (size_t)relaxing_values(*s) * TILE_X * TILE_Y;
    if (bytes > allowed) {
        SF_CUDA_CHECK(cudaFuncSetAttribute(stress_kernel<R, ABSORB, true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
                      "allowing the relaxing stress kernel its shared memory");
        allowed = bytes;
    }
    stress_kernel<R, ABSORB, true><<<grid, block, bytes, stream>>>(*s, k0, k1, first);
}

template <int R, bool ABSORB>
static void launch(const step *s, sf_half_step g, int k0, int k1, int2 first, int2 count,
                   cudaStream_t stream)
{
    if (count.x <= 0 || count.y <= 0) return;
    dim3 block(TILE_X, TILE_Y), grid(count.x, count.y, (k1 - k0 + CHUNK - 1) / CHUNK);
    if (g == SF_HALF_VELOCITY) velocity_kernel<R, ABSORB><<<grid, block, 0, stream>>>(*s, k0, k1, first);
    else if (s->law.mechanisms) launch_relaxing<R, ABSORB>(s, grid, block, k0, k1, first, stream);
    else stress_kernel<R, ABSORB, false><<<grid, block, 0, stream>>>(*s, k0, k1, first);
    SF_CUDA_CHECK(cudaGetLastError(), "launching an elastic update kernel");
}

/* The tiles along an axis that meet neither of its layers: [*lo, *hi). */
static void interior_tiles(const step *s, int axis, int size, int count, int *lo, int *hi)
{
    *lo = 0, *hi = count;
    while (*lo < count && meets_layers(*s, axis, *lo * size, (*lo + 1) * size)) ++*lo;
    while (*hi > *lo && meets_layers(*s, axis, (*hi - 1) * size, *hi * size)) --*hi;
}

/* Planes [k0, k1), all inside or all outside the z layers. */
template <int R>
static void launch_update(const step *s, sf_half_step g, int k0, int k1, cudaStream_t stream)
{
    const int2 tiles = make_int2((s->nx + TILE_X - 1) / TILE_X, (s->ny + TILE_Y - 1) / TILE_Y);
    launch<R, true>(s, g, k0, k1, make_int2(0, 0), tiles, stream);
    if (meets_layers(*s, 2, k0, k1)) return;
    int x0, x1, y0, y1;
    interior_tiles(s, 0, TILE_X, tiles.x, &x0, &x1);
    interior_tiles(s, 1, TILE_Y, tiles.y, &y0, &y1);
    launch<R, false>(s, g, k0, k1, make_int2(x0, y0), make_int2(x1 - x0, y1 - y0), stream);
}

/* Plane ranges are cut at the z layers' ends so that chunks of interior
 * planes skip the memory-variable checks. */
void sf_cuda_elastic_update(const sf_cuda_elastic_step *s, sf_half_step g, int k0, int k1,
                            cudaStream_t stream)
{
    int cuts[6], count = 0;
    cuts[count++] = k0;
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_elastic_layer &ly = s->layer[2][side];
        if (ly.plo >= ly.phi) continue;
        if (ly.plo > k0 && ly.plo < k1) cuts[count++] = ly.plo;
        if (ly.phi > k0 && ly.phi < k1) cuts[count++] = ly.phi;
    }
    cuts[count++] = k1;
    for (int a = 1; a < count; ++a)   /* a handful: insertion sort */
        for (int b = a; b > 0 && cuts[b] < cuts[b - 1]; --b) {
            int c = cuts[b];
            cuts[b] = cuts[b - 1], cuts[b - 1] = c;
        }
    for (int q = 0; q + 1 < count; ++q) {
        if (cuts[q + 1] <= cuts[q]) continue;
        switch (s->radius) {
        case 1: launch_update<1>(s, g, cuts[q], cuts[q + 1], stream); break;
        case 2: launch_update<2>(s, g, cuts[q], cuts[q + 1], stream); break;
        default: launch_update<4>(s, g, cuts[q], cuts[q + 1], stream); break;
        }
    }
}

static int blocks_for(long n) { return (int)((n + THREADS - 1) / THREADS); }

__global__ void planes_kernel(const step s, sf_cuda_field_list fields, int k0, float *buffer,
                              int to_buffer)
{
    const long per_field = (long)SF_HALO * s.ny * s.nx;
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= per_field * fields.count) return;
    const int q = (int)(n / per_field);
    const long r = n % per_field;
    const int i = (int)(r % s.nx), j = (int)(r / s.nx % s.ny), k = (int)(r / ((long)s.nx * s.ny));
    float *f = fields.f[q] + field_at(s, i, j, k0 + k);
    if (to_buffer) buffer[n] = *f;
    else *f = buffer[n];
}

void sf_cuda_elastic_planes(const sf_cuda_elastic_step *s, sf_cuda_field_list fields, int k0,
                            float *buffer, int to_buffer, cudaStream_t stream)
{
    long n = (long)SF_HALO * s->ny * s->nx * fields.count;
    if (n == 0) return;
    planes_kernel<<<blocks_for(n), THREADS, 0, stream>>>(*s, fields, k0, buffer, to_buffer);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic halo kernel");
}

/* Whole planes, padding included, as the CPU copies them. */
__global__ void mirror_kernel(long sp, sf_cuda_images im)
{
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= 3 * SF_HALO * sp) return;
    const int q = (int)(n / (SF_HALO * sp)), m = (int)(n / sp % SF_HALO) + 1;
    const long e = n % sp;
    im.f[q][(SF_HALO - m) * sp + e] = im.sign[q] * im.f[q][(m - im.shift[q] + SF_HALO) * sp + e];
}

void sf_cuda_elastic_mirror(const sf_cuda_elastic_step *s, sf_cuda_images images,
                            cudaStream_t stream)
{
    mirror_kernel<<<blocks_for(3 * SF_HALO * s->sp), THREADS, 0, stream>>>(s->sp, images);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the free-surface kernel");
}

__global__ void inject_kernel(float *base, const long *offset, const float *coef, const int *plane,
                              const int *group, int count, int g, float amplitude, int k0, int k1)
{
    const int n = blockIdx.x * THREADS + threadIdx.x;
    if (n < count && group[n] == g && plane[n] >= k0 && plane[n] < k1)
        atomicAdd(base + offset[n], coef[n] * amplitude);
}

void sf_cuda_elastic_inject(float *base, const long *offset, const float *coef, const int *plane,
                            const int *group, int count, int g, float amplitude, int k0, int k1,
                            cudaStream_t stream)
{
    if (count == 0) return;
    inject_kernel<<<blocks_for(count), THREADS, 0, stream>>>(base, offset, coef, plane, group,
                                                              count, g, amplitude, k0, k1);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic source kernel");
}

/* One thread per channel, summing in the CPU's order. */
__global__ void sample_kernel(const step s, sf_cuda_channels c, float *out)
{
    const int r = blockIdx.x * THREADS + threadIdx.x;
    if (r >= c.count) return;
    float sum = 0.0f;
    if (c.component[r] == SF_COMPONENT_P) {
        for (long n = c.offset[r]; n < c.offset[r + 1]; ++n) {
            long q = c.index[n];
            sum += c.weight[n] * (s.f[SF_FIELD_SXX][q] + s.f[SF_FIELD_SYY][q] + s.f[SF_FIELD_SZZ][q]);
        }
        out[r] = sum * (-1.0f / 3.0f);
        return;
    }
    const float *f = s.f[SF_FIELD_VX + c.component[r]];
    for (long n = c.offset[r]; n < c.offset[r + 1]; ++n) sum += c.weight[n] * f[c.index[n]];
    out[r] = 0.5f * (c.previous[r] + sum);
    c.previous[r] = sum;
}

void sf_cuda_elastic_sample(const sf_cuda_elastic_step *s, sf_cuda_channels c, float *out,
                            cudaStream_t stream)
{
    if (c.count == 0) return;
    sample_kernel<<<blocks_for(c.count), THREADS, 0, stream>>>(*s, c, out);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic receiver kernel");
}

__global__ void lattice_kernel(const step s, int c, long di, long dj, long dk, long k0,
                               long planes, long rows, long columns, float *out)
{
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    if (n >= planes * rows * columns) return;
    const int i = (int)(n % columns * di), j = (int)(n / columns % rows * dj);
    const int k = (int)(k0 + n / (columns * rows) * dk);
    const long q = field_at(s, i, j, k);
    if (c == SF_COMPONENT_P) {
        out[n] = (s.f[SF_FIELD_SXX][q] + s.f[SF_FIELD_SYY][q] + s.f[SF_FIELD_SZZ][q]) * (-1.0f / 3.0f);
        return;
    }
    const long below = c == 0 ? 1 : c == 1 ? s.sx : s.sp;
    const float *f = s.f[SF_FIELD_VX + c];
    out[n] = 0.5f * (f[q - below] + f[q]);
}

void sf_cuda_elastic_lattice(const sf_cuda_elastic_step *s, sf_component c, long di, long dj,
                             long dk, long k0, long planes, long rows, long columns, float *out,
                             cudaStream_t stream)
{
    long n = planes * rows * columns;
    lattice_kernel<<<blocks_for(n), THREADS, 0, stream>>>(*s, (int)c, di, dj, dk, k0, planes, rows,
                                                          columns, out);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the elastic snapshot kernel");
}

/* The CPU backend's point_energy, in double. */
__device__ double point_energy(const step &s, const sf_cuda_energy_weights &e, long f, long p,
                               double *kinetic)
{
    for (int v = 0; v < 3; ++v) {
        double u = s.f[SF_FIELD_VX + v][f];
        *kinetic += e.w[v][p] * u * u;
    }
    double before[3], after[3], trb = 0.0, tra = 0.0;
    for (int q = 0; q < 3; ++q) {
        before[q] = s.before[q][p];
        after[q] = s.f[SF_FIELD_SXX + q][f];
        trb += before[q], tra += after[q];
    }
    double deviatoric = 0.0, shear = 0.0;
    for (int q = 0; q < 3; ++q) deviatoric += (before[q] - trb / 3.0) * (after[q] - tra / 3.0);
    for (int q = 0; q < 3; ++q)
        shear += e.w[5 + q][p] * s.before[3 + q][p] * (double)s.f[SF_FIELD_SXY + q][f];
    return e.w[3][p] * trb * tra + e.w[4][p] * deviatoric + shear;
}

/* Grid-stride sums per thread, a block reduction in shared memory, one
 * atomic add per block and quantity. */
__global__ void __launch_bounds__(THREADS) energy_kernel(const step s, sf_cuda_energy_weights e,
                                                         double *sums)
{
    __shared__ double part[2][THREADS];
    const long total = (long)s.nx * s.ny * s.nz;
    double kinetic = 0.0, strain = 0.0;
    for (long n = (long)blockIdx.x * THREADS + threadIdx.x; n < total; n += (long)gridDim.x * THREADS) {
        const int i = (int)(n % s.nx), j = (int)(n / s.nx % s.ny), k = (int)(n / ((long)s.nx * s.ny));
        strain += point_energy(s, e, field_at(s, i, j, k), plane_at(s, i, j, k), &kinetic);
    }
    part[0][threadIdx.x] = kinetic;
    part[1][threadIdx.x] = strain;
    __syncthreads();
    for (int width = THREADS / 2; width > 0; width /= 2) {
        if (threadIdx.x < width) {
            part[0][threadIdx.x] += part[0][threadIdx.x + width];
            part[1][threadIdx.x] += part[1][threadIdx.x + width];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], part[0][0]);
        atomicAdd(&sums[1], part[1][0]);
    }
}

void sf_cuda_elastic_energy(const sf_cuda_elastic_step *s, sf_cuda_energy_weights weights,
                            double *sums, cudaStream_t stream)
{
    long total = (long)s->nx * s->ny * s->nz;
    int blocks = (int)(total < 1024L * THREADS ? blocks_for(total) : 1024);
    energy_kernel<<<blocks, THREADS, 0, stream>>>(*s, weights, sums);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the energy kernel");
}
