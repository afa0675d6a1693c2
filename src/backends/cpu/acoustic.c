/* The acoustic kernels of the CPU backend (cpu_physics.h): OpenMP threads
 * over cache-sized blocks of rows, each block streamed through its z range
 * so the (2R+1) planes the stencil touches stay in cache. */
#include "sf_acoustic.h"
#include "acoustic_kernels.h"
#include "cpu_backend.h"
#include "sf_error.h"

#include <omp.h>
#include <string.h>

/* psi arrays carry PSI_PAD zero half points before and after the layer
 * along their axis, so derivatives of psi need no bounds tests: points up
 * to R inside the interior read psi up to 2R - 1 half points past it. */
enum { PSI_PAD = 2 * SF_MAX_RADIUS };

/* The stages that write each memory variable: y and z psi the memory
 * update, x psi (with the row's x correction) and every zeta the advance. */
#define MEMORY_WRITES SF_CPU_STAGE(SF_ACOUSTIC_MEMORY)
#define ADVANCE_WRITES SF_CPU_STAGE(SF_ACOUSTIC_ADVANCE)

typedef struct {
    long lo, hi;             /* points whose update reads psi (see sf_cpml_span) */
    long hlo, hhi;           /* half points where psi lives */
    long psi_width;          /* hhi - hlo + 2 PSI_PAD */
    float *psi, *zeta;
} layer_xy;

typedef struct {
    long plo, phi;           /* local owned planes whose update reads psi */
    long hlo, hhi;           /* local half-planes stored, halos included */
    float *psi, *zeta;       /* psi: (hhi - hlo + 2 PSI_PAD) planes of nx*ny */
} layer_z;

typedef struct {
    sf_cpu_levels levels;          /* the pressure's; first, for the levels' table entries */
    int radius;
    float *vdt2;
    float c0;                      /* the Laplacian's centre, every axis */
    sf_stencil_scaled coef;        /* over the spacings */
    long rows_per_block;

    layer_xy x[2], y[2];
    layer_z z[2];
    /* A law finishing each block of rows, and per thread the block's rows
     * of the level the update overwrites (NULL without a law). */
    const sf_cpu_row_law *law;
    float *before;
} acoustic;

static void setup_coefficients(acoustic *b, const sf_problem *p)
{
    const sf_stencil *s = &p->stencil;
    b->radius = s->radius;
    b->coef = sf_stencil_scale(s, p->h);
    b->c0 = (float)(s->second[0] * (1.0 / (p->h[0] * p->h[0]) + 1.0 / (p->h[1] * p->h[1]) +
                                    1.0 / (p->h[2] * p->h[2])));
}

static void setup_model(acoustic *b, const sf_problem *p)
{
    const sf_cpu_shared *shared = b->levels.shared;
    const sf_layout *L = &shared->L;
    b->vdt2 = sf_cpu_take(shared->arena, L->plane_size, sizeof(float), "the velocity term v^2 dt^2");
    sf_layout_planes_from_compact(L, p->param[SF_ACOUSTIC_PARAM_VP], 0, L->nz, b->vdt2);
    #pragma omp parallel for schedule(static)
    for (size_t n = 0; n < L->plane_size; ++n) {
        const double v = b->vdt2[n];
        b->vdt2[n] = (float)(v * v * p->dt * p->dt);
    }
    sf_cpu_keep_as_medium(shared->arena, b->vdt2, L->plane_size, sf_cpu_owned_rows(L),
                          "the velocity term v^2 dt^2");
}

