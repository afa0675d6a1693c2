/* CUDA backend of the elastic solver: the slab's nine fields, its medium,
 * the CPML memory variables (inside the layers only) and the acquisition
 * live on one GPU for the whole run. As in the acoustic backend, the
 * half-steps run in order on a compute stream and halo planes are packed,
 * copied and unpacked on a higher-priority halo stream ordered by events,
 * so the exchange overlaps the interior update. */
#include "cuda_common.h"
#include "cuda_elastic.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_error.h"
}

enum { MAX_HALO_FIELDS = 5 };

struct sf_backend {
    sf_cuda_common c;                /* layout, arrays, streams, acquisition */
    sf_cuda_elastic_step step;       /* kernel arguments, device pointers */
    double h[3], dt;
    float *fields, *medium, *before, *weights;
    float *coef[4][3];               /* a, b, a_half, b_half per axis */
    sf_cuda_energy_weights energy_weights;
    double *energy_sums;
    float *const *host_medium;       /* during create only: the medium the source weights take */
    sf_cuda_field_list halo_fields[SF_HALF_STEPS];
};

static long max_long(long a, long b) { return a > b ? a : b; }
static long min_long(long a, long b) { return a < b ? a : b; }

/* ---- set-up ------------------------------------------------------------- */

/* Which axis each term of a half-step differentiates along (the CPU
 * backend's term tables). */
static const int TERM_AXIS[SF_HALF_STEPS][SF_ELASTIC_TERMS] = {
    {0, 1, 2, 0, 1, 2, 0, 1, 2}, {0, 1, 2, 1, 0, 2, 0, 2, 1}};

/* The CPU backend's layer spans, so both update the same memory variables. */
static void plan_layer(sf_backend *b, const sf_problem *p, int a, int side)
{
    const sf_cpml_axis *ax = &p->cpml[a];
    sf_cuda_elastic_layer *ly = &b->step.layer[a][side];
    int t = ax->thick[side];
    long lo = t == 0 ? 0 : side == 0 ? 0 : ax->n - 1 - t, hi = t == 0 ? 0 : side == 0 ? t : ax->n;
    ly->lo = (int)lo, ly->hi = (int)hi;
    size_t count = (size_t)(hi - lo) * (size_t)(a == 0 ? p->ny * p->nz : p->nx * p->nz);
    if (a == 2) {
        long plo = max_long(lo - p->z0, 0), phi = max_long(plo, min_long(hi - p->z0, p->nz));
        ly->plo = (int)plo, ly->phi = (int)phi;
        count = (size_t)(phi - plo) * (size_t)(p->nx * p->ny);
    }
    for (int g = 0; g < SF_HALF_STEPS; ++g)
        for (int q = 0; q < SF_ELASTIC_TERMS; ++q)
            if (TERM_AXIS[g][q] == a)
                sf_cuda_want_state(&b->c.arrays, &ly->psi[g][q], count, sizeof(float), "CPML memory");
}

static void plan_halos(sf_backend *b, const sf_problem *p)
{
    b->halo_fields[SF_HALF_VELOCITY].count = 3;
    b->halo_fields[SF_HALF_STRESS].count = p->exchange_normal_stresses ? 5 : 3;
    size_t counts[SF_MAX_HALO_GROUPS] = {0};
    for (int g = 0; g < SF_HALF_STEPS; ++g)
        counts[g] = (size_t)b->halo_fields[g].count * SF_HALO * (size_t)(p->nx * p->ny);
    sf_cuda_common_plan(&b->c, counts);
}

static void plan_arrays(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->c.L;
    sf_cuda_arrays *arrays = &b->c.arrays;
    sf_cuda_want_state(arrays, &b->fields, L->field_size * SF_ELASTIC_FIELDS, sizeof(float),
                       "the wavefields");
    sf_cuda_want(arrays, &b->medium, L->field_size * SF_NODE_ARRAYS, sizeof(float), "the elastic medium");
    if (p->energy) {
        sf_cuda_want_state(arrays, &b->before, L->plane_size * 6, sizeof(float), "the energy diagnostic");
        sf_cuda_want(arrays, &b->weights, L->plane_size * SF_ENERGY_WEIGHTS, sizeof(float),
                     "the energy diagnostic");
        sf_cuda_want(arrays, &b->energy_sums, 2, sizeof(double), "the energy diagnostic");
    }
    for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 4; ++c)
            sf_cuda_want(arrays, &b->coef[c][a], (size_t)p->cpml[a].n, sizeof(float), "CPML coefficients");
        for (int s = 0; s < 2; ++s) plan_layer(b, p, a, s);
    }
    plan_halos(b, p);
}

