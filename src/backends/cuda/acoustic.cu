/* The acoustic kernels of the CUDA backend (backend.cu): two time levels
 * of the pressure, v^2 dt^2, and the CPML memory variables inside the
 * layers (psi z with the halo planes the next step's memory update reads);
 * for a physics built on the same update (cuda_acoustic.h), standard
 * linear solids the update relaxes through. */
#include "cuda_acoustic.h"
#include "cuda_backend.h"
#include "cuda_levels.h"

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
    sf_cuda_levels levels;          /* the pressure's; first, for the levels' table entries */
    long z0;
    int radius;
    float *vdt2;
    float *psi[3][2], *zeta[3][2];  /* [axis][side] */
    long half_hi[3][2];             /* one past the last stored half point (z: local) */
    sf_cuda_step step;              /* kernel arguments; fields set per launch */
    sf_cuda_tiling tiling;
    sf_cuda_streams stencil;        /* compute as main, and a side stream for the frame tiles */
    const sf_relaxation_medium *relaxing;   /* until upload; NULL: lossless */
    float *coordinate, *weights;    /* the solids' table and each point's place in it */
} acoustic_state;

static void setup_coefficients(acoustic_state *b, const sf_problem *p)
{
    const sf_stencil_scaled s = sf_stencil_scale(&p->stencil, p->h);
    b->radius = p->stencil.radius;
    memcpy(b->step.c.second, s.second, sizeof b->step.c.second);
    memcpy(b->step.c.first, s.first, sizeof b->step.c.first);
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
    sf_cuda_arrays *arrays = &b->levels.c->arrays;
    sf_cuda_want_state(arrays, &b->psi[axis][side], lines * (size_t)l->psi_width, sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(arrays, &b->zeta[axis][side], lines * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

/* z layers in local planes, clipped to the owned planes (points) and to
 * the planes with halos (half points). */
static void plan_layer_z(acoustic_state *b, const sf_problem *p, int side)
{
    sf_cpml_span span = sf_cpml_layer_span(&p->cpml[2], side, b->radius);
    sf_cuda_layer *l = &b->step.layer[2][side];
    long lo = sf_cuda_max(span.flo - b->z0, 0);
    long hlo = sf_cuda_max(span.hlo - b->z0, -SF_HALO);
    l->lo = (int)lo;
    l->hi = (int)sf_cuda_max(lo, sf_cuda_min(span.fhi - b->z0, p->nz));
    l->hlo = (int)hlo;
    l->psi_width = 0;
    b->half_hi[2][side] = sf_cuda_max(hlo, sf_cuda_min(span.hhi - b->z0, p->nz + SF_HALO));
    if (b->half_hi[2][side] <= hlo) {
        l->hi = l->lo;   /* no half-plane of the layer near this slab: nothing reads it */
        return;
    }
    size_t plane = (size_t)(p->nx * p->ny);
    sf_cuda_arrays *arrays = &b->levels.c->arrays;
    sf_cuda_want_state(arrays, &b->psi[2][side],
                       plane * (size_t)(b->half_hi[2][side] - hlo + 2 * SF_PSI_PAD), sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(arrays, &b->zeta[2][side], plane * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

static void plan_arrays(acoustic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->levels.c->L;
    sf_cuda_arrays *arrays = &b->levels.c->arrays;
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

/* The solids' law for this time step, their table and each point's place. */
static void upload_relaxation(acoustic_state *b, const sf_problem *p)
{
    const sf_relaxation_medium *r = b->relaxing;
    sf_relaxation_law *law = &b->step.relax.law;
    *law = sf_relaxation_law_for_step(r, p->dt);
    sf_cuda_upload(b->weights, r->weight, (size_t)((r->intervals + 1) * r->mechanisms) * sizeof(float),
                   "uploading the relaxation weights");
    law->weight = b->weights;
    sf_cuda_upload_planes(&b->levels.c->L, b->coordinate, r->coordinate, p->first_equal_plane,
                          "uploading the points' Q");
    b->step.relax.coordinate = b->coordinate;
}

/* The stencil's CPML arguments. */
static void setup_layers(acoustic_state *b)
{
    for (int a = 0; a < 3; ++a) {
        b->step.a[a] = b->levels.c->cpml[a].a;
        b->step.b[a] = b->levels.c->cpml[a].b;
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
    const sf_layout *L = &b->levels.c->L;
    float vdt2 = 0.0f;
    sf_cuda_download(&vdt2, b->vdt2 + sf_plane_index(L, w->i, w->j, w->k), sizeof vdt2,
                     b->levels.c->xfer.compute, "the model at the source");
    out->index = (long)sf_field_index(L, w->i, w->j, w->k);
    out->coef = w->weight * vdt2;
    return 1;
}

static void setup_tiling(acoustic_state *b)
{
    const long room = sf_cuda_tiling_room((int)b->levels.c->L.nx, (int)b->levels.c->L.ny);
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
    b->stencil.main = b->levels.c->xfer.compute;
    cudaEvent_t *events[2] = {&b->stencil.fork, &b->stencil.join};
    for (int e = 0; e < 2; ++e)
        SF_CUDA_CHECK(cudaEventCreateWithFlags(events[e], cudaEventDisableTiming), "creating events");
}

/* The stages, below. */
static void update_cpml_memory(void *state, long k0, long k1, cudaStream_t stream);
static void advance(void *state, long k0, long k1, cudaStream_t stream);

void *sf_cuda_acoustic_create_relaxing(sf_cuda_common *c, const sf_problem *p,
                                       const sf_relaxation_medium *relaxing)
{
    acoustic_state *b = (acoustic_state *)sf_calloc(1, sizeof *b, "the acoustic CUDA kernels");
    sf_cuda_levels_plan(&b->levels, c, p, 1, update_cpml_memory, advance);
    b->relaxing = relaxing;
    b->z0 = p->z0;
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
    sf_cuda_upload_planes(&b->levels.c->L, b->vdt2, p->param[SF_ACOUSTIC_PARAM_VP],
                          p->first_equal_plane, "uploading the model");
    sf_cuda_square_times(b->vdt2, b->levels.c->L.plane_size, p->dt, "the velocity term v^2 dt^2");
    if (b->relaxing) upload_relaxation(b, p);
    b->relaxing = NULL;   /* the medium's, which may go once uploaded */
    setup_layers(b);
    b->step.grid = b->levels.c->grid;
    b->step.z0 = (int)p->z0;
    b->step.zero_plane0 = b->levels.free_surface_here;
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

/* ---- halo planes ------------------------------------------------------ */

/* The stored psi_z half-plane k (local), or NULL. */
static float *psi_z_plane(const acoustic_state *b, long k)
{
    const sf_layout *L = &b->levels.c->L;
    for (int s = 0; s < 2; ++s) {
        const sf_cuda_layer *l = &b->step.layer[2][s];
        if (b->psi[2][s] && k >= l->hlo && k < b->half_hi[2][s])
            return b->psi[2][s] + (size_t)(SF_PSI_PAD + k - l->hlo) * (size_t)(L->nx * L->ny);
    }
    return NULL;
}

/* The group's SF_HALO planes from local plane k0 on; returns their row stride. */
static long halo_planes(const void *state, int g, int array, long k0, float *plane[SF_HALO])
{
    const acoustic_state *b = (const acoustic_state *)state;
    (void)array;   /* one a group */
    for (long q = 0; q < SF_HALO; ++q)
        plane[q] = g == SF_HALO_WAVEFIELD ? sf_cuda_levels_plane(&b->levels, 0, k0 + q)
                                          : psi_z_plane(b, k0 + q);
    return g == SF_HALO_WAVEFIELD ? b->levels.c->L.sx : b->levels.c->L.nx;
}

/* ---- the time step ------------------------------------------------------ */

/* psi and zeta of every layer over planes [k0, k1), from the current level. */
static void update_cpml_memory(void *state, long k0, long k1, cudaStream_t stream)
{
    acoustic_state *b = (acoustic_state *)state;
    const sf_layout *L = &b->levels.c->L;
    sf_cuda_memory_box boxes[SF_CUDA_MEMORY_BOXES];
    int count = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            if (!b->psi[axis][side]) continue;
            const sf_cuda_layer *l = &b->step.layer[axis][side];
            sf_cuda_memory_box *box = &boxes[count];
            if (axis < 2) {
                sf_cuda_memory_box_across(box, L, axis, l->hlo, b->half_hi[axis][side] - l->hlo, k0, k1,
                                          l->psi_width, SF_PSI_PAD);
            } else {
                const long lo = sf_cuda_max(l->hlo, k0), hi = sf_cuda_min(b->half_hi[2][side], k1);
                if (hi <= lo) continue;
                sf_cuda_memory_box_along_z(box, L, lo, hi, SF_PSI_PAD + lo - l->hlo, b->z0);
            }
            sf_cuda_memory_box_of(box, b->psi[axis][side], &b->levels.c->cpml[axis], b->step.c.first[axis]);
            ++count;
        }
    sf_cuda_update_memory(boxes, count, b->levels.cur[0], b->levels.c->grid, b->radius, stream);
}

/* The new level over the previous one, on the stencil's streams. */
static void advance(void *state, long k0, long k1, cudaStream_t stream)
{
    acoustic_state *b = (acoustic_state *)state;
    (void)stream;   /* the stencil's streams, the compute stream as main */
    b->step.next = b->levels.prev[0];
    b->step.cur = b->levels.cur[0];
    sf_cuda_advance(&b->step, &b->tiling, b->radius, (int)k0, (int)k1, &b->stencil);
}

extern const sf_cuda_physics sf_cuda_acoustic_kernels =
    SF_CUDA_LEVELS_PHYSICS("acoustic", acoustic_create, acoustic_upload, setup_frame_stream,
                           acoustic_destroy, place_source, halo_planes);

SF_CUDA_BACKEND(sf_backend_cuda_acoustic, sf_cuda_acoustic_kernels, NULL)