static void setup_cpml(acoustic *b, const sf_problem *p)
{
    const sf_cpu_shared *shared = b->levels.shared;
    const sf_layout *L = &shared->L;
    size_t plane = (size_t)(L->nx * L->ny);
    for (int s = 0; s < 2; ++s) {
        sf_cpml_span sx = sf_cpml_layer_span(&p->cpml[0], s, b->radius);
        sf_cpml_span sy = sf_cpml_layer_span(&p->cpml[1], s, b->radius);
        sf_cpml_span sz = sf_cpml_layer_span(&p->cpml[2], s, b->radius);
        layer_xy *lx = &b->x[s], *ly = &b->y[s];
        *lx = (layer_xy){sx.flo, sx.fhi, sx.hlo, sx.hhi, sx.hhi - sx.hlo + 2 * PSI_PAD, NULL, NULL};
        if (sx.fhi > sx.flo) {
            lx->psi = sf_cpu_take_state(shared->arena, (size_t)(L->nz * L->ny * lx->psi_width),
                                        sf_cpu_plane_rows(lx->psi_width, L->ny * lx->psi_width, 0),
                                        ADVANCE_WRITES, "CPML x");
            lx->zeta = sf_cpu_take_state(shared->arena, (size_t)(L->nz * L->ny * (sx.fhi - sx.flo)),
                                         sf_cpu_plane_rows(sx.fhi - sx.flo, L->ny * (sx.fhi - sx.flo), 0),
                                         ADVANCE_WRITES, "CPML x");
        }
        *ly = (layer_xy){sy.flo, sy.fhi, sy.hlo, sy.hhi, sy.hhi - sy.hlo + 2 * PSI_PAD, NULL, NULL};
        if (sy.fhi > sy.flo) {
            ly->psi = sf_cpu_take_state(shared->arena, (size_t)(L->nz * L->nx * ly->psi_width),
                                        sf_cpu_plane_rows(L->nx, ly->psi_width * L->nx, 0), MEMORY_WRITES,
                                        "CPML y");
            ly->zeta = sf_cpu_take_state(shared->arena, (size_t)(L->nz * L->nx * (sy.fhi - sy.flo)),
                                         sf_cpu_plane_rows(L->nx, (sy.fhi - sy.flo) * L->nx, 0),
                                         ADVANCE_WRITES, "CPML y");
        }
        layer_z *lz = &b->z[s];
        lz->plo = sf_cpu_max(sz.flo - shared->z0, 0);
        lz->phi = sf_cpu_max(lz->plo, sf_cpu_min(sz.fhi - shared->z0, L->nz));
        lz->hlo = sf_cpu_max(sz.hlo - shared->z0, -SF_HALO);
        lz->hhi = sf_cpu_max(lz->hlo, sf_cpu_min(sz.hhi - shared->z0, L->nz + SF_HALO));
        if (lz->hhi > lz->hlo) {
            lz->psi = sf_cpu_take_state(shared->arena, plane * (size_t)(lz->hhi - lz->hlo + 2 * PSI_PAD),
                                        sf_cpu_plane_rows(L->nx, (long)plane, lz->hlo - PSI_PAD),
                                        MEMORY_WRITES, "CPML z");
            lz->zeta = sf_cpu_take_state(shared->arena, plane * (size_t)(lz->phi - lz->plo),
                                         sf_cpu_plane_rows(L->nx, (long)plane, lz->plo), ADVANCE_WRITES,
                                         "CPML z");
        }
    }
}

/* The stages, below. */
static void update_cpml_memory(void *state, long k0, long k1);
static void advance(void *state, long k0, long k1);

void *sf_cpu_acoustic_create(sf_cpu_shared *shared, const sf_problem *p, const sf_cpu_row_law *law)
{
    acoustic *b = sf_calloc(1, sizeof *b, "the acoustic CPU kernels");
    sf_cpu_levels_plan(&b->levels, shared, 1, update_cpml_memory, advance);
    setup_coefficients(b, p);
    setup_model(b, p);
    setup_cpml(b, p);
    long row_bytes = shared->L.sx * (long)sizeof(float) * (2 * b->radius + 1);
    b->rows_per_block = sf_cpu_rows_per_block(shared->L.ny, row_bytes);
    b->law = law;
    if (law)
        b->before = sf_cpu_take(shared->arena, (size_t)omp_get_max_threads() * (size_t)b->rows_per_block,
                                (size_t)shared->L.nx * sizeof(float), "the rows a law reads");
    return b;
}

static void *acoustic_create(sf_cpu_shared *shared, const sf_problem *p)
{
    return sf_cpu_acoustic_create(shared, p, NULL);
}

/* ---- halo planes ------------------------------------------------------ */

/* psi of x layer s at half point hlo for row (j, k); half point h is at [h - hlo]. */
static float *psi_x_row(const layer_xy *lx, const sf_layout *L, long j, long k)
{
    return lx->psi + (k * L->ny + j) * lx->psi_width + PSI_PAD;
}

/* psi of y layer at half row hlo of plane k; half row h is at [(h - hlo) * nx]. */
static float *psi_y_plane(const layer_xy *ly, const sf_layout *L, long k)
{
    return ly->psi + (k * ly->psi_width + PSI_PAD) * L->nx;
}