static double inverse_or_zero(double x) { return x > 0.0 ? 1.0 / x : 0.0; }

/* The CPU backend's energy weights, from the same dt-scaled floats. */
static void energy_weights(const sf_backend *b, float *const *m, float *const *w)
{
    const double dt = b->dt;
    for (size_t q = 0; q < b->c.L.plane_size; ++q) {
        for (int v = 0; v < 3; ++v) w[v][q] = (float)(0.5 * dt * inverse_or_zero(m[SF_MEDIUM_BX + v][q]));
        double lambda = m[SF_MEDIUM_LAMBDA][q] / dt, l2m = m[SF_MEDIUM_L2M][q] / dt;
        double mu = 0.5 * (l2m - lambda);
        w[3][q] = (float)inverse_or_zero(18.0 * (lambda + 2.0 * mu / 3.0));
        w[4][q] = (float)inverse_or_zero(4.0 * mu);
        for (int s = 0; s < 3; ++s)
            w[5 + s][q] = (float)(0.5 * dt * inverse_or_zero(m[SF_MEDIUM_MUXY + s][q]));
    }
}

/* The node arrays in the field layout, mu and lambda times dt; padding
 * rows and columns repeat the edge nodes and plane nz is the medium's
 * next plane, which is what the CPU medium's averages take past the edges. */
static void upload_nodes(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->c.L;
    float *host = (float *)sf_calloc(L->field_size * SF_NODE_ARRAYS, sizeof(float), "the medium");
    for (int a = 0; a < SF_NODE_ARRAYS; ++a) {
        float *out = host + L->field_size * (size_t)a;
        const float *in = ((const sf_elastic_medium *)p->medium)->node[a];
        const double scale = a == SF_NODE_RHO ? 1.0 : p->dt;
        for (long k = 0; k <= L->nz; ++k)
            for (long j = -SF_PAD; j < L->ny + SF_PAD; ++j)
                for (long i = -SF_PAD; i < L->nx + SF_PAD; ++i) {
                    long jc = j < 0 ? 0 : j < L->ny ? j : L->ny - 1;
                    long ic = i < 0 ? 0 : i < L->nx ? i : L->nx - 1;
                    out[sf_field_index(L, i, j, k)] = (float)(scale * in[(k * L->ny + jc) * L->nx + ic]);
                }
        b->step.node[a] = b->medium + L->field_size * (size_t)a;
    }
    sf_cuda_upload(b->medium, host, L->field_size * SF_NODE_ARRAYS * sizeof(float), "uploading the medium");
    free(host);
}

/* The CPU backend's medium times dt in the owned-planes layout, on the
 * host only: the source and energy weights come from it. */
static float *host_medium(sf_backend *b, const sf_problem *p)
{
    const sf_layout *L = &b->c.L;
    const sf_elastic_medium *medium = (const sf_elastic_medium *)p->medium;
    float *host = (float *)sf_calloc(L->plane_size * SF_MEDIUM_ARRAYS, sizeof(float), "the medium");
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) {
        float *m = host + L->plane_size * (size_t)a;
        for (long k = 0; k < L->nz; ++k)
            for (long j = 0; j < L->ny; ++j)
                for (long i = 0; i < L->nx; ++i)
                    m[sf_plane_index(L, i, j, k)] = (float)(p->dt * medium->a[a][(k * L->ny + j) * L->nx + i]);
    }
    return host;
}

static void upload_energy_weights(sf_backend *b, float *const *m)
{
    const sf_layout *L = &b->c.L;
    float *w = (float *)sf_malloc(L->plane_size * SF_ENERGY_WEIGHTS * sizeof(float), "energy weights");
    float *wq[SF_ENERGY_WEIGHTS];
    for (int q = 0; q < SF_ENERGY_WEIGHTS; ++q) {
        wq[q] = w + L->plane_size * (size_t)q;
        b->energy_weights.w[q] = b->weights + L->plane_size * (size_t)q;
    }
    energy_weights(b, m, wq);
    sf_cuda_upload(b->weights, w, L->plane_size * SF_ENERGY_WEIGHTS * sizeof(float), "uploading energy weights");
    free(w);
    for (int q = 0; q < 6; ++q) b->step.before[q] = b->before + L->plane_size * (size_t)q;
}

