/* The pseudo-acoustic (vti, tti) advance on the GPU. The CPML enters
 * linearly: along axis a the stretched second derivative of a field u is
 * D_a u = d2_a u + c_a u, with c_a u = dpsi_a + zeta_a (zeta_a advanced once
 * a step), and the right-hand sides are linear in H1 = sum_a w_aa D_a + the
 * mixed terms and H2 = sum_a D_a - H1. So an advance is
 *
 * - one interior kernel over every point of the planes, with no CPML terms
 *   (at the grid's edges it reads the zero x/y padding and the z halos):
 *   - vti: 2.5D like the acoustic one (stencil.cu). A block owns a tile of
 *     the x-y plane and marches through a run of planes; each thread keeps
 *     its column of p and q (2R + 1 planes) in registers, and the current
 *     plane of both with an R-point rim sits in shared memory for the x and
 *     y derivatives. DRAM traffic per point: p, q, p_prev, q_prev, vp,
 *     epsilon, delta read, p_next and q_next written: 9 floats, 36 bytes
 *     (the rims come from L2).
 *   - tti: the same march, but the plane in shared memory is the front one,
 *     R planes ahead of the output. There each thread forms the x and y
 *     first derivatives of its point (and the block those of the rim rows,
 *     for d/dy of d/dx), so a mixed derivative is a first derivative of a
 *     first derivative: xz and yz from register queues of d/dx and d/dy
 *     along z, xy from the shared plane of d/dx. The x-y second and mixed
 *     derivatives of a plane wait R planes in registers for their output
 *     point. DRAM traffic per point: vti's 36 bytes plus theta and phi, 44
 *     bytes; the tilt weights are formed per point on the fly
 *     (sf_tilt_weights), which costs arithmetic the kernel has to spare.
 *     The separable mixed derivatives equal the CPU's double sums up to
 *     rounding.
 * - then one correction kernel per axis over only the points that read the
 *   axis's psi: for p and q the second derivative along the axis (zeta's
 *   input, as the CPU forms it), dpsi from psi, zeta advanced, c; H1 takes
 *   w_aa c (vti: all of it along z, none along x and y), H2 the rest, and
 *   sf_fdf_rhs of those is added to the new level. x runs threads over (its
 *   slots, y) and y over (x, its slots), one point a plane, coalesced along
 *   x; z over (x, y), marching through the planes of a layer with the
 *   column of p, q and psi in registers. The three follow one another on
 *   the stream (at the edges and corners they add to the same points), each
 *   point once per axis and step in a fixed order: no atomics, the same
 *   sums whatever the slab split. DRAM traffic per point and axis: zeta of
 *   p and q and the new level read and written, vp, epsilon, delta (tti:
 *   theta, phi) read: 44 bytes (52), plus p, q and psi along the line,
 *   about 18 bytes at a 20-point layer (their neighbours hit L1).
 *
 * - tti: the correction kernels also stretch the mixed derivatives: each
 *   point's pairs go to the first of their axes whose layers reach it
 *   (stretch_owned_pairs), so every pair is stretched once a point, its
 *   memory variables advanced and its share added to H1 and H2 beside the
 *   axis's own terms, the medium and the new level read once for both.
 *   The interior kernel keeps the plain mixed derivatives of the points
 *   some layer reaches (keep_plain_mixed), so the stretch reads one value
 *   where it formed the (2R)^2-point sum again (at 800^3 with 20-point
 *   layers six launches forming the sums took 19 ms of a 35 ms step).
 *
 * Compared with the CPU (d2 + dpsi + zeta inside each H), only the order of
 * the additions differs, and the mixed derivatives are the separable ones. */
#include "../cuda_anisotropic.h"

extern "C" {
#include "sf_error.h"
}

enum { FIELDS = SF_ANISOTROPIC_FIELDS, SLACK = SF_CPML_SLOT_SLACK };
enum { TX = SF_CUDA_TILE_X, TY = SF_CUDA_TILE_Y, THREADS = TX * TY, MAX_GRID_Z = 65535 };
/* Points per thread along x in the vti interior kernel (1, 2 or 4 compile):
 * wider accesses need fewer instructions per byte, but two fields' column
 * queues take 2 (2R + 1) registers per point. For R = 4 under the bound of
 * 2 blocks per SM (ptxas, sm_90): 1 takes 89 registers, 2 takes 121, 4
 * spills 408 bytes. */
enum { VTI_VEC = 2 };
/* Planes per block: the interior kernels' march (VTI: the acoustic
 * backend's best; TTI: 256, since each block first marches 2R planes to
 * fill its derivative queues, and on 800^3 256 planes measured 1.7% faster
 * than 128 while VTI lost 1.5%); the x and y corrections', short enough
 * that the thin frame still makes thousands of blocks; the z correction's,
 * a whole layer of the usual thickness, whose column queues are then
 * filled once. */
enum { VTI_INTERIOR_CHUNK = 128, TTI_INTERIOR_CHUNK = 256, LINE_CHUNK = 16, Z_LAYER_CHUNK = 32 };

static_assert((int)SF_MAX_RADIUS <= (int)SF_PAD && (int)SF_MAX_RADIUS <= (int)SF_HALO,
              "the stencil stays in the padding");
static_assert(2 * (int)SF_MAX_RADIUS * (int)TX <= (int)THREADS, "one rim row of d/dx per thread at most");
static_assert((int)SF_MAX_RADIUS <= (int)SF_CPML_SLOT_SLACK,
              "the corrections' reach along an axis stays in the slot tables");

/* The planes of this block: [*kb, *ke). */
static __device__ __forceinline__ void block_planes(int k0, int k1, int chunk, int *kb, int *ke)
{
    *kb = k0 + (int)blockIdx.z * chunk;
    *ke = min(*kb + chunk, k1);
}

/* Offset of point (i, j, k) in a field. */
static __device__ __forceinline__ long field_offset(const sf_cuda_grid &g, int i, int j, int k)
{
    return (long)(k + SF_HALO) * g.sp + (long)(j + SF_PAD) * g.sx + g.gx + i;
}

/* ---- vectors of V consecutive points ------------------------------------ */

template <int V>
struct pack {
    float v[V];
};

