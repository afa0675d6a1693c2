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
enum { AXIS_X, AXIS_Y, AXIS_Z, AXES };
enum { FIELDS = SF_ANISOTROPIC_FIELDS };

/* Consecutive indices [lo, hi) along an axis whose memory variables are
 * consecutive too, from slot `slot` on. */
typedef struct {
    long lo, hi;
    long slot;
} slot_run;

/* At most a run for each layer; where a short axis's layers meet they
 * make one (sf_cpml_slots numbers the indices in order). */
enum { MAX_RUNS = 2 };

/* An axis's layers: the slots of its memory variables (shared with the
 * CUDA backend, so both walk the same arrays) and its coefficients; along
 * x, the runs of half points and points (rows take them as vectors). */
typedef struct {
    sf_cpml_slots slots;
    const sf_cpu_cpml_coefficients *c;      /* the backend's copy, global along the axis */
    slot_run half_run[MAX_RUNS], point_run[MAX_RUNS];
    int half_runs, point_runs;
} axis_layers;

typedef struct {
    sf_cpu_levels levels;                 /* p's and q's; first, for the levels' table entries */
    int radius, tilted;
    float dt2;
    float *vp, *epsilon, *delta;          /* compact [nz][ny][nx] */
    float *axis_n[AXES];                  /* tti: the symmetry axis per point (its weights in H1
                                           * are made a chunk at a time: half the bytes) */
    sf_stencil_scaled coef;               /* over the spacings; centered: tti's mixed terms */

    axis_layers axis[AXES];
    float *psi[FIELDS][AXES], *zeta[FIELDS][AXES];
    /* tti: the mixed derivatives' stretch (sf_anisotropic.h), stored as zeta
     * is along the pair's owner axis: [field][pair][owner][variable]. */
    float *mixed[FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS][SF_MIXED_VARIABLES];
    const float *zero_row;                /* nx zeros: psi where a layer stores none */
    /* Per thread, a row's x psi around the runs of points that read it
     * (x_psi_per_thread floats). */
    float *x_psi;
    long x_psi_per_thread;
    /* tti: each field's centered first derivatives along x and y, each
     * block of rows making its own R planes ahead of its mixed
     * derivatives, which take them along the row or along z (d2/dxdy =
     * d/dx (d/dy), d2/dxdz = d/dz (d/dx), d2/dydz = d/dz (d/dy)): 2R points
     * each where the two-dimensional stencil read 4 R^2. They live in a
     * ring of the 2R + 1 planes of a block's rows per thread, which stays
     * in cache: as volumes they cost four of memory and their writes 32
     * bytes a point of memory traffic. Each plane is written twice, at its
     * slot and 2R + 1 slots on, so that the 2R + 1 planes around any one
     * lie at one stride, as in a volume. A ring row has R zeros each
     * side, the derivatives beyond the grid's x edges. */
    float *ring;
    long ring_row, ring_plane, ring_per_thread;   /* floats */
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
    return sf_cpu_take_copy(b->levels.shared->arena, src, (size_t)count, sizeof(float), what);
}

static void setup_medium(anisotropic *b, const sf_problem *p)
{
    const long count = p->nx * p->ny * p->nz;
    sf_cpu_arena *arena = b->levels.shared->arena;
    b->dt2 = (float)(p->dt * p->dt);
    b->vp = copy_compact(b, p->param[SF_ANISOTROPIC_VP], count, "the medium");
    b->epsilon = copy_compact(b, p->param[SF_ANISOTROPIC_EPSILON], count, "the medium");
    b->delta = copy_compact(b, p->param[SF_ANISOTROPIC_DELTA], count, "the medium");
    sf_cpu_keep_as_medium(arena, b->vp, (size_t)count, sf_cpu_rows_of(p->nx), "the medium");
    /* Sharing their exponents, epsilon and delta keep the order the model
     * was checked for (delta <= epsilon, the axis shear term's sign). */
    float *const thomsen[2] = {b->epsilon, b->delta};
    sf_cpu_keep_as_medium_group(arena, thomsen, 2, (size_t)count, sf_cpu_rows_of(p->nx),
                                "the medium");
    b->tilted = p->nparams > SF_ANISOTROPIC_THETA;
    if (!b->tilted) return;
    for (int a = 0; a < AXES; ++a) {
        b->axis_n[a] = sf_cpu_take(arena, (size_t)count, sizeof(float), "the tilt");
        sf_cpu_keep_as_medium(arena, b->axis_n[a], (size_t)count, sf_cpu_rows_of(p->nx), "the tilt");
    }
    #pragma omp parallel for schedule(static)
    for (long n = 0; n < count; ++n) {
        float axis[AXES];
        sf_tilt_axis(p->param[SF_ANISOTROPIC_THETA][n], p->param[SF_ANISOTROPIC_PHI][n], axis);
        for (int a = 0; a < AXES; ++a) b->axis_n[a][n] = axis[a];
    }
}

