/* The pseudo-acoustic VTI and TTI kernels of the CUDA backend (backend.cu,
 * sf_anisotropic.h): two time levels of both fields, the medium, and the
 * CPML memory variables (inside the layers only, numbered as on the CPU). */
#include "cuda_anisotropic.h"
#include "cuda_levels.h"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_acoustic.h"
#include "sf_error.h"
}

enum {
    FIELDS = SF_ANISOTROPIC_FIELDS,
    AXES = 3,
    /* Slot runs per axis: a layer at each end, or one where they meet. */
    MAX_RUNS = 2
};

/* vp, epsilon, delta, and for tti theta and phi: the parameters' order. */
enum { MEDIUM_VP = SF_ANISOTROPIC_VP, MEDIUM_EPSILON = SF_ANISOTROPIC_EPSILON,
       MEDIUM_DELTA = SF_ANISOTROPIC_DELTA, MEDIUM_THETA = SF_ANISOTROPIC_THETA,
       MEDIUM_PHI = SF_ANISOTROPIC_PHI, MEDIUM_ARRAYS };

static_assert(AXES * MAX_RUNS <= SF_CUDA_MEMORY_BOXES, "one memory box per run");
static_assert((int)FIELDS <= (int)SF_CUDA_MAX_SOURCE_ARRAYS, "a source point feeds both fields");

/* Half points along an axis whose psi slots follow each other: one box of
 * the memory kernel. */
typedef struct {
    long start, count;
    int slot;
} slot_run;

/* An axis's layers on the host: the slots (the CPU backend's numbering)
 * and the runs of its psi slots. */
typedef struct {
    sf_cpml_slots slots;
    slot_run run[MAX_RUNS];
    int runs;
} axis_layers;

typedef struct {
    sf_cuda_levels levels;                 /* p's and q's; first, for the levels' table entries */
    long z0;
    int radius, tilted;
    float dt2;
    float *medium[MEDIUM_ARRAYS];          /* owned planes in the field layout */
    int *half_slot[AXES], *point_slot[AXES], *point_at[AXES];
    float *psi[FIELDS][AXES], *zeta[FIELDS][AXES];
    float *mixed[FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS][SF_MIXED_VARIABLES];   /* tti */
    float *plain_mixed[FIELDS][SF_MIXED_PAIRS][SF_MIXED_OWNERS];                 /* tti */
    axis_layers axis[AXES];
    sf_cuda_anisotropic_step step;         /* kernel arguments; fields set per launch */
} anisotropic_state;

/* ---- CPML layers ------------------------------------------------------- */

/* The runs of consecutive slots among local half points [lo, hi). */
static void find_runs(axis_layers *ax, long lo, long hi)
{
    for (long i = lo; i < hi; ++i) {
        const int s = sf_cpml_half_slot(&ax->slots, i);
        if (s < 0) continue;
        slot_run *r = ax->runs ? &ax->run[ax->runs - 1] : NULL;
        if (r && r->start + r->count == i && r->slot + r->count == s) {
            ++r->count;
            continue;
        }
        if (ax->runs == MAX_RUNS) sf_fatal("internal: more than %d CPML slot runs on an axis", MAX_RUNS);
        r = &ax->run[ax->runs++];
        r->start = i, r->count = 1, r->slot = s;
    }
}

/* The half points and points of both layers that fall within
 * [half_lo, half_hi) and [0, n) locally (z: the slab, its halos for psi). */
static void number_axis(anisotropic_state *b, int a, const sf_cpml_axis *global, long n, long first,
                        long half_lo, long half_hi)
{
    axis_layers *ax = &b->axis[a];
    sf_cpml_slots_init(&ax->slots, global, b->radius, n, first, half_lo, half_hi);
    find_runs(ax, half_lo, half_hi);
}

static void number_layers(anisotropic_state *b, const sf_problem *p)
{
    number_axis(b, 0, &p->cpml[0], p->nx, 0, 0, p->nx);
    number_axis(b, 1, &p->cpml[1], p->ny, 0, 0, p->ny);
    number_axis(b, 2, &p->cpml[2], p->nz, p->z0, -SF_HALO, p->nz + SF_HALO);
}