/* Read-only data (the current level, the medium). */
template <int V>
static __device__ __forceinline__ pack<V> load_ro(const float *p)
{
    pack<V> r;
    if constexpr (V == 4) {
        const float4 t = __ldg((const float4 *)p);
        r.v[0] = t.x, r.v[1] = t.y, r.v[2] = t.z, r.v[3] = t.w;
    } else if constexpr (V == 2) {
        const float2 t = __ldg((const float2 *)p);
        r.v[0] = t.x, r.v[1] = t.y;
    } else {
        r.v[0] = __ldg(p);
    }
    return r;
}

/* Data this kernel also writes (the previous level), or shared memory. */
template <int V>
static __device__ __forceinline__ pack<V> load(const float *p)
{
    pack<V> r;
    if constexpr (V == 4) {
        const float4 t = *(const float4 *)p;
        r.v[0] = t.x, r.v[1] = t.y, r.v[2] = t.z, r.v[3] = t.w;
    } else if constexpr (V == 2) {
        const float2 t = *(const float2 *)p;
        r.v[0] = t.x, r.v[1] = t.y;
    } else {
        r.v[0] = *p;
    }
    return r;
}

template <int V>
static __device__ __forceinline__ void store(float *p, const pack<V> &x)
{
    if constexpr (V == 4)
        *(float4 *)p = make_float4(x.v[0], x.v[1], x.v[2], x.v[3]);
    else if constexpr (V == 2)
        *(float2 *)p = make_float2(x.v[0], x.v[1]);
    else
        *p = x.v[0];
}

/* ---- the vti interior kernel ------------------------------------------------ */

/* The shared plane of a field: TY rows of TX groups of V points, a rim of
 * 2R rows above and below, and PADX points (whole groups) left and right
 * (R of them are read). Corners are never read. */
template <int R, int V>
struct vti_shape {
    static constexpr int PADX = (R + V - 1) / V * V;
    static constexpr int GX = PADX / V;
    static constexpr int WIDTH = TX * V + 2 * PADX;
    static constexpr int RIM_Y = 2 * R * TX;
    static constexpr int RIM = RIM_Y + 2 * GX * TY;
    static constexpr int RIMS = (RIM + THREADS - 1) / THREADS;
};

/* The rim groups a thread moves: its shared slot (-1: none), its offset
 * from the thread's group, whether it lies in the grid (else zero). */
template <int RIMS>
struct rim_moves {
    int slot[RIMS], offset[RIMS];
    bool load[RIMS];
};

template <int R, int V>
static __device__ __forceinline__ void vti_rim(rim_moves<vti_shape<R, V>::RIMS> &rim, int tid, int i0,
                                               int j0, int i, int j, const sf_cuda_grid &g)
{
    using S = vti_shape<R, V>;
#pragma unroll
    for (int n = 0; n < S::RIMS; ++n) {
        const int h = tid + n * THREADS;
        int row = 0, col = 0;
        if (h < S::RIM_Y) {
            const int r = h / TX;
            row = r < R ? r : r + TY;
            col = S::PADX + V * (h % TX);
        } else {
            const int u = h - S::RIM_Y, c = u % (2 * S::GX);
            row = u / (2 * S::GX) + R;
            col = c < S::GX ? V * c : S::PADX + TX * V + V * (c - S::GX);
        }
        /* Shared column c holds point i0 - PADX + c. */
        const int gi = i0 - S::PADX + col, gj = j0 + row - R;
        rim.slot[n] = h < S::RIM ? row * S::WIDTH + col : -1;
        rim.load[n] = h < S::RIM && gi < g.nx && gj >= 0 && gj < g.ny;
        rim.offset[n] = (gj - j) * (int)g.sx + (gi - i);
    }
}

template <int V, int RIMS>
struct vti_loads {
    pack<V> front[FIELDS], prev[FIELDS], vp, epsilon, delta, rim[FIELDS][RIMS];
};

/* The loads of one plane: both fields R planes ahead (the queues' front),
 * their previous level and the medium at the point, and the rim. */
template <int R, int V, int RIMS>
static __device__ __forceinline__ void vti_load_plane(vti_loads<V, RIMS> &l,
                                                      const sf_cuda_anisotropic_step &s, long at,
                                                      long vat, bool inside, bool owns,
                                                      const rim_moves<RIMS> &rim)
{
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
        if (inside) l.front[f] = load_ro<V>(s.cur[f] + at + R * s.grid.sp);
        if (owns) l.prev[f] = load<V>(s.next[f] + at);
#pragma unroll
        for (int n = 0; n < RIMS; ++n)
            l.rim[f][n] = rim.load[n] ? load_ro<V>(s.cur[f] + at + rim.offset[n]) : pack<V>{};
    }
    if (owns) {
        l.vp = load_ro<V>(s.vp + vat);
        l.epsilon = load_ro<V>(s.epsilon + vat);
        l.delta = load_ro<V>(s.delta + vat);
    }
}

/* H1 (dzz) and H2 of the group's points of one field: p is the field's
 * shared plane, q its column queue (q[R] at the plane). */
template <int R, int V>
static __device__ __forceinline__ void vti_operators(const sf_cuda_anisotropic_step &s,
                                                     const float *p, int tx, int ty,
                                                     const pack<V> (&q)[2 * R + 1], float (&h1)[V],
                                                     float (&h2)[V])
{
    using S = vti_shape<R, V>;
    constexpr int WINDOW = V + 2 * S::PADX;
    /* The row around the group: w[n] is point i - PADX + n. */
    float w[WINDOW];
#pragma unroll
    for (int g = 0; g < WINDOW / V; ++g) {
        const pack<V> v = load<V>(p + (ty + R) * S::WIDTH + V * tx + V * g);
#pragma unroll
        for (int n = 0; n < V; ++n) w[V * g + n] = v.v[n];
    }
    pack<V> up[R], down[R];
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        up[m - 1] = load<V>(p + (ty + R - m) * S::WIDTH + S::PADX + V * tx);
        down[m - 1] = load<V>(p + (ty + R + m) * S::WIDTH + S::PADX + V * tx);
    }
