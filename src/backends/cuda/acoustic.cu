/* The acoustic kernels of the CUDA backend (backend.cu): two time levels
 * of the pressure, v^2 dt^2, and the CPML memory variables inside the
 * layers (psi z with the halo planes the next step's memory update reads);
 * for a physics built on the same update (cuda_acoustic.h), standard
 * linear solids the update relaxes through. */
#include "cuda_acoustic.h"
#include "cuda_backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_acoustic.h"
#include "sf_error.h"
}

/* Planes per block: on 1000^3, 64 and 128 ran alike and a whole column
 * (1000) 14% slower, its last wave of blocks part empty. */
enum { Z_CHUNK = 128 };

typedef struct {
    sf_cuda_common *c;              /* the backend's: layout, arrays, streams */
    long z0;
    int radius, free_surface_here;
    float *p_prev, *p_cur, *vdt2;
    float *psi[3][2], *zeta[3][2];  /* [axis][side] */
    long half_hi[3][2];             /* one past the last stored half point (z: local) */
    sf_cuda_step step;              /* kernel arguments; fields set per launch */
    sf_cuda_tiling tiling;
    sf_cuda_streams stencil;        /* compute as main, and a side stream for the frame tiles */
    const sf_relaxation_medium *relaxing;   /* until upload; NULL: lossless */
    float *coordinate, *weights;    /* the solids' table and each point's place in it */
} acoustic_state;

static long max_long(long a, long b) { return a > b ? a : b; }
static long min_long(long a, long b) { return a < b ? a : b; }

static void setup_coefficients(acoustic_state *b, const sf_problem *p)
{
    const sf_stencil *s = &p->stencil;
    b->radius = s->radius;
    for (int a = 0; a < 3; ++a)
        for (int m = 0; m <= SF_MAX_RADIUS; ++m) {
            b->step.c.second[a][m] = (float)(s->second[m] / (p->h[a] * p->h[a]));
            b->step.c.first[a][m] = (float)(s->first[m] / p->h[a]);
        }
}