/* Lines of an axis's memory variables: one per (j, k), (i, k) or (i, j). */
static size_t cross_section(const anisotropic_state *b, int a)
{
    const sf_layout *L = &b->levels.c->L;
    return (size_t)(a == 0 ? L->nz * L->ny : a == 1 ? L->nz * L->nx : L->nx * L->ny);
}

/* ---- set-up ------------------------------------------------------------- */

static void plan_arrays(anisotropic_state *b)
{
    const sf_layout *L = &b->levels.c->L;
    sf_cuda_arrays *arrays = &b->levels.c->arrays;
    for (int m = 0; m < (b->tilted ? MEDIUM_ARRAYS : MEDIUM_THETA); ++m)
        sf_cuda_want(arrays, &b->medium[m], L->plane_size, sizeof(float), "the medium");
    for (int a = 0; a < AXES; ++a) {
        const sf_cpml_slots *ax = &b->axis[a].slots;
        const size_t table = (size_t)(ax->n + 2 * SF_CPML_SLOT_SLACK);
        sf_cuda_want(arrays, &b->half_slot[a], table, sizeof(int), "CPML slots");
        sf_cuda_want(arrays, &b->point_slot[a], table, sizeof(int), "CPML slots");
        sf_cuda_want(arrays, &b->point_at[a], (size_t)ax->points, sizeof(int), "CPML slots");
        for (int f = 0; f < FIELDS; ++f) {
            sf_cuda_want_state(arrays, &b->psi[f][a], cross_section(b, a) * (size_t)ax->halves,
                               sizeof(float), "CPML memory");
            sf_cuda_want_state(arrays, &b->zeta[f][a], cross_section(b, a) * (size_t)ax->points,
                               sizeof(float), "CPML memory");
        }
    }
    for (int f = 0; b->tilted && f < FIELDS; ++f)
        for (int q = 0; q < SF_MIXED_PAIRS; ++q)
            for (int o = 0; o < SF_MIXED_OWNERS; ++o) {
                const int a = o ? sf_mixed_second_axis(q) : sf_mixed_first_axis(q);
                const size_t count = cross_section(b, a) * (size_t)b->axis[a].slots.points;
                for (int v = 0; v < SF_MIXED_VARIABLES; ++v)
                    sf_cuda_want_state(arrays, &b->mixed[f][q][o][v], count, sizeof(float),
                                       "CPML memory");
                /* Rewritten every step before it is read: not state. */
                sf_cuda_want(arrays, &b->plain_mixed[f][q][o], count, sizeof(float),
                             "the mixed derivatives in the layers");
            }
}

static void upload_medium(anisotropic_state *b, const sf_problem *p)
{
    for (int m = 0; m < p->nparams && m < MEDIUM_ARRAYS; ++m)
        if (b->medium[m])
            sf_cuda_upload_planes(&b->levels.c->L, b->medium[m], p->param[m], p->first_equal_plane,
                                  "uploading the medium");
}

/* The slot tables, and per axis the index of each zeta slot: the x and y
 * corrections run a thread per slot. */
static void upload_layers(anisotropic_state *b)
{
    for (int a = 0; a < AXES; ++a) {
        const sf_cpml_slots *ax = &b->axis[a].slots;
        const size_t bytes = (size_t)(ax->n + 2 * SF_CPML_SLOT_SLACK) * sizeof(int);
        sf_cuda_upload(b->half_slot[a], ax->half_slot, bytes, "uploading CPML slots");
        sf_cuda_upload(b->point_slot[a], ax->point_slot, bytes, "uploading CPML slots");
        int *at = (int *)sf_malloc((size_t)(ax->points + 1) * sizeof(int), "CPML slots");
        for (long i = 0; i < ax->n; ++i) {
            const int q = sf_cpml_point_slot(ax, i);
            if (q >= 0) at[q] = (int)i;
        }
        sf_cuda_upload(b->point_at[a], at, (size_t)ax->points * sizeof(int), "uploading CPML slots");
        free(at);
    }
}

