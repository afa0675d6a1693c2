/* CPU backend: OpenMP threads over cache-sized blocks of rows, each block
 * streamed through its z range so the (2R+1) planes the stencil touches
 * stay in cache. */
#include "sf_acoustic.h"
#include "sf_backend.h"
#include "cpu_common.h"
#include "sf_error.h"
#include "sf_nonfinite.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_ALIGN = 16, CACHE_TARGET_BYTES = 160 * 1024 };

/* psi arrays carry PSI_PAD zero half points before and after the layer
 * along their axis, so derivatives of psi need no bounds tests: points up
 * to R inside the interior read psi up to 2R - 1 half points past it. */
enum { PSI_PAD = 2 * SF_MAX_RADIUS };

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

struct sf_backend {
    sf_layout L;
    long z0;
    int radius;
    float *p_prev, *p_cur, *vdt2;
    float c0, c0x, c0y, c0z;
    float cx[SF_MAX_RADIUS + 1], cy[SF_MAX_RADIUS + 1], cz[SF_MAX_RADIUS + 1];
    float fx[SF_MAX_RADIUS + 1], fy[SF_MAX_RADIUS + 1], fz[SF_MAX_RADIUS + 1];
    int free_surface_here;
    long rows_per_block;

    sf_cpu_cpml_coefficients axis[3];
    layer_xy x[2], y[2];
    layer_z z[2];

    long source_count;
    size_t *source_index;
    long *source_plane;      /* local plane of each source point */
    float *source_coef;

    sf_cpu_channels channels;

    size_t halo_count[SF_ACOUSTIC_STAGES];
    float *send[SF_ACOUSTIC_STAGES][2], *recv[SF_ACOUSTIC_STAGES][2];
    size_t source_bytes;              /* of the source tables */
    sf_cpu_arena arena;
};

static long max_long(long a, long b) { return a > b ? a : b; }
static long min_long(long a, long b) { return a < b ? a : b; }

static void setup_coefficients(sf_backend *b, const sf_problem *p)
{
    const sf_stencil *s = &p->stencil;
    b->radius = s->radius;
    float *second[3] = {b->cx, b->cy, b->cz}, *first[3] = {b->fx, b->fy, b->fz};
    float *center[3] = {&b->c0x, &b->c0y, &b->c0z};
    for (int a = 0; a < 3; ++a) {
        double h2 = p->h[a] * p->h[a];
        *center[a] = (float)(s->second[0] / h2);
        for (int m = 0; m <= SF_MAX_RADIUS; ++m) {
            second[a][m] = (float)(s->second[m] / h2);
            first[a][m] = (float)(s->first[m] / p->h[a]);
        }
    }
    b->c0 = (float)(s->second[0] * (1.0 / (p->h[0] * p->h[0]) + 1.0 / (p->h[1] * p->h[1]) +
                                    1.0 / (p->h[2] * p->h[2])));
}

static void setup_model(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->L;
    b->vdt2 = sf_cpu_take(&b->arena, L->plane_size, sizeof(float), "the velocity term v^2 dt^2");
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                double v = p->vp[(k * L->ny + j) * L->nx + i];
                b->vdt2[sf_plane_index(L, i, j, k)] = (float)(v * v * p->dt * p->dt);
            }
}

