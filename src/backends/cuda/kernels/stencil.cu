/* The acoustic time step on the GPU: 2.5D streaming kernels. A block owns
 * a tile of the x-y plane and marches through a run of planes; each
 * thread keeps the 2R+1 values of its column of p in registers, and the
 * current plane with an R-point rim sits in shared memory for the x and y
 * derivatives. Every point reads p, p_prev and v^2 dt^2 once and writes
 * the new level once: 16 bytes of DRAM traffic, plus the rims from L2.
 * Two kernels: the frame kernel (32 x 8 tiles, a point per thread, so a
 * 24-row layer span fills 3 tiles) adds the CPML terms where a point lies
 * in a layer's span; the interior kernel (128 x 8 tiles, four points per
 * thread, 16-byte accesses) has none. Both may relax (the visco-acoustic
 * update): each point's new level then loses what its standard linear
 * solids take (sf_relaxation.h), their memory read and written beside it. */
#include "cuda_kernels.h"

extern "C" {
#include "sf_error.h"
}

enum { FRAME_TX = SF_CUDA_TILE_X, FRAME_TY = SF_CUDA_TILE_Y, MAX_GRID_Z = 65535 };

/* The interior kernel's rectangle, from (x0, y0) in steps of its tile.
 * Points at or beyond (x_end, y_end) are read but left to other launches. */
typedef struct {
    int x0, y0, x_end, y_end;
} tile_source;

/* The planes of this block: [*kb, *ke). */
static __device__ __forceinline__ void block_planes(int k0, int k1, int chunk, int *kb, int *ke)
{
    *kb = k0 + (int)blockIdx.z * chunk;
    *ke = min(*kb + chunk, k1);
}

/* Rim element h of a frame tile: the 2R rows above and below it first,
 * then the R columns left and right of each row; (row, col) in the shared
 * tile. */
template <int R>
static __device__ __forceinline__ void locate_rim(int h, int *row, int *col)
{
    constexpr int TX = FRAME_TX, TY = FRAME_TY;
    const int rows_part = 2 * R * TX;
    if (h < rows_part) {
        const int r = h / TX, c = h % TX;
        *row = r < R ? r : r + TY;
        *col = c + R;
    } else {
        const int u = h - rows_part, r = u / (2 * R), c = u % (2 * R);
        *row = r + R;
        *col = c < R ? c : c + TX;
    }
}

/* One layer's Pasalic-McGarry term at a point: with t = d2 + dpsi,
 * zeta <- b zeta + a t, and the Laplacian gains dpsi + zeta. psi points
 * at the half point just past the point along the axis; step is its stride.
 * Where a = 0 (the R points beside a layer, whose update only reads psi)
 * zeta stays at its initial zero, so it is neither read nor written. */
template <int R, int AXIS>
static __device__ __forceinline__ float layer_term(const sf_cuda_step &s, const float *psi,
                                                   long step, float *zeta, float d2, float a,
                                                   float b)
{
    const float dpsi = sf_cuda_staggered_down<R>(psi, step, s.c.first[AXIS]);
    if (a == 0.0f) return dpsi;
    const float z = b * *zeta + a * (d2 + dpsi);
    *zeta = z;
    return dpsi + z;
}

/* The layer terms of point (i, j, local plane k); bit 2 * axis + side of
 * near says whether the block's tile touches that x or y layer's span. The
 * sides go one after the other to keep few registers live. */
