/* The elastic kernels of the CPU backend (cpu_physics.h): OpenMP threads
 * over blocks of rows,
 * each block streamed through its z range. A row is processed in chunks:
 * the staggered derivatives a field needs go to small buffers, the CPML
 * memory variables correct those inside absorbing layers, and the field
 * is updated once. */
#include "cpu_backend.h"
#include "elastic_kernels.h"
#include "sf_elastic_backend.h"
#include "sf_elastic_medium.h"
#include "sf_error.h"
#include "sf_layout.h"

#include <stdlib.h>
#include <string.h>

enum { ROW_CHUNK = SF_CPU_ELASTIC_CHUNK };

/* Arrays whose planes (or whose starts) lie a multiple of 4 KiB apart map
 * the points a stencil reads together onto the same L1 sets: a z
 * derivative reads 8 planes of a field, and a point's update touches up
 * to 17 arrays. Planes are therefore padded by a cache line, and the
 * arrays of one kind start a different number of cache lines past a
 * 4 KiB boundary. */
enum { PAGE_FLOATS = 1024, FIELD_SKEW = 5 * SF_CPU_LINE_FLOATS, MEDIUM_SKEW = 3 * SF_CPU_LINE_FLOATS };

/* A staggered first derivative of field `src` along `axis`: `up` puts the
 * result half a cell above the samples (nodes to half points), otherwise
 * half a cell below (half points to nodes). */
typedef struct {
    sf_elastic_field src;
    int axis, up;
} term;

enum { TERMS = 9 };   /* derivatives per half-step */

/* The velocity half-step: three terms per velocity component. */
static const term VELOCITY_TERMS[TERMS] = {
    {SF_FIELD_SXX, 0, 1}, {SF_FIELD_SXY, 1, 0}, {SF_FIELD_SXZ, 2, 0},   /* vx */
    {SF_FIELD_SXY, 0, 0}, {SF_FIELD_SYY, 1, 1}, {SF_FIELD_SYZ, 2, 0},   /* vy */
    {SF_FIELD_SXZ, 0, 0}, {SF_FIELD_SYZ, 1, 0}, {SF_FIELD_SZZ, 2, 1},   /* vz */
};
/* The stress half-step: the divergence terms of the normal stresses, then
 * two terms for each shear stress. */
static const term STRESS_TERMS[TERMS] = {
    {SF_FIELD_VX, 0, 0}, {SF_FIELD_VY, 1, 0}, {SF_FIELD_VZ, 2, 0},      /* sxx, syy, szz */
    {SF_FIELD_VX, 1, 1}, {SF_FIELD_VY, 0, 1},                           /* sxy */
    {SF_FIELD_VX, 2, 1}, {SF_FIELD_VZ, 0, 1},                           /* sxz */
    {SF_FIELD_VY, 2, 1}, {SF_FIELD_VZ, 1, 1},                           /* syz */
};
static const term *const TERM_TABLE[SF_HALF_STEPS] = {VELOCITY_TERMS, STRESS_TERMS};

/* One end's absorbing layer on an axis: samples [lo, hi) of the axis
 * (global indices; the points and half points where the damping is not
 * zero), and for z the owned planes [plo, phi) inside it. A memory
 * variable per derivative term along this axis. */
typedef struct {
    long lo, hi, plo, phi;
    float *psi[SF_HALF_STEPS][TERMS];
} layer;

/* The energy densities' weights at each point: rho/2 at the velocity
 * points; for 1/2 s : C^-1 : s, the bulk part 1/(18 K) and deviatoric part
 * 1/(4 mu) of the normal stresses and 1/(2 mu) of the shear stresses (0
 * where mu is 0: a fluid carries no deviatoric stress). */
enum { W_RHO_X, W_RHO_Y, W_RHO_Z, W_BULK, W_DEVIATORIC, W_XY, W_XZ, W_YZ, ENERGY_WEIGHTS };

/* Fields in each halo group, in buffer order. */
enum { MAX_HALO_FIELDS = 5 };

typedef struct {
    const sf_cpu_shared *shared;        /* the backend's: layout, arena, CPML coefficients, slab */
    float *field_block, *medium_block;  /* the arrays below live in these */
    int radius;
    double h[3], dt;
    float *f[SF_ELASTIC_FIELDS];        /* with halo planes */
    float *m[SF_MEDIUM_ARRAYS];         /* times dt, owned planes */
    sf_stencil_scaled coef;             /* over the spacings; first: the staggered derivatives */
    long rows_per_block;

    layer layers[3][2];

    float *previous;                    /* each velocity channel at the last half step */

    int halo_fields[SF_HALF_STEPS];
    sf_elastic_field halo_field[SF_HALF_STEPS][MAX_HALO_FIELDS];

    float *stress_block, *stress_before[6]; /* energy: the stresses before the update */
    float *energy_block, *energy_weight[ENERGY_WEIGHTS];
    const sf_cpu_stress_law *law;       /* NULL: lossless */
    sf_cpu_arena *arena;                /* its arrays; reset zeroes the fields, memory
                                           variables and the energy's stresses */
} elastic;