static void setup_cpml(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->L;
    sf_cpu_cpml_copy(b->axis, &b->arena, p->cpml);
    size_t plane = (size_t)(L->nx * L->ny);
    for (int s = 0; s < 2; ++s) {
        sf_cpml_span sx = sf_cpml_layer_span(&p->cpml[0], s, b->radius);
        sf_cpml_span sy = sf_cpml_layer_span(&p->cpml[1], s, b->radius);
        sf_cpml_span sz = sf_cpml_layer_span(&p->cpml[2], s, b->radius);
        layer_xy *lx = &b->x[s], *ly = &b->y[s];
        *lx = (layer_xy){sx.flo, sx.fhi, sx.hlo, sx.hhi, sx.hhi - sx.hlo + 2 * PSI_PAD, NULL, NULL};
        if (sx.fhi > sx.flo) {
            lx->psi = sf_cpu_take_state(&b->arena, (size_t)(L->nz * L->ny * lx->psi_width), "CPML x");
            lx->zeta = sf_cpu_take_state(&b->arena, (size_t)(L->nz * L->ny * (sx.fhi - sx.flo)), "CPML x");
        }
        *ly = (layer_xy){sy.flo, sy.fhi, sy.hlo, sy.hhi, sy.hhi - sy.hlo + 2 * PSI_PAD, NULL, NULL};
        if (sy.fhi > sy.flo) {
            ly->psi = sf_cpu_take_state(&b->arena, (size_t)(L->nz * L->nx * ly->psi_width), "CPML y");
            ly->zeta = sf_cpu_take_state(&b->arena, (size_t)(L->nz * L->nx * (sy.fhi - sy.flo)), "CPML y");
        }
        layer_z *lz = &b->z[s];
        lz->plo = max_long(sz.flo - b->z0, 0);
        lz->phi = max_long(lz->plo, min_long(sz.fhi - b->z0, L->nz));
        lz->hlo = max_long(sz.hlo - b->z0, -SF_HALO);
        lz->hhi = max_long(lz->hlo, min_long(sz.hhi - b->z0, L->nz + SF_HALO));
        if (lz->hhi > lz->hlo) {
            lz->psi = sf_cpu_take_state(&b->arena, plane * (size_t)(lz->hhi - lz->hlo + 2 * PSI_PAD), "CPML z");
            lz->zeta = sf_cpu_take_state(&b->arena, plane * (size_t)(lz->phi - lz->plo), "CPML z");
        }
    }
}

static void setup_acquisition(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->L;
    size_t before = b->arena.bytes;
    b->source_count = p->source_count;
    b->source_index = sf_cpu_take(&b->arena, (size_t)p->source_count, sizeof(size_t), "source points");
    b->source_plane = sf_cpu_take(&b->arena, (size_t)p->source_count, sizeof(long), "source points");
    b->source_coef = sf_cpu_take(&b->arena, (size_t)p->source_count, sizeof(float), "source points");
    for (long n = 0; n < p->source_count; ++n) {
        const sf_field_weight *w = &p->source[n];
        b->source_index[n] = sf_field_index(L, w->i, w->j, w->k);
        b->source_plane[n] = w->k;
        b->source_coef[n] = w->weight * b->vdt2[sf_plane_index(L, w->i, w->j, w->k)];
    }
    b->source_bytes = b->arena.bytes - before;
    sf_cpu_channels_setup(&b->channels, &b->arena, L, p);
}

static void free_acquisition(sf_backend *b)
{
    free(b->source_index), free(b->source_plane), free(b->source_coef);
    b->arena.bytes -= b->source_bytes;
    b->source_bytes = 0;
    sf_cpu_channels_free(&b->channels, &b->arena);
}

static void setup_halos(sf_backend *b)
{
    size_t count = (size_t)(SF_HALO * b->L.nx * b->L.ny);
    for (int g = 0; g < SF_ACOUSTIC_STAGES; ++g) {
        b->halo_count[g] = count;
        for (int s = 0; s < 2; ++s) {
            b->send[g][s] = sf_cpu_take(&b->arena, count, sizeof(float), "halo buffers");
            b->recv[g][s] = sf_cpu_take(&b->arena, count, sizeof(float), "halo buffers");
        }
    }
}

