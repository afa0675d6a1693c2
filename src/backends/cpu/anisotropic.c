/* The kernels of the pseudo-acoustic VTI and TTI physics (sf_anisotropic.h)
 * for the CPU backend (cpu_physics.h): OpenMP threads over the rows of each
 * plane range. The CPML memory
 * variables of an axis live only in its layers, reached through slot
 * tables along the axis (-1: none there, the variable is zero). */
#include "sf_anisotropic.h"
#include "sf_cpml_slots.h"
#include "cpu_backend.h"
#include "cpu_levels.h"
#include "sf_error.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_CHUNK = 128 };   /* floats of a row per pass */
/* What a block of rows reads on its 2R + 1 planes, kept within this as
 * it streams through the slab (the acoustic kernels' choice). */
enum { CACHE_TARGET_BYTES = 320 * 1024 };
enum { AXIS_X, AXIS_Y, AXIS_Z, AXES };
enum { FIELDS = SF_ANISOTROPIC_FIELDS };

/* An axis's layers: the slots of its memory variables (shared with the
 * CUDA backend, so both walk the same arrays) and its coefficients. */
typedef struct {
    sf_cpml_slots slots;
    const sf_cpu_cpml_coefficients *c;      /* the backend's copy, global along the axis */
} axis_layers;

typedef struct {
    sf_cpu_levels levels;                 /* p's and q's; first, for the levels' table entries */
    int radius, tilted;
    float dt2;
    float *vp, *epsilon, *delta;          /* compact [nz][ny][nx] */
    float *weight[SF_TILT_WEIGHTS];       /* tti: H1's weights per point */
    sf_stencil_scaled coef;               /* over the spacings; centered: tti's mixed terms */

    axis_layers axis[AXES];
    float *psi[FIELDS][AXES], *zeta[FIELDS][AXES];
    /* tti: the mixed derivatives' stretch (sf_anisotropic.h), stored as zeta
     * is along the pair's owner axis: [field][pair][owner][variable]. */
    float *mixed[FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS][SF_MIXED_VARIABLES];
    /* tti: each thread's row of the plain mixed derivatives, [field][pair][nx],
     * which the interior operators form and the layers' stretch reuses. */
    float *mixed_rows;
    int threads;
    /* tti: each field's centered first derivatives along x and y, in the
     * field layout, each block of rows making its own R planes ahead of
     * its mixed derivatives, which take them along the row or along z
     * (d2/dxdy = d/dx (d/dy), d2/dxdz = d/dz (d/dx), d2/dydz = d/dz
     * (d/dy)): 2R points each where the two-dimensional stencil read 4 R^2,
     * and no block reads another's rows. */
    float *first[FIELDS][2];
    long rows_per_block;
} anisotropic;


/* ---- set-up ------------------------------------------------------------- */

static void setup_stencil(anisotropic *b, const sf_problem *p)
{
    b->radius = p->stencil.radius;
    b->coef = sf_stencil_scale(&p->stencil, p->h);
}

static float *copy_compact(anisotropic *b, const float *src, long count, const char *what)
{
    float *dst = sf_cpu_take(b->levels.shared->arena, (size_t)count, sizeof(float), what);
    memcpy(dst, src, (size_t)count * sizeof(float));
    return dst;
}

static void setup_medium(anisotropic *b, const sf_problem *p)
{
    const long count = p->nx * p->ny * p->nz;
    b->dt2 = (float)(p->dt * p->dt);
    b->vp = copy_compact(b, p->param[SF_ANISOTROPIC_VP], count, "the medium");
    b->epsilon = copy_compact(b, p->param[SF_ANISOTROPIC_EPSILON], count, "the medium");
    b->delta = copy_compact(b, p->param[SF_ANISOTROPIC_DELTA], count, "the medium");
    b->tilted = p->nparams > SF_ANISOTROPIC_THETA;
    if (!b->tilted) return;
    for (int w = 0; w < SF_TILT_WEIGHTS; ++w)
        b->weight[w] = sf_cpu_take(b->levels.shared->arena, (size_t)count, sizeof(float), "the tilt");
    for (long n = 0; n < count; ++n) {
        float w[SF_TILT_WEIGHTS];
        sf_tilt_weights(p->param[SF_ANISOTROPIC_THETA][n], p->param[SF_ANISOTROPIC_PHI][n], w);
        for (int q = 0; q < SF_TILT_WEIGHTS; ++q) b->weight[q][n] = w[q];
    }
}