static int is_velocity(sf_elastic_field f) { return f <= SF_FIELD_VZ; }

/* ---- set-up ------------------------------------------------------------- */

/* count arrays of n floats each, skewed as explained above. */
static float *take_skewed(elastic *b, int count, size_t n, size_t skew, float **arrays,
                          const char *what)
{
    size_t stride = (n + PAGE_FLOATS - 1) / PAGE_FLOATS * PAGE_FLOATS + skew;
    float *block = sf_cpu_take(b->shared->arena, stride * (size_t)count, sizeof(float), what);
    for (int a = 0; a < count; ++a) arrays[a] = block + stride * (size_t)a;
    return block;
}

static void setup_medium(elastic *b, const sf_problem *p)
{
    const sf_layout *L = &b->shared->L;
    b->medium_block = take_skewed(b, SF_MEDIUM_ARRAYS, L->plane_size, MEDIUM_SKEW, b->m,
                                  "the elastic medium");
    const sf_elastic_medium *medium = p->medium;
    /* A plane that repeats an earlier one (a layer of a homogeneous or
     * layered model) is copied: its averages took 1 s of a 256^3 set-up
     * on 2 cores. */
    long *first = sf_elastic_medium_repeats(medium, p->first_equal_plane, 1);
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j) {
            if (first[k] != k) continue;
            for (long i = 0; i < L->nx; ++i) {
                float values[SF_MEDIUM_ARRAYS];
                sf_elastic_medium_scaled_point(medium, p->dt, i, j, k, values);
                const size_t q = sf_plane_index(L, i, j, k);
                for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) b->m[a][q] = values[a];
            }
        }
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (int a = 0; a < SF_MEDIUM_ARRAYS && first[k] != k; ++a)
            memcpy(b->m[a] + (size_t)k * (size_t)L->sp, b->m[a] + (size_t)first[k] * (size_t)L->sp,
                   (size_t)L->sp * sizeof(float));
    free(first);
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) {
        if (a != SF_MEDIUM_L2M && a != SF_MEDIUM_LAMBDA)
            sf_cpu_keep_as_medium(b->shared->arena, b->m[a], L->plane_size, sf_cpu_owned_rows(L),
                                  "the elastic medium");
    }
    /* The kernels take 2 mu as their difference. */
    float *const moduli[2] = {b->m[SF_MEDIUM_L2M], b->m[SF_MEDIUM_LAMBDA]};
    sf_cpu_keep_as_medium_group(b->shared->arena, moduli, 2, L->plane_size, sf_cpu_owned_rows(L),
                                "the elastic medium");
}

/* Samples of the axis where a layer's damping acts: at the low end the
 * points and half points below the thickness, at the high end from the
 * half point below its first point to the end. */
static void layer_span(const sf_cpml_axis *ax, int side, long *lo, long *hi)
{
    int t = ax->thick[side];
    if (t == 0) *lo = *hi = 0;
    else if (side == 0) *lo = 0, *hi = t;
    else *lo = ax->n - 1 - t, *hi = ax->n;
}

/* The rows of a layer's memory variables along axis a (absorb, below):
 * along x, or along the layer's points across x; by z planes, a z layer's
 * from its first plane. */
static sf_cpu_rows layer_rows(const elastic *b, const layer *ly, int a)
{
    const sf_layout *L = &b->shared->L;
    const long width = ly->hi - ly->lo;
    if (a == 0) return sf_cpu_plane_rows(width, L->ny * width, 0);
    if (a == 1) return sf_cpu_plane_rows(L->nx, width * L->nx, 0);
    return sf_cpu_plane_rows(L->nx, L->nx * L->ny, ly->plo);
}

static void setup_layer(elastic *b, const sf_cpml_axis *ax, int a, int side)
{
    const sf_layout *L = &b->shared->L;
    layer *ly = &b->layers[a][side];
    memset(ly, 0, sizeof *ly);
    layer_span(ax, side, &ly->lo, &ly->hi);
    size_t count = (size_t)(ly->hi - ly->lo);
    if (a == 0) count *= (size_t)(L->ny * L->nz);
    if (a == 1) count *= (size_t)(L->nx * L->nz);
    if (a == 2) {
        ly->plo = sf_cpu_max(ly->lo - b->shared->z0, 0);
        ly->phi = sf_cpu_max(ly->plo, sf_cpu_min(ly->hi - b->shared->z0, L->nz));
        count = (size_t)(ly->phi - ly->plo) * (size_t)(L->nx * L->ny);
    }
    for (int h = 0; h < SF_HALF_STEPS; ++h)
        for (int t = 0; t < TERMS; ++t)
            if (TERM_TABLE[h][t].axis == a) {
                ly->psi[h][t] = sf_cpu_take_state(b->shared->arena, count,
                                                  layer_rows(b, ly, a),
                                                  SF_CPU_STAGE(h), "CPML memory variables");
            }
}