static sf_backend *cpu_create(const sf_problem *p)
{
    sf_backend *b = sf_calloc(1, sizeof *b, "the CPU backend");
    sf_layout_init(&b->L, p->nx, p->ny, p->nz, ROW_ALIGN);
    b->z0 = p->z0;
    b->free_surface_here = p->free_surface && p->z0 == 0;
    setup_coefficients(b, p);
    b->p_prev = sf_cpu_take_state(&b->arena, b->L.field_size, "the wavefield");
    b->p_cur = sf_cpu_take_state(&b->arena, b->L.field_size, "the wavefield");
    setup_model(b, p);
    setup_cpml(b, p);
    setup_acquisition(b, p);
    setup_halos(b);
    long row_bytes = b->L.sx * (long)sizeof(float) * (2 * b->radius + 1);
    b->rows_per_block = max_long(4, min_long(b->L.ny, CACHE_TARGET_BYTES / row_bytes));
    return b;
}

static void cpu_destroy(sf_backend *b)
{
    if (!b) return;
    free(b->p_prev);
    free(b->p_cur);
    free(b->vdt2);
    sf_cpu_cpml_free(b->axis);
    for (int s = 0; s < 2; ++s) {
        free(b->x[s].psi), free(b->x[s].zeta);
        free(b->y[s].psi), free(b->y[s].zeta);
        free(b->z[s].psi), free(b->z[s].zeta);
    }
    free_acquisition(b);
    for (int g = 0; g < SF_ACOUSTIC_STAGES; ++g)
        for (int s = 0; s < 2; ++s) free(b->send[g][s]), free(b->recv[g][s]);
    free(b);
}

/* ---- shots --------------------------------------------------------------- */

static void cpu_reset(sf_backend *b, const sf_problem *p)
{
    sf_cpu_zero_state(&b->arena);
    sf_cpu_cpml_reload(b->axis, p->cpml);
    free_acquisition(b);
    setup_acquisition(b, p);
}

/* Only the current level needs a look: a non-finite value anywhere else
 * (the previous level, the CPML memory) reaches it within a step. */
static int cpu_find_nonfinite(sf_backend *b, sf_nonfinite *where)
{
    const long first = sf_first_nonfinite(&b->L, b->p_cur);
    if (first < 0) return 0;
    *where = sf_nonfinite_at(0, first, b->L.nx, b->L.ny);
    return 1;
}

static void cpu_amplify(sf_backend *b, float factor) { sf_cpu_amplify_state(&b->arena, factor); }

static int cpu_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS])
{
    const float *field = b->p_cur;
    return sf_cpu_field_norms(&b->L, r, &field, 1, sums);
}

static size_t cpu_memory_bytes(const sf_backend *b) { return b->arena.bytes; }

/* ---- halo planes ------------------------------------------------------ */

static size_t cpu_halo_count(const sf_backend *b, int g) { return b->halo_count[g]; }
static float *cpu_send(sf_backend *b, int g, sf_side s) { return b->send[g][s]; }
static float *cpu_recv(sf_backend *b, int g, sf_side s) { return b->recv[g][s]; }

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
static float *psi_z_plane(sf_backend *b, long k)
{
    for (int s = 0; s < 2; ++s)
        if (k >= b->z[s].hlo && k < b->z[s].hhi)
            return psi_z_base(&b->z[s], &b->L) + (size_t)(k - b->z[s].hlo) * (size_t)(b->L.nx * b->L.ny);
    return NULL;
}

static void copy_planes_out(const sf_backend *b, const float *field, long k0, float *dst)
{
    const sf_layout *L = &b->L;
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < SF_HALO; ++k)
        for (long j = 0; j < L->ny; ++j)
            memcpy(dst + (k * L->ny + j) * L->nx, field + sf_field_index(L, 0, j, k0 + k),
                   (size_t)L->nx * sizeof(float));
}

static void copy_planes_in(sf_backend *b, float *field, long k0, const float *src)
{
    const sf_layout *L = &b->L;
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < SF_HALO; ++k)
        for (long j = 0; j < L->ny; ++j)
            memcpy(field + sf_field_index(L, 0, j, k0 + k), src + (k * L->ny + j) * L->nx,
                   (size_t)L->nx * sizeof(float));
}

