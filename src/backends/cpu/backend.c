/* The CPU backend, for every physics: the plumbing around a physics'
 * kernels (cpu_physics.h). Everything runs synchronously on the calling
 * thread's OpenMP team, so queued work is done work: halo_wait_packed and
 * synchronize have nothing to wait for, and an operation's wall time is
 * its phase's time. */
#include "cpu_backend.h"
#include "sf_error.h"
#include "sf_nonfinite.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_ALIGN = 16, MAX_HALO_ARRAYS = 8 };

/* A shot's source points (sf_problem), each with the physics' factor. */
typedef struct {
    long count;
    int *field;
    size_t *index;           /* in the field layout */
    long *plane;             /* local plane */
    float *coefficient;
} source_table;

struct sf_backend {
    const sf_cpu_physics *physics;
    void *state;                        /* the physics' */
    sf_cpu_shared shared;               /* lent to the physics */
    sf_cpu_arena arena;
    source_table sources;
    sf_cpu_channels channels;
    size_t halo_count[SF_MAX_HALO_GROUPS];
    float *send[SF_MAX_HALO_GROUPS][2], *recv[SF_MAX_HALO_GROUPS][2];
};

/* ---- set-up ------------------------------------------------------------- */

static void require(const sf_cpu_physics *k, const void *entry, const char *what)
{
    if (!entry) sf_fatal("internal: the %s CPU kernels have no %s", k->name, what);
}

static void check_kernels(const sf_cpu_physics *k)
{
    require(k, k->create, "create");
    require(k, k->update, "update"), require(k, k->finish_stage, "finish_stage");
    require(k, k->source_point, "source_point"), require(k, k->source_arrays, "source_arrays");
    require(k, k->halo_arrays, "halo_arrays"), require(k, k->halo_plane, "halo_plane");
    require(k, k->guard_fields, "guard_fields");
    if (!k->sample_receivers || !k->node_value) require(k, k->component, "component");
    if (k->halo_groups < 1 || k->halo_groups > SF_MAX_HALO_GROUPS)
        sf_fatal("internal: the %s CPU kernels have %d halo groups", k->name, k->halo_groups);
}

static void setup_layout(sf_layout *L, const sf_problem *p, long plane_pad)
{
    sf_layout_init(L, p->nx, p->ny, p->nz, ROW_ALIGN);
    if (!plane_pad) return;
    L->sp += plane_pad;
    L->field_size = (size_t)L->sp * (size_t)(L->nz + 2 * SF_HALO);
    L->plane_size = (size_t)L->sp * (size_t)L->nz;
}

static void setup_sources(sf_backend *b, const sf_problem *p)
{
    source_table *s = &b->sources;
    const size_t n = (size_t)p->source_count;
    s->field = sf_cpu_take(&b->arena, n, sizeof(int), "source points");
    s->index = sf_cpu_take(&b->arena, n, sizeof(size_t), "source points");
    s->plane = sf_cpu_take(&b->arena, n, sizeof(long), "source points");
    s->coefficient = sf_cpu_take(&b->arena, n, sizeof(float), "source points");
    s->count = 0;
    for (long q = 0; q < p->source_count; ++q) {
        const sf_field_weight *w = &p->source[q];
        float coefficient;
        if (!b->physics->source_point(b->state, w, &coefficient)) continue;
        s->field[s->count] = w->field;
        s->index[s->count] = sf_field_index(&b->shared.L, w->i, w->j, w->k);
        s->plane[s->count] = w->k;
        s->coefficient[s->count++] = coefficient;
    }
}

/* The source and channel tables: per shot. */
static void setup_acquisition(sf_backend *b, const sf_problem *p)
{
    setup_sources(b, p);
    sf_cpu_channels_setup(&b->channels, &b->arena, &b->shared.L, p);
}

static void free_acquisition(sf_backend *b)
{
    source_table *s = &b->sources;
    sf_cpu_release(&b->arena, s->field), sf_cpu_release(&b->arena, s->index);
    sf_cpu_release(&b->arena, s->plane), sf_cpu_release(&b->arena, s->coefficient);
    memset(s, 0, sizeof *s);
    sf_cpu_channels_free(&b->channels, &b->arena);
}

/* Buffers on the sides with a neighbour only. */
static void setup_halos(sf_backend *b, const int neighbour[2])
{
    const sf_layout *L = &b->shared.L;
    for (int g = 0; g < b->physics->halo_groups; ++g) {
        const int arrays = b->physics->halo_arrays(b->state, g);
        if (arrays > MAX_HALO_ARRAYS)
            sf_fatal("internal: %d arrays in a halo group of the %s CPU kernels", arrays,
                     b->physics->name);
        b->halo_count[g] = (size_t)arrays * SF_HALO * (size_t)(L->nx * L->ny);
        for (int s = 0; s < 2; ++s) {
            if (!neighbour[s]) continue;
            b->send[g][s] = sf_cpu_take(&b->arena, b->halo_count[g], sizeof(float), "halo buffers");
            b->recv[g][s] = sf_cpu_take(&b->arena, b->halo_count[g], sizeof(float), "halo buffers");
        }
    }
}

