/* The CUDA backend's plumbing that needs no physics: arrays, the CPML
 * coefficients, streams, the acquisition tables and what reads them back. */
#include "cuda_common.h"
#include "cuda_physics.h"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_error.h"
}

/* 128-byte rows: a warp's row segment is one aligned line. */
enum { ROW_ALIGN = 32 };

void sf_cuda_common_init(sf_cuda_common *c, const sf_problem *p, const sf_cuda_physics *physics)
{
    sf_layout_init(&c->L, p->nx, p->ny, p->nz, ROW_ALIGN);
    c->grid.nx = (int)p->nx;
    c->grid.ny = (int)p->ny;
    c->grid.nz = (int)p->nz;
    c->grid.gx = c->L.gx;
    c->grid.sx = c->L.sx;
    c->grid.sp = c->L.sp;
    c->physics = physics;
    for (int a = 0; a < 3; ++a) {
        sf_cuda_cpml_coefficients *k = &c->cpml[a];
        float **arrays[4] = {&k->a, &k->b, &k->a_half, &k->b_half};
        for (int q = 0; q < 4; ++q)
            sf_cuda_want(&c->arrays, arrays[q], (size_t)p->cpml[a].n, sizeof(float), "CPML coefficients");
    }
}

void sf_cuda_common_plan(sf_cuda_common *c, const size_t halo_count[SF_MAX_HALO_GROUPS],
                         const int neighbour[2])
{
    sf_cuda_want(&c->arrays, &c->guard, 1, sizeof(unsigned long long), "the instability guard");
    sf_cuda_want(&c->arrays, &c->norm_partial,
                 (size_t)SF_CUDA_NORM_BLOCKS * SF_GUARD_MAX_FIELDS * SF_REGIONS,
                 sizeof(double), "the instability guard");
    sf_cuda_halo_plan(&c->xfer, &c->arrays, halo_count, neighbour);
}

void sf_cuda_common_allocate(sf_cuda_common *c)
{
    sf_cuda_allocate(&c->arrays, c->L.nx, c->L.ny, c->L.nz);
}

void sf_cuda_common_upload_cpml(sf_cuda_common *c, const sf_problem *p)
{
    for (int a = 0; a < 3; ++a) {
        const sf_cpml_axis *ax = &p->cpml[a];
        const sf_cuda_cpml_coefficients *k = &c->cpml[a];
        float *device[4] = {k->a, k->b, k->a_half, k->b_half};
        const float *host[4] = {ax->a, ax->b, ax->a_half, ax->b_half};
        for (int q = 0; q < 4; ++q)
            sf_cuda_upload(device[q], host[q], (size_t)ax->n * sizeof(float), "uploading CPML coefficients");
    }
}

/* ---- acquisition ---------------------------------------------------------- */

/* The source and receiver tables live in arrays of their own, replaced
 * for every shot (their sizes change with the shot's geometry). */
static void plan_acquisition(sf_cuda_common *c, const sf_problem *p)
{
    sf_cuda_arrays *a = &c->acquisition;
    sf_cuda_sources *s = &c->source;
    sf_cuda_receivers *r = &c->receivers;
    const size_t n = (size_t)p->source_count, nc = (size_t)p->channel_count;
    const size_t np = nc ? (size_t)p->channel_offset[nc] : 0;
    const int grouped = c->physics->grouped_sources, components = c->physics->channel_components;
    sf_cuda_want(a, &s->index, n, sizeof(long), "source points");
    sf_cuda_want(a, &s->coef, n, sizeof(float), "source points");
    sf_cuda_want(a, &s->plane, n, sizeof(int), "source points");
    sf_cuda_want(a, &s->group, grouped ? n : 0, sizeof(int), "source points");
    sf_cuda_want(a, &r->component, components ? nc : 0, sizeof(int), "receiver channels");
    sf_cuda_want(a, &r->offset, nc + 1, sizeof(long), "receiver channels");
    sf_cuda_want(a, &r->index, np, sizeof(long), "receiver points");
    sf_cuda_want(a, &r->weight, np, sizeof(float), "receiver points");
    sf_cuda_want(a, &r->previous, components ? nc : 0, sizeof(float), "receiver channels");
    sf_cuda_want(a, &r->samples, nc * (size_t)p->sample_block, sizeof(float), "receiver samples");
}