#pragma unroll
    for (int n = 0; n < V; ++n) {
        const float c = q[R].v[n];
        float dxx = s.second[0][0] * c, dyy = s.second[1][0] * c, dzz = s.second[2][0] * c;
#pragma unroll
        for (int m = 1; m <= R; ++m) {
            dxx += s.second[0][m] * (w[S::PADX + n + m] + w[S::PADX + n - m]);
            dyy += s.second[1][m] * (down[m - 1].v[n] + up[m - 1].v[n]);
            dzz += s.second[2][m] * (q[R + m].v[n] + q[R - m].v[n]);
        }
        h1[n] = dzz;
        h2[n] = dxx + dyy + dzz - h1[n];
    }
}

template <int R, int V>
__global__ void __launch_bounds__(THREADS, 2)
    vti_interior_kernel(const __grid_constant__ sf_cuda_anisotropic_step s, const int4 rect,
                        const int k0, const int k1, const int chunk)
{
    using S = vti_shape<R, V>;
    __shared__ __align__(16) float tile[2][FIELDS][TY + 2 * R][S::WIDTH];

    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, tid = ty * TX + tx;
    const int i0 = rect.x + (int)blockIdx.x * TX * V, j0 = rect.y + (int)blockIdx.y * TY;
    const int i = i0 + V * tx, j = j0 + ty;
    const long sp = s.grid.sp;
    /* Groups past the rectangle's end still hold the fields for their
     * neighbours; groups outside the grid hold zeros. */
    const bool inside = i < s.grid.nx && j < s.grid.ny, owns = i < rect.z && j < rect.w;
    const long column = (long)(kb + SF_HALO) * sp + (long)(j + SF_PAD) * s.grid.sx + s.grid.gx + i;
    const long vcolumn = column - SF_HALO * sp;
    rim_moves<S::RIMS> rim;
    vti_rim<R, V>(rim, tid, i0, j0, i, j, s.grid);

    /* The column queues q[f][m] = field f at plane k - R + m. */
    pack<V> q[FIELDS][2 * R + 1];
#pragma unroll
    for (int f = 0; f < FIELDS; ++f)
#pragma unroll
        for (int m = 0; m <= 2 * R; ++m)
            q[f][m] = inside && m < 2 * R ? load_ro<V>(s.cur[f] + column + (m - R) * sp) : pack<V>{};
    vti_loads<V, S::RIMS> ahead = {};
    if (kb < ke) vti_load_plane<R, V>(ahead, s, column, vcolumn, inside, owns, rim);

    for (int k = kb; k < ke; ++k) {
        const long here = (long)(k - kb) * sp;
        const vti_loads<V, S::RIMS> now = ahead;
        if (k + 1 < ke)
            vti_load_plane<R, V>(ahead, s, column + here + sp, vcolumn + here + sp, inside, owns, rim);

        /* Two shared buffers alternate, so one barrier per plane suffices:
         * a buffer is rewritten only after every thread passed the barrier
         * of the plane in between. */
        const int buffer = (k - kb) & 1;
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) {
            q[f][2 * R] = now.front[f];
            float *p = &tile[buffer][f][0][0];
            store<V>(p + (ty + R) * S::WIDTH + S::PADX + V * tx, q[f][R]);
#pragma unroll
            for (int n = 0; n < S::RIMS; ++n)
                if (rim.slot[n] >= 0) store<V>(p + rim.slot[n], now.rim[f][n]);
        }
        __syncthreads();

        float h1[FIELDS][V], h2[FIELDS][V];
#pragma unroll
        for (int f = 0; f < FIELDS; ++f)
            vti_operators<R, V>(s, &tile[buffer][f][0][0], tx, ty, q[f], h1[f], h2[f]);
        if (owns) {
            pack<V> out[FIELDS];
#pragma unroll
            for (int n = 0; n < V; ++n) {
                float d[FIELDS];
                sf_fdf_rhs(sf_fdf_at(now.vp.v[n], now.epsilon.v[n], now.delta.v[n], s.dt2),
                           h1[SF_ANISOTROPIC_P][n], h2[SF_ANISOTROPIC_P][n], h1[SF_ANISOTROPIC_Q][n],
                           h2[SF_ANISOTROPIC_Q][n], &d[SF_ANISOTROPIC_P], &d[SF_ANISOTROPIC_Q]);
#pragma unroll
                for (int f = 0; f < FIELDS; ++f)
                    out[f].v[n] = s.zero_plane0 && k == 0 ? 0.0f
                                                          : 2.0f * q[f][R].v[n] - now.prev[f].v[n] + d[f];
            }
#pragma unroll
            for (int f = 0; f < FIELDS; ++f) {
                float *to = s.next[f] + column + here;
                if (i + V <= rect.z)
                    store<V>(to, out[f]);
                else
                    for (int n = 0; n < V && i + n < rect.z; ++n) to[n] = out[f].v[n];
            }
        }

#pragma unroll
        for (int f = 0; f < FIELDS; ++f)
#pragma unroll
            for (int m = 0; m < 2 * R; ++m) q[f][m] = q[f][m + 1];
    }
}

/* ---- the tti interior kernel ------------------------------------------------ */

/* The shared front plane of a field: TY rows of TX points with a rim of R
 * points on every side, corners included (the rim rows' d/dx reads them);
 * and d/dx of that plane on the tile's columns, R rows above and below. */
template <int R>
struct tti_shape {
    static constexpr int WIDTH = TX + 2 * R, HEIGHT = TY + 2 * R;
    static constexpr int RIM_ROWS = 2 * R * WIDTH;
    static constexpr int RIM = WIDTH * HEIGHT - TX * TY;
    static constexpr int RIMS = (RIM + THREADS - 1) / THREADS;
};

template <int R>
static __device__ __forceinline__ void tti_rim(rim_moves<tti_shape<R>::RIMS> &rim, int tid, int i0,
                                               int j0, int i, int j, const sf_cuda_grid &g)
{
    using S = tti_shape<R>;
#pragma unroll
    for (int n = 0; n < S::RIMS; ++n) {
        const int h = tid + n * THREADS;
        int row = 0, col = 0;
        if (h < S::RIM_ROWS) {
            const int r = h / S::WIDTH;
            row = r < R ? r : r + TY;
            col = h % S::WIDTH;
        } else {
            const int u = h - S::RIM_ROWS, c = u % (2 * R);
            row = u / (2 * R) + R;
            col = c < R ? c : c + TX;
        }
        const int gi = i0 + col - R, gj = j0 + row - R;
        rim.slot[n] = h < S::RIM ? row * S::WIDTH + col : -1;
        rim.load[n] = h < S::RIM && gi >= 0 && gi < g.nx && gj >= 0 && gj < g.ny;
        rim.offset[n] = (gj - j) * (int)g.sx + (gi - i);
    }
}