/* Numbers the half points and points of both layers that fall within
 * [lo, hi) locally (z: the slab, its halos for psi). */
static void setup_axis(anisotropic *b, int a, const sf_cpml_axis *global, long n, long first,
                       long half_lo, long half_hi)
{
    axis_layers *ax = &b->axis[a];
    sf_cpml_slots_init(&ax->slots, global, b->radius, n, first, half_lo, half_hi);
    b->levels.shared->arena->bytes += sf_cpml_slots_bytes(&ax->slots);
    ax->c = &b->levels.shared->cpml[a];
}

static void setup_cpml(anisotropic *b, const sf_problem *p)
{
    const sf_cpu_shared *shared = b->levels.shared;
    const long nx = p->nx, ny = p->ny, nz = p->nz;
    setup_axis(b, AXIS_X, &p->cpml[0], nx, 0, 0, nx);
    setup_axis(b, AXIS_Y, &p->cpml[1], ny, 0, 0, ny);
    setup_axis(b, AXIS_Z, &p->cpml[2], nz, p->z0, -SF_HALO, nz + SF_HALO);
    const long cross[AXES] = {nz * ny, nz * nx, nx * ny};
    for (int f = 0; f < FIELDS; ++f)
        for (int a = 0; a < AXES; ++a) {
            b->psi[f][a] = sf_cpu_take_state(shared->arena, (size_t)(cross[a] * b->axis[a].slots.halves),
                                              "CPML memory");
            b->zeta[f][a] = sf_cpu_take_state(shared->arena, (size_t)(cross[a] * b->axis[a].slots.points),
                                              "CPML memory");
        }
    if (!b->tilted) return;
    for (int f = 0; f < FIELDS; ++f)
        for (int a = 0; a < 2; ++a)
            b->first[f][a] = sf_cpu_take(shared->arena, shared->L.field_size, sizeof(float),
                                         "the first derivatives of the tilt's mixed terms");
    b->threads = omp_get_max_threads();
    b->mixed_rows = sf_cpu_take(shared->arena, (size_t)b->threads * FIELDS * SF_MIXED_PAIRS * (size_t)nx,
                                sizeof(float), "the mixed derivatives of a row");
    for (int f = 0; f < FIELDS; ++f)
        for (int q = 0; q < SF_MIXED_PAIRS; ++q)
            for (int o = 0; o < SF_MIXED_OWNERS; ++o) {
                const int a = o ? sf_mixed_second_axis(q) : sf_mixed_first_axis(q);
                for (int v = 0; v < SF_MIXED_VARIABLES; ++v)
                    b->mixed[f][q][o][v] = sf_cpu_take_state(
                        shared->arena, (size_t)(cross[a] * b->axis[a].slots.points), "CPML memory");
            }
}

/* The stages, below. */
static void update_memory(void *state, long k0, long k1);
static void advance(void *state, long k0, long k1);

static void *anisotropic_create(sf_cpu_shared *shared, const sf_problem *p)
{
    anisotropic *b = sf_calloc(1, sizeof *b, "the anisotropic CPU kernels");
    sf_cpu_levels_plan(&b->levels, shared, FIELDS, update_memory, advance);
    setup_stencil(b, p);
    setup_medium(b, p);
    setup_cpml(b, p);
    /* At least a block a thread; TTI: blocks that keep its fields and
     * their first derivatives on the 2R + 1 planes in cache; VTI: one
     * block a thread (small blocks re-read the y reach of each: 4% slower
     * on 256^3). */
    const long row_bytes = shared->L.sx * (long)sizeof(float) * (2 * b->radius + 1) * FIELDS * 4;
    const long threads = omp_get_max_threads(), per_thread = (shared->L.ny + threads - 1) / threads;
    b->rows_per_block = b->tilted ? sf_cpu_min(per_thread, sf_cpu_rows_per_block(shared->L.ny, row_bytes,
                                                                                 CACHE_TARGET_BYTES))
                                  : per_thread;
    return b;
}