static void setup_cpml(elastic *b, const sf_problem *p)
{
    for (int a = 0; a < 3; ++a) {
        for (int s = 0; s < 2; ++s) setup_layer(b, &p->cpml[a], a, s);
    }
}

/* The velocity channels' last half step: per shot. */
static void setup_previous(elastic *b, long channels)
{
    b->previous = sf_cpu_take(b->shared->arena, (size_t)channels, sizeof(float), "receiver channels");
}

static void setup_halo_fields(elastic *b, const sf_problem *p)
{
    static const sf_elastic_field velocity[] = {SF_FIELD_VX, SF_FIELD_VY, SF_FIELD_VZ};
    static const sf_elastic_field stress[] = {SF_FIELD_SZZ, SF_FIELD_SXZ, SF_FIELD_SYZ,
                                              SF_FIELD_SXX, SF_FIELD_SYY};
    b->halo_fields[SF_HALF_VELOCITY] = 3;
    b->halo_fields[SF_HALF_STRESS] = p->exchange_normal_stresses ? 5 : 3;
    memcpy(b->halo_field[SF_HALF_VELOCITY], velocity, sizeof velocity);
    memcpy(b->halo_field[SF_HALF_STRESS], stress, sizeof stress);
}

static double inverse_or_zero(double x) { return x > 0.0 ? 1.0 / x : 0.0; }

static void setup_energy(elastic *b)
{
    const size_t n = b->shared->L.plane_size;
    b->energy_block = take_skewed(b, ENERGY_WEIGHTS, n, MEDIUM_SKEW, b->energy_weight,
                                  "the energy diagnostic");
    float *const *w = b->energy_weight;
    const double dt = b->dt;
    for (size_t q = 0; q < n; ++q) {
        for (int v = 0; v < 3; ++v)
            w[W_RHO_X + v][q] = (float)(0.5 * dt * inverse_or_zero(b->m[SF_MEDIUM_BX + v][q]));
        double lambda = b->m[SF_MEDIUM_LAMBDA][q] / dt, l2m = b->m[SF_MEDIUM_L2M][q] / dt;
        double mu = 0.5 * (l2m - lambda);
        w[W_BULK][q] = (float)inverse_or_zero(18.0 * (lambda + 2.0 * mu / 3.0));
        w[W_DEVIATORIC][q] = (float)inverse_or_zero(4.0 * mu);
        for (int s = 0; s < 3; ++s)
            w[W_XY + s][q] = (float)(0.5 * dt * inverse_or_zero(b->m[SF_MEDIUM_MUXY + s][q]));
    }
}

void *sf_cpu_elastic_create(sf_cpu_shared *shared, const sf_problem *p, const sf_cpu_stress_law *law)
{
    elastic *b = sf_calloc(1, sizeof *b, "the elastic CPU kernels");
    b->law = law;
    b->shared = shared;
    b->radius = p->stencil.radius;
    b->dt = p->dt;
    memcpy(b->h, p->h, sizeof b->h);
    b->coef = sf_stencil_scale(&p->stencil, p->h);
    b->field_block = take_skewed(b, SF_ELASTIC_FIELDS, b->shared->L.field_size, FIELD_SKEW, b->f,
                                 "the wavefields");
    /* A fluid's normal stresses are its pressure, three times over. */
    const sf_cpu_rows rows = sf_cpu_field_rows(&b->shared->L);
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f)
        if (f < SF_FIELD_SXX || f > SF_FIELD_SZZ)
            sf_cpu_keep_as_state(b->shared->arena, b->f[f], b->shared->L.field_size, rows,
                                 SF_CPU_STAGE(is_velocity(f) ? SF_HALF_VELOCITY : SF_HALF_STRESS),
                                 "the wavefields");
    sf_cpu_keep_as_state_group(b->shared->arena, b->f + SF_FIELD_SXX, 3, b->shared->L.field_size,
                               rows, SF_CPU_STAGE(SF_HALF_STRESS), "the normal stresses");
    setup_medium(b, p);
    setup_cpml(b, p);
    setup_previous(b, p->channel_count);
    setup_halo_fields(b, p);
    if (p->energy) {
        b->stress_block = take_skewed(b, 6, b->shared->L.plane_size, FIELD_SKEW, b->stress_before,
                                      "the energy diagnostic");
        for (int q = 0; q < 6; ++q)
            sf_cpu_keep_as_state(b->shared->arena, b->stress_before[q], b->shared->L.plane_size,
                                 sf_cpu_owned_rows(&b->shared->L), SF_CPU_STAGE(SF_HALF_STRESS),
                                 "the energy diagnostic's stresses");
        /* The energy's weights from the moduli the steps use (the medium is
         * rounded again after create: no change). */
        sf_cpu_round_medium(b->shared->arena);
        setup_energy(b);
    }
    /* A z derivative reads 2R planes of three fields. */
    long row_bytes = b->shared->L.sx * (long)sizeof(float) * (2 * b->radius) * 3;
    b->rows_per_block = sf_cpu_rows_per_block(b->shared->L.ny, row_bytes);
    return b;
}