/* The front plane's loads (both fields and their rims) and the output
 * point's (previous level, medium). */
template <int RIMS>
struct tti_loads {
    float front[FIELDS], rim[FIELDS][RIMS];
    float prev[FIELDS], vp, epsilon, delta, theta, phi;
};

template <int RIMS>
static __device__ __forceinline__ void tti_load_front(tti_loads<RIMS> &l,
                                                      const sf_cuda_anisotropic_step &s, long at,
                                                      bool inside, const rim_moves<RIMS> &rim)
{
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
        l.front[f] = inside ? __ldg(s.cur[f] + at) : 0.0f;
#pragma unroll
        for (int n = 0; n < RIMS; ++n)
            l.rim[f][n] = rim.load[n] ? __ldg(s.cur[f] + at + rim.offset[n]) : 0.0f;
    }
}

template <int RIMS>
static __device__ __forceinline__ void tti_load_output(tti_loads<RIMS> &l,
                                                       const sf_cuda_anisotropic_step &s, long at,
                                                       long vat)
{
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) l.prev[f] = s.next[f][at];
    l.vp = __ldg(s.vp + vat);
    l.epsilon = __ldg(s.epsilon + vat);
    l.delta = __ldg(s.delta + vat);
    l.theta = __ldg(s.theta + vat);
    l.phi = __ldg(s.phi + vat);
}

/* What a field's front plane gives its point: the second derivatives
 * along x and y, the first ones, and d2/dxdy (after the barrier). */
typedef struct {
    float dxx, dyy, dx, dy, dxy;
} plane_terms;

/* From the shared plane u: the point's terms but dxy, and d/dx of the
 * point and of the rim row this thread covers into the shared dx plane. */
template <int R>
static __device__ __forceinline__ plane_terms tti_plane_terms(const sf_cuda_anisotropic_step &s,
                                                              const float *u, float *dx, int tx,
                                                              int ty, int tid)
{
    using S = tti_shape<R>;
    const float *row = u + (ty + R) * S::WIDTH + tx + R;
    const float c = row[0];
    plane_terms t = {s.second[0][0] * c, s.second[1][0] * c, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        const float right = row[m], left = row[-m];
        const float below = row[m * S::WIDTH], above = row[-m * S::WIDTH];
        t.dxx += s.second[0][m] * (right + left);
        t.dx += s.centered[0][m] * (right - left);
        t.dyy += s.second[1][m] * (below + above);
        t.dy += s.centered[1][m] * (below - above);
    }
    dx[(ty + R) * TX + tx] = t.dx;
    if (tid < 2 * R * TX) {
        const int r = tid / TX, rim_row = r < R ? r : r + TY, col = tid % TX;
        const float *at = u + rim_row * S::WIDTH + col + R;
        float d = 0.0f;
#pragma unroll
        for (int m = 1; m <= R; ++m) d += s.centered[0][m] * (at[m] - at[-m]);
        dx[rim_row * TX + col] = d;
    }
    return t;
}

template <int R>
static __device__ __forceinline__ float tti_dxy(const sf_cuda_anisotropic_step &s, const float *dx,
                                                int tx, int ty)
{
    const float *at = dx + (ty + R) * TX + tx;
    float d = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m) d += s.centered[1][m] * (at[m * TX] - at[-m * TX]);
    return d;
}

/* A field's registers: along z its values, d/dx and d/dy, plane f - 2R + m
 * at m (f the front). */
template <int R>
struct tti_column {
    float u[2 * R + 1], dx[2 * R + 1], dy[2 * R + 1];
};

template <int R>
static __device__ __forceinline__ void tti_push(tti_column<R> &c, float u, const plane_terms &t)
{
    c.u[2 * R] = u, c.dx[2 * R] = t.dx, c.dy[2 * R] = t.dy;
}

template <int R>
static __device__ __forceinline__ void tti_shift(tti_column<R> &c)
{
#pragma unroll
    for (int m = 0; m < 2 * R; ++m) c.u[m] = c.u[m + 1], c.dx[m] = c.dx[m + 1], c.dy[m] = c.dy[m + 1];
}

/* H1 and H2 of the output plane (the column's centre), in the CPU's order;
 * xy holds its dxx, dyy and dxy; mixed gets dxy, dxz and dyz (the pairs'
 * order). */
template <int R>
static __device__ __forceinline__ void tti_operators(const sf_cuda_anisotropic_step &s,
                                                     const tti_column<R> &c, const float *xy,
                                                     const float *w, float *h1, float *h2,
                                                     float (&mixed)[SF_MIXED_PAIRS])
{
    float dzz = s.second[2][0] * c.u[R], dxz = 0.0f, dyz = 0.0f;
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        dzz += s.second[2][m] * (c.u[R + m] + c.u[R - m]);
        dxz += s.centered[2][m] * (c.dx[R + m] - c.dx[R - m]);
        dyz += s.centered[2][m] * (c.dy[R + m] - c.dy[R - m]);
    }
    const float dxx = xy[0], dyy = xy[1];
    *h1 = w[0] * dxx + w[1] * dyy + w[2] * dzz + w[3] * xy[2] + w[4] * dxz + w[5] * dyz;
    *h2 = dxx + dyy + dzz - *h1;
    mixed[0] = xy[2], mixed[1] = dxz, mixed[2] = dyz;
}

/* The slot-major index of point (i, j, k) among axis a's layer points
 * (slot its slot there): the CPU backend's memory_index. */
static __device__ __forceinline__ long memory_at(const sf_cuda_grid &g, int a, int count, int slot,
                                                 int i, int j, int k)
{
    if (a == 0) return ((long)k * g.ny + j) * count + slot;
    if (a == 1) return ((long)k * count + slot) * g.nx + i;
    return ((long)slot * g.ny + j) * g.nx + i;
}

/* A field's plain mixed derivatives at (i, j, k), slot its slots along
 * x, y, z (-1: outside that axis's layers' reach), for the stretch: each
 * pair's under the owner that visits the point (its first axis where that
 * reaches it, else its second). */