/* The slot tables are not the arena's. */
static void anisotropic_destroy(void *state)
{
    anisotropic *b = state;
    for (int a = 0; a < AXES; ++a) sf_cpml_slots_free(&b->axis[a].slots);
    free(b);
}

/* ---- CPML memory variables -------------------------------------------- */

static inline int half_slot(const axis_layers *ax, long i) { return sf_cpml_half_slot(&ax->slots, i); }
static inline int point_slot(const axis_layers *ax, long i) { return sf_cpml_point_slot(&ax->slots, i); }

/* Where psi (or zeta) of axis a sits for slot s at point (i, j, k). */
static inline size_t memory_index(const anisotropic *b, int a, long s, long count, long i, long j,
                                  long k)
{
    const sf_layout *L = &b->levels.shared->L;
    switch (a) {
    case AXIS_X: return (size_t)((k * L->ny + j) * count + s);
    case AXIS_Y: return (size_t)((k * count + s) * L->nx + i);
    default: return (size_t)((s * L->ny + j) * L->nx + i);
    }
}

static long axis_stride(const sf_layout *L, int a) { return a == AXIS_X ? 1 : a == AXIS_Y ? L->sx : L->sp; }

/* psi <- b psi + a d/dn u at the half point after index `along` of axis a. */
static void memory_point(anisotropic *b, int f, int a, long along, long i, long j, long k)
{
    const axis_layers *ax = &b->axis[a];
    const int s = half_slot(ax, along);
    if (s < 0) return;
    const sf_layout *L = &b->levels.shared->L;
    const long st = axis_stride(L, a);
    const float *u = b->levels.cur[f] + sf_field_index(L, i, j, k);
    const float d = sf_cpu_staggered_up(u, st, b->coef.first[a], b->radius);
    float *psi = b->psi[f][a] + memory_index(b, a, s, ax->slots.halves, i, j, k);
    const long g = along + ax->slots.first;
    *psi = ax->c->b_half[g] * *psi + ax->c->a_half[g] * d;
}

/* Every memory variable of row (j, k). */
static void memory_row(void *state, long j, long k)
{
    anisotropic *b = state;
    const int y = half_slot(&b->axis[AXIS_Y], j) >= 0, z = half_slot(&b->axis[AXIS_Z], k) >= 0;
    for (long i = 0; i < b->levels.shared->L.nx; ++i)
        for (int f = 0; f < FIELDS; ++f) {
            memory_point(b, f, AXIS_X, i, i, j, k);
            if (y) memory_point(b, f, AXIS_Y, j, i, j, k);
            if (z) memory_point(b, f, AXIS_Z, k, i, j, k);
        }
}

static void update_memory(void *state, long k0, long k1)
{
    sf_cpu_each_row(&((anisotropic *)state)->levels.shared->L, k0, k1, memory_row, state);
}

/* ---- the time step ------------------------------------------------------ */

/* The plain second derivatives along x, y and z of a field at a point,
 * with a constant radius so that rows vectorize. */
static inline void plain_second(const anisotropic *b, const float *u, long sx, long sp, const int R,
                                float d2[AXES])
{
    const float(*c)[SF_MAX_RADIUS + 1] = b->coef.second;
    d2[0] = c[0][0] * u[0], d2[1] = c[1][0] * u[0], d2[2] = c[2][0] * u[0];
    #pragma GCC unroll 4
    for (int m = 1; m <= R; ++m) {
        d2[0] += c[0][m] * (u[m] + u[-m]);
        d2[1] += c[1][m] * (u[m * sx] + u[-m * sx]);
        d2[2] += c[2][m] * (u[m * sp] + u[-m * sp]);
    }
}