static void *elastic_create(sf_cpu_shared *shared, const sf_problem *p)
{
    return sf_cpu_elastic_create(shared, p, NULL);
}

/* ---- shots, the guard and the halo planes ------------------------------- */

/* The velocity channels start a shot at rest. */
static void elastic_reset(void *state, const sf_problem *shot)
{
    elastic *b = state;
    sf_cpu_release(b->shared->arena, b->previous);
    setup_previous(b, shot->channel_count);
}

/* Every field is checked: a stress can overflow before the velocities. */
static int elastic_guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const elastic *b = state;
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) fields[f] = b->f[f];
    return SF_ELASTIC_FIELDS;
}

static int elastic_halo_arrays(const void *state, int g) { return ((const elastic *)state)->halo_fields[g]; }

static float *elastic_halo_plane(void *state, int g, int array, long k, long *row_stride)
{
    elastic *b = state;
    *row_stride = b->shared->L.sx;
    return b->f[b->halo_field[g][array]] + sf_field_index(&b->shared->L, 0, 0, k);
}

/* Ghost plane -m of a field takes plane `from` times sign. */
static void image_plane(elastic *b, sf_elastic_field f, long m, long from, float sign)
{
    const long sp = b->shared->L.sp;
    const float *src = b->f[f] + (from + SF_HALO) * sp;
    float *dst = b->f[f] + (SF_HALO - m) * sp;
    for (long n = 0; n < sp; ++n) dst[n] = sign * src[n];
}

/* Planes k of the nodes mirror about k = 0, half planes k (at k + 1/2)
 * about k = -1/2. */
static void elastic_finish_stage(void *state, int g)
{
    elastic *b = state;
    if (!b->shared->free_surface_here) return;
    for (long m = 1; m <= SF_HALO; ++m) {
        if (g == SF_HALF_STRESS) {
            image_plane(b, SF_FIELD_SZZ, m, m, -1.0f);
            image_plane(b, SF_FIELD_SXZ, m, m - 1, -1.0f);
            image_plane(b, SF_FIELD_SYZ, m, m - 1, -1.0f);
        } else {
            image_plane(b, SF_FIELD_VX, m, m, 1.0f);
            image_plane(b, SF_FIELD_VY, m, m, 1.0f);
            image_plane(b, SF_FIELD_VZ, m, m - 1, 1.0f);
        }
    }
}

/* ---- the half-steps ----------------------------------------------------- */

/* out[i] = staggered derivative of f along a stride over n points. */
static inline void derivative(float *restrict out, const float *restrict f, long n, long stride,
                              const float *c, int up, const int R)
{
    if (up) {
        #pragma omp simd
        for (long i = 0; i < n; ++i) out[i] = sf_cpu_staggered_up(f + i, stride, c, R);
    } else {
        #pragma omp simd
        for (long i = 0; i < n; ++i) out[i] = sf_cpu_staggered_down(f + i, stride, c, R);
    }
}

/* psi <- b psi + a d, then d <- d + psi: the CPML derivative (kappa = 1). */
static inline void memory_uniform(float *restrict d, float *restrict psi, long n, float a, float b)
{
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        float p = b * psi[i] + a * d[i];
        psi[i] = p;
        d[i] += p;
    }
}

static inline void memory_varying(float *restrict d, float *restrict psi, long n,
                                  const float *restrict a, const float *restrict b)
{
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        float p = b[i] * psi[i] + a[i] * d[i];
        psi[i] = p;
        d[i] += p;
    }
}

/* The memory-variable correction of term t of half-step g on a chunk of
 * row (j, k) starting at column i0. */