template <int R>
static __device__ __forceinline__ float layer_terms(const sf_cuda_step &s, unsigned near, int i,
                                                    int j, int k, float dxx, float dyy, float dzz)
{
    const long nx = s.grid.nx, ny = s.grid.ny;
    float sum = 0.0f;
#pragma unroll 1
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_layer &x = s.layer[0][side];
        if ((near >> side & 1u) && i >= x.lo && i < x.hi) {
            const long line = (long)k * ny + j;
            sum += layer_term<R, 0>(s, x.psi + line * x.psi_width + SF_PSI_PAD + (i - x.hlo), 1,
                                    x.zeta + line * (x.hi - x.lo) + (i - x.lo), dxx, __ldg(s.a[0] + i),
                                    __ldg(s.b[0] + i));
        }
        const sf_cuda_layer &y = s.layer[1][side];
        if ((near >> (2 + side) & 1u) && j >= y.lo && j < y.hi) {
            const long row = (long)k * y.psi_width + SF_PSI_PAD + (j - y.hlo);
            sum += layer_term<R, 1>(s, y.psi + row * nx + i, nx,
                                    y.zeta + ((long)k * (y.hi - y.lo) + (j - y.lo)) * nx + i, dyy,
                                    __ldg(s.a[1] + j), __ldg(s.b[1] + j));
        }
        const sf_cuda_layer &z = s.layer[2][side];
        if (k >= z.lo && k < z.hi) {
            const long plane = SF_PSI_PAD + k - z.hlo;
            sum += layer_term<R, 2>(s, z.psi + (plane * ny + j) * nx + i, nx * ny,
                                    z.zeta + ((long)(k - z.lo) * ny + j) * nx + i, dzz,
                                    __ldg(s.a[2] + s.z0 + k), __ldg(s.b[2] + s.z0 + k));
        }
    }
    return sum;
}

/* The loads of one plane that a thread needs: p at the queue's front
 * (R planes ahead), p_prev, v^2 dt^2 and its share of the rim. */
template <int RIMS>
struct plane_loads {
    float front, prev, vel, rim[RIMS];
};

template <int R, int RIMS>
static __device__ __forceinline__ void load_plane(plane_loads<RIMS> &l, const sf_cuda_step &s,
                                                  long at, long vat, bool inside, bool owns,
                                                  const int (&rim_offset)[RIMS],
                                                  const bool (&rim_load)[RIMS])
{
    if (inside) l.front = __ldg(s.cur + at + R * s.grid.sp);
    if (owns) {
        l.prev = s.next[at];
        l.vel = __ldg(s.vdt2 + vat);
    }
#pragma unroll
    for (int n = 0; n < RIMS; ++n) l.rim[n] = rim_load[n] ? __ldg(s.cur + at + rim_offset[n]) : 0.0f;
}

/* What owned point `at` (owned-plane layout) loses to its solids over a
 * step of increment d; its memory variables advance. corner: the point's
 * mechanism in a coarse layout. */
static __device__ __forceinline__ float relax_at(const sf_cuda_relaxation &r, long at, int corner,
                                                 float d)
{
    if (r.law.coarse) {
        float memory = r.memory[0][at];
        const float loss = sf_relax_coarse_point(&r.law, __ldg(r.coordinate + at), corner, d, &memory);
        r.memory[0][at] = memory;
        return loss;
    }
    float memory[SF_MAX_MECHANISMS] = {0.0f};
#pragma unroll
    for (int l = 0; l < SF_MAX_MECHANISMS; ++l)
        if (l < r.law.mechanisms) memory[l] = r.memory[l][at];
    const float loss = sf_relax_point(&r.law, __ldg(r.coordinate + at), d, memory);
#pragma unroll
    for (int l = 0; l < SF_MAX_MECHANISMS; ++l)
        if (l < r.law.mechanisms) r.memory[l][at] = memory[l];
    return loss;
}

/* The frame kernel: one point per thread. The loads of plane k + 1 are
 * issued before plane k is computed, so they are in flight meanwhile. */