/* The points the physics keeps, in the shot's order. */
static void upload_sources(sf_cuda_common *c, const void *state, const sf_problem *p)
{
    sf_cuda_sources *s = &c->source;
    const long n = p->source_count;
    long *index = (long *)sf_malloc((size_t)(n + 1) * sizeof(long), "source points");
    float *coef = (float *)sf_malloc((size_t)(n + 1) * sizeof(float), "source points");
    s->plane_host = (int *)sf_malloc((size_t)(n + 1) * sizeof(int), "source points");
    if (c->physics->grouped_sources) s->group_host = (int *)sf_malloc((size_t)(n + 1) * sizeof(int), "source points");
    long count = 0;
    for (long q = 0; q < n; ++q) {
        sf_cuda_source_point at = {0, 0.0f, 0};
        if (!c->physics->place_source(state, p, &p->source[q], &at)) continue;
        index[count] = at.index;
        coef[count] = at.coef;
        s->plane_host[count] = p->source[q].k;
        if (s->group_host) s->group_host[count] = at.group;
        ++count;
    }
    s->count = count;
    sf_cuda_upload(s->index, index, (size_t)count * sizeof(long), "uploading the source");
    sf_cuda_upload(s->coef, coef, (size_t)count * sizeof(float), "uploading the source");
    sf_cuda_upload(s->plane, s->plane_host, (size_t)count * sizeof(int), "uploading the source");
    if (s->group_host)
        sf_cuda_upload(s->group, s->group_host, (size_t)count * sizeof(int), "uploading the source");
    free(index);
    free(coef);
}

static void upload_components(sf_cuda_receivers *r, const sf_problem *p)
{
    const long nc = p->channel_count;
    int *component = (int *)sf_malloc((size_t)(nc + 1) * sizeof(int), "receiver channels");
    for (long n = 0; n < nc; ++n) component[n] = (int)p->channel_component[n];
    sf_cuda_upload(r->component, component, (size_t)nc * sizeof(int), "uploading the receivers");
    free(component);
}

static void upload_receivers(sf_cuda_common *c, const sf_problem *p)
{
    sf_cuda_receivers *r = &c->receivers;
    const long nc = p->channel_count, np = nc ? p->channel_offset[nc] : 0;
    long *index = (long *)sf_malloc((size_t)(np + 1) * sizeof(long), "receiver points");
    float *weight = (float *)sf_malloc((size_t)(np + 1) * sizeof(float), "receiver points");
    for (long n = 0; n < np; ++n) {
        const sf_point_weight *w = &p->channel_points[n];
        index[n] = (long)sf_field_index(&c->L, w->i, w->j, w->k);
        weight[n] = w->weight;
    }
    if (c->physics->channel_components) upload_components(r, p);
    if (nc)
        sf_cuda_upload(r->offset, p->channel_offset, (size_t)(nc + 1) * sizeof(long),
                       "uploading the receivers");
    sf_cuda_upload(r->index, index, (size_t)np * sizeof(long), "uploading the receivers");
    sf_cuda_upload(r->weight, weight, (size_t)np * sizeof(float), "uploading the receivers");
    free(index);
    free(weight);
    r->count = nc;
    r->sample_block = p->sample_block;
}

void sf_cuda_common_setup_acquisition(sf_cuda_common *c, const void *state, const sf_problem *p)
{
    plan_acquisition(c, p);
    sf_cuda_allocate(&c->acquisition, c->L.nx, c->L.ny, c->L.nz);
    upload_sources(c, state, p);
    upload_receivers(c, p);
    sf_cuda_receivers *r = &c->receivers;
    r->samples_host = (float *)sf_cuda_pinned((size_t)r->count * (size_t)r->sample_block * sizeof(float),
                                              "pinned receiver samples");
}