/* psi of z layer at local half-plane hlo; half-plane h is at [(h - hlo) * nx * ny]. */
static float *psi_z_base(const layer_z *lz, const sf_layout *L)
{
    return lz->psi + PSI_PAD * L->nx * L->ny;
}

/* The stored psi_z plane for local half-plane k, or NULL. */
static float *psi_z_plane(acoustic *b, long k)
{
    const sf_cpu_shared *shared = b->levels.shared;
    for (int s = 0; s < 2; ++s)
        if (k >= b->z[s].hlo && k < b->z[s].hhi)
            return psi_z_base(&b->z[s], &shared->L) +
                   (size_t)(k - b->z[s].hlo) * (size_t)(shared->L.nx * shared->L.ny);
    return NULL;
}

/* The wavefield group's planes are the levels', the memory group's psi_z
 * (NULL where a half-plane holds none). */
float *sf_cpu_acoustic_halo_plane(void *state, int group, int array, long k, long *row_stride)
{
    acoustic *b = state;
    (void)array;
    if (group == SF_HALO_WAVEFIELD) {
        *row_stride = b->levels.shared->L.sx;
        return sf_cpu_levels_plane(&b->levels, 0, k);
    }
    *row_stride = b->levels.shared->L.nx;
    return psi_z_plane(b, k);
}

/* ---- CPML memory variables --------------------------------------------- */

/* Does row (j, k) hold y or z memory variables (half points of a layer)? */
static int row_has_memory(const acoustic *b, long j, long k)
{
    for (int s = 0; s < 2; ++s)
        if ((j >= b->y[s].hlo && j < b->y[s].hhi) || (k >= b->z[s].hlo && k < b->z[s].hhi))
            return 1;
    return 0;
}

/* The y and z CPML memory variables of row (j, k): the whole row where j
 * is a y-layer half row, or k a z-layer half-plane. (The x ones belong to
 * the row alone and are updated with its x correction, while it is in
 * cache.) */
static inline void memory_row(void *state, long j, long k)
{
    const acoustic *b = state;
    const sf_cpu_shared *shared = b->levels.shared;
    if (!row_has_memory(b, j, k)) return;
    const sf_layout *L = &shared->L;
    const sf_cpu_cpml_coefficients *ax = shared->cpml;
    for (int s = 0; s < 2; ++s) {
        const layer_xy *ly = &b->y[s];
        if (j >= ly->hlo && j < ly->hhi)
            SF_CPU_WITH_RADIUS(sf_cpu_memory_run, b, psi_y_plane(ly, L, k) + (j - ly->hlo) * L->nx,
                        b->levels.cur[0] + sf_field_index(L, 0, j, k), L->nx, L->sx, b->coef.first[1],
                        ax[1].a_half + j, ax[1].b_half + j, 0);
        const layer_z *lz = &b->z[s];
        if (k >= lz->hlo && k < lz->hhi)
            SF_CPU_WITH_RADIUS(sf_cpu_memory_run, b, psi_z_base(lz, L) + ((k - lz->hlo) * L->ny + j) * L->nx,
                        b->levels.cur[0] + sf_field_index(L, 0, j, k), L->nx, L->sp, b->coef.first[2],
                        ax[2].a_half + shared->z0 + k, ax[2].b_half + shared->z0 + k, 0);
    }
}

static int has_cpml_x(const acoustic *b) { return b->x[0].hi > b->x[0].lo || b->x[1].hi > b->x[1].lo; }

SF_CPU_VECTOR_KERNEL(memory_row, (void *state, long j, long k), (state, j, k));

static void update_cpml_memory(void *state, long k0, long k1)
{
    const sf_cpu_shared *shared = ((acoustic *)state)->levels.shared;
    sf_cpu_each_row(&shared->L, k0, k1, memory_row_kernels[shared->vectors], state);
}

/* ---- the time step ------------------------------------------------------ */

enum { ROW_CHUNK = 128 };   /* floats of a row handled per pass (1 KB) */

/* The 3D Laplacian of radius R along one row, and the leapfrog update
 * p_next = 2 p - p_prev + v^2 dt^2 lap p written over p_prev. With SSE2
 * two passes over each chunk of the row (x and y terms, then z terms and
 * the update) keep the live address streams within its registers; the
 * wider sets do it in one (256^3, 2 threads: SSE2 1093 Mpoints/s in two
 * passes against 982 in one; AVX2 1167 against 1369, AVX-512 1183
 * against 1575). */