/* The planes that read psi_z as disjoint runs: where the two layers'
 * reaches overlap (thin grids) or meet, one run, so that the z correction
 * visits each plane once. */
static void z_runs(sf_cuda_anisotropic_step *s, const sf_cpml_slots *z)
{
    int runs = 0;
    for (int side = 0; side < 2; ++side) s->z_lo[side] = s->z_hi[side] = 0;
    for (long k = 0; k < z->n; ++k) {
        if (sf_cpml_point_slot(z, k) < 0) continue;
        if (runs > 0 && s->z_hi[runs - 1] == (int)k) {
            ++s->z_hi[runs - 1];
            continue;
        }
        if (runs == 2) sf_fatal("internal: more than two runs of planes in the z CPML layers");
        s->z_lo[runs] = (int)k, s->z_hi[runs] = (int)k + 1;
        ++runs;
    }
}

/* The kernels' arguments that stay for the run (the fields are set per launch). */
static void setup_step(anisotropic_state *b, const sf_problem *p)
{
    sf_cuda_anisotropic_step *s = &b->step;
    s->grid = b->levels.c->grid;
    s->zero_plane0 = b->levels.free_surface_here;
    s->dt2 = b->dt2;
    s->vp = b->medium[MEDIUM_VP];
    s->epsilon = b->medium[MEDIUM_EPSILON];
    s->delta = b->medium[MEDIUM_DELTA];
    s->theta = b->medium[MEDIUM_THETA];
    s->phi = b->medium[MEDIUM_PHI];
    const sf_stencil_scaled scaled = sf_stencil_scale(&p->stencil, p->h);
    memcpy(s->second, scaled.second, sizeof s->second);
    memcpy(s->first, scaled.first, sizeof s->first);
    memcpy(s->centered, scaled.centered, sizeof s->centered);
    for (int a = 0; a < AXES; ++a) {
        sf_cuda_anisotropic_axis *ax = &s->axis[a];
        const sf_cpml_slots *slots = &b->axis[a].slots;
        ax->halves = (int)slots->halves;
        ax->points = (int)slots->points;
        ax->first = (int)slots->first;
        ax->half_slot = b->half_slot[a];
        ax->point_slot = b->point_slot[a];
        ax->point_at = b->point_at[a];
        ax->a = b->levels.c->cpml[a].a;
        ax->b = b->levels.c->cpml[a].b;
        for (int f = 0; f < FIELDS; ++f) {
            ax->psi[f] = b->psi[f][a];
            ax->zeta[f] = b->zeta[f][a];
        }
    }
    z_runs(s, &b->axis[2].slots);
    memcpy(s->mixed, b->mixed, sizeof s->mixed);
    memcpy(s->plain_mixed, b->plain_mixed, sizeof s->plain_mixed);
}

/* The CPU backend's float arithmetic, for the same coefficients. */
static int place_source(const void *state, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out)
{
    const anisotropic_state *b = (const anisotropic_state *)state;
    const sf_layout *L = &b->levels.c->L;
    const float vp = p->param[SF_ANISOTROPIC_VP][((long)w->k * L->ny + w->j) * L->nx + w->i];
    out->index = (long)sf_field_index(L, w->i, w->j, w->k);
    out->coef = w->weight * vp * vp * b->dt2;
    return 1;
}

/* The stages, below. */
static void update_memory(void *state, long k0, long k1, cudaStream_t stream);
static void advance(void *state, long k0, long k1, cudaStream_t stream);

static void *anisotropic_create(sf_cuda_common *c, const sf_problem *p)
{
    anisotropic_state *b = (anisotropic_state *)sf_calloc(1, sizeof *b, "the anisotropic CUDA kernels");
    sf_cuda_levels_plan(&b->levels, c, p, FIELDS, update_memory, advance);
    b->z0 = p->z0;
    b->radius = p->stencil.radius;
    b->tilted = p->nparams > SF_ANISOTROPIC_THETA;
    b->dt2 = (float)(p->dt * p->dt);
    number_layers(b, p);
    plan_arrays(b);
    return b;
}