/* x and y layers: psi_width half points per line, lines in every plane. */
static void plan_layer_xy(acoustic_state *b, const sf_problem *p, int axis, int side)
{
    sf_cpml_span span = sf_cpml_layer_span(&p->cpml[axis], side, b->radius);
    sf_cuda_layer *l = &b->step.layer[axis][side];
    l->lo = (int)span.flo;
    l->hi = (int)span.fhi;
    l->hlo = (int)span.hlo;
    l->psi_width = (int)(span.hhi - span.hlo + 2 * SF_PSI_PAD);
    b->half_hi[axis][side] = span.hhi;
    if (span.fhi <= span.flo) return;
    size_t lines = (size_t)(p->nz * (axis == 0 ? p->ny : p->nx));
    sf_cuda_want_state(&b->c->arrays, &b->psi[axis][side], lines * (size_t)l->psi_width, sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(&b->c->arrays, &b->zeta[axis][side], lines * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

/* z layers in local planes, clipped to the owned planes (points) and to
 * the planes with halos (half points). */
static void plan_layer_z(acoustic_state *b, const sf_problem *p, int side)
{
    sf_cpml_span span = sf_cpml_layer_span(&p->cpml[2], side, b->radius);
    sf_cuda_layer *l = &b->step.layer[2][side];
    long lo = max_long(span.flo - b->z0, 0);
    long hlo = max_long(span.hlo - b->z0, -SF_HALO);
    l->lo = (int)lo;
    l->hi = (int)max_long(lo, min_long(span.fhi - b->z0, p->nz));
    l->hlo = (int)hlo;
    l->psi_width = 0;
    b->half_hi[2][side] = max_long(hlo, min_long(span.hhi - b->z0, p->nz + SF_HALO));
    if (b->half_hi[2][side] <= hlo) {
        l->hi = l->lo;   /* no half-plane of the layer near this slab: nothing reads it */
        return;
    }
    size_t plane = (size_t)(p->nx * p->ny);
    sf_cuda_want_state(&b->c->arrays, &b->psi[2][side],
                       plane * (size_t)(b->half_hi[2][side] - hlo + 2 * SF_PSI_PAD), sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(&b->c->arrays, &b->zeta[2][side], plane * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

static void plan_arrays(acoustic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->c->L;
    sf_cuda_arrays *arrays = &b->c->arrays;
    sf_cuda_want_state(arrays, &b->p_prev, L->field_size, sizeof(float), "the wavefield");
    sf_cuda_want_state(arrays, &b->p_cur, L->field_size, sizeof(float), "the wavefield");
    sf_cuda_want(arrays, &b->vdt2, L->plane_size, sizeof(float), "the velocity term v^2 dt^2");
    for (int side = 0; side < 2; ++side) {
        plan_layer_xy(b, p, 0, side);
        plan_layer_xy(b, p, 1, side);
        plan_layer_z(b, p, side);
    }
    sf_cuda_want(arrays, &b->tiling.tiles, (size_t)sf_cuda_tiling_room(p->nx, p->ny), sizeof(int4),
                 "the stencil's tile list");
    const sf_relaxation_medium *r = b->relaxing;
    if (!r) return;
    for (int l = 0; l < sf_relaxation_memory_variables(r); ++l)
        sf_cuda_want_state(arrays, &b->step.relax.memory[l], L->plane_size, sizeof(float),
                           "the relaxation memory variables");
    sf_cuda_want(arrays, &b->coordinate, L->plane_size, sizeof(float), "the points' Q");
    sf_cuda_want(arrays, &b->weights, (size_t)((r->intervals + 1) * r->mechanisms), sizeof(float),
                 "the relaxation weights");
}

/* A compact [nz][ny][nx] array onto the owned planes a plane at a time,
 * in the field layout (zero padding): as v^2 dt^2 with dt given, else as
 * it is. */
static void upload_planes(acoustic_state *b, float *device, const float *compact, double dt,
                          const char *what)
{
    const sf_layout *L = &b->c->L;
    float *plane = (float *)sf_calloc((size_t)L->sp, sizeof(float), what);
    for (long k = 0; k < L->nz; ++k) {
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                double v = compact[(k * L->ny + j) * L->nx + i];
                plane[sf_plane_index(L, i, j, 0)] = (float)(dt > 0.0 ? v * v * dt * dt : v);
            }
        sf_cuda_upload(device + k * L->sp, plane, (size_t)L->sp * sizeof(float), what);
    }
    free(plane);
}

/* The solids' law for this time step, their table and each point's place. */
static void upload_relaxation(acoustic_state *b, const sf_problem *p)
{
    const sf_relaxation_medium *r = b->relaxing;
    sf_relaxation_law *law = &b->step.relax.law;
    law->mechanisms = r->mechanisms;
    law->intervals = r->intervals;
    law->coarse = r->coarse;
    for (int l = 0; l < r->mechanisms; ++l) law->decay[l] = (float)exp(-p->dt / r->tau[l]);
    sf_cuda_upload(b->weights, r->weight, (size_t)((r->intervals + 1) * r->mechanisms) * sizeof(float),
                   "uploading the relaxation weights");
    law->weight = b->weights;
    upload_planes(b, b->coordinate, r->coordinate, 0.0, "uploading the points' Q");
    b->step.relax.coordinate = b->coordinate;
}

/* The stencil's CPML arguments. */
static void setup_layers(acoustic_state *b)
{
    for (int a = 0; a < 3; ++a) {
        b->step.a[a] = b->c->cpml[a].a;
        b->step.b[a] = b->c->cpml[a].b;
        for (int s = 0; s < 2; ++s) {
            b->step.layer[a][s].psi = b->psi[a][s];
            b->step.layer[a][s].zeta = b->zeta[a][s];
        }
    }
}

/* The CPU backend's source coefficient: w times the update's v^2 dt^2 at
 * the point, read back, since the velocity the update runs may be built
 * from several parameters (the visco-acoustic unrelaxed one) by a medium
 * that is gone by a survey's later shots. */
static int place_source(const void *state, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out)
{
    (void)p;
    const acoustic_state *b = (const acoustic_state *)state;
    const sf_layout *L = &b->c->L;
    float vdt2 = 0.0f;
    sf_cuda_download(&vdt2, b->vdt2 + sf_plane_index(L, w->i, w->j, w->k), sizeof vdt2,
                     b->c->xfer.compute, "the model at the source");
    out->index = (long)sf_field_index(L, w->i, w->j, w->k);
    out->coef = w->weight * vdt2;
    return 1;
}

static void setup_tiling(acoustic_state *b)
{
    const long room = sf_cuda_tiling_room((int)b->c->L.nx, (int)b->c->L.ny);
    int4 *tiles = (int4 *)sf_malloc((size_t)room * sizeof(int4), "the stencil's tile list");
    sf_cuda_tiling_plan(&b->tiling, &b->step, tiles);
    sf_cuda_upload(b->tiling.tiles, tiles, (size_t)b->tiling.tile_count * sizeof(int4), "uploading the tile list");
    free(tiles);
    b->tiling.z_chunk = Z_CHUNK;
}

/* After the common streams: frame blocks, dispatched first on a stream of
 * their own, end with the interior's rather than after them. */
static void setup_frame_stream(void *state)
{
    acoustic_state *b = (acoustic_state *)state;
    int least = 0, greatest = 0;
    SF_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "creating streams");
    SF_CUDA_CHECK(cudaStreamCreateWithPriority(&b->stencil.side, cudaStreamNonBlocking, greatest),
                  "creating the frame stream");
    b->stencil.main = b->c->xfer.compute;
    cudaEvent_t *events[2] = {&b->stencil.fork, &b->stencil.join};
    for (int e = 0; e < 2; ++e)
        SF_CUDA_CHECK(cudaEventCreateWithFlags(events[e], cudaEventDisableTiming), "creating events");
}

void *sf_cuda_acoustic_create_relaxing(sf_cuda_common *c, const sf_problem *p,
                                       const sf_relaxation_medium *relaxing)
{
    acoustic_state *b = (acoustic_state *)sf_calloc(1, sizeof *b, "the acoustic CUDA kernels");
    b->c = c;
    b->relaxing = relaxing;
    b->z0 = p->z0;
    b->free_surface_here = p->free_surface && p->z0 == 0;
    setup_coefficients(b, p);
    plan_arrays(b, p);
    return b;
}

static void *acoustic_create(sf_cuda_common *c, const sf_problem *p)
{
    return sf_cuda_acoustic_create_relaxing(c, p, NULL);
}

static void acoustic_upload(void *state, const sf_problem *p)
{
    acoustic_state *b = (acoustic_state *)state;
    upload_planes(b, b->vdt2, p->param[SF_ACOUSTIC_PARAM_VP], p->dt, "uploading the model");
    if (b->relaxing) upload_relaxation(b, p);
    b->relaxing = NULL;   /* the medium's, which may go once uploaded */
    setup_layers(b);
    b->step.grid = b->c->grid;
    b->step.z0 = (int)p->z0;
    b->step.zero_plane0 = b->free_surface_here;
    b->step.vdt2 = b->vdt2;
    setup_tiling(b);
}

static void acoustic_destroy(void *state)
{
    acoustic_state *b = (acoustic_state *)state;
    SF_CUDA_CHECK(cudaEventDestroy(b->stencil.fork), "destroying events");
    SF_CUDA_CHECK(cudaEventDestroy(b->stencil.join), "destroying events");
    SF_CUDA_CHECK(cudaStreamDestroy(b->stencil.side), "destroying streams");
    free(b);
}

/* The guard's one field. */
static int guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS])
{
    fields[0] = ((const acoustic_state *)state)->p_cur;
    return 1;
}

/* ---- halo planes ------------------------------------------------------ */

static int halo_arrays(const void *state, int g)
{
    (void)state, (void)g;
    return 1;
}

/* The stored psi_z half-plane k (local), or NULL. */
static float *psi_z_plane(const acoustic_state *b, long k)
{
    for (int s = 0; s < 2; ++s) {
        const sf_cuda_layer *l = &b->step.layer[2][s];
        if (b->psi[2][s] && k >= l->hlo && k < b->half_hi[2][s])
            return b->psi[2][s] + (size_t)(SF_PSI_PAD + k - l->hlo) * (size_t)(b->c->L.nx * b->c->L.ny);
    }
    return NULL;
}

/* The group's SF_HALO planes from local plane k0 on; returns their row stride. */
static long halo_planes(const void *state, int g, int array, long k0, float *plane[SF_HALO])
{
    const acoustic_state *b = (const acoustic_state *)state;
    (void)array;   /* one a group */
    for (long q = 0; q < SF_HALO; ++q)
        plane[q] = g == SF_HALO_WAVEFIELD ? b->p_prev + sf_field_index(&b->c->L, 0, 0, k0 + q)
                                          : psi_z_plane(b, k0 + q);
    return g == SF_HALO_WAVEFIELD ? b->c->L.sx : b->c->L.nx;
}

/* ---- the time step ------------------------------------------------------ */

static void memory_box_xy(const acoustic_state *b, int axis, int side, long k0, long k1,
                          sf_cuda_memory_box *box)
{
    const sf_cuda_layer *l = &b->step.layer[axis][side];
    const long nx = b->c->L.nx, ny = b->c->L.ny, width = l->psi_width, halves = b->half_hi[axis][side] - l->hlo;
    box->axis = axis;
    box->lo[0] = axis == 0 ? l->hlo : 0;
    box->lo[1] = axis == 1 ? l->hlo : 0;
    box->lo[2] = (int)k0;
    box->n[0] = (int)(axis == 0 ? halves : nx);
    box->n[1] = (int)(axis == 1 ? halves : ny);
    box->n[2] = (int)(k1 - k0);
    box->psi_stride[0] = 1;
    box->psi_stride[1] = axis == 0 ? width : nx;
    box->psi_stride[2] = axis == 0 ? ny * width : width * nx;
    box->psi_base = axis == 0 ? k0 * ny * width + SF_PSI_PAD : (k0 * width + SF_PSI_PAD) * nx;
    box->coefficient_shift = 0;
}

/* Returns 0 when the z layer has no half-plane in [k0, k1). */
static int memory_box_z(const acoustic_state *b, int side, long k0, long k1, sf_cuda_memory_box *box)
{
    const sf_cuda_layer *l = &b->step.layer[2][side];
    long lo = max_long(l->hlo, k0), hi = min_long(b->half_hi[2][side], k1);
    if (hi <= lo) return 0;
    const long nx = b->c->L.nx, ny = b->c->L.ny;
    box->axis = 2;
    box->lo[0] = box->lo[1] = 0;
    box->lo[2] = (int)lo;
    box->n[0] = (int)nx;
    box->n[1] = (int)ny;
    box->n[2] = (int)(hi - lo);
    box->psi_stride[0] = 1;
    box->psi_stride[1] = nx;
    box->psi_stride[2] = nx * ny;
    box->psi_base = (SF_PSI_PAD + lo - l->hlo) * nx * ny;
    box->coefficient_shift = (int)b->z0;
    return 1;
}

/* psi and zeta of every layer over planes [k0, k1), from the current level. */
static void update_cpml_memory(acoustic_state *b, long k0, long k1, cudaStream_t stream)
{
    sf_cuda_memory_box boxes[SF_CUDA_MEMORY_BOXES];
    int count = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            if (!b->psi[axis][side]) continue;
            sf_cuda_memory_box *box = &boxes[count];
            if (axis < 2)
                memory_box_xy(b, axis, side, k0, k1, box);
            else if (!memory_box_z(b, side, k0, k1, box))
                continue;
            box->psi = b->psi[axis][side];
            box->a_half = b->c->cpml[axis].a_half;
            box->b_half = b->c->cpml[axis].b_half;
            memcpy(box->first, b->step.c.first[axis], sizeof box->first);
            ++count;
        }
    sf_cuda_update_memory(boxes, count, b->p_cur, b->c->grid, b->radius, stream);
}

/* The new level into p_prev, on the stencil's streams (the compute stream
 * as main). */
static void advance(acoustic_state *b, long k0, long k1)
{
    b->step.next = b->p_prev;
    b->step.cur = b->p_cur;
    sf_cuda_advance(&b->step, &b->tiling, b->radius, (int)k0, (int)k1, &b->stencil);
}

static void update(void *state, int stage, long k0, long k1, cudaStream_t stream)
{
    acoustic_state *b = (acoustic_state *)state;
    if (stage == SF_ACOUSTIC_MEMORY)
        update_cpml_memory(b, k0, k1, stream);
    else
        advance(b, k0, k1);
}

static int source_arrays(void *state, int stage, float *arrays[SF_CUDA_MAX_SOURCE_ARRAYS])
{
    if (stage != SF_ACOUSTIC_ADVANCE) return 0;
    arrays[0] = ((acoustic_state *)state)->p_prev;
    return 1;
}

/* The new level becomes the current one, with its images above a free
 * surface (the next step's memory update reads them). */
static int finish_stage(void *state, int stage)
{
    acoustic_state *b = (acoustic_state *)state;
    if (stage != SF_ACOUSTIC_ADVANCE) return 0;
    float *t = b->p_prev;
    b->p_prev = b->p_cur;
    b->p_cur = t;
    return b->free_surface_here;
}

static void mirror(void *state, int stage, cudaStream_t stream)
{
    const acoustic_state *b = (const acoustic_state *)state;
    (void)stage;   /* the advance's alone */
    sf_cuda_mirror_surface(b->p_cur, b->c->grid, stream);
}

/* The pressure is the only component. */
static const float *component(const void *state, sf_component c)
{
    (void)c;
    return ((const acoustic_state *)state)->p_cur;
}

extern const sf_cuda_physics sf_cuda_acoustic_kernels = {
    "acoustic", SF_ACOUSTIC_STAGES, 0, 0,
    acoustic_create, acoustic_upload, setup_frame_stream, acoustic_destroy,
    update, finish_stage, mirror,
    place_source, source_arrays, NULL,
    halo_arrays, halo_planes, NULL,
    component, NULL, NULL,
    guard_fields, NULL};

SF_CUDA_BACKEND(sf_backend_cuda_acoustic, sf_cuda_acoustic_kernels, NULL)