static inline void stencil_row(float *restrict next, const float *restrict cur,
                               const float *restrict vdt2, long n, long sx, long sp,
                               const acoustic *b, const int R)
{
    const float c0 = b->c0;
    float cx[SF_MAX_RADIUS + 1], cy[SF_MAX_RADIUS + 1], cz[SF_MAX_RADIUS + 1];
    for (int m = 1; m <= R; ++m)
        cx[m] = b->coef.second[0][m], cy[m] = b->coef.second[1][m], cz[m] = b->coef.second[2][m];
    if (b->levels.shared->vectors != SF_CPU_PORTABLE) {
        #pragma omp simd
        for (long i = 0; i < n; ++i) {
            const float *c = cur + i;
            float sum = c0 * c[0];
            for (int m = 1; m <= R; ++m)
                sum += cx[m] * (c[m] + c[-m]) + cy[m] * (c[m * sx] + c[-m * sx]);
            for (int m = 1; m <= R; ++m) sum += cz[m] * (c[m * sp] + c[-m * sp]);
            next[i] = 2.0f * c[0] - next[i] + vdt2[i] * sum;
        }
        return;
    }
    float partial[ROW_CHUNK];
    for (long i0 = 0; i0 < n; i0 += ROW_CHUNK) {
        const long len = n - i0 < ROW_CHUNK ? n - i0 : ROW_CHUNK;
        const float *c = cur + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float sum = c0 * c[i];
            for (int m = 1; m <= R; ++m)
                sum += cx[m] * (c[i + m] + c[i - m]) + cy[m] * (c[i + m * sx] + c[i - m * sx]);
            partial[i] = sum;
        }
        float *nx = next + i0;
        const float *v = vdt2 + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float lap = partial[i];
            for (int m = 1; m <= R; ++m) lap += cz[m] * (c[i + m * sp] + c[i - m * sp]);
            nx[i] = 2.0f * c[i] - nx[i] + v[i] * lap;
        }
    }
}

/* The Pasalic-McGarry term of an x layer over a run of n points of a row
 * (psi[0] is the half point just below the first point): with
 * t = d2p/dx2 + dpsi/dx, zeta <- b zeta + a t, and the new level gains
 * v^2 dt^2 (dpsi/dx + zeta). */
static inline void correct_x_run(float *restrict next, const float *restrict p,
                                 const float *restrict vel, const float *restrict psi,
                                 float *restrict zeta, long n, const acoustic *bk,
                                 const float *restrict a, const float *restrict b, const int R)
{
    /* Local copies: the compiler cannot keep loads through bk out of the loop. */
    const float c0 = bk->coef.second[0][0];
    float cx[SF_MAX_RADIUS + 1], fx[SF_MAX_RADIUS + 1];
    for (int m = 1; m <= R; ++m) cx[m] = bk->coef.second[0][m], fx[m] = bk->coef.first[0][m];
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        float d2 = c0 * p[i], dpsi = 0.0f;
        for (int m = 1; m <= R; ++m) {
            d2 += cx[m] * (p[i + m] + p[i - m]);
            dpsi += fx[m] * (psi[i + m - 1] - psi[i - m]);
        }
        float z = b[i] * zeta[i] + a[i] * (d2 + dpsi);
        zeta[i] = z;
        next[i] += vel[i] * (dpsi + z);
    }
}

/* A y or z absorbing-layer term of one row: psi at the half rows (or
 * half-planes) around it, psi[0] being the one just below the row and
 * psi_stride apart; the row's zeta; and a, b, constant along the row. */
typedef struct {
    const float *psi;
    long psi_stride;
    float *zeta;
    float a, b;
} row_term;

/* Adds one layer term of a chunk to corr: with t = d2p + dpsi,
 * zeta <- b zeta + a t, and the point gains dpsi + zeta. */
static inline void add_row_term(float *restrict corr, const float *restrict d2, const row_term *t,
                                long i0, long len, const float *f1, const int R)
{
    const float *restrict psi = t->psi + i0;
    float *restrict zeta = t->zeta + i0;
    const long st = t->psi_stride;
    const float a = t->a, b = t->b;
    #pragma omp simd
    for (long i = 0; i < len; ++i) {
        const float dpsi = sf_cpu_staggered_down(psi + i, st, f1, R);
        float z = b * zeta[i] + a * (d2[i] + dpsi);
        zeta[i] = z;
        corr[i] += dpsi + z;
    }
}