static __device__ __forceinline__ void keep_plain_mixed(const sf_cuda_anisotropic_step &s, int f,
                                                        const int (&slot)[3], int i, int j, int k,
                                                        const float (&mixed)[SF_MIXED_PAIRS])
{
#pragma unroll
    for (int q = 0; q < SF_MIXED_PAIRS; ++q) {
        const int a = sf_mixed_first_axis(q), c = sf_mixed_second_axis(q);
        const int o = slot[a] >= 0 ? 0 : 1, oa = o ? c : a;
        if (slot[oa] < 0) continue;
        s.plain_mixed[f][q][o][memory_at(s.grid, oa, s.axis[oa].points, slot[oa], i, j, k)] = mixed[q];
    }
}

/* KEEP: the slab has layers, whose points' plain mixed derivatives the
 * kernel keeps (keep_plain_mixed); without, it looks up no slot. */
template <int R, bool KEEP>
__global__ void __launch_bounds__(THREADS, 2)
    tti_interior_kernel(const __grid_constant__ sf_cuda_anisotropic_step s, const int4 rect,
                        const int k0, const int k1, const int chunk)
{
    using S = tti_shape<R>;
    /* One buffer each: between a plane's writes of u and the last reads of
     * the plane before lies a barrier, and likewise for dx. */
    __shared__ float u[FIELDS][S::HEIGHT][S::WIDTH];
    __shared__ float dx[FIELDS][S::HEIGHT][TX];
    /* Each thread's x-y terms (dxx, dyy, dxy) of planes f - R .. f, waiting
     * for their output plane: a ring of R + 1 slots, private to the thread
     * (in registers they took the kernel past 128). */
    __shared__ float waiting[R + 1][3][FIELDS][THREADS];

    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, tid = ty * TX + tx;
    const int i0 = rect.x + (int)blockIdx.x * TX, j0 = rect.y + (int)blockIdx.y * TY;
    const int i = i0 + tx, j = j0 + ty;
    const long sp = s.grid.sp;
    const bool inside = i < s.grid.nx && j < s.grid.ny, owns = i < rect.z && j < rect.w;
    /* The point's offset in plane -SF_HALO of a field. */
    const long base = (long)(j + SF_PAD) * s.grid.sx + s.grid.gx + i;
    rim_moves<S::RIMS> rim;
    tti_rim<R>(rim, tid, i0, j0, i, j, s.grid);

    /* A block whose tile the x or y layers reach looks up its points' x and
     * y slots on every plane; the others only where a z layer reaches (the
     * slots, held across the march, would spill). */
    const bool tile_in_layers =
        KEEP && __syncthreads_or(owns && (__ldg(s.axis[0].point_slot + i + SLACK) >= 0 ||
                                          __ldg(s.axis[1].point_slot + j + SLACK) >= 0));
    tti_column<R> col[FIELDS] = {};
    tti_loads<S::RIMS> ahead = {};
    /* The first 2R fronts fill the queues: plane kb's output needs
     * d/dx and d/dy from kb - R to kb + R. */
    const int first = kb - R, last = ke + R;
    int ring = 0;   /* the front plane's slot of the ring */
    if (kb < ke) tti_load_front(ahead, s, base + (first + SF_HALO) * sp, inside, rim);
    for (int f = first; f < last; ++f) {
        const tti_loads<S::RIMS> now = ahead;
        if (f + 1 < last) {
            tti_load_front(ahead, s, base + (f + 1 + SF_HALO) * sp, inside, rim);
            if (owns && f + 1 - R >= kb)
                tti_load_output(ahead, s, base + (f + 1 - R + SF_HALO) * sp, base + (f + 1 - R) * sp);
        }

#pragma unroll
        for (int g = 0; g < FIELDS; ++g) {
            float *plane = &u[g][0][0];
            plane[(ty + R) * S::WIDTH + tx + R] = now.front[g];
#pragma unroll
            for (int n = 0; n < S::RIMS; ++n)
                if (rim.slot[n] >= 0) plane[rim.slot[n]] = now.rim[g][n];
        }
        __syncthreads();
        plane_terms t[FIELDS];
#pragma unroll
        for (int g = 0; g < FIELDS; ++g)
            t[g] = tti_plane_terms<R>(s, &u[g][0][0], &dx[g][0][0], tx, ty, tid);
        __syncthreads();
#pragma unroll
        for (int g = 0; g < FIELDS; ++g) {
            t[g].dxy = tti_dxy<R>(s, &dx[g][0][0], tx, ty);
            tti_push<R>(col[g], now.front[g], t[g]);
            waiting[ring][0][g][tid] = t[g].dxx;
            waiting[ring][1][g][tid] = t[g].dyy;
            waiting[ring][2][g][tid] = t[g].dxy;
        }
        /* The slot after the front's holds plane f - R, rewritten next. */
        ring = ring == R ? 0 : ring + 1;

        const int k = f - R;
        if (owns && k >= kb) {
            float w[SF_TILT_WEIGHTS], h1[FIELDS], h2[FIELDS], d[FIELDS];
            sf_tilt_weights(now.theta, now.phi, w);
            int layer[3] = {-1, -1, KEEP ? __ldg(s.axis[2].point_slot + k + SLACK) : -1};
            if (tile_in_layers || layer[2] >= 0) {
                layer[0] = __ldg(s.axis[0].point_slot + i + SLACK);
                layer[1] = __ldg(s.axis[1].point_slot + j + SLACK);
            }
            const bool stretched = layer[0] >= 0 || layer[1] >= 0 || layer[2] >= 0;
#pragma unroll
            for (int g = 0; g < FIELDS; ++g) {
                const float xy[3] = {waiting[ring][0][g][tid], waiting[ring][1][g][tid],
                                     waiting[ring][2][g][tid]};
                float mixed[SF_MIXED_PAIRS];
                tti_operators<R>(s, col[g], xy, w, &h1[g], &h2[g], mixed);
                if (KEEP && stretched) keep_plain_mixed(s, g, layer, i, j, k, mixed);
            }
            sf_fdf_rhs(sf_fdf_at(now.vp, now.epsilon, now.delta, s.dt2), h1[SF_ANISOTROPIC_P],
                       h2[SF_ANISOTROPIC_P], h1[SF_ANISOTROPIC_Q], h2[SF_ANISOTROPIC_Q],
                       &d[SF_ANISOTROPIC_P], &d[SF_ANISOTROPIC_Q]);
            const long at = base + (k + SF_HALO) * sp;
#pragma unroll
            for (int g = 0; g < FIELDS; ++g)
                s.next[g][at] = s.zero_plane0 && k == 0 ? 0.0f : 2.0f * col[g].u[R] - now.prev[g] + d[g];
        }
#pragma unroll
        for (int g = 0; g < FIELDS; ++g) tti_shift<R>(col[g]);
    }
}