static void pack_planes(sf_backend *b, int g, sf_side s)
{
    long k0 = s == SF_SIDE_LOWER ? 0 : b->L.nz - SF_HALO;
    float *dst = b->send[g][s];
    if (g == SF_HALO_WAVEFIELD) {
        copy_planes_out(b, b->p_prev, k0, dst);
        return;
    }
    size_t plane = (size_t)(b->L.nx * b->L.ny);
    for (long k = 0; k < SF_HALO; ++k) {
        const float *src = psi_z_plane(b, k0 + k);
        if (src)
            memcpy(dst + k * plane, src, plane * sizeof(float));
        else
            memset(dst + k * plane, 0, plane * sizeof(float));
    }
}

static void unpack_planes(sf_backend *b, int g, sf_side s)
{
    long k0 = s == SF_SIDE_LOWER ? -SF_HALO : b->L.nz;
    const float *src = b->recv[g][s];
    if (g == SF_HALO_WAVEFIELD) {
        copy_planes_in(b, b->p_prev, k0, src);
        return;
    }
    size_t plane = (size_t)(b->L.nx * b->L.ny);
    for (long k = 0; k < SF_HALO; ++k) {
        float *dst = psi_z_plane(b, k0 + k);
        if (dst) memcpy(dst, src + k * plane, plane * sizeof(float));
    }
}

static void cpu_halo_pack(sf_backend *b, int g, sf_side s)
{
    double t = MPI_Wtime();
    pack_planes(b, g, s);
    sf_cpu_phase_done(&b->arena, SF_PHASE_HALO_PACK, t);
}

static void cpu_halo_wait_packed(sf_backend *b) { (void)b; }

static void cpu_halo_unpack(sf_backend *b, int g, sf_side s)
{
    double t = MPI_Wtime();
    unpack_planes(b, g, s);
    sf_cpu_phase_done(&b->arena, SF_PHASE_HALO_UNPACK, t);
}

static void cpu_mirror_free_surface(sf_backend *b)
{
    if (!b->free_surface_here) return;
    const long sp = b->L.sp;
    for (long m = 1; m <= SF_HALO; ++m) {
        const float *src = b->p_cur + (m + SF_HALO) * sp;
        float *dst = b->p_cur + (SF_HALO - m) * sp;
        for (long n = 0; n < sp; ++n) dst[n] = -src[n];
    }
}

/* ---- CPML memory variables --------------------------------------------- */

/* psi <- b psi + a * d/dn p at the half points between rows of p that are
 * `stride` apart, over a contiguous run of n points; a, b advance by ab_step. */
static inline void memory_run(float *restrict psi, const float *restrict p, long n, long stride,
                              const float *f, const float *a, const float *b, long ab_step,
                              const int R)
{
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        float d = 0.0f;
        for (int m = 1; m <= R; ++m) d += f[m] * (p[i + m * stride] - p[i - (m - 1) * stride]);
        psi[i] = b[i * ab_step] * psi[i] + a[i * ab_step] * d;
    }
}

/* Calls a run kernel with a constant radius for the common order 8. */
#define WITH_RADIUS(kernel, b_, ...)                                           \
    do {                                                                      \
        if ((b_)->radius == 4) kernel(__VA_ARGS__, 4);                        \
        else kernel(__VA_ARGS__, (b_)->radius);                               \
    } while (0)

/* The y and z CPML memory variables of row (j, k): the whole row where j
 * is a y-layer half row, or k a z-layer half-plane. (The x ones belong to
 * the row alone and are updated with its x correction, while it is in
 * cache.) */