template <int R, bool RELAX>
/* 64 registers: 32 warps per SM, the most that allows. */
__global__ void __launch_bounds__(FRAME_TX * FRAME_TY, 1024 / (FRAME_TX * FRAME_TY))
    frame_kernel(const __grid_constant__ sf_cuda_step s, const int4 *__restrict__ tiles,
                 const int k0, const int k1, const int chunk)
{
    constexpr int TX = FRAME_TX, TY = FRAME_TY;
    constexpr int WIDTH = TX + 2 * R, RIM = 2 * R * TX + 2 * R * TY;
    constexpr int THREADS = TX * TY, RIMS = (RIM + THREADS - 1) / THREADS;
    __shared__ float tile[2][TY + 2 * R][WIDTH];

    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    const int4 tile_box = tiles[blockIdx.x];
    const int i0 = tile_box.x, j0 = tile_box.y;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = i0 + tx, j = j0 + ty;
    const int nx = s.grid.nx, ny = s.grid.ny;
    const long sx = s.grid.sx, sp = s.grid.sp;
    /* Outside the grid p is zero: such threads load nothing and hold 0.
     * Past the tile's end (x_end, y_end) they hold p for their neighbours
     * and leave the point to another tile. */
    const bool inside = i < nx && j < ny, owns = i < tile_box.z && j < tile_box.w;
    const long column = (long)(kb + SF_HALO) * sp + (long)(j + SF_PAD) * sx + s.grid.gx + i;
    const long vcolumn = column - SF_HALO * sp;

    int rim_slot[RIMS], rim_offset[RIMS];
    bool rim_load[RIMS];
#pragma unroll
    for (int n = 0; n < RIMS; ++n) {
        const int h = ty * TX + tx + n * THREADS;
        int row = 0, col = 0;
        if (h < RIM) locate_rim<R>(h, &row, &col);
        const int gi = i0 + col - R, gj = j0 + row - R;
        rim_slot[n] = h < RIM ? row * WIDTH + col : -1;
        rim_load[n] = h < RIM && gi >= 0 && gi < nx && gj >= 0 && gj < ny;
        rim_offset[n] = (gj - j) * (int)sx + (gi - i);
    }
    unsigned near = 0;
#pragma unroll
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_layer &x = s.layer[0][side], &y = s.layer[1][side];
        near |= (unsigned)(i0 < x.hi && i0 + TX > x.lo) << side;
        near |= (unsigned)(j0 < y.hi && j0 + TY > y.lo) << (2 + side);
    }

    /* The column queue q[m] = p(k - R + m). */
    float q[2 * R + 1];
#pragma unroll
    for (int m = 0; m < 2 * R; ++m) q[m] = inside ? __ldg(s.cur + column + (m - R) * sp) : 0.0f;
    plane_loads<RIMS> ahead = {0.0f, 0.0f, 0.0f, {}};
    if (kb < ke) load_plane<R>(ahead, s, column, vcolumn, inside, owns, rim_offset, rim_load);

    for (int k = kb; k < ke; ++k) {
        const plane_loads<RIMS> now = ahead;
        if (k + 1 < ke) {
            const long plane = (long)(k + 1 - kb) * sp;
            load_plane<R>(ahead, s, column + plane, vcolumn + plane, inside, owns, rim_offset,
                          rim_load);
        }
        q[2 * R] = now.front;

        /* Two shared buffers alternate, so one barrier per plane suffices:
         * a buffer is rewritten only after every thread passed the barrier
         * of the plane in between. */
        float(*p)[WIDTH] = tile[(k - kb) & 1];
        p[ty + R][tx + R] = q[R];
#pragma unroll
        for (int n = 0; n < RIMS; ++n)
            if (rim_slot[n] >= 0) (&p[0][0])[rim_slot[n]] = now.rim[n];
        __syncthreads();

        float dxx = s.c.second[0][0] * q[R], dyy = s.c.second[1][0] * q[R];
        float dzz = s.c.second[2][0] * q[R];
#pragma unroll
        for (int m = 1; m <= R; ++m) {
            dxx += s.c.second[0][m] * (p[ty + R][tx + R + m] + p[ty + R][tx + R - m]);
            dyy += s.c.second[1][m] * (p[ty + R + m][tx + R] + p[ty + R - m][tx + R]);
            dzz += s.c.second[2][m] * (q[R + m] + q[R - m]);
        }
        if (owns) {
            const float lap = dxx + dyy + dzz + layer_terms<R>(s, near, i, j, k, dxx, dyy, dzz);
            float out = 2.0f * q[R] - now.prev + now.vel * lap;
            if (RELAX)
                out -= relax_at(s.relax, vcolumn + (long)(k - kb) * sp,
                                sf_relaxation_corner(i, j, s.z0 + k), now.vel * lap);
            s.next[column + (long)(k - kb) * sp] = s.zero_plane0 && k == 0 ? 0.0f : out;
        }

#pragma unroll
        for (int m = 0; m < 2 * R; ++m) q[m] = q[m + 1];
    }
}