/* ---- the CPML corrections ------------------------------------------------ */

/* psi (count = halves) or zeta (count = points) of axis A at point
 * (i, j, k): slot q sits at memory_base + q * memory_stride, the CPU
 * backend's memory_index (which the coordinate along A does not enter). */
template <int A>
static __device__ __forceinline__ long memory_base(const sf_cuda_grid &g, int count, int i, int j,
                                                   int k)
{
    if (A == 0) return ((long)k * g.ny + j) * count;
    if (A == 1) return (long)k * count * g.nx + i;
    return (long)j * g.nx + i;
}

template <int A>
static __device__ __forceinline__ long memory_stride(const sf_cuda_grid &g)
{
    return A == 0 ? 1 : A == 1 ? (long)g.nx : (long)g.nx * g.ny;
}

/* The CPU's second_derivative without the layer terms, through L1. */
template <int R>
static __device__ __forceinline__ float second_derivative(const float *u, long step, const float *c)
{
    float d2 = c[0] * __ldg(u);
#pragma unroll
    for (int m = 1; m <= R; ++m) d2 += c[m] * (__ldg(u + m * step) + __ldg(u - m * step));
    return d2;
}

/* What a point along an x or y line needs from the tables: the same on
 * every plane, so read once. */
template <int R>
struct line_slots {
    int point;               /* zeta's slot */
    int up[R], down[R];      /* psi's slots of the half points along + m - 1 and along - m */
    float a, b;
};

template <int R>
static __device__ __forceinline__ line_slots<R> line_at(const sf_cuda_anisotropic_axis &ax,
                                                        int along, int point)
{
    line_slots<R> t;
    t.point = point;
#pragma unroll
    for (int m = 1; m <= R; ++m) {
        t.up[m - 1] = __ldg(ax.half_slot + along + m - 1 + SLACK);
        t.down[m - 1] = __ldg(ax.half_slot + along - m + SLACK);
    }
    t.a = __ldg(ax.a + along + ax.first);
    t.b = __ldg(ax.b + along + ax.first);
    return t;
}

/* What a corrected point reads besides the derivatives' inputs. A thread
 * loads all of it before it stores anything: the compiler has to assume
 * that the stores (zeta, the new level) may alias later plain loads, and
 * would otherwise wait for one field's zeta before loading the other's. */
template <bool TILTED>
struct point_state {
    float zeta[FIELDS], next[FIELDS];
    float vp, epsilon, delta, theta, phi;
};

template <bool TILTED>
static __device__ __forceinline__ void load_point(point_state<TILTED> &p,
                                                  const sf_cuda_anisotropic_step &s,
                                                  const sf_cuda_anisotropic_axis &ax, long at,
                                                  long zeta_at)
{
    const long n = at - SF_HALO * s.grid.sp;
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
        p.zeta[f] = ax.zeta[f][zeta_at];
        p.next[f] = s.next[f][at];
    }
    p.vp = __ldg(s.vp + n);
    p.epsilon = __ldg(s.epsilon + n);
    p.delta = __ldg(s.delta + n);
    if (TILTED) {
        p.theta = __ldg(s.theta + n);
        p.phi = __ldg(s.phi + n);
    }
}

/* TTI's mixed pairs that axis A's layers stretch at point (i, j, k): those
 * whose first axis is A, and those whose second is A where the first
 * axis's layers do not reach the point. Each pair's memory variables sit
 * at the point's index among A's layer points (m, zeta's index); a_own,
 * b_own are A's coefficients there. Adds sum_q w_q corr_q per field to
 * mixed, which H1 takes and H2 gives up. */
template <int A>
static __device__ __forceinline__ void stretch_owned_pairs(const sf_cuda_anisotropic_step &s, int i,
                                                           int j, int k, long m, float a_own,
                                                           float b_own, const float *w,
                                                           float (&mixed)[FIELDS])
{
    const int along[3] = {i, j, k};
#pragma unroll
    for (int q = 0; q < SF_MIXED_PAIRS; ++q) {
        const int a = sf_mixed_first_axis(q), c = sf_mixed_second_axis(q);
        if (a != A && c != A) continue;
        const int o = a == A ? 0 : 1, other = o ? a : c;
        if (o == 1 && __ldg(s.axis[a].point_slot + along[a] + SLACK) >= 0) continue;
        const int g = along[other] + s.axis[other].first;
        const float a_other = __ldg(s.axis[other].a + g), b_other = __ldg(s.axis[other].b + g);
        const float aa = o ? a_other : a_own, ba = o ? b_other : b_own;
        const float ac = o ? a_own : a_other, bc = o ? b_own : b_other;
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) {
            float *inner = s.mixed[f][q][o][SF_MIXED_INNER] + m, *outer = s.mixed[f][q][o][SF_MIXED_OUTER] + m;
            float vi = *inner, vo = *outer;
            mixed[f] += w[3 + q] * sf_mixed_stretch(__ldg(s.plain_mixed[f][q][o] + m), aa, ba, ac, bc, &vi, &vo);
            *inner = vi, *outer = vo;
        }
    }
}

/* zeta <- b zeta + a (d2 + dpsi) for p and q, and the new level at field
 * offset `at` (plane k) takes what their layer terms c = dpsi + zeta along
 * axis A change: H1 w_aa c, H2 the rest. Under a free surface plane 0
 * stays zero, as the interior kernel left it. */