static void memory_row(sf_backend *b, long j, long k)
{
    const sf_layout *L = &b->L;
    const sf_cpu_cpml_coefficients *ax = b->axis;
    for (int s = 0; s < 2; ++s) {
        const layer_xy *ly = &b->y[s];
        if (j >= ly->hlo && j < ly->hhi)
            WITH_RADIUS(memory_run, b, psi_y_plane(ly, L, k) + (j - ly->hlo) * L->nx,
                        b->p_cur + sf_field_index(L, 0, j, k), L->nx, L->sx, b->fy,
                        ax[1].a_half + j, ax[1].b_half + j, 0);
        const layer_z *lz = &b->z[s];
        if (k >= lz->hlo && k < lz->hhi)
            WITH_RADIUS(memory_run, b, psi_z_base(lz, L) + ((k - lz->hlo) * L->ny + j) * L->nx,
                        b->p_cur + sf_field_index(L, 0, j, k), L->nx, L->sp, b->fz,
                        ax[2].a_half + b->z0 + k, ax[2].b_half + b->z0 + k, 0);
    }
}

static int has_cpml_x(const sf_backend *b) { return b->x[0].hi > b->x[0].lo || b->x[1].hi > b->x[1].lo; }

/* Does row (j, k) hold y or z memory variables (half points of a layer)? */
static int row_has_memory(const sf_backend *b, long j, long k)
{
    for (int s = 0; s < 2; ++s)
        if ((j >= b->y[s].hlo && j < b->y[s].hhi) || (k >= b->z[s].hlo && k < b->z[s].hhi))
            return 1;
    return 0;
}

static void cpu_update_cpml_memory(sf_backend *b, long k0, long k1)
{
    const sf_layout *L = &b->L;
    double t = MPI_Wtime();
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = k0; k < k1; ++k)
        for (long j = 0; j < L->ny; ++j)
            if (row_has_memory(b, j, k)) memory_row(b, j, k);
    sf_cpu_phase_done(&b->arena, SF_PHASE_STENCIL, t);
}

/* ---- the time step ------------------------------------------------------ */

enum { ROW_CHUNK = 128 };   /* floats of a row handled per pass (1 KB) */

/* The 3D Laplacian of radius R along one row, and the leapfrog update
 * p_next = 2 p - p_prev + v^2 dt^2 lap p written over p_prev. Two passes
 * over each chunk of the row (x and y terms, then z terms and the update)
 * keep the number of live address streams within the registers. */
static inline void stencil_row(float *restrict next, const float *restrict cur,
                               const float *restrict vdt2, long n, long sx, long sp,
                               const sf_backend *b, const int R)
{
    const float c0 = b->c0;
    float cx[SF_MAX_RADIUS + 1], cy[SF_MAX_RADIUS + 1], cz[SF_MAX_RADIUS + 1];
    for (int m = 1; m <= R; ++m) cx[m] = b->cx[m], cy[m] = b->cy[m], cz[m] = b->cz[m];
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
                                 float *restrict zeta, long n, const sf_backend *bk,
                                 const float *restrict a, const float *restrict b, const int R)
{
    /* Local copies: the compiler cannot keep loads through bk out of the loop. */
    const float c0 = bk->c0x;
    float cx[SF_MAX_RADIUS + 1], fx[SF_MAX_RADIUS + 1];
    for (int m = 1; m <= R; ++m) cx[m] = bk->cx[m], fx[m] = bk->fx[m];
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
        float dpsi = 0.0f;
        for (int m = 1; m <= R; ++m) dpsi += f1[m] * (psi[i + (m - 1) * st] - psi[i - m * st]);
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
                                      const sf_backend *b, const row_term *ty, int nty,
                                      const row_term *tz, int ntz, const int R)
{
    float dxx[ROW_CHUNK], dyy[ROW_CHUNK], dzz[ROW_CHUNK], corr[ROW_CHUNK];
    for (long i0 = 0; i0 < n; i0 += ROW_CHUNK) {
        const long len = n - i0 < ROW_CHUNK ? n - i0 : ROW_CHUNK;
        const float *c = cur + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float sx2 = b->c0x * c[i], sy2 = b->c0y * c[i];
            for (int m = 1; m <= R; ++m) {
                sx2 += b->cx[m] * (c[i + m] + c[i - m]);
                sy2 += b->cy[m] * (c[i + m * sx] + c[i - m * sx]);
            }
            dxx[i] = sx2;
            dyy[i] = sy2;
        }
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            float sz2 = b->c0z * c[i];
            for (int m = 1; m <= R; ++m) sz2 += b->cz[m] * (c[i + m * sp] + c[i - m * sp]);
            dzz[i] = sz2;
            corr[i] = 0.0f;
        }
        for (int t = 0; t < nty; ++t) add_row_term(corr, dyy, &ty[t], i0, len, b->fy, R);
        for (int t = 0; t < ntz; ++t) add_row_term(corr, dzz, &tz[t], i0, len, b->fz, R);
        float *out = next + i0;
        const float *v = vdt2 + i0;
        #pragma omp simd
        for (long i = 0; i < len; ++i)
            out[i] = 2.0f * c[i] - out[i] + v[i] * (dxx[i] + dyy[i] + dzz[i] + corr[i]);
    }
}