/* The centered first derivative, coefficients d1, of values d along stride s. */
static inline float centered(const float *restrict d1, const float *d, long s, const int R)
{
    float sum = 0.0f;
    #pragma GCC unroll 4
    for (int m = 1; m <= R; ++m) sum += d1[m] * (d[m * s] - d[-m * s]);
    return sum;
}

/* H1 and H2 of a field at a point without the absorbing layers' terms:
 * VTI, and TTI with the tilt's weights at point n. */
static inline void vti_operators(const anisotropic *b, const float *u, long sx, long sp, const int R,
                                 float *h1, float *h2)
{
    float d2[AXES];
    plain_second(b, u, sx, sp, R, d2);
    *h1 = d2[2];
    *h2 = d2[0] + d2[1];
}

/* TTI's H1 and H2 of a field at point n, and its mixed derivatives xy, xz
 * and yz (the layers' stretch reuses them) from its first derivatives dx
 * and dy at the point. */
static inline void tti_operators(const anisotropic *b, const float *u, const float *dx,
                                 const float *dy, long n, long sx, long sp, const int R, float *h1,
                                 float *h2, float *mxy, float *mxz, float *myz)
{
    float d2[AXES];
    plain_second(b, u, sx, sp, R, d2);
    float *const *w = b->weight;
    *mxy = centered(b->coef.centered[0], dy, 1, R);
    *mxz = centered(b->coef.centered[2], dx, sp, R);
    *myz = centered(b->coef.centered[2], dy, sp, R);
    *h1 = w[0][n] * d2[0] + w[1][n] * d2[1] + w[2][n] * d2[2] + w[3][n] * *mxy + w[4][n] * *mxz +
          w[5][n] * *myz;
    *h2 = d2[0] + d2[1] + d2[2] - *h1;
}

/* The calling thread's row of mixed derivatives of field f, pair q. */
static inline float *mixed_row(const anisotropic *b, int f, int q)
{
    const size_t row = (size_t)b->levels.shared->L.nx;
    return b->mixed_rows + (((size_t)omp_get_thread_num() * FIELDS + (size_t)f) * SF_MIXED_PAIRS +
                            (size_t)q) * row;
}

/* Row (j, k) of the new level without the absorbing layers' terms. */
static void advance_row(anisotropic *b, long j, long k, const int R)
{
    const sf_layout *L = &b->levels.shared->L;
    const size_t x0 = sf_field_index(L, 0, j, k);
    const long n0 = (k * L->ny + j) * L->nx, sx = L->sx, sp = L->sp;
    const float *cp = b->levels.cur[SF_ANISOTROPIC_P] + x0, *cq = b->levels.cur[SF_ANISOTROPIC_Q] + x0;
    float *restrict np = b->levels.prev[SF_ANISOTROPIC_P] + x0;
    float *restrict nq = b->levels.prev[SF_ANISOTROPIC_Q] + x0;
    const float *vp = b->vp + n0, *eps = b->epsilon + n0, *delta = b->delta + n0;
    float h1p[ROW_CHUNK], h2p[ROW_CHUNK], h1q[ROW_CHUNK], h2q[ROW_CHUNK];
    for (long i0 = 0; i0 < L->nx; i0 += ROW_CHUNK) {
        const long len = L->nx - i0 < ROW_CHUNK ? L->nx - i0 : ROW_CHUNK;
        if (b->tilted) {
            float mp[SF_MIXED_PAIRS][ROW_CHUNK], mq[SF_MIXED_PAIRS][ROW_CHUNK];
            const size_t x = x0 + (size_t)i0;
            const float *dp[2] = {b->first[SF_ANISOTROPIC_P][0] + x, b->first[SF_ANISOTROPIC_P][1] + x};
            const float *dq[2] = {b->first[SF_ANISOTROPIC_Q][0] + x, b->first[SF_ANISOTROPIC_Q][1] + x};
            #pragma omp simd
            for (long i = 0; i < len; ++i) {
                tti_operators(b, cp + i0 + i, dp[0] + i, dp[1] + i, n0 + i0 + i, sx, sp, R, &h1p[i],
                              &h2p[i], &mp[0][i], &mp[1][i], &mp[2][i]);
                tti_operators(b, cq + i0 + i, dq[0] + i, dq[1] + i, n0 + i0 + i, sx, sp, R, &h1q[i],
                              &h2q[i], &mq[0][i], &mq[1][i], &mq[2][i]);
            }
            for (int q = 0; q < SF_MIXED_PAIRS; ++q) {
                memcpy(mixed_row(b, SF_ANISOTROPIC_P, q) + i0, mp[q], (size_t)len * sizeof(float));
                memcpy(mixed_row(b, SF_ANISOTROPIC_Q, q) + i0, mq[q], (size_t)len * sizeof(float));
            }
        } else {
            #pragma omp simd
            for (long i = 0; i < len; ++i) {
                vti_operators(b, cp + i0 + i, sx, sp, R, &h1p[i], &h2p[i]);
                vti_operators(b, cq + i0 + i, sx, sp, R, &h1q[i], &h2q[i]);
            }
        }
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            const long x = i0 + i;
            float dp, dq;
            sf_fdf_rhs(sf_fdf_at(vp[x], eps[x], delta[x], b->dt2), h1p[i], h2p[i], h1q[i], h2q[i],
                       &dp, &dq);
            np[x] = 2.0f * cp[x] - np[x] + dp;
            nq[x] = 2.0f * cq[x] - nq[x] + dq;
        }
    }
}

