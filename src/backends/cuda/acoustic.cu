/* CUDA backend: every array of the slab (fields, model, CPML memory and
 * coefficients, acquisition) lives on one GPU for the whole run. Stencil
 * work runs in order on a compute stream; halo planes are packed, copied
 * and unpacked on a second, higher-priority stream that waits on events,
 * so the exchange overlaps the interior update. Only halo planes leave
 * the GPU every step (through the host, or device to device with GPU-aware
 * MPI); receiver samples come back in blocks. */
#include "cuda_common.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_acoustic.h"
#include "sf_error.h"
}

/* Planes per block: on 1000^3, 64 and 128 ran alike and a whole column
 * (1000) 14% slower, its last wave of blocks part empty. */
enum { Z_CHUNK = 128 };

struct sf_backend {
    sf_cuda_common c;               /* layout, arrays, streams, acquisition */
    long z0;
    int radius, free_surface_here;
    float *p_prev, *p_cur, *vdt2;
    float *coef[4][3];              /* a, b, a_half, b_half per axis */
    float *psi[3][2], *zeta[3][2];  /* [axis][side] */
    long half_hi[3][2];             /* one past the last stored half point (z: local) */
    sf_cuda_step step;              /* kernel arguments; fields set per launch */
    sf_cuda_tiling tiling;
    sf_cuda_streams stencil;        /* compute as main, and a side stream for the frame tiles */
};

static long max_long(long a, long b) { return a > b ? a : b; }
static long min_long(long a, long b) { return a < b ? a : b; }

static void setup_coefficients(sf_backend *b, const sf_problem *p)
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
static void plan_layer_xy(sf_backend *b, const sf_problem *p, int axis, int side)
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
    sf_cuda_want_state(&b->c.arrays, &b->psi[axis][side], lines * (size_t)l->psi_width, sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(&b->c.arrays, &b->zeta[axis][side], lines * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

/* z layers in local planes, clipped to the owned planes (points) and to
 * the planes with halos (half points). */
static void plan_layer_z(sf_backend *b, const sf_problem *p, int side)
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
    sf_cuda_want_state(&b->c.arrays, &b->psi[2][side],
                       plane * (size_t)(b->half_hi[2][side] - hlo + 2 * SF_PSI_PAD), sizeof(float),
                       "CPML memory");
    sf_cuda_want_state(&b->c.arrays, &b->zeta[2][side], plane * (size_t)(l->hi - l->lo), sizeof(float),
                       "CPML memory");
}

static void plan_arrays(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->c.L;
    sf_cuda_arrays *arrays = &b->c.arrays;
    sf_cuda_want_state(arrays, &b->p_prev, L->field_size, sizeof(float), "the wavefield");
    sf_cuda_want_state(arrays, &b->p_cur, L->field_size, sizeof(float), "the wavefield");
    sf_cuda_want(arrays, &b->vdt2, L->plane_size, sizeof(float), "the velocity term v^2 dt^2");
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 4; ++c)
            sf_cuda_want(arrays, &b->coef[c][a], (size_t)p->cpml[a].n, sizeof(float), "CPML coefficients");
    for (int side = 0; side < 2; ++side) {
        plan_layer_xy(b, p, 0, side);
        plan_layer_xy(b, p, 1, side);
        plan_layer_z(b, p, side);
    }
    const size_t planes = (size_t)(SF_HALO * p->nx * p->ny), counts[SF_MAX_HALO_GROUPS] = {planes, planes};
    sf_cuda_common_plan(&b->c, counts);
    sf_cuda_want(arrays, &b->tiling.tiles, (size_t)sf_cuda_tiling_room(p->nx, p->ny), sizeof(int4),
                 "the stencil's tile list");
}