/* stencil_row for rows inside y or z layers: the second derivatives along
 * y and z are kept apart so the layer terms reuse them, and the row is
 * written once. */
static inline void stencil_row_layers(float *restrict next, const float *restrict cur,
                                      const float *restrict vdt2, long n, long sx, long sp,
                                      const acoustic *b, const row_term *ty, int nty,
                                      const row_term *tz, int ntz, const int R)
{
    float dxx[ROW_CHUNK], dyy[ROW_CHUNK], dzz[ROW_CHUNK], corr[ROW_CHUNK];
    for (long i0 = 0; i0 < n; i0 += ROW_CHUNK) {
        const long len = n - i0 < ROW_CHUNK ? n - i0 : ROW_CHUNK;
        const float *c = cur + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float sx2 = b->coef.second[0][0] * c[i], sy2 = b->coef.second[1][0] * c[i];
            for (int m = 1; m <= R; ++m) {
                sx2 += b->coef.second[0][m] * (c[i + m] + c[i - m]);
                sy2 += b->coef.second[1][m] * (c[i + m * sx] + c[i - m * sx]);
            }
            dxx[i] = sx2;
            dyy[i] = sy2;
        }
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float sz2 = b->coef.second[2][0] * c[i];
            for (int m = 1; m <= R; ++m) sz2 += b->coef.second[2][m] * (c[i + m * sp] + c[i - m * sp]);
            dzz[i] = sz2;
            corr[i] = 0.0f;
        }
        for (int t = 0; t < nty; ++t) add_row_term(corr, dyy, &ty[t], i0, len, b->coef.first[1], R);
        for (int t = 0; t < ntz; ++t) add_row_term(corr, dzz, &tz[t], i0, len, b->coef.first[2], R);
        float *out = next + i0;
        const float *v = vdt2 + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i)
            out[i] = 2.0f * c[i] - out[i] + v[i] * (dxx[i] + dyy[i] + dzz[i] + corr[i]);
    }
}

/* stencil_row_layers in one pass, for the wider vector sets (as
 * stencil_row) and a row with at most one y term (ty, has_y) and one z
 * term: the same sums in the same order, so that every set gives the
 * same gathers. */
static inline void stencil_row_layers_fused(float *restrict next, const float *restrict cur,
                                            const float *restrict vdt2, long n, long sx, long sp,
                                            const acoustic *b, const row_term *ty, const int has_y,
                                            const row_term *tz, const int has_z, const int R)
{
    const float(*s)[SF_MAX_RADIUS + 1] = b->coef.second;
    const float c0x = s[0][0], c0y = s[1][0], c0z = s[2][0];
    float cx[SF_MAX_RADIUS + 1], cy[SF_MAX_RADIUS + 1], cz[SF_MAX_RADIUS + 1];
    float fy[SF_MAX_RADIUS + 1], fz[SF_MAX_RADIUS + 1];
    for (int m = 1; m <= R; ++m) {
        cx[m] = s[0][m], cy[m] = s[1][m], cz[m] = s[2][m];
        fy[m] = b->coef.first[1][m], fz[m] = b->coef.first[2][m];
    }
    const float *py = has_y ? ty->psi : NULL, *pz = has_z ? tz->psi : NULL;
    float *restrict zy = has_y ? ty->zeta : NULL, *restrict zz = has_z ? tz->zeta : NULL;
    const long sty = has_y ? ty->psi_stride : 0, stz = has_z ? tz->psi_stride : 0;
    const float ay = has_y ? ty->a : 0.0f, by = has_y ? ty->b : 0.0f;
    const float az = has_z ? tz->a : 0.0f, bz = has_z ? tz->b : 0.0f;
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        const float *c = cur + i;
        float sx2 = c0x * c[0], sy2 = c0y * c[0], sz2 = c0z * c[0], corr = 0.0f;
        for (int m = 1; m <= R; ++m) {
            sx2 += cx[m] * (c[m] + c[-m]);
            sy2 += cy[m] * (c[m * sx] + c[-m * sx]);
        }
        for (int m = 1; m <= R; ++m) sz2 += cz[m] * (c[m * sp] + c[-m * sp]);
        if (has_y) {
            const float dpsi = sf_cpu_staggered_down(py + i, sty, fy, R);
            const float z = by * zy[i] + ay * (sy2 + dpsi);
            zy[i] = z;
            corr += dpsi + z;
        }
        if (has_z) {
            const float dpsi = sf_cpu_staggered_down(pz + i, stz, fz, R);
            const float z = bz * zz[i] + az * (sz2 + dpsi);
            zz[i] = z;
            corr += dpsi + z;
        }
        next[i] = 2.0f * c[0] - next[i] + vdt2[i] * (sx2 + sy2 + sz2 + corr);
    }
}