/* The y and z layer terms that apply to row (j, k); returns how many of each. */
static void row_terms(sf_backend *b, long j, long k, row_term ty[2], int *nty, row_term tz[2],
                      int *ntz)
{
    const sf_layout *L = &b->L;
    *nty = *ntz = 0;
    for (int s = 0; s < 2; ++s) {
        const layer_xy *ly = &b->y[s];
        if (j >= ly->lo && j < ly->hi)
            ty[(*nty)++] = (row_term){psi_y_plane(ly, L, k) + (j - ly->hlo) * L->nx, L->nx,
                                      ly->zeta + (k * (ly->hi - ly->lo) + (j - ly->lo)) * L->nx,
                                      b->axis[1].a[j], b->axis[1].b[j]};
        const layer_z *lz = &b->z[s];
        if (k >= lz->plo && k < lz->phi)
            tz[(*ntz)++] = (row_term){psi_z_base(lz, L) + ((k - lz->hlo) * L->ny + j) * L->nx,
                                      L->nx * L->ny,
                                      lz->zeta + ((k - lz->plo) * L->ny + j) * L->nx,
                                      b->axis[2].a[b->z0 + k], b->axis[2].b[b->z0 + k]};
    }
}

/* The x absorbing-layer terms of row (j, k), added to the new time level:
 * short runs at both ends of the row, their memory variables updated
 * first (they depend on this row of p alone). */
static void correct_row_x(sf_backend *b, long j, long k)
{
    const sf_layout *L = &b->L;
    const sf_cpu_cpml_coefficients *ax = &b->axis[0];
    const size_t f = sf_field_index(L, 0, j, k), v = sf_plane_index(L, 0, j, k);
    for (int s = 0; s < 2; ++s) {
        const layer_xy *lx = &b->x[s];
        if (lx->hhi > lx->hlo)
            WITH_RADIUS(memory_run, b, psi_x_row(lx, L, j, k), b->p_cur + f + lx->hlo,
                        lx->hhi - lx->hlo, 1, b->fx, ax->a_half + lx->hlo, ax->b_half + lx->hlo,
                        1);
        long wp = lx->hi - lx->lo;
        if (wp > 0)
            WITH_RADIUS(correct_x_run, b, b->p_prev + f + lx->lo, b->p_cur + f + lx->lo,
                        b->vdt2 + v + lx->lo, psi_x_row(lx, L, j, k) + (lx->lo - lx->hlo),
                        lx->zeta + (k * L->ny + j) * wp, wp, b, ax->a + lx->lo, ax->b + lx->lo);
    }
}

static void advance_row(sf_backend *b, long j, long k, const int R)
{
    const sf_layout *L = &b->L;
    size_t f = sf_field_index(L, 0, j, k);
    float *next = b->p_prev + f;
    const float *cur = b->p_cur + f, *vel = b->vdt2 + sf_plane_index(L, 0, j, k);
    row_term ty[2], tz[2];
    int nty, ntz;
    row_terms(b, j, k, ty, &nty, tz, &ntz);
    if (nty + ntz > 0)
        stencil_row_layers(next, cur, vel, L->nx, L->sx, L->sp, b, ty, nty, tz, ntz, R);
    else
        stencil_row(next, cur, vel, L->nx, L->sx, L->sp, b, R);
}