/* Interior tiles of 128 x 8 points, four consecutive points per thread:
 * every global access is 16 bytes wide and a tile row is 512 contiguous
 * bytes. Fields start each row 128-byte aligned and groups start at
 * multiples of 4 points, so a group is one aligned float4; a group whose
 * first point lies in the grid reads its rest from the zero padding. */
enum { VEC = 4, VEC_TX = 32 * VEC, VEC_TY = 8, VEC_PAD = 4 };

static __device__ __forceinline__ float4 load4(const float *p) { return __ldg((const float4 *)p); }
static __device__ __forceinline__ float4 zero4() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
static __device__ __forceinline__ float part(const float4 &v, int n)
{
    return n == 0 ? v.x : n == 1 ? v.y : n == 2 ? v.z : v.w;
}
static __device__ __forceinline__ void set_part(float4 &v, int n, float x)
{
    if (n == 0) v.x = x;
    else if (n == 1) v.y = x;
    else if (n == 2) v.z = x;
    else v.w = x;
}

struct vec_loads {
    float4 front, prev, vel, rim_y, rim_x;
};

/* The rim groups a thread moves: whether it has one, whether it lies in the
 * grid (else it is zero), its offset from the thread's group, its slot. */
struct vec_rim {
    bool has, load;
    int offset, slot;
};

template <int R>
static __device__ __forceinline__ void load_vec_plane(vec_loads &l, const sf_cuda_step &s, long at,
                                                      long vat, bool inside, bool owns,
                                                      const vec_rim &rim_y, const vec_rim &rim_x)
{
    if (inside) l.front = load4(s.cur + at + R * s.grid.sp);
    if (owns) {
        l.prev = *(const float4 *)(s.next + at);
        l.vel = load4(s.vdt2 + vat);
    }
    if (rim_y.load) l.rim_y = load4(s.cur + at + rim_y.offset);
    if (rim_x.load) l.rim_x = load4(s.cur + at + rim_x.offset);
}

/* M: the count of solids a point holds (0: the lossless update), or
 * COARSE: one a point, by its corner (sf_relaxation.h). */
enum { COARSE = -1 };
template <int M>
__host__ __device__ constexpr int slots() { return M == COARSE ? 1 : M; }

/* A group's solids: its memory variables and places, four points each,
 * loaded before the stencil's sums so that their latency hides behind
 * them. */
template <int M>
struct vec_solids {
    float4 memory[slots<M>() > 0 ? slots<M>() : 1], place;
};

template <int M>
static __device__ __forceinline__ void load_solids(vec_solids<M> &g, const sf_cuda_relaxation &r,
                                                   long at)
{
#pragma unroll
    for (int l = 0; l < slots<M>(); ++l) g.memory[l] = *(const float4 *)(r.memory[l] + at);
    g.place = load4(r.coordinate + at);
}

/* Point n of the group loses what its solids take over a step of
 * increment d (the law with its count known here, M; corner: the
 * point's mechanism in a coarse layout); the group's memory advances. */
template <int M>
static __device__ __forceinline__ float relax_part(vec_solids<M> &g, const sf_cuda_relaxation &r,
                                                   int n, int corner, float d)
{
    float memory[slots<M>()], loss;
#pragma unroll
    for (int l = 0; l < slots<M>(); ++l) memory[l] = part(g.memory[l], n);
    if constexpr (M == COARSE) {
        loss = sf_relax_coarse_point(&r.law, part(g.place, n), corner, d, memory);
    } else {
        sf_relaxation_law law = r.law;
        law.mechanisms = M;
        loss = sf_relax_point(&law, part(g.place, n), d, memory);
    }
#pragma unroll
    for (int l = 0; l < slots<M>(); ++l) set_part(g.memory[l], n, memory[l]);
    return loss;
}

