/* The CUDA backend, for every physics: the plumbing around a physics'
 * kernels (cuda_physics.h). Every array of the slab (fields, medium, CPML,
 * acquisition) lives on one GPU for the whole run. Stencil work runs in
 * order on a compute stream; halo planes are packed, copied and unpacked
 * on a second, higher-priority stream that waits on events, so the
 * exchange overlaps the interior update. Only halo planes leave the GPU
 * every step (through the host, or device to device with GPU-aware MPI);
 * receiver samples come back in blocks. */
#include "cuda_backend.h"

#include <stdlib.h>

extern "C" {
#include "sf_error.h"
}

struct sf_backend {
    sf_cuda_common c;        /* layout, arrays, streams, acquisition; c.physics: the kernel table */
    void *state;             /* the physics' */
};

/* ---- set-up ------------------------------------------------------------- */

static void require(const sf_cuda_physics *k, int present, const char *what)
{
    if (!present) sf_fatal("internal: the %s CUDA kernels have no %s", k->name, what);
}

static void check_kernels(const sf_cuda_physics *k)
{
    require(k, k->create != NULL, "create"), require(k, k->upload != NULL, "upload");
    require(k, k->update != NULL, "update");
    require(k, k->finish_stage != NULL, "finish_stage"), require(k, k->mirror != NULL, "mirror");
    require(k, k->place_source != NULL, "place_source");
    require(k, k->inject || k->source_arrays, "source_arrays");
    require(k, k->halo_arrays != NULL, "halo_arrays");
    require(k, k->move_halo || k->halo_planes, "halo_planes");
    require(k, (k->sample_receivers && k->gather_lattice) || k->component, "component");
    require(k, k->guard_fields != NULL, "guard_fields");
    if (k->halo_groups < 1 || k->halo_groups > SF_MAX_HALO_GROUPS)
        sf_fatal("internal: the %s CUDA kernels have %d halo groups", k->name, k->halo_groups);
}

/* Each group's buffers hold its arrays' SF_HALO planes a side. */
static void plan_halos(sf_backend *b, const int neighbour[2])
{
    const sf_cuda_physics *k = b->c.physics;
    size_t counts[SF_MAX_HALO_GROUPS] = {0};
    for (int g = 0; g < k->halo_groups; ++g)
        counts[g] = (size_t)k->halo_arrays(b->state, g) * SF_HALO * (size_t)(b->c.L.nx * b->c.L.ny);
    sf_cuda_common_plan(&b->c, counts, neighbour);
}

sf_backend *sf_cuda_backend_create(const sf_cuda_physics *physics, const sf_problem *p)
{
    check_kernels(physics);
    sf_backend *b = (sf_backend *)sf_calloc(1, sizeof *b, "the CUDA backend");
    sf_cuda_common_init(&b->c, p, physics);
    b->state = physics->create(&b->c, p);
    plan_halos(b, p->neighbour);
    sf_cuda_common_allocate(&b->c);
    sf_cuda_common_upload_cpml(&b->c, p);
    physics->upload(b->state, p);
    sf_cuda_common_setup_acquisition(&b->c, b->state, p);
    sf_cuda_common_start(&b->c, p->halo_transport);
    if (physics->start) physics->start(b->state);
    return b;
}

void sf_cuda_backend_destroy(sf_backend *b)
{
    if (!b) return;
    sf_cuda_common_destroy(&b->c);
    if (b->c.physics->destroy) b->c.physics->destroy(b->state);
    else free(b->state);
    free(b);
}

size_t sf_cuda_backend_memory_bytes(const sf_backend *b) { return sf_cuda_common_memory_bytes(&b->c); }

/* ---- halo planes -------------------------------------------------------- */

size_t sf_cuda_backend_halo_count(const sf_backend *b, int g) { return b->c.xfer.count[g]; }

float *sf_cuda_backend_send_buffer(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_send_buffer(&b->c.xfer, g, s);
}

float *sf_cuda_backend_recv_buffer(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_recv_buffer(&b->c.xfer, g, s);
}