sf_backend *sf_cpu_backend_create(const sf_cpu_physics *physics, const sf_problem *p)
{
    check_kernels(physics);
    sf_backend *b = sf_calloc(1, sizeof *b, "the CPU backend");
    b->physics = physics;
    setup_layout(&b->shared.L, p, physics->plane_pad);
    b->shared.arena = &b->arena;
    sf_cpu_cpml_copy(b->shared.cpml, &b->arena, p->cpml);
    b->shared.z0 = p->z0;
    b->shared.free_surface_here = p->free_surface && p->z0 == 0;
    b->shared.vectors = sf_cpu_vectors_chosen();
    b->arena.mixed = p->precision == SF_PRECISION_MIXED;
    const char *check_stored = getenv("SEISFD_TEST_STORED");
    b->arena.check_stored = check_stored && !strcmp(check_stored, "1") ? SF_CPU_STORED_CHECKS : 0;
    b->state = physics->create(&b->shared, p);
    sf_cpu_round_medium(&b->arena);
    setup_acquisition(b, p);
    setup_halos(b, p->neighbour);
    return b;
}

void sf_cpu_backend_destroy(sf_backend *b)
{
    if (!b) return;
    if (b->physics->destroy) b->physics->destroy(b->state);
    else free(b->state);
    sf_cpu_release_all(&b->arena);
    free(b);
}

size_t sf_cpu_backend_memory_bytes(const sf_backend *b) { return b->arena.bytes; }

/* ---- halo planes -------------------------------------------------------- */

size_t sf_cpu_backend_halo_count(const sf_backend *b, int g) { return b->halo_count[g]; }
float *sf_cpu_backend_send_buffer(sf_backend *b, int g, sf_side s) { return b->send[g][s]; }
float *sf_cpu_backend_recv_buffer(sf_backend *b, int g, sf_side s) { return b->recv[g][s]; }

/* Copies SF_HALO planes from k0 of each of the group's arrays to (out) or
 * from the compact buffer, array after array. */
static void move_planes(sf_backend *b, int g, long k0, float *buffer, int out)
{
    const sf_layout *L = &b->shared.L;
    const long planes = (long)b->physics->halo_arrays(b->state, g) * SF_HALO;
    float *plane[MAX_HALO_ARRAYS * SF_HALO];
    long stride[MAX_HALO_ARRAYS * SF_HALO];
    for (long n = 0; n < planes; ++n)
        plane[n] = b->physics->halo_plane(b->state, g, (int)(n / SF_HALO), k0 + n % SF_HALO,
                                          &stride[n]);
    const size_t row = (size_t)L->nx * sizeof(float);
    #pragma omp parallel for collapse(2) schedule(static)
    for (long n = 0; n < planes; ++n)
        for (long j = 0; j < L->ny; ++j) {
            float *packed = buffer + (n * L->ny + j) * L->nx;
            if (!plane[n]) {
                if (out) memset(packed, 0, row);
            } else if (out) {
                memcpy(packed, plane[n] + j * stride[n], row);
            } else {
                memcpy(plane[n] + j * stride[n], packed, row);
            }
        }
}

void sf_cpu_backend_halo_pack(sf_backend *b, int g, sf_side s)
{
    const double t = MPI_Wtime();
    move_planes(b, g, s == SF_SIDE_LOWER ? 0 : b->shared.L.nz - SF_HALO, b->send[g][s], 1);
    sf_cpu_phase_done(&b->arena, SF_PHASE_HALO_PACK, t);
}

void sf_cpu_backend_halo_wait_packed(sf_backend *b) { (void)b; }

void sf_cpu_backend_halo_unpack(sf_backend *b, int g, sf_side s)
{
    const double t = MPI_Wtime();
    move_planes(b, g, s == SF_SIDE_LOWER ? -SF_HALO : b->shared.L.nz, b->recv[g][s], 0);
    sf_cpu_phase_done(&b->arena, SF_PHASE_HALO_UNPACK, t);
}

/* ---- the time step ------------------------------------------------------ */

void sf_cpu_backend_update(sf_backend *b, int stage, long k0, long k1)
{
    if (k1 <= k0) return;
    const double t = MPI_Wtime();
    b->physics->update(b->state, stage, k0, k1);
    /* What the stage wrote is stored before anything reads it. */
    sf_cpu_round_state(&b->arena, SF_CPU_STAGE(stage), k0, k1);
    sf_cpu_phase_done(&b->arena, SF_PHASE_STENCIL, t);
}