/* v^2 dt^2 a plane at a time, in the field layout (zero padding). */
static void upload_model(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->c.L;
    float *plane = (float *)sf_calloc((size_t)L->sp, sizeof(float), "a plane of the model");
    for (long k = 0; k < L->nz; ++k) {
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                double v = p->param[SF_ACOUSTIC_PARAM_VP][(k * L->ny + j) * L->nx + i];
                plane[sf_plane_index(L, i, j, 0)] = (float)(v * v * p->dt * p->dt);
            }
        sf_cuda_upload(b->vdt2 + k * L->sp, plane, (size_t)L->sp * sizeof(float), "uploading the model");
    }
    free(plane);
}

static void upload_cpml(sf_backend *b, const sf_problem *p)
{
    for (int a = 0; a < 3; ++a) {
        const sf_cpml_axis *ax = &p->cpml[a];
        const float *host[4] = {ax->a, ax->b, ax->a_half, ax->b_half};
        for (int c = 0; c < 4; ++c)
            sf_cuda_upload(b->coef[c][a], host[c], (size_t)ax->n * sizeof(float), "uploading CPML coefficients");
        b->step.a[a] = b->coef[0][a];
        b->step.b[a] = b->coef[1][a];
        for (int s = 0; s < 2; ++s) {
            b->step.layer[a][s].psi = b->psi[a][s];
            b->step.layer[a][s].zeta = b->zeta[a][s];
        }
    }
}

/* The CPU backend's source coefficient, w v^2 dt^2 in double. */
static int place_source(const sf_backend *b, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out)
{
    const sf_layout *L = &b->c.L;
    double v = p->param[SF_ACOUSTIC_PARAM_VP][((long)w->k * L->ny + w->j) * L->nx + w->i];
    out->index = (long)sf_field_index(L, w->i, w->j, w->k);
    out->coef = w->weight * (float)(v * v * p->dt * p->dt);
    return 1;
}

static void setup_tiling(sf_backend *b)
{
    const long room = sf_cuda_tiling_room((int)b->c.L.nx, (int)b->c.L.ny);
    int4 *tiles = (int4 *)sf_malloc((size_t)room * sizeof(int4), "the stencil's tile list");
    sf_cuda_tiling_plan(&b->tiling, &b->step, tiles);
    sf_cuda_upload(b->tiling.tiles, tiles, (size_t)b->tiling.tile_count * sizeof(int4), "uploading the tile list");
    free(tiles);
    b->tiling.z_chunk = Z_CHUNK;
}

/* After the common streams: frame blocks, dispatched first on a stream of
 * their own, end with the interior's rather than after them. */
static void setup_frame_stream(sf_backend *b)
{
    int least = 0, greatest = 0;
    SF_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "creating streams");
    SF_CUDA_CHECK(cudaStreamCreateWithPriority(&b->stencil.side, cudaStreamNonBlocking, greatest),
                  "creating the frame stream");
    b->stencil.main = b->c.xfer.compute;
    cudaEvent_t *events[2] = {&b->stencil.fork, &b->stencil.join};
    for (int e = 0; e < 2; ++e)
        SF_CUDA_CHECK(cudaEventCreateWithFlags(events[e], cudaEventDisableTiming), "creating events");
}

static const sf_cuda_physics PHYSICS = {place_source, upload_cpml, 0, 0};

static sf_backend *cuda_create(const sf_problem *p)
{
    sf_backend *b = (sf_backend *)sf_calloc(1, sizeof *b, "the CUDA backend");
    sf_cuda_common_init(&b->c, p, &PHYSICS);
    b->z0 = p->z0;
    b->free_surface_here = p->free_surface && p->z0 == 0;
    setup_coefficients(b, p);
    plan_arrays(b, p);
    sf_cuda_common_allocate(&b->c);
    upload_model(b, p);
    upload_cpml(b, p);
    sf_cuda_common_setup_acquisition(&b->c, b, p);
    b->step.grid = b->c.grid;
    b->step.z0 = (int)p->z0;
    b->step.zero_plane0 = b->free_surface_here;
    b->step.vdt2 = b->vdt2;
    setup_tiling(b);
    sf_cuda_common_start(&b->c, p->halo_transport);
    setup_frame_stream(b);
    return b;
}