static void absorb(const elastic *b, int g, int t, long j, long k, long i0,
                   long len, float *d)
{
    const sf_layout *L = &b->shared->L;
    const term *tm = &TERM_TABLE[g][t];
    const sf_cpu_cpml_coefficients *ac = &b->shared->cpml[tm->axis];
    const float *A = tm->up ? ac->a_half : ac->a, *B = tm->up ? ac->b_half : ac->b;
    for (int s = 0; s < 2; ++s) {
        const layer *ly = &b->layers[tm->axis][s];
        float *psi = ly->psi[g][t];
        if (!psi) continue;
        if (tm->axis == 0) {
            long lo = sf_cpu_max(ly->lo, i0), hi = sf_cpu_min(ly->hi, i0 + len);
            if (lo < hi) {
                float *run = psi + (k * L->ny + j) * (ly->hi - ly->lo) + (lo - ly->lo);
                sf_cpu_prefetch_run(run + SF_CPU_PREFETCH_ROWS * (ly->hi - ly->lo), hi - lo);
                memory_varying(d + (lo - i0), run, hi - lo, A + lo, B + lo);
            }
        } else if (tm->axis == 1) {
            if (j >= ly->lo && j < ly->hi) {
                float *run = psi + (k * (ly->hi - ly->lo) + (j - ly->lo)) * L->nx + i0;
                sf_cpu_prefetch_run(run + SF_CPU_PREFETCH_ROWS * L->nx, len);
                memory_uniform(d, run, len, A[j], B[j]);
            }
        } else if (k >= ly->plo && k < ly->phi) {
            float *run = psi + ((k - ly->plo) * L->ny + j) * L->nx + i0;
            sf_cpu_prefetch_run(run + SF_CPU_PREFETCH_ROWS * L->nx, len);
            memory_uniform(d, run, len, A[b->shared->z0 + k], B[b->shared->z0 + k]);
        }
    }
}

typedef struct {
    long j, k, i0, len;
    size_t f, p;      /* field and medium offsets of the chunk's first point */
    int absorbs;      /* some layer's memory variables apply to the chunk */
} chunk;

/* Does any absorbing layer reach the chunk [i0, i0 + len) of row (j, k)? */
static int chunk_absorbs(const elastic *b, long j, long k, long i0, long len)
{
    for (int s = 0; s < 2; ++s) {
        const layer *x = &b->layers[0][s], *y = &b->layers[1][s], *z = &b->layers[2][s];
        if ((x->lo < i0 + len && x->hi > i0) || (j >= y->lo && j < y->hi) ||
            (k >= z->plo && k < z->phi))
            return 1;
    }
    return 0;
}

/* Term t of half-step g on a chunk, into d. */
static inline void chunk_term(const elastic *b, int g, int t, const chunk *c,
                              float *d, const int R)
{
    const term *tm = &TERM_TABLE[g][t];
    const long stride[3] = {1, b->shared->L.sx, b->shared->L.sp};
    derivative(d, b->f[tm->src] + c->f, c->len, stride[tm->axis], b->coef.first[tm->axis], tm->up, R);
    if (c->absorbs) absorb(b, g, t, c->j, c->k, c->i0, c->len, d);
}

/* Where term t of half-step g reads for a chunk, as an up derivative:
 * a down one is the up one a point lower along its axis (the same sums in
 * the same order). */
typedef struct {
    const float *f;
    long stride;
    const float *c;
} term_read;

static inline term_read read_of(const elastic *b, int g, int t, const chunk *ch)
{
    const term *tm = &TERM_TABLE[g][t];
    const long stride[3] = {1, b->shared->L.sx, b->shared->L.sp};
    const long s = stride[tm->axis];
    return (term_read){b->f[tm->src] + ch->f - (tm->up ? 0 : s), s, b->coef.first[tm->axis]};
}

/* The wider vector sets take a chunk out of every layer, without a
 * relaxation law, in one pass a field: the terms' derivatives and the
 * update together (the sums in the order of the passes below). */
static inline int chunk_in_one_pass(const elastic *b, const chunk *c)
{
    return b->shared->vectors != SF_CPU_PORTABLE && !c->absorbs && !b->law;
}

/* out += w times the sum of `count` terms of half-step g from term t0. */
static inline void add_weighted_terms(const elastic *b, const chunk *c, int g, int t0, const int count,
                                      float *restrict out, const float *restrict w, const int R)
{
    term_read r[3];
    for (int t = 0; t < count; ++t) r[t] = read_of(b, g, t0 + t, c);
    #pragma omp simd
    for (long i = 0; i < c->len; ++i) {
        float sum = sf_cpu_staggered_up(r[0].f + i, r[0].stride, r[0].c, R);
        for (int t = 1; t < count; ++t) sum += sf_cpu_staggered_up(r[t].f + i, r[t].stride, r[t].c, R);
        out[i] += w[i] * sum;
    }
}