template <int R, int M>
__global__ void __launch_bounds__(32 * VEC_TY, 2)
    interior_kernel(const __grid_constant__ sf_cuda_step s, const tile_source tiles,
                        const int k0, const int k1, const int chunk)
{
    constexpr int WIDTH = VEC_TX + 2 * VEC_PAD;
    __shared__ __align__(16) float tile[2][VEC_TY + 2 * R][WIDTH];

    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    const int i0 = tiles.x0 + (int)blockIdx.x * VEC_TX, j0 = tiles.y0 + (int)blockIdx.y * VEC_TY;
    const int i = i0 + VEC * tx, j = j0 + ty;
    const int nx = s.grid.nx, ny = s.grid.ny;
    const long sx = s.grid.sx, sp = s.grid.sp;
    /* Groups past the rectangle's end still hold p for their neighbours. */
    const bool inside = i < nx && j < ny, owns = i < tiles.x_end && j < tiles.y_end;
    const long column = (long)(kb + SF_HALO) * sp + (long)(j + SF_PAD) * sx + s.grid.gx + i;
    const long vcolumn = column - SF_HALO * sp;

    /* Rim groups: 2R rows of 32 above and below (one per thread), and for
     * 16 threads one group left or right of a row (R <= VEC_PAD points of
     * it are used). */
    vec_rim rim_y, rim_x;
    {
        const int r = tid / 32, g = tid % 32, row = r < R ? r : r + VEC_TY;
        const int gi = i0 + VEC * g, gj = j0 + row - R;
        rim_y.has = tid < 2 * R * 32;
        rim_y.load = rim_y.has && gj >= 0 && gj < ny && gi < nx;
        rim_y.offset = (gj - j) * (int)sx + (gi - i);
        rim_y.slot = row * WIDTH + VEC_PAD + VEC * g;
    }
    {
        const int row = tid / 2, right = tid % 2;
        const int gi = right ? i0 + VEC_TX : i0 - VEC, gj = j0 + row;
        rim_x.has = tid < 2 * VEC_TY;
        rim_x.load = rim_x.has && gi >= 0 && gi < nx && gj < ny;
        rim_x.offset = (gj - j) * (int)sx + (gi - i);
        rim_x.slot = (row + R) * WIDTH + (right ? VEC_PAD + VEC_TX : 0);
    }

    float4 q[2 * R + 1];
#pragma unroll
    for (int m = 0; m < 2 * R; ++m) q[m] = inside ? load4(s.cur + column + (m - R) * sp) : zero4();
    vec_loads ahead = {zero4(), zero4(), zero4(), zero4(), zero4()};
    if (kb < ke) load_vec_plane<R>(ahead, s, column, vcolumn, inside, owns, rim_y, rim_x);
    for (int k = kb; k < ke; ++k) {
        const long here = (long)(k - kb) * sp;
        const vec_loads now = ahead;
        if (k + 1 < ke)
            load_vec_plane<R>(ahead, s, column + here + sp, vcolumn + here + sp, inside, owns, rim_y,
                              rim_x);
        q[2 * R] = now.front;
        vec_solids<M> solids = {};
        if constexpr (M != 0)
            if (owns) load_solids<M>(solids, s.relax, vcolumn + here);

        float(*p)[WIDTH] = tile[(k - kb) & 1];
        *(float4 *)&p[ty + R][VEC_PAD + VEC * tx] = q[R];
        if (rim_y.has) *(float4 *)(&p[0][0] + rim_y.slot) = now.rim_y;
        if (rim_x.has) *(float4 *)(&p[0][0] + rim_x.slot) = now.rim_x;
        __syncthreads();

        /* The row around the group: w[n] is point i - 4 + n. */
        float w[3 * VEC];
#pragma unroll
        for (int g = 0; g < 3; ++g) {
            const float4 v = *(const float4 *)&p[ty + R][VEC * tx + VEC * g];
            w[VEC * g] = v.x, w[VEC * g + 1] = v.y, w[VEC * g + 2] = v.z, w[VEC * g + 3] = v.w;
        }
        float4 up[R], down[R];
#pragma unroll
        for (int m = 1; m <= R; ++m) {
            up[m - 1] = *(const float4 *)&p[ty + R - m][VEC_PAD + VEC * tx];
            down[m - 1] = *(const float4 *)&p[ty + R + m][VEC_PAD + VEC * tx];
        }
        float out[VEC], lap[VEC];
#pragma unroll
        for (int n = 0; n < VEC; ++n) {
            const float c = part(q[R], n);
            float dxx = s.c.second[0][0] * c, dyy = s.c.second[1][0] * c, dzz = s.c.second[2][0] * c;
#pragma unroll
            for (int m = 1; m <= R; ++m) {
                dxx += s.c.second[0][m] * (w[VEC + n + m] + w[VEC + n - m]);
                dyy += s.c.second[1][m] * (part(down[m - 1], n) + part(up[m - 1], n));
                dzz += s.c.second[2][m] * (part(q[R + m], n) + part(q[R - m], n));
            }
            lap[n] = dxx + dyy + dzz;
            out[n] = 2.0f * c - part(now.prev, n) + part(now.vel, n) * lap[n];
        }
        /* Apart from the stencil's loop, whose registers are free by now;
         * i is even, so point n's corner is the group's and n's parity. */
        const int corner = sf_relaxation_corner(i, j, s.z0 + k);
#pragma unroll
        for (int n = 0; n < VEC; ++n) {
            if constexpr (M != 0)
                out[n] -= relax_part<M>(solids, s.relax, n, corner | (n & 1), part(now.vel, n) * lap[n]);
            if (s.zero_plane0 && k == 0) out[n] = 0.0f;
        }
        if (owns) {
            float *to = s.next + column + here;
            const bool whole = i + VEC <= tiles.x_end;
            if (whole)
                *(float4 *)to = make_float4(out[0], out[1], out[2], out[3]);
            else
                for (int n = 0; n < VEC && i + n < tiles.x_end; ++n) to[n] = out[n];
            /* Points past the rectangle's end are another launch's. */
#pragma unroll
            for (int l = 0; l < slots<M>(); ++l) {
                float *memory = s.relax.memory[l] + vcolumn + here;
                if (whole)
                    *(float4 *)memory = solids.memory[l];
                else
                    for (int n = 0; n < VEC && i + n < tiles.x_end; ++n) memory[n] = part(solids.memory[l], n);
            }
        }

#pragma unroll
        for (int m = 0; m < 2 * R; ++m) q[m] = q[m + 1];
    }
}