template <int A, bool TILTED>
static __device__ __forceinline__ void store_point(const point_state<TILTED> &p,
                                                   const sf_cuda_anisotropic_step &s,
                                                   const sf_cuda_anisotropic_axis &ax, long at,
                                                   long zeta_at, int i, int j, int k,
                                                   const float (&d2)[FIELDS],
                                                   const float (&dpsi)[FIELDS], float a, float b)
{
    float c[FIELDS];
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
        const float z = b * p.zeta[f] + a * (d2[f] + dpsi[f]);
        ax.zeta[f][zeta_at] = z;
        c[f] = dpsi[f] + z;
    }
    float h1[FIELDS], h2[FIELDS];
    if (TILTED) {
        float w[SF_TILT_WEIGHTS], mixed[FIELDS] = {};
        sf_tilt_weights(p.theta, p.phi, w);
        stretch_owned_pairs<A>(s, i, j, k, zeta_at, a, b, w, mixed);
        if (s.zero_plane0 && k == 0) return;
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) h1[f] = w[A] * c[f] + mixed[f], h2[f] = c[f] - h1[f];
    } else {
        if (s.zero_plane0 && k == 0) return;
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) h1[f] = A == 2 ? c[f] : 0.0f, h2[f] = A == 2 ? 0.0f : c[f];
    }
    float d[FIELDS];
    sf_fdf_rhs(sf_fdf_at(p.vp, p.epsilon, p.delta, s.dt2), h1[SF_ANISOTROPIC_P], h2[SF_ANISOTROPIC_P],
               h1[SF_ANISOTROPIC_Q], h2[SF_ANISOTROPIC_Q], &d[SF_ANISOTROPIC_P], &d[SF_ANISOTROPIC_Q]);
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) s.next[f][at] = p.next[f] + d[f];
}

/* The correction along A (x or y) at point (i, j, k), its line's slots t. */
template <int R, int A, bool TILTED>
static __device__ __forceinline__ void correct_line_point(const sf_cuda_anisotropic_step &s,
                                                          const line_slots<R> &t, int i, int j, int k)
{
    const sf_cuda_anisotropic_axis &ax = s.axis[A];
    const long at = field_offset(s.grid, i, j, k), step = A == 0 ? 1 : s.grid.sx;
    const long psi_at = memory_base<A>(s.grid, ax.halves, i, j, k), stride = memory_stride<A>(s.grid);
    const long zeta_at = memory_base<A>(s.grid, ax.points, i, j, k) + t.point * stride;
    float d2[FIELDS], dpsi[FIELDS];
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
        d2[f] = second_derivative<R>(s.cur[f] + at, step, s.second[A]);
        const float *psi = ax.psi[f] + psi_at;
        dpsi[f] = 0.0f;
#pragma unroll
        for (int m = 1; m <= R; ++m) {
            const float pu = t.up[m - 1] < 0 ? 0.0f : __ldg(psi + t.up[m - 1] * stride);
            const float pd = t.down[m - 1] < 0 ? 0.0f : __ldg(psi + t.down[m - 1] * stride);
            dpsi[f] += s.first[A][m] * (pu - pd);
        }
    }
    point_state<TILTED> p;
    load_point<TILTED>(p, s, ax, at, zeta_at);
    store_point<A, TILTED>(p, s, ax, at, zeta_at, i, j, k, d2, dpsi, t.a, t.b);
}

/* x: a thread per (x slot, row), the slots fastest, so a warp covers the
 * layers' stretches of consecutive rows (and zeta_x, slot-major, runs
 * contiguously); LINE_CHUNK planes a block. */
template <int R, bool TILTED>
__global__ void __launch_bounds__(THREADS)
    x_layer_kernel(const __grid_constant__ sf_cuda_anisotropic_step s, const int k0, const int k1,
                   const int chunk)
{
    const sf_cuda_anisotropic_axis &ax = s.axis[0];
    const long t = (long)blockIdx.x * THREADS + threadIdx.x;
    if (t >= (long)ax.points * s.grid.ny) return;
    const int slot = (int)(t % ax.points), j = (int)(t / ax.points);
    const int i = __ldg(ax.point_at + slot);
    const line_slots<R> line = line_at<R>(ax, i, slot);
    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    for (int k = kb; k < ke; ++k) correct_line_point<R, 0, TILTED>(s, line, i, j, k);
}

/* y: a block of TX points along x by TY y slots, LINE_CHUNK planes. */
template <int R, bool TILTED>
__global__ void __launch_bounds__(THREADS)
    y_layer_kernel(const __grid_constant__ sf_cuda_anisotropic_step s, const int k0, const int k1,
                   const int chunk)
{
    const sf_cuda_anisotropic_axis &ax = s.axis[1];
    const int i = (int)(blockIdx.x * TX + threadIdx.x), slot = (int)(blockIdx.y * TY + threadIdx.y);
    if (i >= s.grid.nx || slot >= ax.points) return;
    const int j = __ldg(ax.point_at + slot);
    const line_slots<R> line = line_at<R>(ax, j, slot);
    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    for (int k = kb; k < ke; ++k) correct_line_point<R, 1, TILTED>(s, line, i, j, k);
}

/* psi_z of field f at half plane h (local, halos included) of a column. */
static __device__ __forceinline__ float psi_z(const sf_cuda_anisotropic_axis &ax, int f, long cell,
                                              long plane, int h)
{
    const int q = __ldg(ax.half_slot + h + SLACK);
    return q < 0 ? 0.0f : __ldg(ax.psi[f] + cell + q * plane);
}

/* z: a thread per column (i, j) of a tile, marching through planes
 * [k0, k1) of a run that reads psi_z, Z_LAYER_CHUNK of them a block. Its
 * registers hold p and q at planes k - R .. k + R and their psi at half
 * planes k - R .. k + R - 1, so each is read once per block. */