static void anisotropic_upload(void *state, const sf_problem *p)
{
    anisotropic_state *b = (anisotropic_state *)state;
    upload_medium(b, p);
    upload_layers(b);
    setup_step(b, p);
}

static void anisotropic_destroy(void *state)
{
    anisotropic_state *b = (anisotropic_state *)state;
    for (int a = 0; a < AXES; ++a) sf_cpml_slots_free(&b->axis[a].slots);
    free(b);
}

/* ---- halo planes ------------------------------------------------------ */

/* Field f's SF_HALO planes of a group from local plane k0 on: the new
 * level's, or psi_z's (NULL where a half-plane holds none); returns their
 * row stride. */
static long halo_planes(const void *state, int g, int f, long k0, float *plane[SF_HALO])
{
    const anisotropic_state *b = (const anisotropic_state *)state;
    const sf_layout *L = &b->levels.c->L;
    for (long q = 0; q < SF_HALO; ++q) {
        if (g == SF_HALO_WAVEFIELD) {
            plane[q] = sf_cuda_levels_plane(&b->levels, f, k0 + q);
        } else {
            const int s = sf_cpml_half_slot(&b->axis[2].slots, k0 + q);
            plane[q] = s < 0 ? NULL : b->psi[f][2] + (size_t)s * (size_t)(L->nx * L->ny);
        }
    }
    return g == SF_HALO_WAVEFIELD ? L->sx : L->nx;
}

/* ---- the time step ------------------------------------------------------ */

/* The memory kernel's box for one slot run of axis a, planes [k0, k1)
 * (clipped to the run along z); returns 0 when it holds no half point. */
static int memory_box(const anisotropic_state *b, int f, int a, const slot_run *r, long k0, long k1,
                      sf_cuda_memory_box *box)
{
    const sf_layout *L = &b->levels.c->L;
    if (a < 2) {
        sf_cuda_memory_box_across(box, L, a, r->start, r->count, k0, k1, b->axis[a].slots.halves, r->slot);
    } else {
        const long lo = sf_cuda_max(r->start, k0), hi = sf_cuda_min(r->start + r->count, k1);
        if (hi <= lo) return 0;
        sf_cuda_memory_box_along_z(box, L, lo, hi, r->slot + lo - r->start, b->z0);
    }
    sf_cuda_memory_box_of(box, b->psi[f][a], &b->levels.c->cpml[a], b->step.first[a]);
    return 1;
}

/* psi of both fields on all three axes over owned planes [k0, k1). */
static void update_memory(void *state, long k0, long k1, cudaStream_t stream)
{
    anisotropic_state *b = (anisotropic_state *)state;
    for (int f = 0; f < FIELDS; ++f) {
        sf_cuda_memory_box boxes[SF_CUDA_MEMORY_BOXES];
        int count = 0;
        for (int a = 0; a < AXES; ++a)
            for (int r = 0; r < b->axis[a].runs; ++r)
                count += memory_box(b, f, a, &b->axis[a].run[r], k0, k1, &boxes[count]);
        sf_cuda_update_memory(boxes, count, b->levels.cur[f], b->levels.c->grid, b->radius, stream);
    }
}

static void advance(void *state, long k0, long k1, cudaStream_t stream)
{
    anisotropic_state *b = (anisotropic_state *)state;
    for (int f = 0; f < FIELDS; ++f) {
        b->step.next[f] = b->levels.prev[f];
        b->step.cur[f] = b->levels.cur[f];
    }
    sf_cuda_anisotropic_advance(&b->step, b->radius, (int)k0, (int)k1, stream);
}

SF_CUDA_LEVELS_BACKEND(sf_backend_cuda_anisotropic, "anisotropic", anisotropic_create, anisotropic_upload,
                       NULL, anisotropic_destroy, place_source, halo_planes)