static int chunk_for(const sf_cuda_tiling *t, int planes)
{
    const int least = (planes + MAX_GRID_Z - 1) / MAX_GRID_Z;
    return t->z_chunk > least ? t->z_chunk : least;
}

static unsigned chunks(int planes, int chunk) { return (unsigned)((planes + chunk - 1) / chunk); }

/* The frame kernel on every frame tile (or, with all, every tile) of
 * planes [k0, k1). */
template <int R, bool RELAX>
static void launch_frame(const sf_cuda_step *s, const sf_cuda_tiling *t, bool all, int k0, int k1,
                         cudaStream_t stream)
{
    const int chunk = chunk_for(t, k1 - k0);
    const dim3 grid(all ? t->tile_count : t->frame_count, 1, chunks(k1 - k0, chunk));
    frame_kernel<R, RELAX><<<grid, dim3(FRAME_TX, FRAME_TY), 0, stream>>>(*s, t->tiles, k0, k1, chunk);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the stencil kernel with CPML terms");
}

/* The interior kernel on the rectangle the frame leaves, planes [k0, k1). */
template <int R, int M>
static void launch_interior(const sf_cuda_step *s, const sf_cuda_tiling *t, int k0, int k1,
                            cudaStream_t stream)
{
    const int chunk = chunk_for(t, k1 - k0);
    const tile_source tiles = {t->inner_x0, t->inner_y0, t->inner_x1, t->inner_y1};
    const int width = tiles.x_end - tiles.x0, height = tiles.y_end - tiles.y0;
    const dim3 grid((unsigned)((width + VEC_TX - 1) / VEC_TX), (unsigned)((height + VEC_TY - 1) / VEC_TY),
                    chunks(k1 - k0, chunk));
    interior_kernel<R, M><<<grid, dim3(32, VEC_TY), 0, stream>>>(*s, tiles, k0, k1, chunk);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the interior stencil kernel");
}