static inline void velocity_one_pass(const elastic *b, const chunk *c, const int R)
{
    for (int v = 0; v < 3; ++v)
        add_weighted_terms(b, c, SF_HALF_VELOCITY, 3 * v, 3, b->f[SF_FIELD_VX + v] + c->f,
                           b->m[SF_MEDIUM_BX + v] + c->p, R);
}

static inline void stress_one_pass(const elastic *b, const chunk *c, const int R)
{
    const term_read rx = read_of(b, SF_HALF_STRESS, 0, c), ry = read_of(b, SF_HALF_STRESS, 1, c);
    const term_read rz = read_of(b, SF_HALF_STRESS, 2, c);
    float *restrict sxx = b->f[SF_FIELD_SXX] + c->f, *restrict syy = b->f[SF_FIELD_SYY] + c->f;
    float *restrict szz = b->f[SF_FIELD_SZZ] + c->f;
    const float *restrict l2m = b->m[SF_MEDIUM_L2M] + c->p;
    const float *restrict lam = b->m[SF_MEDIUM_LAMBDA] + c->p;
    #pragma omp simd
    for (long i = 0; i < c->len; ++i) {
        const float dx = sf_cpu_staggered_up(rx.f + i, rx.stride, rx.c, R);
        const float dy = sf_cpu_staggered_up(ry.f + i, ry.stride, ry.c, R);
        const float dz = sf_cpu_staggered_up(rz.f + i, rz.stride, rz.c, R);
        const float sum = dx + dy + dz, two_mu = l2m[i] - lam[i];
        sxx[i] += lam[i] * sum + two_mu * dx;
        syy[i] += lam[i] * sum + two_mu * dy;
        szz[i] += lam[i] * sum + two_mu * dz;
    }
    for (int s = 0; s < 3; ++s)
        add_weighted_terms(b, c, SF_HALF_STRESS, 3 + 2 * s, 2, b->f[SF_FIELD_SXY + s] + c->f,
                           b->m[SF_MEDIUM_MUXY + s] + c->p, R);
}

static inline void velocity_chunk(const elastic *b, const chunk *c, const int R)
{
    float d[3][ROW_CHUNK];
    for (int v = 0; v < 3; ++v) {
        for (int q = 0; q < 3; ++q) chunk_term(b, SF_HALF_VELOCITY, 3 * v + q, c, d[q], R);
        float *restrict out = b->f[SF_FIELD_VX + v] + c->f;
        const float *restrict buoyancy = b->m[SF_MEDIUM_BX + v] + c->p;
        #pragma omp simd
        for (long i = 0; i < c->len; ++i) out[i] += buoyancy[i] * (d[0][i] + d[1][i] + d[2][i]);
    }
}

static inline void normal_stress_chunk(const elastic *b, const chunk *c, const int R)
{
    float d[3][ROW_CHUNK];
    for (int q = 0; q < 3; ++q) chunk_term(b, SF_HALF_STRESS, q, c, d[q], R);
    float *restrict sxx = b->f[SF_FIELD_SXX] + c->f, *restrict syy = b->f[SF_FIELD_SYY] + c->f;
    float *restrict szz = b->f[SF_FIELD_SZZ] + c->f;
    const float *restrict l2m = b->m[SF_MEDIUM_L2M] + c->p;
    const float *restrict lam = b->m[SF_MEDIUM_LAMBDA] + c->p;
    if (b->law) {
        #pragma omp simd
        for (long i = 0; i < c->len; ++i) {
            float dx = d[0][i], dy = d[1][i], dz = d[2][i], sum = dx + dy + dz;
            float two_mu = l2m[i] - lam[i];
            d[0][i] = lam[i] * sum + two_mu * dx;
            d[1][i] = lam[i] * sum + two_mu * dy;
            d[2][i] = lam[i] * sum + two_mu * dz;
        }
        b->law->normal(b->law->state, c->len, c->p, d);
        #pragma omp simd
        for (long i = 0; i < c->len; ++i) sxx[i] += d[0][i], syy[i] += d[1][i], szz[i] += d[2][i];
        return;
    }
    #pragma omp simd
    for (long i = 0; i < c->len; ++i) {
        float dx = d[0][i], dy = d[1][i], dz = d[2][i], sum = dx + dy + dz;
        float two_mu = l2m[i] - lam[i];
        sxx[i] += lam[i] * sum + two_mu * dx;
        syy[i] += lam[i] * sum + two_mu * dy;
        szz[i] += lam[i] * sum + two_mu * dz;
    }
}