template <int R, bool TILTED>
__global__ void __launch_bounds__(THREADS)
    z_layer_kernel(const __grid_constant__ sf_cuda_anisotropic_step s, const int k0, const int k1,
                   const int chunk)
{
    const sf_cuda_anisotropic_axis &ax = s.axis[2];
    const int i = (int)(blockIdx.x * TX + threadIdx.x), j = (int)(blockIdx.y * TY + threadIdx.y);
    if (i >= s.grid.nx || j >= s.grid.ny) return;
    int kb, ke;
    block_planes(k0, k1, chunk, &kb, &ke);
    const long sp = s.grid.sp, column = field_offset(s.grid, i, j, 0);
    const long cell = memory_base<2>(s.grid, 0, i, j, 0), plane = memory_stride<2>(s.grid);
    float u[FIELDS][2 * R + 1], h[FIELDS][2 * R];
#pragma unroll
    for (int f = 0; f < FIELDS; ++f) {
#pragma unroll
        for (int x = 0; x < 2 * R; ++x) u[f][x] = __ldg(s.cur[f] + column + (long)(kb - R + x) * sp);
#pragma unroll
        for (int x = 0; x < 2 * R - 1; ++x) h[f][x] = psi_z(ax, f, cell, plane, kb - R + x);
    }
    for (int k = kb; k < ke; ++k) {
        const int zs = __ldg(ax.point_slot + k + SLACK), g = k + ax.first;
        const float a = __ldg(ax.a + g), b = __ldg(ax.b + g);
        const long at = column + (long)k * sp, zeta_at = cell + zs * plane;
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) {
            u[f][2 * R] = __ldg(s.cur[f] + column + (long)(k + R) * sp);
            h[f][2 * R - 1] = psi_z(ax, f, cell, plane, k + R - 1);
        }
        point_state<TILTED> p;
        load_point<TILTED>(p, s, ax, at, zeta_at);
        float d2[FIELDS], dpsi[FIELDS];
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) {
            d2[f] = s.second[2][0] * u[f][R], dpsi[f] = 0.0f;
#pragma unroll
            for (int m = 1; m <= R; ++m) {
                d2[f] += s.second[2][m] * (u[f][R + m] + u[f][R - m]);
                dpsi[f] += s.first[2][m] * (h[f][R - 1 + m] - h[f][R - m]);
            }
        }
        store_point<2, TILTED>(p, s, ax, at, zeta_at, i, j, k, d2, dpsi, a, b);
#pragma unroll
        for (int f = 0; f < FIELDS; ++f) {
#pragma unroll
            for (int x = 0; x < 2 * R; ++x) u[f][x] = u[f][x + 1];
#pragma unroll
            for (int x = 0; x + 1 < 2 * R; ++x) h[f][x] = h[f][x + 1];
        }
    }
}

/* ---- launches ------------------------------------------------------------- */

/* At least `chunk` planes a block, more where the grid's z extent would
 * not hold the blocks. */
static int chunk_for(int chunk, int planes)
{
    const int least = (planes + MAX_GRID_Z - 1) / MAX_GRID_Z;
    return chunk > least ? chunk : least;
}

static unsigned chunks(int planes, int chunk) { return (unsigned)((planes + chunk - 1) / chunk); }

/* The interior kernel over the whole of planes [k0, k1). */
template <int R>
static void launch_interior(const sf_cuda_anisotropic_step *s, int k0, int k1, cudaStream_t stream)
{
    const int chunk = chunk_for(s->theta ? TTI_INTERIOR_CHUNK : VTI_INTERIOR_CHUNK, k1 - k0);
    const int4 rect = make_int4(0, 0, s->grid.nx, s->grid.ny);
    const int tile_x = s->theta ? TX : TX * VTI_VEC;
    const dim3 grid((unsigned)((s->grid.nx + tile_x - 1) / tile_x), (unsigned)((s->grid.ny + TY - 1) / TY),
                    chunks(k1 - k0, chunk));
    if (s->theta)
        if (s->axis[0].points || s->axis[1].points || s->axis[2].points)
            tti_interior_kernel<R, true><<<grid, dim3(TX, TY), 0, stream>>>(*s, rect, k0, k1, chunk);
        else
            tti_interior_kernel<R, false><<<grid, dim3(TX, TY), 0, stream>>>(*s, rect, k0, k1, chunk);
    else
        vti_interior_kernel<R, VTI_VEC><<<grid, dim3(TX, TY), 0, stream>>>(*s, rect, k0, k1, chunk);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the pseudo-acoustic interior kernel");
}

template <int R, bool TILTED>
static void launch_corrections(const sf_cuda_anisotropic_step *s, int k0, int k1, cudaStream_t stream)
{
    const sf_cuda_grid &g = s->grid;
    const int line_chunk = chunk_for(LINE_CHUNK, k1 - k0);
    if (s->axis[0].points > 0) {
        const long threads = (long)s->axis[0].points * g.ny;
        const dim3 grid((unsigned)((threads + THREADS - 1) / THREADS), 1, chunks(k1 - k0, line_chunk));
        x_layer_kernel<R, TILTED><<<grid, THREADS, 0, stream>>>(*s, k0, k1, line_chunk);
    }
    if (s->axis[1].points > 0) {
        const dim3 grid((unsigned)((g.nx + TX - 1) / TX), (unsigned)((s->axis[1].points + TY - 1) / TY),
                        chunks(k1 - k0, line_chunk));
        y_layer_kernel<R, TILTED><<<grid, dim3(TX, TY), 0, stream>>>(*s, k0, k1, line_chunk);
    }
    for (int run = 0; run < 2; ++run) {
        const int lo = s->z_lo[run] > k0 ? s->z_lo[run] : k0, hi = s->z_hi[run] < k1 ? s->z_hi[run] : k1;
        if (hi <= lo) continue;
        const int chunk = chunk_for(Z_LAYER_CHUNK, hi - lo);
        const dim3 grid((unsigned)((g.nx + TX - 1) / TX), (unsigned)((g.ny + TY - 1) / TY),
                        chunks(hi - lo, chunk));
        z_layer_kernel<R, TILTED><<<grid, dim3(TX, TY), 0, stream>>>(*s, lo, hi, chunk);
    }
    SF_CUDA_CHECK(cudaGetLastError(), "launching the pseudo-acoustic CPML corrections");
}

template <int R>
static void advance(const sf_cuda_anisotropic_step *s, int k0, int k1, cudaStream_t stream)
{
    launch_interior<R>(s, k0, k1, stream);
    if (s->theta)
        launch_corrections<R, true>(s, k0, k1, stream);
    else
        launch_corrections<R, false>(s, k0, k1, stream);
}

void sf_cuda_anisotropic_advance(const sf_cuda_anisotropic_step *s, int radius, int k0, int k1,
                                 cudaStream_t stream)
{
    if (k1 <= k0) return;
    switch (radius) {
    case 1: advance<1>(s, k0, k1, stream); break;
    case 2: advance<2>(s, k0, k1, stream); break;
    case 4: advance<4>(s, k0, k1, stream); break;
    default: sf_fatal("the pseudo-acoustic CUDA stencil has no radius %d", radius);
    }
}