/* Queues the moves of group g's planes from k0 on to (to_buffer) or from
 * the buffer on the halo stream, each array in its part of the buffer,
 * [array][plane][ny][nx] as on the CPU. */
static void move_group(sf_backend *b, int g, long k0, float *buffer, int to_buffer)
{
    const sf_cuda_physics *k = b->c.physics;
    const sf_cuda_grid *grid = &b->c.grid;
    cudaStream_t stream = b->c.xfer.halo;
    if (k->move_halo) {
        k->move_halo(b->state, g, k0, buffer, to_buffer, stream);
        return;
    }
    const size_t part = (size_t)SF_HALO * (size_t)(b->c.L.nx * b->c.L.ny);
    for (int a = 0; a < k->halo_arrays(b->state, g); ++a) {
        float *plane[SF_HALO];
        const long stride = k->halo_planes(b->state, g, a, k0, plane);
        if (to_buffer) {
            sf_cuda_plane_sources from;
            for (int q = 0; q < SF_HALO; ++q) from.plane[q] = plane[q];
            sf_cuda_pack_planes(buffer + (size_t)a * part, from, stride, grid->nx, grid->ny, stream);
        } else {
            sf_cuda_plane_targets to;
            for (int q = 0; q < SF_HALO; ++q) to.plane[q] = plane[q];
            sf_cuda_unpack_planes(to, stride, buffer + (size_t)a * part, grid->nx, grid->ny, stream);
        }
    }
}

void sf_cuda_backend_halo_pack(sf_backend *b, int g, sf_side s)
{
    sf_cuda_common *c = &b->c;
    const long k0 = s == SF_SIDE_LOWER ? 0 : c->L.nz - SF_HALO;
    sf_cuda_halo_after_edges(&c->xfer);
    sf_gpu_timers_begin(c->timers, SF_PHASE_HALO_PACK, c->xfer.halo);
    move_group(b, g, k0, c->xfer.send[g][s], 1);
    sf_gpu_timers_end(c->timers, c->xfer.halo);
    sf_cuda_halo_to_host(&c->xfer, c->timers, g, s);
}

void sf_cuda_backend_halo_wait_packed(sf_backend *b) { sf_cuda_halo_wait_packed(&b->c.xfer); }

void sf_cuda_backend_halo_unpack(sf_backend *b, int g, sf_side s)
{
    sf_cuda_common *c = &b->c;
    const long k0 = s == SF_SIDE_LOWER ? -SF_HALO : c->L.nz;
    sf_cuda_halo_from_host(&c->xfer, c->timers, g, s);
    sf_gpu_timers_begin(c->timers, SF_PHASE_HALO_UNPACK, c->xfer.halo);
    move_group(b, g, k0, c->xfer.recv[g][s], 0);
    sf_gpu_timers_end(c->timers, c->xfer.halo);
    /* Later compute reads these halos. */
    sf_cuda_halo_before_compute(&c->xfer);
}

/* ---- the time step ------------------------------------------------------ */