static void upload_cpml(sf_backend *b, const sf_problem *p)
{
    for (int a = 0; a < 3; ++a) {
        const sf_cpml_axis *ax = &p->cpml[a];
        const float *host[4] = {ax->a, ax->b, ax->a_half, ax->b_half};
        for (int c = 0; c < 4; ++c)
            sf_cuda_upload(b->coef[c][a], host[c], (size_t)ax->n * sizeof(float), "uploading CPML coefficients");
        b->step.a[a] = b->coef[0][a], b->step.b[a] = b->coef[1][a];
        b->step.a_half[a] = b->coef[2][a], b->step.b_half[a] = b->coef[3][a];
    }
}

static int is_velocity(sf_elastic_field f) { return f <= SF_FIELD_VZ; }

/* The dt-scaled buoyancy of a velocity field at an owned point: from the
 * host copy of the medium during create, afterwards formed as the CPU
 * medium does from the two densities around it, read back from the
 * device's node arrays (which hold the same floats). */
static float buoyancy_at(const sf_backend *b, sf_elastic_field f, long i, long j, long k)
{
    const sf_layout *L = &b->c.L;
    if (b->host_medium) return b->host_medium[SF_MEDIUM_BX + f][sf_plane_index(L, i, j, k)];
    const long step[3] = {1, L->sx, L->sp};
    float rho[2];
    const float *at = b->step.node[SF_NODE_RHO] + sf_field_index(L, i, j, k);
    SF_CUDA_CHECK(cudaMemcpy(&rho[0], at, sizeof(float), cudaMemcpyDeviceToHost),
                  "reading the density at a source point");
    SF_CUDA_CHECK(cudaMemcpy(&rho[1], at + step[f], sizeof(float), cudaMemcpyDeviceToHost),
                  "reading the density at a source point");
    return (float)(b->dt * (float)(2.0 / ((double)rho[0] + (double)rho[1])));
}

/* Force and moment weights times the dt-scaled buoyancy or dt; a stress
 * source on a free surface's plane is left out (it holds szz at zero). */
static int place_source(const sf_backend *b, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out)
{
    const sf_elastic_field f = (sf_elastic_field)w->field;
    if (b->step.free_surface_here && f == SF_FIELD_SZZ && w->k == 0) return 0;
    const float scale = is_velocity(f) ? buoyancy_at(b, f, w->i, w->j, w->k) : (float)p->dt;
    out->index = (long)(b->c.L.field_size * (size_t)f + sf_field_index(&b->c.L, w->i, w->j, w->k));
    out->coef = w->weight * scale;
    out->group = is_velocity(f) ? SF_HALF_VELOCITY : SF_HALF_STRESS;
    return 1;
}

static void setup_step(sf_backend *b, const sf_problem *p)
{
    sf_cuda_elastic_step *s = &b->step;
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) s->f[f] = b->fields + b->c.L.field_size * (size_t)f;
    s->nx = (int)p->nx, s->ny = (int)p->ny, s->nz = (int)p->nz, s->z0 = (int)p->z0;
    s->radius = p->stencil.radius;
    s->dt = (float)p->dt;
    s->free_surface_here = p->free_surface && p->z0 == 0;
    s->gx = b->c.L.gx, s->sx = b->c.L.sx, s->sp = b->c.L.sp;
    for (int a = 0; a < 3; ++a)
        for (int m = 0; m <= SF_MAX_RADIUS; ++m) s->d1[a][m] = (float)(p->stencil.first[m] / p->h[a]);
    static const sf_elastic_field velocity[] = {SF_FIELD_VX, SF_FIELD_VY, SF_FIELD_VZ};
    static const sf_elastic_field stress[] = {SF_FIELD_SZZ, SF_FIELD_SXZ, SF_FIELD_SYZ,
                                              SF_FIELD_SXX, SF_FIELD_SYY};
    for (int q = 0; q < MAX_HALO_FIELDS; ++q) {
        if (q < 3) b->halo_fields[SF_HALF_VELOCITY].f[q] = s->f[velocity[q]];
        b->halo_fields[SF_HALF_STRESS].f[q] = s->f[stress[q]];
    }
}