/* The y and z layer terms that apply to row (j, k); returns how many of each. */
static void row_terms(acoustic *b, long j, long k, row_term ty[2], int *nty, row_term tz[2],
                      int *ntz)
{
    const sf_cpu_shared *shared = b->levels.shared;
    const sf_layout *L = &shared->L;
    *nty = *ntz = 0;
    for (int s = 0; s < 2; ++s) {
        const layer_xy *ly = &b->y[s];
        if (j >= ly->lo && j < ly->hi)
            ty[(*nty)++] = (row_term){psi_y_plane(ly, L, k) + (j - ly->hlo) * L->nx, L->nx,
                                      ly->zeta + (k * (ly->hi - ly->lo) + (j - ly->lo)) * L->nx,
                                      shared->cpml[1].a[j], shared->cpml[1].b[j]};
        const layer_z *lz = &b->z[s];
        if (k >= lz->plo && k < lz->phi)
            tz[(*ntz)++] = (row_term){psi_z_base(lz, L) + ((k - lz->hlo) * L->ny + j) * L->nx,
                                      L->nx * L->ny,
                                      lz->zeta + ((k - lz->plo) * L->ny + j) * L->nx,
                                      shared->cpml[2].a[shared->z0 + k], shared->cpml[2].b[shared->z0 + k]};
    }
    /* zeta is read and written once a step: its rows a few on (cpu_common.h). */
    for (int t = 0; t < *nty; ++t) sf_cpu_prefetch_run(ty[t].zeta + SF_CPU_PREFETCH_ROWS * L->nx, L->nx);
    for (int t = 0; t < *ntz; ++t) sf_cpu_prefetch_run(tz[t].zeta + SF_CPU_PREFETCH_ROWS * L->nx, L->nx);
}

/* The x absorbing-layer terms of row (j, k), added to the new time level:
 * short runs at both ends of the row, their memory variables updated
 * first (they depend on this row of p alone). */
static void correct_row_x(acoustic *b, long j, long k)
{
    const sf_layout *L = &b->levels.shared->L;
    const sf_cpu_cpml_coefficients *ax = &b->levels.shared->cpml[0];
    const size_t f = sf_field_index(L, 0, j, k), v = sf_plane_index(L, 0, j, k);
    for (int s = 0; s < 2; ++s) {
        const layer_xy *lx = &b->x[s];
        if (lx->hhi > lx->hlo)
            SF_CPU_WITH_RADIUS(sf_cpu_memory_run, b, psi_x_row(lx, L, j, k), b->levels.cur[0] + f + lx->hlo,
                        lx->hhi - lx->hlo, 1, b->coef.first[0], ax->a_half + lx->hlo, ax->b_half + lx->hlo,
                        1);
        long wp = lx->hi - lx->lo;
        if (wp > 0)
            SF_CPU_WITH_RADIUS(correct_x_run, b, b->levels.prev[0] + f + lx->lo, b->levels.cur[0] + f + lx->lo,
                        b->vdt2 + v + lx->lo, psi_x_row(lx, L, j, k) + (lx->lo - lx->hlo),
                        lx->zeta + (k * L->ny + j) * wp, wp, b, ax->a + lx->lo, ax->b + lx->lo);
    }
}