void sf_cuda_backend_update(sf_backend *b, int stage, long k0, long k1)
{
    if (k1 <= k0) return;
    sf_cuda_common *c = &b->c;
    sf_gpu_timers_begin(c->timers, SF_PHASE_STENCIL, c->xfer.compute);
    c->physics->update(b->state, stage, k0, k1, c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

void sf_cuda_backend_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1)
{
    sf_cuda_common *c = &b->c;
    const sf_cuda_physics *k = c->physics;
    if (!k->inject) {
        float *arrays[SF_CUDA_MAX_SOURCE_ARRAYS];
        const int count = k->source_arrays(b->state, stage, arrays);
        if (count > 0) sf_cuda_common_inject(c, arrays, count, amplitude, k0, k1);
        return;
    }
    if (!sf_cuda_common_sources_in(c, stage, k0, k1)) return;
    sf_gpu_timers_begin(c->timers, SF_PHASE_ACQUISITION, c->xfer.compute);
    k->inject(b->state, stage, amplitude, k0, k1, c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

void sf_cuda_backend_finish_stage(sf_backend *b, int stage)
{
    sf_cuda_common *c = &b->c;
    if (!c->physics->finish_stage(b->state, stage)) return;
    sf_gpu_timers_begin(c->timers, SF_PHASE_STENCIL, c->xfer.compute);
    c->physics->mirror(b->state, stage, c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

/* ---- what reaches the host ---------------------------------------------- */

static const float *component_array(const sf_backend *b, sf_component c)
{
    const float *array = b->c.physics->component(b->state, c);
    if (!array)
        sf_fatal("internal: the %s CUDA kernels have no component %d", b->c.physics->name, (int)c);
    return array;
}

void sf_cuda_backend_sample_receivers(sf_backend *b, int slot)
{
    sf_cuda_common *c = &b->c;
    const sf_cuda_receivers *r = &c->receivers;
    if (!c->physics->sample_receivers) {
        sf_cuda_common_sample(c, slot, component_array(b, SF_COMPONENT_P));
        return;
    }
    if (r->count == 0) return;
    sf_gpu_timers_begin(c->timers, SF_PHASE_ACQUISITION, c->xfer.compute);
    c->physics->sample_receivers(b->state, r, r->samples + (size_t)slot * (size_t)r->count,
                                 c->xfer.compute);
    sf_gpu_timers_end(c->timers, c->xfer.compute);
}

void sf_cuda_backend_fetch_receivers(sf_backend *b, int count, float *out)
{
    sf_cuda_common_fetch_receivers(&b->c, count, out);
}

void sf_cuda_backend_fetch_field(sf_backend *b, sf_component component,
                                 const sf_sampling_lattice *s, float *out)
{
    sf_cuda_common *c = &b->c;
    long n[3];
    float *lattice = sf_cuda_common_lattice(c, s, n);
    if (!lattice) return;
    if (c->physics->gather_lattice)
        c->physics->gather_lattice(b->state, component, s, n, lattice, c->xfer.compute);
    else
        sf_cuda_gather_lattice(lattice, component_array(b, component), c->grid, s->di, s->dj, s->dk,
                               s->k0, n[0], n[1], n[2], c->xfer.compute);
    sf_cuda_download(out, lattice, (size_t)(n[0] * n[1] * n[2]) * sizeof(float), c->xfer.compute,
                     "a wavefield snapshot");
}

void sf_cuda_backend_energy(sf_backend *b, double out[2])
{
    if (!b->c.physics->energy)
        sf_fatal("internal: the %s CUDA kernels have no energy diagnostic", b->c.physics->name);
    b->c.physics->energy(b->state, out);
}

/* ---- shots and the guard ------------------------------------------------ */

void sf_cuda_backend_reset(sf_backend *b, const sf_problem *shot)
{
    sf_cuda_common_reset(&b->c, b->state, shot);
}

static int guard_fields(const sf_backend *b, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const int count = b->c.physics->guard_fields(b->state, fields);
    if (count > SF_GUARD_MAX_FIELDS)
        sf_fatal("internal: %d guard fields of the %s CUDA kernels", count, b->c.physics->name);
    return count;
}

int sf_cuda_backend_find_nonfinite(sf_backend *b, sf_nonfinite *where)
{
    const float *fields[SF_GUARD_MAX_FIELDS];
    const int count = guard_fields(b, fields);
    return sf_cuda_common_find_nonfinite(&b->c, fields, count, where);
}

int sf_cuda_backend_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS])
{
    const float *fields[SF_GUARD_MAX_FIELDS];
    const int count = guard_fields(b, fields);
    return sf_cuda_common_field_norms(&b->c, fields, count, r, sums);
}

void sf_cuda_backend_amplify(sf_backend *b, float factor) { sf_cuda_common_amplify(&b->c, factor); }

void sf_cuda_backend_synchronize(sf_backend *b) { sf_cuda_halo_synchronize(&b->c.xfer); }

void sf_cuda_backend_take_timers(sf_backend *b, double *seconds)
{
    sf_gpu_timers_take(b->c.timers, seconds);
}