static const sf_cuda_physics PHYSICS = {place_source, upload_cpml, 1, 1};

static sf_backend *cuda_create(const sf_problem *p)
{
    sf_backend *b = (sf_backend *)sf_calloc(1, sizeof *b, "the elastic CUDA backend");
    sf_cuda_common_init(&b->c, p, &PHYSICS);
    b->dt = p->dt;
    memcpy(b->h, p->h, sizeof b->h);
    plan_arrays(b, p);
    sf_cuda_common_allocate(&b->c);
    setup_step(b, p);
    upload_nodes(b, p);
    float *medium = host_medium(b, p);
    float *m[SF_MEDIUM_ARRAYS];
    for (int a = 0; a < SF_MEDIUM_ARRAYS; ++a) m[a] = medium + b->c.L.plane_size * (size_t)a;
    if (p->energy) upload_energy_weights(b, m);
    upload_cpml(b, p);
    b->host_medium = m;
    sf_cuda_common_setup_acquisition(&b->c, b, p);
    b->host_medium = NULL;
    free(medium);
    sf_cuda_common_start(&b->c, p->halo_transport);
    return b;
}

static void cuda_destroy(sf_backend *b)
{
    if (!b) return;
    sf_cuda_common_destroy(&b->c);
    free(b);
}

static size_t cuda_memory_bytes(const sf_backend *b) { return sf_cuda_common_memory_bytes(&b->c); }

/* ---- shots --------------------------------------------------------------- */

static void cuda_reset(sf_backend *b, const sf_problem *p) { sf_cuda_common_reset(&b->c, b, p); }

/* Every field is checked, in sf_elastic_field order. */
static int cuda_find_nonfinite(sf_backend *b, sf_nonfinite *where)
{
    return sf_cuda_common_find_nonfinite(&b->c, b->step.f, SF_ELASTIC_FIELDS, where);
}

static void cuda_amplify(sf_backend *b, float factor) { sf_cuda_common_amplify(&b->c, factor); }

static int cuda_field_norms(sf_backend *b, const sf_regions *r, double sums[][SF_REGIONS])
{
    return sf_cuda_common_field_norms(&b->c, b->step.f, SF_ELASTIC_FIELDS, r, sums);
}

/* ---- halo planes and the free surface ----------------------------------- */

static size_t cuda_halo_count(const sf_backend *b, int g) { return b->c.xfer.count[g]; }

static float *cuda_send(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_send_buffer(&b->c.xfer, g, s);
}

static float *cuda_recv(sf_backend *b, int g, sf_side s)
{
    return sf_cuda_halo_recv_buffer(&b->c.xfer, g, s);
}

static void cuda_halo_pack(sf_backend *b, int g, sf_side s)
{
    int k0 = s == SF_SIDE_LOWER ? 0 : (int)b->c.L.nz - SF_HALO;
    sf_cuda_halo_after_edges(&b->c.xfer);
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_HALO_PACK, b->c.xfer.halo);
    sf_cuda_elastic_planes(&b->step, b->halo_fields[g], k0, b->c.xfer.send[g][s], 1, b->c.xfer.halo);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.halo);
    sf_cuda_halo_to_host(&b->c.xfer, b->c.timers, g, s);
}

static void cuda_halo_wait_packed(sf_backend *b) { sf_cuda_halo_wait_packed(&b->c.xfer); }

static void cuda_halo_unpack(sf_backend *b, int g, sf_side s)
{
    int k0 = s == SF_SIDE_LOWER ? -SF_HALO : (int)b->c.L.nz;
    sf_cuda_halo_from_host(&b->c.xfer, b->c.timers, g, s);
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_HALO_UNPACK, b->c.xfer.halo);
    sf_cuda_elastic_planes(&b->step, b->halo_fields[g], k0, b->c.xfer.recv[g][s], 0, b->c.xfer.halo);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.halo);
    /* Later compute reads these halos. */
    sf_cuda_halo_before_compute(&b->c.xfer);
}