static void free_acquisition(sf_cuda_common *c)
{
    sf_cuda_free_arrays(&c->acquisition);
    SF_CUDA_CHECK(cudaFreeHost(c->receivers.samples_host), "freeing pinned buffers");
    c->receivers.samples_host = NULL;
    free(c->source.plane_host);
    free(c->source.group_host);
    c->source.plane_host = c->source.group_host = NULL;
}

/* ---- streams, teardown, shots --------------------------------------------- */

void sf_cuda_common_start(sf_cuda_common *c, sf_halo_transport transport)
{
    sf_cuda_halo_start(&c->xfer, transport);
    c->timers = sf_gpu_timers_create();
    c->norm_partial_host = (double *)sf_cuda_pinned(
        (size_t)SF_CUDA_NORM_BLOCKS * SF_GUARD_MAX_FIELDS * SF_REGIONS * sizeof(double),
        "pinned instability guard sums");
    /* The zeroing and uploads ran on the legacy stream, which the
     * non-blocking streams do not wait for. */
    SF_CUDA_CHECK(cudaDeviceSynchronize(), "finishing the set-up");
}

void sf_cuda_common_destroy(sf_cuda_common *c)
{
    SF_CUDA_CHECK(cudaDeviceSynchronize(), "finishing before teardown");
    sf_cuda_free_arrays(&c->arrays);
    free_acquisition(c);
    SF_CUDA_CHECK(cudaFree(c->lattice), "freeing the lattice buffer");
    SF_CUDA_CHECK(cudaFreeHost(c->norm_partial_host), "freeing pinned buffers");
    sf_gpu_timers_destroy(c->timers);
    sf_cuda_halo_destroy(&c->xfer);
}

size_t sf_cuda_common_memory_bytes(const sf_cuda_common *c)
{
    return c->arrays.bytes + c->acquisition.bytes;
}

void sf_cuda_common_reset(sf_cuda_common *c, void *state, const sf_problem *p)
{
    sf_cuda_halo_synchronize(&c->xfer);
    sf_cuda_zero_state(&c->arrays, c->xfer.compute);
    SF_CUDA_CHECK(cudaStreamSynchronize(c->xfer.compute), "zeroing the state of the last shot");
    sf_cuda_common_upload_cpml(c, p);
    free_acquisition(c);
    sf_cuda_common_setup_acquisition(c, state, p);
    /* The uploads ran on the legacy stream, which the non-blocking streams
     * do not wait for. */
    SF_CUDA_CHECK(cudaDeviceSynchronize(), "setting up a shot");
}

/* ---- the time loop --------------------------------------------------------- */

int sf_cuda_common_find_nonfinite(sf_cuda_common *c, const float *const *fields, int count,
                                  sf_nonfinite *where)
{
    for (int f = 0; f < count; ++f) {
        unsigned long long first = sf_cuda_first_nonfinite(fields[f], c->grid, c->guard, c->xfer.compute);
        if (first == SF_CUDA_ALL_FINITE) continue;
        *where = sf_nonfinite_at(f, (long)first, c->L.nx, c->L.ny);
        return 1;
    }
    return 0;
}

void sf_cuda_common_amplify(sf_cuda_common *c, float factor)
{
    sf_cuda_scale_state(&c->arrays, factor, c->xfer.compute);
}

int sf_cuda_common_field_norms(sf_cuda_common *c, const float *const *fields, int count,
                               const sf_regions *r, double sums[][SF_REGIONS])
{
    sf_cuda_region_squares(fields, count, c->grid, r, c->norm_partial, c->norm_partial_host,
                           c->xfer.compute, sums);
    return count;
}

/* From the host's copy: launches for planes without a source point are
 * skipped. */
int sf_cuda_common_sources_in(const sf_cuda_common *c, int group, long k0, long k1)
{
    const sf_cuda_sources *s = &c->source;
    for (long n = 0; n < s->count; ++n)
        if ((!s->group_host || s->group_host[n] == group) && s->plane_host[n] >= k0 && s->plane_host[n] < k1)
            return 1;
    return 0;
}