static void advance_row(acoustic *b, long j, long k, const int R)
{
    const sf_layout *L = &b->levels.shared->L;
    size_t f = sf_field_index(L, 0, j, k);
    float *next = b->levels.prev[0] + f;
    const float *cur = b->levels.cur[0] + f, *vel = b->vdt2 + sf_plane_index(L, 0, j, k);
    row_term ty[2], tz[2];
    int nty, ntz;
    row_terms(b, j, k, ty, &nty, tz, &ntz);
    const int fused = b->levels.shared->vectors != SF_CPU_PORTABLE && nty <= 1 && ntz <= 1;
    if (fused && nty && ntz)
        stencil_row_layers_fused(next, cur, vel, L->nx, L->sx, L->sp, b, ty, 1, tz, 1, R);
    else if (fused && nty)
        stencil_row_layers_fused(next, cur, vel, L->nx, L->sx, L->sp, b, ty, 1, NULL, 0, R);
    else if (fused && ntz)
        stencil_row_layers_fused(next, cur, vel, L->nx, L->sx, L->sp, b, NULL, 0, tz, 1, R);
    else if (nty + ntz > 0)
        stencil_row_layers(next, cur, vel, L->nx, L->sx, L->sp, b, ty, nty, tz, ntz, R);
    else
        stencil_row(next, cur, vel, L->nx, L->sx, L->sp, b, R);
}

/* The rows [j0, j1) of plane k of the level the update will overwrite,
 * into this thread's rows of b->before. */
static float *save_rows(acoustic *b, long j0, long j1, long k)
{
    const sf_layout *L = &b->levels.shared->L;
    float *rows = b->before + (size_t)omp_get_thread_num() * (size_t)b->rows_per_block * (size_t)L->nx;
    for (long j = j0; j < j1; ++j)
        memcpy(rows + (j - j0) * L->nx, b->levels.prev[0] + sf_field_index(L, 0, j, k),
               (size_t)L->nx * sizeof(float));
    return rows;
}

static inline void advance_block_plane(acoustic *b, long j0, long j1, long k)
{
    const sf_cpu_shared *shared = b->levels.shared;
    float *before = b->law ? save_rows(b, j0, j1, k) : NULL;
    for (long j = j0; j < j1; ++j) {
        switch (b->radius) {
        case 1: advance_row(b, j, k, 1); break;
        case 2: advance_row(b, j, k, 2); break;
        default: advance_row(b, j, k, 4); break;
        }
    }
    /* The x corrections follow the block's rows rather than each row: the
     * rows are still in cache, and the short x runs no longer interleave
     * with the row kernels (measured about 2% faster on 256^3). */
    if (has_cpml_x(b))
        for (long j = j0; j < j1; ++j) correct_row_x(b, j, k);
    if (b->law) {
        const size_t f = sf_field_index(&shared->L, 0, j0, k);
        b->law->finish_rows(b->law->state, &shared->L, j0, j1, k, b->levels.prev[0] + f, b->levels.cur[0] + f,
                            before);
    }
}

SF_CPU_VECTOR_KERNEL(advance_block_plane, (acoustic *b, long j0, long j1, long k), (b, j0, j1, k));

/* Blocks of rows streamed through the planes; the radius is dispatched
 * per row so each inlined row kernel sees a constant radius. */
static void stencil_planes(acoustic *b, long k0, long k1)
{
    const long ny = b->levels.shared->L.ny, block = b->rows_per_block;
    const long blocks = (ny + block - 1) / block;
    #pragma omp parallel for schedule(dynamic, 1)
    for (long n = 0; n < blocks; ++n) {
        const long j0 = sf_cpu_block_start(n, blocks, block);
        for (long k = k0; k < k1; ++k)
            advance_block_plane_kernels[b->levels.shared->vectors](b, j0, sf_cpu_min(j0 + block, ny), k);
    }
}

static void advance(void *state, long k0, long k1)
{
    acoustic *b = state;
    stencil_planes(b, k0, k1);
    if (b->levels.shared->free_surface_here && k0 == 0) {
        const sf_layout *L = &b->levels.shared->L;
        for (long j = 0; j < L->ny; ++j)
            memset(b->levels.prev[0] + sf_field_index(L, 0, j, 0), 0, (size_t)L->nx * sizeof(float));
    }
}

/* The pressure source enters the new level scaled like the Laplacian. */
int sf_cpu_acoustic_source_point(const void *state, const sf_field_weight *w, float *coefficient)
{
    const acoustic *b = state;
    *coefficient = w->weight * b->vdt2[sf_plane_index(&b->levels.shared->L, w->i, w->j, w->k)];
    return 1;
}

SF_CPU_ACOUSTIC_BACKEND(sf_backend_cpu_acoustic, "acoustic", acoustic_create)