static void cuda_destroy(sf_backend *b)
{
    if (!b) return;
    sf_cuda_common_destroy(&b->c);
    SF_CUDA_CHECK(cudaEventDestroy(b->stencil.fork), "destroying events");
    SF_CUDA_CHECK(cudaEventDestroy(b->stencil.join), "destroying events");
    SF_CUDA_CHECK(cudaStreamDestroy(b->stencil.side), "destroying streams");
    free(b);
}

static size_t cuda_memory_bytes(const sf_backend *b) { return sf_cuda_common_memory_bytes(&b->c); }

/* ---- shots --------------------------------------------------------------- */

static void cuda_reset(sf_backend *b, const sf_problem *p) { sf_cuda_common_reset(&b->c, b, p); }

static int cuda_find_nonfinite(sf_backend *b, sf_nonfinite *where)
{
    return sf_cuda_common_find_nonfinite(&b->c, &b->p_cur, 1, where);
}

static void cuda_amplify(sf_backend *b, float factor) { sf_cuda_common_amplify(&b->c, factor); }

static int cuda_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS])
{
    return sf_cuda_common_field_norms(&b->c, &b->p_cur, 1, r, sums);
}

/* ---- halo planes ------------------------------------------------------ */

static size_t cuda_halo_count(const sf_backend *b, int g) { return b->c.xfer.count[g]; }

static float *cuda_send(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_send_buffer(&b->c.xfer, g, s);
}

static float *cuda_recv(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_recv_buffer(&b->c.xfer, g, s);
}

/* The stored psi_z half-plane k (local), or NULL. */
static float *psi_z_plane(const sf_backend *b, long k)
{
    for (int s = 0; s < 2; ++s) {
        const sf_cuda_layer *l = &b->step.layer[2][s];
        if (b->psi[2][s] && k >= l->hlo && k < b->half_hi[2][s])
            return b->psi[2][s] + (size_t)(SF_PSI_PAD + k - l->hlo) * (size_t)(b->c.L.nx * b->c.L.ny);
    }
    return NULL;
}

/* The group's SF_HALO planes from local plane k0 on; returns their row stride. */
static long group_planes(const sf_backend *b, int g, long k0, float *plane[SF_HALO])
{
    for (long q = 0; q < SF_HALO; ++q)
        plane[q] = g == SF_HALO_WAVEFIELD ? b->p_prev + sf_field_index(&b->c.L, 0, 0, k0 + q)
                                          : psi_z_plane(b, k0 + q);
    return g == SF_HALO_WAVEFIELD ? b->c.L.sx : b->c.L.nx;
}

static void cuda_halo_pack(sf_backend *b, int g, sf_side s)
{
    sf_cuda_plane_sources from;
    float *plane[SF_HALO];
    long stride = group_planes(b, g, s == SF_SIDE_LOWER ? 0 : b->c.L.nz - SF_HALO, plane);
    for (int q = 0; q < SF_HALO; ++q) from.plane[q] = plane[q];
    sf_cuda_halo_after_edges(&b->c.xfer);
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_HALO_PACK, b->c.xfer.halo);
    sf_cuda_pack_planes(b->c.xfer.send[g][s], from, stride, b->c.grid.nx, b->c.grid.ny, b->c.xfer.halo);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.halo);
    sf_cuda_halo_to_host(&b->c.xfer, b->c.timers, g, s);
}

static void cuda_halo_wait_packed(sf_backend *b) { sf_cuda_halo_wait_packed(&b->c.xfer); }

static void cuda_halo_unpack(sf_backend *b, int g, sf_side s)
{
    sf_cuda_plane_targets to;
    float *plane[SF_HALO];
    long stride = group_planes(b, g, s == SF_SIDE_LOWER ? -SF_HALO : b->c.L.nz, plane);
    for (int q = 0; q < SF_HALO; ++q) to.plane[q] = plane[q];
    sf_cuda_halo_from_host(&b->c.xfer, b->c.timers, g, s);
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_HALO_UNPACK, b->c.xfer.halo);
    sf_cuda_unpack_planes(to, stride, b->c.xfer.recv[g][s], b->c.grid.nx, b->c.grid.ny, b->c.xfer.halo);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.halo);
    /* Later compute reads these halos. */
    sf_cuda_halo_before_compute(&b->c.xfer);
}