/* The absorbing layer's term of field f's second derivative along axis a
 * at a point that reads memory variables: dpsi + zeta, zeta advanced once
 * with the plain second derivative. */
static float layer_term(anisotropic *b, int f, int a, long along, long i, long j, long k)
{
    const axis_layers *ax = &b->axis[a];
    const long st = axis_stride(&b->levels.shared->L, a);
    const float *u = b->levels.cur[f] + sf_field_index(&b->levels.shared->L, i, j, k);
    float d2 = b->coef.second[a][0] * u[0], dpsi = 0.0f;
    for (int m = 1; m <= b->radius; ++m) {
        d2 += b->coef.second[a][m] * (u[m * st] + u[-m * st]);
        const int up = half_slot(ax, along + m - 1), down = half_slot(ax, along - m);
        const long step_up = m - 1, step_down = -m;
        const float pu = up < 0 ? 0.0f
                                : b->psi[f][a][memory_index(b, a, up, ax->slots.halves,
                                                             i + (a == AXIS_X) * step_up,
                                                             j + (a == AXIS_Y) * step_up,
                                                             k + (a == AXIS_Z) * step_up)];
        const float pd = down < 0 ? 0.0f
                                  : b->psi[f][a][memory_index(b, a, down, ax->slots.halves,
                                                               i + (a == AXIS_X) * step_down,
                                                               j + (a == AXIS_Y) * step_down,
                                                               k + (a == AXIS_Z) * step_down)];
        dpsi += b->coef.first[a][m] * (pu - pd);
    }
    float *zeta = b->zeta[f][a] + memory_index(b, a, point_slot(ax, along), ax->slots.points, i, j, k);
    const long g = along + ax->slots.first;
    *zeta = ax->c->b[g] * *zeta + ax->c->a[g] * (d2 + dpsi);
    return dpsi + *zeta;
}

/* Adds axis a's layer terms of p and q at a point to the new level: the
 * right-hand sides are linear in H1 and H2, and a term along axis a
 * enters H1 with the weight of aa in it. */
static void correct_point(anisotropic *b, int a, long along, long i, long j, long k)
{
    const sf_layout *L = &b->levels.shared->L;
    const long n = (k * L->ny + j) * L->nx + i;
    const float cp = layer_term(b, SF_ANISOTROPIC_P, a, along, i, j, k);
    const float cq = layer_term(b, SF_ANISOTROPIC_Q, a, along, i, j, k);
    const float w = b->tilted ? b->weight[a][n] : (a == AXIS_Z ? 1.0f : 0.0f);
    float dp, dq;
    sf_fdf_rhs(sf_fdf_at(b->vp[n], b->epsilon[n], b->delta[n], b->dt2), w * cp, cp - w * cp,
               w * cq, cq - w * cq, &dp, &dq);
    const size_t x = sf_field_index(L, i, j, k);
    b->levels.prev[SF_ANISOTROPIC_P][x] += dp;
    b->levels.prev[SF_ANISOTROPIC_Q][x] += dq;
}