static void advance_block_plane(sf_backend *b, long j0, long j1, long k)
{
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
}

/* Blocks of rows streamed through the planes; the radius is dispatched
 * per row so each inlined row kernel sees a constant radius. */
static void stencil_planes(sf_backend *b, long k0, long k1)
{
    const long ny = b->L.ny, block = b->rows_per_block;
    #pragma omp parallel for schedule(dynamic, 1)
    for (long j0 = 0; j0 < ny; j0 += block)
        for (long k = k0; k < k1; ++k) advance_block_plane(b, j0, min_long(j0 + block, ny), k);
}

static void cpu_advance(sf_backend *b, long k0, long k1)
{
    if (k1 <= k0) return;
    double t = MPI_Wtime();
    stencil_planes(b, k0, k1);
    if (b->free_surface_here && k0 == 0) {
        const sf_layout *L = &b->L;
        for (long j = 0; j < L->ny; ++j)
            memset(b->p_prev + sf_field_index(L, 0, j, 0), 0, (size_t)L->nx * sizeof(float));
    }
    sf_cpu_phase_done(&b->arena, SF_PHASE_STENCIL, t);
}

static void cpu_inject_pressure(sf_backend *b, float amplitude, long k0, long k1)
{
    double t = MPI_Wtime();
    for (long n = 0; n < b->source_count; ++n)
        if (b->source_plane[n] >= k0 && b->source_plane[n] < k1)
            b->p_prev[b->source_index[n]] += b->source_coef[n] * amplitude;
    sf_cpu_phase_done(&b->arena, SF_PHASE_ACQUISITION, t);
}

static void cpu_update(sf_backend *b, int stage, long k0, long k1)
{
    if (stage == SF_ACOUSTIC_MEMORY)
        cpu_update_cpml_memory(b, k0, k1);
    else
        cpu_advance(b, k0, k1);
}

static void cpu_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1)
{
    if (stage == SF_ACOUSTIC_ADVANCE) cpu_inject_pressure(b, amplitude, k0, k1);
}

/* The new level becomes the current one, with its images above a free
 * surface (the next step's memory update reads them). */
static void cpu_finish_stage(sf_backend *b, int stage)
{
    if (stage != SF_ACOUSTIC_ADVANCE) return;
    float *t = b->p_prev;
    b->p_prev = b->p_cur;
    b->p_cur = t;
    cpu_mirror_free_surface(b);
}

static void cpu_sample_receivers(sf_backend *b, int slot)
{
    double t = MPI_Wtime();
    sf_cpu_channels_sample(&b->channels, b->p_cur, slot);
    sf_cpu_phase_done(&b->arena, SF_PHASE_ACQUISITION, t);
}

static void cpu_fetch_receivers(sf_backend *b, int count, float *out)
{
    sf_cpu_channels_fetch(&b->channels, count, out);
}

static void cpu_fetch_field(sf_backend *b, sf_component c, const sf_sampling_lattice *s,
                            float *out)
{
    (void)c;   /* the pressure is the only one */
    const sf_layout *L = &b->L;
    size_t n = 0;
    for (long k = s->k0; k < L->nz; k += s->dk)
        for (long j = 0; j < L->ny; j += s->dj)
            for (long i = 0; i < L->nx; i += s->di) out[n++] = b->p_cur[sf_field_index(L, i, j, k)];
}

static void cpu_synchronize(sf_backend *b) { (void)b; }

static void cpu_take_timers(sf_backend *b, double *seconds) { sf_cpu_take_timers(&b->arena, seconds); }

const sf_backend_ops *sf_backend_cpu_acoustic(void)
{
    static const sf_backend_ops ops = SF_BACKEND_OPS("cpu", cpu, NULL);
    return &ops;
}