void sf_cpu_backend_inject_source(sf_backend *b, int stage, float amplitude, long k0, long k1)
{
    const double t = MPI_Wtime();
    const source_table *s = &b->sources;
    for (long n = 0; n < s->count; ++n) {
        if (s->plane[n] < k0 || s->plane[n] >= k1) continue;
        float *arrays[SF_CPU_MAX_SOURCE_ARRAYS];
        const int count = b->physics->source_arrays(b->state, stage, s->field[n], arrays);
        for (int a = 0; a < count; ++a) {
            arrays[a][s->index[n]] += s->coefficient[n] * amplitude;
            sf_cpu_round_state_at(&b->arena, arrays[a], s->index[n]);
        }
    }
    sf_cpu_phase_done(&b->arena, SF_PHASE_ACQUISITION, t);
}

void sf_cpu_backend_finish_stage(sf_backend *b, int stage) { b->physics->finish_stage(b->state, stage); }

/* ---- what reaches the host ---------------------------------------------- */

static const float *component_array(const sf_backend *b, sf_component c)
{
    const float *array = b->physics->component(b->state, c);
    if (!array) sf_fatal("internal: the %s CPU kernels have no component %d", b->physics->name, (int)c);
    return array;
}

void sf_cpu_backend_sample_receivers(sf_backend *b, int slot)
{
    const double t = MPI_Wtime();
    const sf_cpu_channels *c = &b->channels;
    float *out = c->samples + (size_t)slot * (size_t)c->count;
    if (b->physics->sample_receivers) {
        b->physics->sample_receivers(b->state, c, out);
    } else {
        const float *array[SF_COMPONENTS] = {NULL};
        for (long n = 0; n < c->count; ++n) {
            const sf_component q = c->component[n];
            if (!array[q]) array[q] = component_array(b, q);
            out[n] = sf_cpu_channel_value(c, n, array[q]);
        }
    }
    sf_cpu_phase_done(&b->arena, SF_PHASE_ACQUISITION, t);
}

void sf_cpu_backend_fetch_receivers(sf_backend *b, int count, float *out)
{
    sf_cpu_channels_fetch(&b->channels, count, out);
}

void sf_cpu_backend_fetch_field(sf_backend *b, sf_component c, const sf_sampling_lattice *s,
                                float *out)
{
    const sf_layout *L = &b->shared.L;
    float (*node_value)(const void *, sf_component, size_t) = b->physics->node_value;
    const float *array = node_value ? NULL : component_array(b, c);
    size_t n = 0;
    for (long k = s->k0; k < L->nz; k += s->dk)
        for (long j = 0; j < L->ny; j += s->dj)
            for (long i = 0; i < L->nx; i += s->di) {
                const size_t at = sf_field_index(L, i, j, k);
                out[n++] = node_value ? node_value(b->state, c, at) : array[at];
            }
}

void sf_cpu_backend_energy(sf_backend *b, double out[2])
{
    if (!b->physics->energy)
        sf_fatal("internal: the %s CPU kernels have no energy diagnostic", b->physics->name);
    b->physics->energy(b->state, out);
}

/* ---- shots and the guard ------------------------------------------------ */

void sf_cpu_backend_reset(sf_backend *b, const sf_problem *shot)
{
    sf_cpu_zero_state(&b->arena);
    sf_cpu_cpml_reload(b->shared.cpml, shot->cpml);
    free_acquisition(b);
    setup_acquisition(b, shot);
    if (b->physics->reset) b->physics->reset(b->state, shot);
}

static int guard_fields(const sf_backend *b, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const int count = b->physics->guard_fields(b->state, fields);
    if (count > SF_GUARD_MAX_FIELDS)
        sf_fatal("internal: %d guard fields of the %s CPU kernels", count, b->physics->name);
    return count;
}

int sf_cpu_backend_find_nonfinite(sf_backend *b, sf_nonfinite *where)
{
    const sf_layout *L = &b->shared.L;
    const float *fields[SF_GUARD_MAX_FIELDS];
    const int count = guard_fields(b, fields);
    for (int f = 0; f < count; ++f) {
        const long first = sf_first_nonfinite(L, fields[f]);
        if (first < 0) continue;
        *where = sf_nonfinite_at(f, first, L->nx, L->ny);
        return 1;
    }
    return 0;
}

int sf_cpu_backend_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS])
{
    const float *fields[SF_GUARD_MAX_FIELDS];
    const int count = guard_fields(b, fields);
    return sf_cpu_field_norms(&b->shared.L, r, fields, count, sums);
}

void sf_cpu_backend_amplify(sf_backend *b, float factor) { sf_cpu_amplify_state(&b->arena, factor); }

void sf_cpu_backend_synchronize(sf_backend *b) { (void)b; }

void sf_cpu_backend_take_timers(sf_backend *b, double *seconds)
{
    sf_cpu_take_timers(&b->arena, seconds);
}