/* Advances pair q's memory variables at point (i, j, k), which lies in the
 * reach of one of its axes' layers (slot[a]: its slot along axis a, or
 * -1), from the plain mixed derivatives advance_row formed; returns for
 * each field the stretch's correction, times the pair's tilt weight. */
static void stretch_mixed(anisotropic *b, int q, const int slot[AXES], long i, long j, long k,
                          float w, float corr[FIELDS])
{
    const long at[AXES] = {i, j, k};
    const int a = sf_mixed_first_axis(q), c = sf_mixed_second_axis(q);
    const int owner = slot[a] < 0, oa = owner ? c : a;
    const size_t m = memory_index(b, oa, slot[oa], b->axis[oa].slots.points, i, j, k);
    const long ga = at[a] + b->axis[a].slots.first, gc = at[c] + b->axis[c].slots.first;
    const sf_cpu_cpml_coefficients *ca = b->axis[a].c, *cc = b->axis[c].c;
    for (int f = 0; f < FIELDS; ++f) {
        float *const *v = b->mixed[f][q][owner];
        corr[f] += w * sf_mixed_stretch(mixed_row(b, f, q)[i], ca->a[ga], ca->b[ga], cc->a[gc],
                                        cc->b[gc], &v[SF_MIXED_INNER][m], &v[SF_MIXED_OUTER][m]);
    }
}

/* Adds the stretch of the mixed derivatives at a point in the reach of
 * some layer (tti): every pair one of whose axes' layers reach the point;
 * H1 takes the weighted corrections, H2 minus them. */
static void correct_mixed(anisotropic *b, long i, long j, long k)
{
    const sf_layout *L = &b->levels.shared->L;
    const int slot[AXES] = {point_slot(&b->axis[AXIS_X], i), point_slot(&b->axis[AXIS_Y], j),
                            point_slot(&b->axis[AXIS_Z], k)};
    const long n = (k * L->ny + j) * L->nx + i;
    float corr[FIELDS] = {0.0f, 0.0f};
    for (int q = 0; q < SF_MIXED_PAIRS; ++q)
        if (slot[sf_mixed_first_axis(q)] >= 0 || slot[sf_mixed_second_axis(q)] >= 0)
            stretch_mixed(b, q, slot, i, j, k, b->weight[3 + q][n], corr);
    float dp, dq;
    sf_fdf_rhs(sf_fdf_at(b->vp[n], b->epsilon[n], b->delta[n], b->dt2), corr[SF_ANISOTROPIC_P],
               -corr[SF_ANISOTROPIC_P], corr[SF_ANISOTROPIC_Q], -corr[SF_ANISOTROPIC_Q], &dp, &dq);
    const size_t x = sf_field_index(L, i, j, k);
    b->levels.prev[SF_ANISOTROPIC_P][x] += dp;
    b->levels.prev[SF_ANISOTROPIC_Q][x] += dq;
}

/* Every layer term of row (j, k), the axes in turn, then (tti) the
 * mixed pairs. */
static void correct_row(anisotropic *b, long j, long k)
{
    const long nx = b->levels.shared->L.nx;
    const int y = point_slot(&b->axis[AXIS_Y], j) >= 0, z = point_slot(&b->axis[AXIS_Z], k) >= 0;
    for (long i = 0; i < nx; ++i)
        if (point_slot(&b->axis[AXIS_X], i) >= 0) correct_point(b, AXIS_X, i, i, j, k);
    for (long i = 0; y && i < nx; ++i) correct_point(b, AXIS_Y, j, i, j, k);
    for (long i = 0; z && i < nx; ++i) correct_point(b, AXIS_Z, k, i, j, k);
    if (!b->tilted) return;
    for (long i = 0; i < nx; ++i)
        if (y || z || point_slot(&b->axis[AXIS_X], i) >= 0) correct_mixed(b, i, j, k);
}