void sf_cuda_common_inject(sf_cuda_common *c, float *const *fields, int count, float amplitude,
                           long k0, long k1)
{
    const sf_cuda_sources *s = &c->source;
    if (!sf_cuda_common_sources_in(c, 0, k0, k1)) return;
    sf_gpu_timers_begin(c->timers, SF_PHASE_ACQUISITION, c->xfer.compute);
    for (int f = 0; f < count; ++f)
        sf_cuda_inject(fields[f], s->index, s->coef, s->plane, (int)s->count, amplitude, (int)k0, (int)k1,
                       c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

void sf_cuda_common_sample(sf_cuda_common *c, int slot, const float *field)
{
    const sf_cuda_receivers *r = &c->receivers;
    if (r->count == 0) return;
    sf_gpu_timers_begin(c->timers, SF_PHASE_ACQUISITION, c->xfer.compute);
    sf_cuda_sample(r->samples + (size_t)slot * (size_t)r->count, field, r->index, r->weight, r->offset,
                   (int)r->count, c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

void sf_cuda_common_fetch_receivers(sf_cuda_common *c, int count, float *out)
{
    const sf_cuda_receivers *r = &c->receivers;
    size_t bytes = (size_t)count * (size_t)r->count * sizeof(float);
    if (bytes == 0) return;
    sf_cuda_download(r->samples_host, r->samples, bytes, c->xfer.compute, "receiver samples");
    memcpy(out, r->samples_host, bytes);
}

float *sf_cuda_common_lattice(sf_cuda_common *c, const sf_sampling_lattice *s, long extent[3])
{
    extent[0] = sf_lattice_points(c->L.nz, s->k0, s->dk);
    extent[1] = sf_lattice_points(c->L.ny, 0, s->dj);
    extent[2] = sf_lattice_points(c->L.nx, 0, s->di);
    const size_t count = (size_t)(extent[0] * extent[1] * extent[2]);
    if (count == 0) return NULL;
    return sf_cuda_grow(&c->lattice, &c->lattice_floats, count, "the snapshot buffer");
}

void sf_cuda_memory_box_across(sf_cuda_memory_box *box, const sf_layout *L, int axis, long start,
                               long count, long k0, long k1, long width, long offset)
{
    const long nx = L->nx, ny = L->ny;
    memset(box, 0, sizeof *box);
    box->axis = axis;
    box->lo[axis] = (int)start;
    box->lo[2] = (int)k0;
    box->n[0] = (int)(axis == 0 ? count : nx);
    box->n[1] = (int)(axis == 1 ? count : ny);
    box->n[2] = (int)(k1 - k0);
    box->psi_stride[0] = 1;
    box->psi_stride[1] = axis == 0 ? width : nx;
    box->psi_stride[2] = axis == 0 ? ny * width : width * nx;
    box->psi_base = axis == 0 ? k0 * ny * width + offset : (k0 * width + offset) * nx;
}

void sf_cuda_memory_box_along_z(sf_cuda_memory_box *box, const sf_layout *L, long lo, long hi,
                                long first_plane, long z0)
{
    const long nx = L->nx, ny = L->ny;
    memset(box, 0, sizeof *box);
    box->axis = 2;
    box->lo[2] = (int)lo;
    box->n[0] = (int)nx, box->n[1] = (int)ny, box->n[2] = (int)(hi - lo);
    box->psi_stride[0] = 1;
    box->psi_stride[1] = nx;
    box->psi_stride[2] = nx * ny;
    box->psi_base = first_plane * nx * ny;
    box->coefficient_shift = (int)z0;
}

void sf_cuda_memory_box_of(sf_cuda_memory_box *box, float *psi, const sf_cuda_cpml_coefficients *c,
                           const float first[SF_MAX_RADIUS + 1])
{
    box->psi = psi;
    box->a_half = c->a_half;
    box->b_half = c->b_half;
    memcpy(box->first, first, sizeof box->first);
}