static inline void shear_stress_chunk(const elastic *b, const chunk *c, const int R)
{
    float d[2][ROW_CHUNK];
    for (int s = 0; s < 3; ++s) {
        chunk_term(b, SF_HALF_STRESS, 3 + 2 * s, c, d[0], R);
        chunk_term(b, SF_HALF_STRESS, 4 + 2 * s, c, d[1], R);
        float *restrict out = b->f[SF_FIELD_SXY + s] + c->f;
        const float *restrict mu = b->m[SF_MEDIUM_MUXY + s] + c->p;
        if (b->law) {
            #pragma omp simd
            for (long i = 0; i < c->len; ++i) d[0][i] = mu[i] * (d[0][i] + d[1][i]);
            b->law->shear(b->law->state, s, c->len, c->p, d[0]);
            #pragma omp simd
            for (long i = 0; i < c->len; ++i) out[i] += d[0][i];
            continue;
        }
        #pragma omp simd
        for (long i = 0; i < c->len; ++i) out[i] += mu[i] * (d[0][i] + d[1][i]);
    }
}

static inline void update_row(const elastic *b, int g, long j, long k,
                              const int R)
{
    const sf_layout *L = &b->shared->L;
    for (long i0 = 0; i0 < L->nx; i0 += ROW_CHUNK) {
        long len = sf_cpu_min(ROW_CHUNK, L->nx - i0);
        chunk c = {j, k, i0, len, sf_field_index(L, i0, j, k), sf_plane_index(L, i0, j, k),
                   chunk_absorbs(b, j, k, i0, len)};
        if (chunk_in_one_pass(b, &c)) {
            if (g == SF_HALF_VELOCITY)
                velocity_one_pass(b, &c, R);
            else
                stress_one_pass(b, &c, R);
        } else if (g == SF_HALF_VELOCITY) {
            velocity_chunk(b, &c, R);
        } else {
            normal_stress_chunk(b, &c, R);
            shear_stress_chunk(b, &c, R);
        }
    }
}

/* Rows [j0, j1) of plane k; the radius reaches each row kernel as a
 * constant. */
static inline void update_block_plane(const elastic *b, int g, long j0, long j1, long k)
{
    for (long j = j0; j < j1; ++j) {
        switch (b->radius) {
        case 1: update_row(b, g, j, k, 1); break;
        case 2: update_row(b, g, j, k, 2); break;
        default: update_row(b, g, j, k, 4); break;
        }
    }
}

SF_CPU_VECTOR_KERNEL(update_block_plane, (const elastic *b, int g, long j0, long j1, long k),
                     (b, g, j0, j1, k));

/* Blocks of rows streamed through the planes. */
static void update_planes(const elastic *b, int g, long k0, long k1)
{
    const sf_layout *L = &b->shared->L;
    const long block = b->rows_per_block, blocks = (L->ny + block - 1) / block;
    #pragma omp parallel for schedule(dynamic, 1)
    for (long n = 0; n < blocks; ++n) {
        const long j0 = sf_cpu_block_start(n, blocks, block), j1 = sf_cpu_min(j0 + block, L->ny);
        for (long k = k0; k < k1; ++k) update_block_plane_kernels[b->shared->vectors](b, g, j0, j1, k);
    }
}

/* The energy diagnostic pairs the stresses before and after the update. */
static void keep_stresses(elastic *b, long k0, long k1)
{
    const long sp = b->shared->L.sp;
    for (int s = 0; s < 6; ++s)
        memcpy(b->stress_before[s] + k0 * sp, b->f[SF_FIELD_SXX + s] + (k0 + SF_HALO) * sp,
               (size_t)((k1 - k0) * sp) * sizeof(float));
}

static void elastic_update(void *state, int g, long k0, long k1)
{
    elastic *b = state;
    if (g == SF_HALF_STRESS && b->stress_before[0]) keep_stresses(b, k0, k1);
    update_planes(b, g, k0, k1);
    if (g == SF_HALF_STRESS && b->shared->free_surface_here && k0 == 0)
        memset(b->f[SF_FIELD_SZZ] + SF_HALO * b->shared->L.sp, 0, (size_t)b->shared->L.sp * sizeof(float));
}

/* A force on a velocity takes the buoyancy, a moment on a stress dt; szz
 * stays zero on a free surface. The buoyancy comes from b->m: a reset's
 * problem has no medium. */
static int elastic_source_point(const void *state, const sf_field_weight *w, float *coefficient)
{
    const elastic *b = state;
    if (b->shared->free_surface_here && w->field == SF_FIELD_SZZ && w->k == 0) return 0;
    float scale = is_velocity(w->field)
                      ? b->m[SF_MEDIUM_BX + w->field][sf_plane_index(&b->shared->L, w->i, w->j, w->k)]
                      : (float)b->dt;
    *coefficient = w->weight * scale;
    return 1;
}