/* Planes [k0, k1), all inside one z layer span or all clear of them. Clear
 * of them, the frame tiles start first on the side stream and the interior
 * tiles fill the GPU around them, so a frame launch of few blocks (thin
 * slabs) leaves no SM idle at its end. (On 1000^3 and one rank it made no
 * measurable difference.) */
template <int R, int M>
static void advance_planes(const sf_cuda_step *s, const sf_cuda_tiling *t, int k0, int k1,
                           bool in_z_layer, const sf_cuda_streams *st)
{
    const bool interior = t->inner_x1 > t->inner_x0 && t->inner_y1 > t->inner_y0;
    if (in_z_layer || !interior) {
        launch_frame<R, (M != 0)>(s, t, true, k0, k1, st->main);
        return;
    }
    const bool frame = t->frame_count > 0;
    if (frame) {
        SF_CUDA_CHECK(cudaEventRecord(st->fork, st->main), "forking the frame tiles");
        SF_CUDA_CHECK(cudaStreamWaitEvent(st->side, st->fork, 0), "forking the frame tiles");
        launch_frame<R, (M != 0)>(s, t, false, k0, k1, st->side);
    }
    launch_interior<R, M>(s, t, k0, k1, st->main);
    if (frame) {
        SF_CUDA_CHECK(cudaEventRecord(st->join, st->side), "joining the frame tiles");
        SF_CUDA_CHECK(cudaStreamWaitEvent(st->main, st->join, 0), "joining the frame tiles");
    }
}

static bool in_z_layer(const sf_cuda_step *s, int k)
{
    for (int side = 0; side < 2; ++side)
        if (k >= s->layer[2][side].lo && k < s->layer[2][side].hi) return true;
    return false;
}

/* The next plane after k0 where membership of a z layer span changes. */
static int next_z_boundary(const sf_cuda_step *s, int k0, int k1)
{
    int next = k1;
    for (int side = 0; side < 2; ++side) {
        const sf_cuda_layer *z = &s->layer[2][side];
        if (z->lo > k0 && z->lo < next) next = z->lo;
        if (z->hi > k0 && z->hi < next) next = z->hi;
    }
    return next;
}

template <int R, int M>
static void advance_all(const sf_cuda_step *s, const sf_cuda_tiling *t, int k0, int k1,
                        const sf_cuda_streams *st)
{
    for (int k = k0; k < k1;) {
        const int end = next_z_boundary(s, k, k1);
        advance_planes<R, M>(s, t, k, end, in_z_layer(s, k), st);
        k = end;
    }
}

/* The interior kernel knows the count of solids at compile time, so
 * their values stay in registers; the lossless kernels carry no trace of
 * them. */
template <int R>
static void advance_either(const sf_cuda_step *s, const sf_cuda_tiling *t, int k0, int k1,
                           const sf_cuda_streams *st)
{
    static_assert(SF_MAX_MECHANISMS == 8, "one case a count of solids");
    if (s->relax.law.coarse) {
        advance_all<R, COARSE>(s, t, k0, k1, st);
        return;
    }
    switch (s->relax.law.mechanisms) {
    case 0: advance_all<R, 0>(s, t, k0, k1, st); break;
    case 1: advance_all<R, 1>(s, t, k0, k1, st); break;
    case 2: advance_all<R, 2>(s, t, k0, k1, st); break;
    case 3: advance_all<R, 3>(s, t, k0, k1, st); break;
    case 4: advance_all<R, 4>(s, t, k0, k1, st); break;
    case 5: advance_all<R, 5>(s, t, k0, k1, st); break;
    case 6: advance_all<R, 6>(s, t, k0, k1, st); break;
    case 7: advance_all<R, 7>(s, t, k0, k1, st); break;
    case 8: advance_all<R, 8>(s, t, k0, k1, st); break;
    default: sf_fatal("the CUDA stencil has no case of %d solids", s->relax.law.mechanisms);
    }
}