/* tti: the first derivatives along x and y of both fields on rows
 * [j0, j1) of plane k (a halo plane too), each from its own plane's values. */
static void first_derivatives(anisotropic *b, long j0, long j1, long k, const int R)
{
    const sf_layout *L = &b->levels.shared->L;
    const float *cx = b->coef.centered[0], *cy = b->coef.centered[1];
    for (long j = j0; j < j1; ++j)
        for (int f = 0; f < FIELDS; ++f) {
            const size_t x0 = sf_field_index(L, 0, j, k);
            const float *u = b->levels.cur[f] + x0;
            float *restrict dx = b->first[f][0] + x0, *restrict dy = b->first[f][1] + x0;
            #pragma omp simd
            for (long i = 0; i < L->nx; ++i) {
                dx[i] = centered(cx, u + i, 1, R);
                dy[i] = centered(cy, u + i, L->sx, R);
            }
        }
}

/* Rows [j0, j1) of plane k of a stage that starts at plane k0: the plain
 * operators, then the layers' terms. For TTI the first derivatives run R
 * planes ahead, so that the mixed ones along z find theirs made (at the
 * stage's first plane, the 2R planes around it). */
static void advance_block_plane(anisotropic *b, long j0, long j1, long k, long k0, const int R)
{
    if (b->tilted) {
        if (k == k0)
            for (long kk = k0 - R; kk < k0 + R; ++kk) first_derivatives(b, j0, j1, kk, R);
        first_derivatives(b, j0, j1, k + R, R);
    }
    for (long j = j0; j < j1; ++j) {
        advance_row(b, j, k, R);
        correct_row(b, j, k);
    }
}

/* The new level of planes [k0, k1) row by row: the plain operators, then
 * the absorbing layers' terms where a point reads memory variables (the
 * CUDA kernels do the same in two passes). */
static void advance(void *state, long k0, long k1)
{
    anisotropic *b = state;
    const sf_layout *L = &b->levels.shared->L;
    const long ny = L->ny, block = b->rows_per_block;
    #pragma omp parallel for schedule(dynamic, 1)
    for (long j0 = 0; j0 < ny; j0 += block)
        for (long k = k0; k < k1; ++k) {
            const long j1 = sf_cpu_min(j0 + block, ny);
            if (b->radius == 4)
                advance_block_plane(b, j0, j1, k, k0, 4);
            else
                advance_block_plane(b, j0, j1, k, k0, b->radius);
        }
    if (b->levels.shared->free_surface_here && k0 == 0)
        for (int f = 0; f < FIELDS; ++f)
            for (long j = 0; j < L->ny; ++j)
                memset(b->levels.prev[f] + sf_field_index(L, 0, j, 0), 0, (size_t)L->nx * sizeof(float));
}

static int anisotropic_source_point(const void *state, const sf_field_weight *w, float *coefficient)
{
    const anisotropic *b = state;
    const sf_layout *L = &b->levels.shared->L;
    const float vp = b->vp[(w->k * L->ny + w->j) * L->nx + w->i];
    *coefficient = w->weight * vp * vp * b->dt2;
    return 1;
}

/* ---- halo planes ------------------------------------------------------ */

/* Plane k (local) of a group's field f: the new level's, or psi_z's (NULL
 * where that half-plane holds none). */
static float *anisotropic_halo_plane(void *state, int g, int f, long k, long *stride)
{
    anisotropic *b = state;
    const sf_layout *L = &b->levels.shared->L;
    if (g == SF_HALO_WAVEFIELD) {
        *stride = L->sx;
        return sf_cpu_levels_plane(&b->levels, f, k);
    }
    *stride = L->nx;
    const int s = half_slot(&b->axis[AXIS_Z], k);
    return s < 0 ? NULL : b->psi[f][AXIS_Z] + memory_index(b, AXIS_Z, s, 0, 0, 0, 0);
}

SF_CPU_LEVELS_BACKEND(sf_backend_cpu_anisotropic, "anisotropic", anisotropic_create, anisotropic_destroy,
                      anisotropic_source_point, anisotropic_halo_plane)