static int elastic_source_arrays(void *state, int g, int field,
                                 float *arrays[SF_CPU_MAX_SOURCE_ARRAYS])
{
    arrays[0] = ((elastic *)state)->f[field];
    return (g == SF_HALF_VELOCITY) == is_velocity(field);
}

/* ---- receivers, snapshots, energy ---------------------------------------- */

static float channel_value(const elastic *b, const sf_cpu_channels *ch, long c)
{
    float sum = 0.0f;
    if (ch->component[c] == SF_COMPONENT_P) {
        const float *sxx = b->f[SF_FIELD_SXX], *syy = b->f[SF_FIELD_SYY], *szz = b->f[SF_FIELD_SZZ];
        for (long n = ch->offset[c]; n < ch->offset[c + 1]; ++n) {
            size_t q = ch->index[n];
            sum += ch->weight[n] * (sxx[q] + syy[q] + szz[q]);
        }
        return sum * (-1.0f / 3.0f);
    }
    return sf_cpu_channel_value(ch, c, b->f[SF_FIELD_VX + ch->component[c]]);
}

/* The pressure from the normal stresses; a velocity, a half step behind
 * the stresses, as the mean of its last two half steps. */
static void elastic_sample_receivers(void *state, const sf_cpu_channels *ch, float *out)
{
    elastic *b = state;
    for (long c = 0; c < ch->count; ++c) {
        float v = channel_value(b, ch, c);
        if (ch->component[c] == SF_COMPONENT_P) {
            out[c] = v;
        } else {
            out[c] = 0.5f * (b->previous[c] + v);
            b->previous[c] = v;
        }
    }
}

/* The pressure from the normal stresses, a velocity interpolated from its
 * half points to the node. */
static float elastic_node_value(const void *state, sf_component c, size_t n)
{
    const elastic *b = state;
    const sf_layout *L = &b->shared->L;
    if (c == SF_COMPONENT_P)
        return (b->f[SF_FIELD_SXX][n] + b->f[SF_FIELD_SYY][n] + b->f[SF_FIELD_SZZ][n]) *
               (-1.0f / 3.0f);
    const long below[3] = {1, L->sx, L->sp};
    const float *f = b->f[SF_FIELD_VX + c];
    return 0.5f * (f[n - below[c]] + f[n]);
}

static double point_energy(const elastic *b, size_t f, size_t p, double *kinetic)
{
    float *const *w = b->energy_weight;
    for (int v = 0; v < 3; ++v) {
        double u = b->f[SF_FIELD_VX + v][f];
        *kinetic += w[W_RHO_X + v][p] * u * u;
    }
    double before[3], after[3], trb = 0.0, tra = 0.0;
    for (int q = 0; q < 3; ++q) {
        before[q] = b->stress_before[q][p];
        after[q] = b->f[SF_FIELD_SXX + q][f];
        trb += before[q], tra += after[q];
    }
    double deviatoric = 0.0, shear = 0.0;
    for (int q = 0; q < 3; ++q) deviatoric += (before[q] - trb / 3.0) * (after[q] - tra / 3.0);
    for (int s = 0; s < 3; ++s)
        shear += w[W_XY + s][p] * b->stress_before[3 + s][p] * (double)b->f[SF_FIELD_SXY + s][f];
    return w[W_BULK][p] * trb * tra + w[W_DEVIATORIC][p] * deviatoric + shear;
}

static void elastic_energy(void *state, double out[2])
{
    const elastic *b = state;
    const sf_layout *L = &b->shared->L;
    if (!b->stress_before[0]) sf_fatal("internal: energy asked of a backend created without it");
    double kinetic = 0.0, strain = 0.0;
    #pragma omp parallel for collapse(2) reduction(+ : kinetic, strain) schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i)
                strain += point_energy(b, sf_field_index(L, i, j, k), sf_plane_index(L, i, j, k),
                                       &kinetic);
    double cell = b->h[0] * b->h[1] * b->h[2];
    out[0] = kinetic * cell;
    out[1] = strain * cell;
}

const sf_cpu_physics sf_cpu_elastic_kernels = {
    .name = "elastic",
    .halo_groups = SF_HALF_STEPS,
    .plane_pad = SF_CPU_LINE_FLOATS,
    .create = elastic_create,
    .reset = elastic_reset,
    .update = elastic_update,
    .finish_stage = elastic_finish_stage,
    .source_point = elastic_source_point,
    .source_arrays = elastic_source_arrays,
    .halo_arrays = elastic_halo_arrays,
    .halo_plane = elastic_halo_plane,
    .sample_receivers = elastic_sample_receivers,
    .node_value = elastic_node_value,
    .guard_fields = elastic_guard_fields,
    .energy = elastic_energy,
};

SF_CPU_BACKEND(sf_backend_cpu_elastic, sf_cpu_elastic_kernels, sf_cpu_backend_energy)