void sf_cuda_advance(const sf_cuda_step *s, const sf_cuda_tiling *t, int radius, int k0, int k1,
                     const sf_cuda_streams *st)
{
    if (k1 <= k0) return;
    switch (radius) {
    case 1: advance_either<1>(s, t, k0, k1, st); break;
    case 2: advance_either<2>(s, t, k0, k1, st); break;
    case 4: advance_either<4>(s, t, k0, k1, st); break;
    default: sf_fatal("the CUDA stencil has no radius %d", radius);
    }
}

/* Where the parts of an axis of n points meet: tiles of `tile` points
 * start at 0 up to *inner0, the end of the low layer's span rounded up,
 * and end at n back to *inner1, the start of the high layer's span
 * rounded down from n; so no layer's span needs a tile that the grid's
 * end cuts short. Between them lies the interior, or nothing (both n). */
static void cut_axis(const sf_cuda_layer *low, const sf_cuda_layer *high, int n, int tile,
                     int *inner0, int *inner1)
{
    const int low_end = low->hi > low->lo ? (low->hi + tile - 1) / tile * tile : 0;
    const int high_start = high->hi > high->lo ? n - (n - high->lo + tile - 1) / tile * tile : n;
    *inner0 = low_end;
    *inner1 = high_start;
    if (high_start <= low_end) *inner0 = *inner1 = n;
}

/* The tiles of an axis: [start, end) in the low part, the interior (its
 * last tile cut at inner1) and the high part; inner says which lie in the
 * interior. */
typedef struct {
    int count, *start, *end;
    bool *inner;
} axis_tiling;

static int axis_room(int n, int tile) { return n / tile + 3; }

static axis_tiling axis_tiles(int n, int tile, int inner0, int inner1)
{
    const size_t room = (size_t)axis_room(n, tile);
    axis_tiling a = {0, (int *)sf_malloc(2 * room * sizeof(int), "the stencil's tile plan"), NULL,
                     (bool *)sf_malloc(room * sizeof(bool), "the stencil's tile plan")};
    a.end = a.start + room;
    const int bounds[4] = {0, inner0, inner1, n};
    for (int part = 0; part < 3; ++part)
        for (int at = bounds[part]; at < bounds[part + 1]; at += tile) {
            a.start[a.count] = at;
            a.end[a.count] = at + tile < bounds[part + 1] ? at + tile : bounds[part + 1];
            a.inner[a.count++] = part == 1;
        }
    return a;
}

long sf_cuda_tiling_room(int nx, int ny) { return (long)axis_room(nx, FRAME_TX) * axis_room(ny, FRAME_TY); }

void sf_cuda_tiling_plan(sf_cuda_tiling *t, const sf_cuda_step *s, int4 *tiles_host)
{
    const int nx = s->grid.nx, ny = s->grid.ny;
    cut_axis(&s->layer[0][0], &s->layer[0][1], nx, FRAME_TX, &t->inner_x0, &t->inner_x1);
    cut_axis(&s->layer[1][0], &s->layer[1][1], ny, FRAME_TY, &t->inner_y0, &t->inner_y1);
    const axis_tiling x = axis_tiles(nx, FRAME_TX, t->inner_x0, t->inner_x1);
    const axis_tiling y = axis_tiles(ny, FRAME_TY, t->inner_y0, t->inner_y1);
    /* The frame's tiles first, then the interior's (only the planes of a
     * z layer span run those through this kernel). */
    t->tile_count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int v = 0; v < y.count; ++v)
            for (int u = 0; u < x.count; ++u)
                if ((x.inner[u] && y.inner[v]) == (pass == 1))
                    tiles_host[t->tile_count++] = make_int4(x.start[u], y.start[v], x.end[u], y.end[v]);
        if (pass == 0) t->frame_count = t->tile_count;
    }
    free(x.start);
    free(x.inner);
    free(y.start);
    free(y.inner);
}