/* The runs of indices in [0, n) with slots in table (half or point); the
 * run ends naming a numbering this backend cannot take as runs. */
static int slot_runs(const sf_cpml_slots *s, int (*slot)(const sf_cpml_slots *, long), long n,
                     slot_run run[MAX_RUNS])
{
    int count = 0;
    for (long i = 0; i < n; ++i) {
        const int si = slot(s, i);
        if (si < 0) continue;
        slot_run *last = count ? &run[count - 1] : NULL;
        if (last && last->hi == i && last->slot + (i - last->lo) == si) {
            last->hi = i + 1;
            continue;
        }
        if (count == MAX_RUNS) sf_fatal("internal: the x layers' CPML slots make over %d runs", MAX_RUNS);
        run[count++] = (slot_run){i, i + 1, si};
    }
    return count;
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

/* The rows of axis a's memory variables, count slots a point across it
 * (memory_index, below): along their slots for x, along x for y and z; by
 * z planes for x and y (z's slots follow the layers' planes). */
static sf_cpu_rows memory_rows(const anisotropic *b, int a, long count)
{
    const sf_layout *L = &b->levels.shared->L;
    if (a == AXIS_X) return sf_cpu_plane_rows(count, L->ny * count, 0);
    if (a == AXIS_Y) return sf_cpu_plane_rows(L->nx, count * L->nx, 0);
    return sf_cpu_rows_of(L->nx);
}

static void setup_cpml(anisotropic *b, const sf_problem *p)
{
    const sf_cpu_shared *shared = b->levels.shared;
    const long nx = p->nx, ny = p->ny, nz = p->nz;
    setup_axis(b, AXIS_X, &p->cpml[0], nx, 0, 0, nx);
    setup_axis(b, AXIS_Y, &p->cpml[1], ny, 0, 0, ny);
    setup_axis(b, AXIS_Z, &p->cpml[2], nz, p->z0, -SF_HALO, nz + SF_HALO);
    axis_layers *x = &b->axis[AXIS_X];
    x->half_runs = slot_runs(&x->slots, sf_cpml_half_slot, nx, x->half_run);
    x->point_runs = slot_runs(&x->slots, sf_cpml_point_slot, nx, x->point_run);
    b->x_psi_per_thread = 0;
    for (int r = 0; r < x->point_runs; ++r)
        b->x_psi_per_thread += FIELDS * (x->point_run[r].hi - x->point_run[r].lo + 2 * b->radius);
    b->x_psi = sf_cpu_take(shared->arena, (size_t)omp_get_max_threads() * (size_t)b->x_psi_per_thread,
                           sizeof(float), "a row's x CPML memory");
    b->zero_row = sf_cpu_take(shared->arena, (size_t)nx, sizeof(float), "CPML memory");
    const long cross[AXES] = {nz * ny, nz * nx, nx * ny};
    for (int f = 0; f < FIELDS; ++f)
        for (int a = 0; a < AXES; ++a) {
            /* x psi belongs to its row alone: the advance updates it (below). */
            const int writer = a == AXIS_X ? SF_ACOUSTIC_ADVANCE : SF_ACOUSTIC_MEMORY;
            b->psi[f][a] = sf_cpu_take_state(shared->arena, (size_t)(cross[a] * b->axis[a].slots.halves),
                                              memory_rows(b, a, b->axis[a].slots.halves),
                                              SF_CPU_STAGE(writer), "CPML memory");
            b->zeta[f][a] = sf_cpu_take_state(shared->arena, (size_t)(cross[a] * b->axis[a].slots.points),
                                              memory_rows(b, a, b->axis[a].slots.points),
                                              SF_CPU_STAGE(SF_ACOUSTIC_ADVANCE), "CPML memory");
        }
    if (!b->tilted) return;
    for (int f = 0; f < FIELDS; ++f)
        for (int q = 0; q < SF_MIXED_PAIRS; ++q)
            for (int o = 0; o < SF_MIXED_OWNERS; ++o) {
                const int a = o ? sf_mixed_second_axis(q) : sf_mixed_first_axis(q);
                for (int v = 0; v < SF_MIXED_VARIABLES; ++v)
                    b->mixed[f][q][o][v] = sf_cpu_take_state(
                        shared->arena, (size_t)(cross[a] * b->axis[a].slots.points),
                        memory_rows(b, a, b->axis[a].slots.points),
                        SF_CPU_STAGE(SF_ACOUSTIC_ADVANCE), "CPML memory");
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
    /* TTI: blocks that keep its fields and their first derivatives on
     * the 2R + 1 planes in cache; VTI: one block a thread (small blocks
     * re-read the y reach of each: 4% slower on 256^3). */
    const long row_bytes = shared->L.sx * (long)sizeof(float) * (2 * b->radius + 1) * FIELDS * 4;
    const long threads = omp_get_max_threads();
    b->rows_per_block = b->tilted ? sf_cpu_rows_per_block(shared->L.ny, row_bytes)
                                  : (shared->L.ny + threads - 1) / threads;
    if (b->tilted) {
        b->ring_row = (shared->L.nx + 2 * b->radius + SF_CPU_LINE_FLOATS - 1) / SF_CPU_LINE_FLOATS *
                      SF_CPU_LINE_FLOATS;
        b->ring_plane = b->rows_per_block * b->ring_row;
        b->ring_per_thread = FIELDS * 2 * 2 * (2 * b->radius + 1) * b->ring_plane;
        b->ring = sf_cpu_take(shared->arena, (size_t)(threads * b->ring_per_thread), sizeof(float),
                              "the first derivatives of the tilt's mixed terms");
    }
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

/* The y and z memory variables psi of row (j, k): the whole row where it
 * is a half point of a y or z layer. (The x ones belong to the row alone:
 * the advance updates them while the row is in cache; as a pass of their
 * own, short runs at both ends of every row, they cost VTI's 256^3 step
 * with x layers a fifth.) */
static inline void memory_row(void *state, long j, long k)
{
    anisotropic *b = state;
    const sf_layout *L = &b->levels.shared->L;
    const axis_layers *y = &b->axis[AXIS_Y], *z = &b->axis[AXIS_Z];
    const int sy = half_slot(y, j), sz = half_slot(z, k);
    if (sy < 0 && sz < 0) return;
    for (int f = 0; f < FIELDS; ++f) {
        const float *u = b->levels.cur[f] + sf_field_index(L, 0, j, k);
        if (sy >= 0) {
            float *psi = b->psi[f][AXIS_Y] + memory_index(b, AXIS_Y, sy, y->slots.halves, 0, j, k);
            sf_cpu_prefetch_run(psi + SF_CPU_PREFETCH_ROWS * L->nx, L->nx);
            SF_CPU_WITH_RADIUS(sf_cpu_memory_run, b, psi, u, L->nx, L->sx, b->coef.first[1],
                               y->c->a_half + j + y->slots.first, y->c->b_half + j + y->slots.first, 0);
        }
        if (sz >= 0) {
            float *psi = b->psi[f][AXIS_Z] + memory_index(b, AXIS_Z, sz, z->slots.halves, 0, j, k);
            sf_cpu_prefetch_run(psi + SF_CPU_PREFETCH_ROWS * L->nx, L->nx);
            SF_CPU_WITH_RADIUS(sf_cpu_memory_run, b, psi, u, L->nx, L->sp, b->coef.first[2],
                               z->c->a_half + k + z->slots.first, z->c->b_half + k + z->slots.first, 0);
        }
    }
}

SF_CPU_VECTOR_KERNEL(memory_row, (void *state, long j, long k), (state, j, k));

static void update_memory(void *state, long k0, long k1)
{
    const sf_cpu_shared *shared = ((anisotropic *)state)->levels.shared;
    sf_cpu_each_row(&shared->L, k0, k1, memory_row_kernels[shared->vectors], state);
}

/* ---- the time step ------------------------------------------------------ */

/* A chunk of a row: both fields' H1 and H2 and (tti) the tilt's weights
 * and plain mixed derivatives; where layers reach it, also the plain
 * second derivatives along each axis, which the layers' terms reuse. */
typedef struct {
    float h1[FIELDS][ROW_CHUNK], h2[FIELDS][ROW_CHUNK];
    float mixed[FIELDS][SF_MIXED_PAIRS][ROW_CHUNK];
    float d2[FIELDS][AXES][ROW_CHUNK];
    float w[SF_TILT_WEIGHTS][ROW_CHUNK];
} chunk;

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

/* tti: a row's first derivatives along x (a = 0) and y (a = 1) of each
 * field on its plane, at its point 0; plane k + m lies m strides on. */
typedef struct {
    const float *row[FIELDS][2];
    long stride;
} first_rows;

/* H1 and H2 of field f at chunk point i (x index i0 + i) from its plain
 * second derivatives (keep: kept for the layers' terms), and for TTI its
 * mixed derivatives from its first derivatives there, weighed with the
 * chunk's tilt weights. */
static inline void field_point(const anisotropic *b, const float *u, const float *dx, const float *dy,
                               long ring_stride, long sx, long sp, const int R, const int tilted,
                               const int keep, chunk *c, int f, long i)
{
    float d2[AXES];
    plain_second(b, u, sx, sp, R, d2);
    if (keep)
        for (int a = 0; a < AXES; ++a) c->d2[f][a][i] = d2[a];
    if (!tilted) {
        c->h1[f][i] = d2[2];
        c->h2[f][i] = d2[0] + d2[1];
        return;
    }
    const float mxy = centered(b->coef.centered[0], dy, 1, R);
    const float mxz = centered(b->coef.centered[2], dx, ring_stride, R);
    const float myz = centered(b->coef.centered[2], dy, ring_stride, R);
    float(*w)[ROW_CHUNK] = c->w;
    const float h1 = w[0][i] * d2[0] + w[1][i] * d2[1] + w[2][i] * d2[2] + w[3][i] * mxy + w[4][i] * mxz +
                     w[5][i] * myz;
    c->h1[f][i] = h1;
    c->h2[f][i] = d2[0] + d2[1] + d2[2] - h1;
    c->mixed[f][0][i] = mxy, c->mixed[f][1][i] = mxz, c->mixed[f][2][i] = myz;
}

/* H1 and H2 of both fields over the chunk of len points at field index x
 * (compact index n; x index i0) without the layers' terms. */
static inline void plain_chunk(const anisotropic *b, size_t x, long n, long i0, long len,
                               const int R, const int keep, const first_rows *first, chunk *c)
{
    const sf_layout *L = &b->levels.shared->L;
    const long sx = L->sx, sp = L->sp;
    const int P = SF_ANISOTROPIC_P, Q = SF_ANISOTROPIC_Q;
    const float *up = b->levels.cur[P] + x, *uq = b->levels.cur[Q] + x;
    if (!b->tilted) {
        #pragma omp simd
        for (long i = 0; i < len; ++i) {
            field_point(b, up + i, NULL, NULL, 0, sx, sp, R, 0, keep, c, P, i);
            field_point(b, uq + i, NULL, NULL, 0, sx, sp, R, 0, keep, c, Q, i);
        }
        return;
    }
    const float *dxp = first->row[P][0] + i0, *dyp = first->row[P][1] + i0;
    const float *dxq = first->row[Q][0] + i0, *dyq = first->row[Q][1] + i0;
    const long ring = first->stride;
    const float *nx = b->axis_n[0] + n, *ny = b->axis_n[1] + n, *nz = b->axis_n[2] + n;
    float(*w)[ROW_CHUNK] = c->w;
    #pragma omp simd
    for (long i = 0; i < len; ++i) {
        const sf_tilt_weight_set s = sf_tilt_weights_of_axis(nx[i], ny[i], nz[i]);
        w[0][i] = s.xx, w[1][i] = s.yy, w[2][i] = s.zz, w[3][i] = s.xy, w[4][i] = s.xz, w[5][i] = s.yz;
    }
    #pragma omp simd
    for (long i = 0; i < len; ++i) {
        field_point(b, up + i, dxp + i, dyp + i, ring, sx, sp, R, 1, keep, c, P, i);
        field_point(b, uq + i, dxq + i, dyq + i, ring, sx, sp, R, 1, keep, c, Q, i);
    }
}

/* A y or z layer's term in a row's second derivative along its axis: per
 * field the psi rows at the half points around the row (a zero row where
 * none is stored), the row's zeta, and the axis's coefficients there. */
typedef struct {
    int axis;
    float a, b;
    const float *up[FIELDS][SF_MAX_RADIUS + 1], *down[FIELDS][SF_MAX_RADIUS + 1];
    float *zeta[FIELDS];
} row_layer;

/* Field f's psi row of axis a (y or z) at half point `half` along it. */
static const float *psi_row(const anisotropic *b, int f, int a, long half, long j, long k)
{
    const axis_layers *ax = &b->axis[a];
    const int s = half_slot(ax, half);
    return s < 0 ? b->zero_row : b->psi[f][a] + memory_index(b, a, s, ax->slots.halves, 0, j, k);
}

/* The y and z layers whose terms row (j, k) takes; returns how many. */
static int row_layers(const anisotropic *b, long j, long k, row_layer out[2])
{
    const long along[AXES] = {0, j, k};
    int n = 0;
    for (int a = AXIS_Y; a <= AXIS_Z; ++a) {
        const axis_layers *ax = &b->axis[a];
        const int s = point_slot(ax, along[a]);
        if (s < 0) continue;
        row_layer *t = &out[n++];
        const long g = along[a] + ax->slots.first;
        t->axis = a, t->a = ax->c->a[g], t->b = ax->c->b[g];
        for (int f = 0; f < FIELDS; ++f) {
            t->zeta[f] = b->zeta[f][a] + memory_index(b, a, s, ax->slots.points, 0, j, k);
            sf_cpu_prefetch_run(t->zeta[f] + SF_CPU_PREFETCH_ROWS * b->levels.shared->L.nx,
                                b->levels.shared->L.nx);
            for (int m = 1; m <= b->radius; ++m) {
                t->up[f][m] = psi_row(b, f, a, along[a] + m - 1, j, k);
                t->down[f][m] = psi_row(b, f, a, along[a] - m, j, k);
            }
        }
    }
    return n;
}

/* A layer's term over n points of a row (pointers at the first): with
 * dpsi the derivative of psi (at[m][i]: psi at the half point m - 1/2
 * after point i, m = -R..R) and d2 the plain second derivative, zeta <-
 * b zeta + a (d2 + dpsi); the term dpsi + zeta enters H1 with the weight
 * w of the axis in it (VTI: 1 along z, else 0) and H2 with the rest. a
 * and b advance by ab_step a point, w by w_step (each 0 or 1). */
static inline void layer_term_run(float *restrict h1, float *restrict h2, const float *restrict d2,
                                  const float *const psi[2 * SF_MAX_RADIUS + 1], float *restrict zeta,
                                  const float *a, const float *b, const long ab_step, const float *w,
                                  const long w_step, const float *f1, long n, const int R)
{
    const float *const *at = psi + SF_MAX_RADIUS;
    #pragma omp simd
    for (long i = 0; i < n; ++i) {
        float dpsi = 0.0f;
        for (int m = 1; m <= R; ++m) dpsi += f1[m] * (at[m][i] - at[-m][i]);
        const float z = b[i * ab_step] * zeta[i] + a[i * ab_step] * (d2[i] + dpsi);
        zeta[i] = z;
        const float term = dpsi + z, wt = w[i * w_step] * term;
        h1[i] += wt;
        h2[i] += term - wt;
    }
}

/* layer_term_run with the steps constants, so that the run loads its
 * coefficients and weights as vectors (VTI's weight as one value). */
static inline void add_layer_term(float *restrict h1, float *restrict h2, const float *restrict d2,
                                  const float *const psi[2 * SF_MAX_RADIUS + 1], float *restrict zeta,
                                  const float *a, const float *b, long ab_step, const float *w, long w_step,
                                  const float *f1, long n, const int R)
{
    if (ab_step == 0 && w_step == 0)
        layer_term_run(h1, h2, d2, psi, zeta, a, b, 0, w, 0, f1, n, R);
    else if (ab_step == 0)
        layer_term_run(h1, h2, d2, psi, zeta, a, b, 0, w, 1, f1, n, R);
    else if (w_step == 0)
        layer_term_run(h1, h2, d2, psi, zeta, a, b, 1, w, 0, f1, n, R);
    else
        layer_term_run(h1, h2, d2, psi, zeta, a, b, 1, w, 1, f1, n, R);
}

static const float weight_zero = 0.0f, weight_one = 1.0f;

/* The weight of axis a in H1 at the chunk's point i and its step along x. */
static const float *axis_weight(const anisotropic *b, const chunk *c, int a, long i, long *step)
{
    *step = b->tilted;
    if (b->tilted) return c->w[a] + i;
    return a == AXIS_Z ? &weight_one : &weight_zero;
}

/* Adds the y and z layers' terms to every point of the chunk at x index
 * i0. */
static void add_row_layers(const anisotropic *b, chunk *c, const row_layer *t, int count, long i0,
                           long len, const int R)
{
    for (int l = 0; l < count; ++l, ++t) {
        long w_step;
        const float *w = axis_weight(b, c, t->axis, 0, &w_step);
        for (int f = 0; f < FIELDS; ++f) {
            const float *at[2 * SF_MAX_RADIUS + 1];
            for (int m = 1; m <= R; ++m)
                at[SF_MAX_RADIUS + m] = t->up[f][m] + i0, at[SF_MAX_RADIUS - m] = t->down[f][m] + i0;
            add_layer_term(c->h1[f], c->h2[f], c->d2[f][t->axis], at, t->zeta[f] + i0, &t->a, &t->b, 0, w,
                           w_step, b->coef.first[t->axis], len, R);
        }
    }
}

/* A row's x psi around each run of points that read it, zero where none
 * is stored (the derivatives then need no bounds): for run r, the half
 * points from its first point less R on, in this thread's buffer. The
 * copies write the same places in every row, so the zeros, made when the
 * buffer is, stay. */
typedef struct {
    const float *psi[FIELDS][MAX_RUNS];
} x_row;

/* Row (j, k)'s x memory variables psi of both fields, from its values. */
static void update_x_psi(const anisotropic *b, long j, long k, const int R)
{
    const axis_layers *x = &b->axis[AXIS_X];
    const size_t at = sf_field_index(&b->levels.shared->L, 0, j, k);
    for (int f = 0; f < FIELDS; ++f) {
        float *psi = b->psi[f][AXIS_X] + memory_index(b, AXIS_X, 0, x->slots.halves, 0, j, k);
        sf_cpu_prefetch_run(psi + SF_CPU_PREFETCH_ROWS * x->slots.halves, x->slots.halves);
        for (int r = 0; r < x->half_runs; ++r) {
            const slot_run *run = &x->half_run[r];
            const long g = run->lo + x->slots.first;
            sf_cpu_memory_run(psi + run->slot, b->levels.cur[f] + at + run->lo, run->hi - run->lo, 1,
                              b->coef.first[0], x->c->a_half + g, x->c->b_half + g, 1, R);
        }
    }
}

static void expand_x_psi(const anisotropic *b, long j, long k, x_row *row)
{
    const axis_layers *x = &b->axis[AXIS_X];
    const long R = b->radius;
    float *buffer = b->x_psi + (size_t)omp_get_thread_num() * (size_t)b->x_psi_per_thread;
    for (int f = 0; f < FIELDS; ++f)
        for (int r = 0; r < x->point_runs; ++r) {
            const long lo = x->point_run[r].lo - R, hi = x->point_run[r].hi + R;
            for (int h = 0; h < x->half_runs; ++h) {
                const slot_run *run = &x->half_run[h];
                const long from = sf_cpu_max(run->lo, lo), to = sf_cpu_min(run->hi, hi);
                if (to > from)
                    memcpy(buffer + (from - lo),
                           b->psi[f][AXIS_X] + memory_index(b, AXIS_X, run->slot + (from - run->lo),
                                                            x->slots.halves, 0, j, k),
                           (size_t)(to - from) * sizeof(float));
            }
            row->psi[f][r] = buffer;
            buffer += hi - lo;
        }
}

/* Adds the x layers' terms to the chunk's points [i0, i0 + len) that read
 * them. */
static void add_x_layers(const anisotropic *b, chunk *c, const x_row *row, long j, long k, long i0,
                         long len, const int R)
{
    const axis_layers *x = &b->axis[AXIS_X];
    for (int r = 0; r < x->point_runs; ++r) {
        const slot_run *run = &x->point_run[r];
        const long lo = sf_cpu_max(run->lo, i0), hi = sf_cpu_min(run->hi, i0 + len);
        if (hi <= lo) continue;
        const long g = lo + x->slots.first, at_chunk = lo - i0;
        long w_step;
        const float *w = axis_weight(b, c, AXIS_X, at_chunk, &w_step);
        for (int f = 0; f < FIELDS; ++f) {
            const float *e = row->psi[f][r] + (lo - run->lo + R), *at[2 * SF_MAX_RADIUS + 1];
            for (int m = 1; m <= R; ++m) at[SF_MAX_RADIUS + m] = e + m - 1, at[SF_MAX_RADIUS - m] = e - m;
            float *zeta = b->zeta[f][AXIS_X] +
                          memory_index(b, AXIS_X, run->slot + (lo - run->lo), x->slots.points, 0, j, k);
            sf_cpu_prefetch_run(zeta + SF_CPU_PREFETCH_ROWS * x->slots.points, hi - lo);
            add_layer_term(c->h1[f] + at_chunk, c->h2[f] + at_chunk, c->d2[f][AXIS_X] + at_chunk, at, zeta,
                           x->c->a + g, x->c->b + g, 1, w, w_step, b->coef.first[0], hi - lo, R);
        }
    }
}

/* Advances a pair's memory variables over n points (pointers at the
 * first) from its plain mixed derivatives y and adds its stretch, times
 * the pair's tilt weight w, to corr; the first axis's coefficients
 * advance by step1 a point, the second's are the row's. */
static inline void stretch_run(float *restrict corr, const float *restrict y, const float *restrict w,
                               float *restrict inner, float *restrict outer, const float *a1,
                               const float *b1, long step1, float a2, float b2, long n)
{
    #pragma omp simd
    for (long i = 0; i < n; ++i)
        corr[i] += w[i] * sf_mixed_stretch(y[i], a1[i * step1], b1[i * step1], a2, b2, &inner[i], &outer[i]);
}

/* Pair q's stretch over the chunk's points [lo, hi) (x indices; the chunk
 * starts at i0), its variables stored with `owner` from slot s of that
 * axis (x: at point lo). */
static void stretch_pair(const anisotropic *b, const chunk *c, float corr[FIELDS][ROW_CHUNK], int q,
                         int owner, long s, long lo, long hi, long i0, long j, long k)
{
    const int first = sf_mixed_first_axis(q), second = sf_mixed_second_axis(q);
    const int oa = owner ? second : first;
    const axis_layers *a1 = &b->axis[first], *a2 = &b->axis[second], *o = &b->axis[oa];
    const long along[AXES] = {lo, j, k};
    const long g1 = along[first] + a1->slots.first, g2 = along[second] + a2->slots.first;
    const size_t m = memory_index(b, oa, s, o->slots.points, lo, j, k);
    const long at_chunk = lo - i0;
    for (int f = 0; f < FIELDS; ++f) {
        float *const *v = b->mixed[f][q][owner];
        stretch_run(corr[f] + at_chunk, c->mixed[f][q] + at_chunk, c->w[3 + q] + at_chunk,
                    v[SF_MIXED_INNER] + m, v[SF_MIXED_OUTER] + m, a1->c->a + g1, a1->c->b + g1,
                    first == AXIS_X, a2->c->a[g2], a2->c->b[g2], hi - lo);
    }
}

/* tti: the stretch of the mixed derivatives over the chunk at x index i0
 * of row (j, k): every pair one of whose axes' layers reach a point, its
 * variables kept with its first axis where that one's layer reaches.
 * H1 takes the weighted corrections, H2 minus them. */
static void add_mixed_stretch(const anisotropic *b, chunk *c, long j, long k, long i0, long len)
{
    const axis_layers *x = &b->axis[AXIS_X];
    const int slot[AXES] = {-1, point_slot(&b->axis[AXIS_Y], j), point_slot(&b->axis[AXIS_Z], k)};
    const long end = i0 + len;
    float corr[FIELDS][ROW_CHUNK] = {{0.0f}};
    int any = 0;
    for (int q = 0; q < SF_MIXED_PAIRS; ++q) {
        const int first = sf_mixed_first_axis(q), s2 = slot[sf_mixed_second_axis(q)];
        if (first != AXIS_X) {
            if (slot[first] >= 0 || s2 >= 0)
                stretch_pair(b, c, corr, q, slot[first] < 0, slot[first] >= 0 ? slot[first] : s2, i0, end,
                             i0, j, k);
            any |= slot[first] >= 0 || s2 >= 0;
            continue;
        }
        /* Along the row: the x runs' points with x, the rest with the second axis where its layer reaches. */
        long cursor = i0;
        for (int r = 0; r <= x->point_runs; ++r) {
            const slot_run *run = r < x->point_runs ? &x->point_run[r] : NULL;
            const long lo = run ? sf_cpu_min(sf_cpu_max(run->lo, cursor), end) : end;
            if (s2 >= 0 && lo > cursor) stretch_pair(b, c, corr, q, 1, s2, cursor, lo, i0, j, k), any = 1;
            if (!run) break;
            const long hi = sf_cpu_max(lo, sf_cpu_min(run->hi, end));
            if (hi > lo) stretch_pair(b, c, corr, q, 0, run->slot + (lo - run->lo), lo, hi, i0, j, k), any = 1;
            cursor = sf_cpu_max(cursor, hi);
        }
    }
    if (!any) return;
    for (int f = 0; f < FIELDS; ++f) {
        #pragma omp simd
        for (long i = 0; i < len; ++i) c->h1[f][i] += corr[f][i], c->h2[f][i] -= corr[f][i];
    }
}

/* Does any x layer's run of points meet [lo, hi)? */
static int meets_x_layers(const anisotropic *b, long lo, long hi)
{
    const axis_layers *x = &b->axis[AXIS_X];
    for (int r = 0; r < x->point_runs; ++r)
        if (x->point_run[r].lo < hi && x->point_run[r].hi > lo) return 1;
    return 0;
}

/* The leapfrog update of the chunk's len points at field index x
 * (compact index n) from its H1 and H2. */
static inline void update_chunk(const anisotropic *b, const chunk *c, size_t x, long n, long len)
{
    const float *cp = b->levels.cur[SF_ANISOTROPIC_P] + x, *cq = b->levels.cur[SF_ANISOTROPIC_Q] + x;
    float *restrict np = b->levels.prev[SF_ANISOTROPIC_P] + x;
    float *restrict nq = b->levels.prev[SF_ANISOTROPIC_Q] + x;
    const float *vp = b->vp + n, *eps = b->epsilon + n, *delta = b->delta + n;
    const int P = SF_ANISOTROPIC_P, Q = SF_ANISOTROPIC_Q;
    #pragma omp simd
    for (long i = 0; i < len; ++i) {
        float dp, dq;
        sf_fdf_rhs(sf_fdf_at(vp[i], eps[i], delta[i], b->dt2), c->h1[P][i], c->h2[P][i], c->h1[Q][i],
                   c->h2[Q][i], &dp, &dq);
        np[i] = 2.0f * cp[i] - np[i] + dp;
        nq[i] = 2.0f * cq[i] - nq[i] + dq;
    }
}

/* tti: in a thread's ring (mine), the row of field f's first derivative
 * along x (a = 0) or y (1) in slot `slot`, row r of the block, at its
 * point 0. */
static float *ring_row(const anisotropic *b, float *mine, int f, int a, long slot, long r)
{
    const long slots = 2 * (2 * b->radius + 1);
    return mine + (((long)f * 2 + a) * slots + slot) * b->ring_plane + r * b->ring_row + b->radius;
}

static float *thread_ring(const anisotropic *b)
{
    return b->ring + (size_t)omp_get_thread_num() * (size_t)b->ring_per_thread;
}

/* The ring slot of plane k (and slot + 2R + 1, its copy). */
static long ring_slot(const anisotropic *b, long k)
{
    const long planes = 2 * b->radius + 1;
    return (k % planes + planes) % planes;
}

/* Row (j, k) of the new level, a chunk at a time: the plain operators,
 * and where layers reach the chunk their terms added to its H1 and H2
 * (the right-hand sides are linear in them) before the update. */
static void advance_row(anisotropic *b, long j, long k, const first_rows *first, const int R)
{
    const sf_layout *L = &b->levels.shared->L;
    const size_t x0 = sf_field_index(L, 0, j, k);
    const long n0 = (k * L->ny + j) * L->nx;
    row_layer layers[2];
    const int count = row_layers(b, j, k, layers);
    x_row xrow;
    if (b->axis[AXIS_X].point_runs > 0) {
        update_x_psi(b, j, k, R);
        expand_x_psi(b, j, k, &xrow);
    }
    chunk c;
    for (long i0 = 0; i0 < L->nx; i0 += ROW_CHUNK) {
        const long len = sf_cpu_min(L->nx - i0, ROW_CHUNK), n = n0 + i0;
        if (count > 0 || meets_x_layers(b, i0, i0 + len)) {
            plain_chunk(b, x0 + (size_t)i0, n, i0, len, R, 1, first, &c);
            add_row_layers(b, &c, layers, count, i0, len, R);
            add_x_layers(b, &c, &xrow, j, k, i0, len, R);
            if (b->tilted) add_mixed_stretch(b, &c, j, k, i0, len);
        } else {
            plain_chunk(b, x0 + (size_t)i0, n, i0, len, R, 0, first, &c);
        }
        update_chunk(b, &c, x0 + (size_t)i0, n, len);
    }
}

/* tti: the first derivatives along x and y of both fields on rows
 * [j0, j1) of plane k (a halo plane too), each from its own plane's
 * values, into this thread's ring. */
static void first_derivatives(anisotropic *b, long j0, long j1, long k, const int R)
{
    const sf_layout *L = &b->levels.shared->L;
    const float *cx = b->coef.centered[0], *cy = b->coef.centered[1];
    float *mine = thread_ring(b);
    const long s = ring_slot(b, k), copy = s + 2 * R + 1;
    for (long j = j0; j < j1; ++j)
        for (int f = 0; f < FIELDS; ++f) {
            const size_t x0 = sf_field_index(L, 0, j, k);
            const float *u = b->levels.cur[f] + x0;
            float *restrict dx = ring_row(b, mine, f, 0, s, j - j0);
            float *restrict dy = ring_row(b, mine, f, 1, s, j - j0);
            float *restrict dx2 = ring_row(b, mine, f, 0, copy, j - j0);
            float *restrict dy2 = ring_row(b, mine, f, 1, copy, j - j0);
            #pragma omp simd
            for (long i = 0; i < L->nx; ++i) {
                dx[i] = dx2[i] = centered(cx, u + i, 1, R);
                dy[i] = dy2[i] = centered(cy, u + i, L->sx, R);
            }
        }
}

/* Rows [j0, j1) of plane k of a stage that starts at plane k0. For TTI
 * the first derivatives run R planes ahead, so that the mixed ones along
 * z find theirs made (at the stage's first plane, the 2R planes around
 * it). */
static inline void advance_block_plane(anisotropic *b, long j0, long j1, long k, long k0, const int R)
{
    if (!b->tilted) {
        for (long j = j0; j < j1; ++j) advance_row(b, j, k, NULL, R);
        return;
    }
    if (k == k0)
        for (long kk = k0 - R; kk < k0 + R; ++kk) first_derivatives(b, j0, j1, kk, R);
    first_derivatives(b, j0, j1, k + R, R);
    /* Plane k in the slots that hold k - R .. k + R in order. */
    first_rows first = {.stride = b->ring_plane};
    const long slot = ring_slot(b, k - R) + R;
    float *mine = thread_ring(b);
    for (int f = 0; f < FIELDS; ++f)
        for (int a = 0; a < 2; ++a) first.row[f][a] = ring_row(b, mine, f, a, slot, 0);
    for (long j = j0; j < j1; ++j) {
        advance_row(b, j, k, &first, R);
        for (int f = 0; f < FIELDS; ++f)
            for (int a = 0; a < 2; ++a) first.row[f][a] += b->ring_row;
    }
}

/* advance_block_plane with the radius a constant for order 8. */
static inline void advance_block(anisotropic *b, long j0, long j1, long k, long k0)
{
    if (b->radius == 4)
        advance_block_plane(b, j0, j1, k, k0, 4);
    else
        advance_block_plane(b, j0, j1, k, k0, b->radius);
}
SF_CPU_VECTOR_KERNEL(advance_block, (anisotropic *b, long j0, long j1, long k, long k0), (b, j0, j1, k, k0));

/* The new level of planes [k0, k1), blocks of rows streamed through them. */
static void advance(void *state, long k0, long k1)
{
    anisotropic *b = state;
    const sf_layout *L = &b->levels.shared->L;
    const long ny = L->ny, block = b->rows_per_block, blocks = (ny + block - 1) / block;
    #pragma omp parallel for schedule(dynamic, 1)
    for (long n = 0; n < blocks; ++n)
        for (long k = k0; k < k1; ++k) {
            const long j0 = sf_cpu_block_start(n, blocks, block);
            advance_block_kernels[b->levels.shared->vectors](b, j0, sf_cpu_min(j0 + block, ny), k, k0);
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