/* Node planes mirror about k = 0, half planes about k = -1/2. */
static void cuda_finish_stage(sf_backend *b, int g)
{
    if (!b->step.free_surface_here) return;
    float *const *f = b->step.f;
    sf_cuda_images im = g == SF_HALF_STRESS
        ? sf_cuda_images{{f[SF_FIELD_SZZ], f[SF_FIELD_SXZ], f[SF_FIELD_SYZ]}, {0, 1, 1}, {-1.0f, -1.0f, -1.0f}}
        : sf_cuda_images{{f[SF_FIELD_VX], f[SF_FIELD_VY], f[SF_FIELD_VZ]}, {0, 0, 1}, {1.0f, 1.0f, 1.0f}};
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_STENCIL, b->c.xfer.compute);
    sf_cuda_elastic_mirror(&b->step, im, b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

/* ---- the half-steps ----------------------------------------------------- */

static void cuda_update(sf_backend *b, int g, long k0, long k1)
{
    if (k1 <= k0) return;
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_STENCIL, b->c.xfer.compute);
    sf_cuda_elastic_update(&b->step, (sf_half_step)g, (int)k0, (int)k1, b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

static void cuda_inject_source(sf_backend *b, int g, float amplitude, long k0, long k1)
{
    const sf_cuda_sources *s = &b->c.source;
    if (!sf_cuda_common_sources_in(&b->c, g, k0, k1)) return;
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_ACQUISITION, b->c.xfer.compute);
    sf_cuda_elastic_inject(b->fields, s->index, s->coef, s->plane, s->group, (int)s->count, g, amplitude,
                           (int)k0, (int)k1, b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

/* ---- receivers, snapshots, energy ---------------------------------------- */

/* Each channel's component under the elastic recording rule. */
static void cuda_sample_receivers(sf_backend *b, int slot)
{
    const sf_cuda_receivers *r = &b->c.receivers;
    if (r->count == 0) return;
    const sf_cuda_channels channels = {r->component, r->offset, r->index, r->weight, r->previous,
                                       (int)r->count};
    sf_gpu_timers_begin(b->c.timers, SF_PHASE_ACQUISITION, b->c.xfer.compute);
    sf_cuda_elastic_sample(&b->step, channels, r->samples + (size_t)slot * (size_t)r->count,
                           b->c.xfer.compute);
    sf_gpu_timers_end(b->c.timers, b->c.xfer.compute);
}

static void cuda_fetch_receivers(sf_backend *b, int count, float *out)
{
    sf_cuda_common_fetch_receivers(&b->c, count, out);
}

static void cuda_fetch_field(sf_backend *b, sf_component c, const sf_sampling_lattice *s, float *out)
{
    long n[3];
    float *lattice = sf_cuda_common_lattice(&b->c, s, n);
    if (!lattice) return;
    sf_cuda_elastic_lattice(&b->step, c, s->di, s->dj, s->dk, s->k0, n[0], n[1], n[2], lattice,
                            b->c.xfer.compute);
    sf_cuda_download(out, lattice, (size_t)(n[0] * n[1] * n[2]) * sizeof(float), b->c.xfer.compute,
                     "a snapshot");
}

static void cuda_energy(sf_backend *b, double out[2])
{
    if (!b->before) sf_fatal("internal: energy asked of a backend created without it");
    double sums[2];
    SF_CUDA_CHECK(cudaMemsetAsync(b->energy_sums, 0, 2 * sizeof(double), b->c.xfer.compute),
                  "clearing the energy sums");
    sf_cuda_elastic_energy(&b->step, b->energy_weights, b->energy_sums, b->c.xfer.compute);
    sf_cuda_download(sums, b->energy_sums, sizeof sums, b->c.xfer.compute, "the energy");
    double cell = b->h[0] * b->h[1] * b->h[2];
    out[0] = sums[0] * cell;
    out[1] = sums[1] * cell;
}

static void cuda_synchronize(sf_backend *b) { sf_cuda_halo_synchronize(&b->c.xfer); }

static void cuda_take_timers(sf_backend *b, double *seconds) { sf_gpu_timers_take(b->c.timers, seconds); }

extern "C" const sf_backend_ops *sf_backend_cuda_elastic(void)
{
    static const sf_backend_ops ops = SF_BACKEND_OPS("cuda", cuda, cuda_energy);
    return &ops;
}