static void cuda_mirror_free_surface(sf_backend *b)
{
    if (!b->free_surface_here) return;
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_STENCIL, b->c.xfer.compute);
    sf_cuda_mirror_surface(b->p_cur, b->c.grid, b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

/* ---- the time step ------------------------------------------------------ */

static void memory_box_xy(const sf_backend *b, int axis, int side, long k0, long k1,
                          sf_cuda_memory_box *box)
{
    const sf_cuda_layer *l = &b->step.layer[axis][side];
    const long nx = b->c.L.nx, ny = b->c.L.ny, width = l->psi_width, halves = b->half_hi[axis][side] - l->hlo;
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
static int memory_box_z(const sf_backend *b, int side, long k0, long k1, sf_cuda_memory_box *box)
{
    const sf_cuda_layer *l = &b->step.layer[2][side];
    long lo = max_long(l->hlo, k0), hi = min_long(b->half_hi[2][side], k1);
    if (hi <= lo) return 0;
    const long nx = b->c.L.nx, ny = b->c.L.ny;
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

static void cuda_update_cpml_memory(sf_backend *b, long k0, long k1)
{
    if (k1 <= k0) return;
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_STENCIL, b->c.xfer.compute);
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
            box->a_half = b->coef[2][axis];
            box->b_half = b->coef[3][axis];
            memcpy(box->first, b->step.c.first[axis], sizeof box->first);
            ++count;
        }
    sf_cuda_update_memory(boxes, count, b->p_cur, b->c.grid, b->radius, b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

static void cuda_advance(sf_backend *b, long k0, long k1)
{
    if (k1 <= k0) return;
    b->step.next = b->p_prev;
    b->step.cur = b->p_cur;
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_STENCIL, b->c.xfer.compute);
    sf_cuda_advance(&b->step, &b->tiling, b->radius, (int)k0, (int)k1, &b->stencil);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

static void cuda_update(sf_backend *b, int stage, long k0, long k1)
{
    if (stage == SF_ACOUSTIC_MEMORY)
        cuda_update_cpml_memory(b, k0, k1);
    else
        cuda_advance(b, k0, k1);
}

static void cuda_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1)
{
    if (stage == SF_ACOUSTIC_ADVANCE) sf_cuda_common_inject(&b->c, &b->p_prev, 1, amplitude, k0, k1);
}

/* The new level becomes the current one, with its images above a free
 * surface (the next step's memory update reads them). */
static void cuda_finish_stage(sf_backend *b, int stage)
{
    if (stage != SF_ACOUSTIC_ADVANCE) return;
    float *t = b->p_prev;
    b->p_prev = b->p_cur;
    b->p_cur = t;
    cuda_mirror_free_surface(b);
}

/* ---- receivers and snapshots ------------------------------------------ */

static void cuda_sample_receivers(sf_backend *b, int slot) { sf_cuda_common_sample(&b->c, slot, b->p_cur); }

static void cuda_fetch_receivers(sf_backend *b, int count, float *out)
{
    sf_cuda_common_fetch_receivers(&b->c, count, out);
}

static void cuda_fetch_field(sf_backend *b, sf_component c, const sf_sampling_lattice *s,
                             float *out)
{
    (void)c;   /* the pressure is the only one */
    sf_cuda_common_fetch_field(&b->c, b->p_cur, s, out);
}

static void cuda_synchronize(sf_backend *b) { sf_cuda_halo_synchronize(&b->c.xfer); }

static void cuda_take_timers(sf_backend *b, double *seconds) { sf_gpu_timers_take(b->c.timers, seconds); }

extern "C" const sf_backend_ops *sf_backend_cuda_acoustic(void)
{
    static const sf_backend_ops ops = SF_BACKEND_OPS("cuda", cuda, NULL);
    return &ops;
}
