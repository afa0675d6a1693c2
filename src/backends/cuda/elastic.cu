/* The elastic kernels of the CUDA backend (backend.cu): the slab's nine
 * fields, its medium and the CPML memory variables (inside the layers
 * only), the two half-steps, and the recording rule of the receivers. */
#include "cuda_backend.h"
#include "cuda_elastic.h"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "sf_error.h"
}

enum { MAX_HALO_FIELDS = 5 };

typedef struct {
    sf_cuda_common *c;               /* the backend's: layout, arrays, streams, acquisition */
    sf_cuda_elastic_step step;       /* kernel arguments, device pointers */
    double h[3], dt;
    float *fields, *medium, *before, *weights;
    sf_cuda_energy_weights energy_weights;
    double *energy_sums;
    sf_cuda_field_list halo_fields[SF_HALF_STEPS];
    const sf_relaxation_medium *bulk, *shear;   /* until upload; NULL: lossless */
    float *coordinates, *relaxation_weights;    /* the solids' table and each point's places in it */
} elastic_state;

/* ---- set-up ------------------------------------------------------------- */

/* Which axis each term of a half-step differentiates along (the CPU
 * backend's term tables). */
static const int TERM_AXIS[SF_HALF_STEPS][SF_ELASTIC_TERMS] = {
    {0, 1, 2, 0, 1, 2, 0, 1, 2}, {0, 1, 2, 1, 0, 2, 0, 2, 1}};

/* The CPU backend's layer spans, so both update the same memory variables. */
static void plan_layer(elastic_state *b, const sf_problem *p, int a, int side)
{
    const sf_cpml_axis *ax = &p->cpml[a];
    sf_cuda_elastic_layer *ly = &b->step.layer[a][side];
    int t = ax->thick[side];
    long lo = t == 0 ? 0 : side == 0 ? 0 : ax->n - 1 - t, hi = t == 0 ? 0 : side == 0 ? t : ax->n;
    ly->lo = (int)lo, ly->hi = (int)hi;
    size_t count = (size_t)(hi - lo) * (size_t)(a == 0 ? p->ny * p->nz : p->nx * p->nz);
    if (a == 2) {
        long plo = sf_cuda_max(lo - p->z0, 0), phi = sf_cuda_max(plo, sf_cuda_min(hi - p->z0, p->nz));
        ly->plo = (int)plo, ly->phi = (int)phi;
        count = (size_t)(phi - plo) * (size_t)(p->nx * p->ny);
    }
    for (int g = 0; g < SF_HALF_STEPS; ++g)
        for (int q = 0; q < SF_ELASTIC_TERMS; ++q)
            if (TERM_AXIS[g][q] == a)
                sf_cuda_want_state(&b->c->arrays, &ly->psi[g][q], count, sizeof(float), "CPML memory");
}

/* Pressure channels near a slab edge read sxx and syy halos too. */
static void plan_halos(elastic_state *b, const sf_problem *p)
{
    b->halo_fields[SF_HALF_VELOCITY].count = 3;
    b->halo_fields[SF_HALF_STRESS].count = p->exchange_normal_stresses ? 5 : 3;
}

static void plan_arrays(elastic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->c->L;
    sf_cuda_arrays *arrays = &b->c->arrays;
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
        for (int s = 0; s < 2; ++s) plan_layer(b, p, a, s);
    }
    plan_halos(b, p);
    const sf_relaxation_medium *r = b->bulk;
    if (!r) return;
    const size_t memory = L->plane_size * SF_CUDA_ELASTIC_MEMORY * (size_t)r->mechanisms;
    sf_cuda_want_state(arrays, &b->step.memory, memory, sizeof(float), "the relaxation memory variables");
    sf_cuda_want(arrays, &b->coordinates, 2 * L->plane_size, sizeof(float), "the points' Q");
    sf_cuda_want(arrays, &b->relaxation_weights, (size_t)((r->intervals + 1) * r->mechanisms), sizeof(float),
                 "the relaxation weights");
}

/* The solids' law for this time step, their table and each point's places
 * in it at its bulk and its shear Q, on the owned planes. */
static void upload_relaxation(elastic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->c->L;
    const sf_relaxation_medium *r = b->bulk;
    sf_cuda_elastic_step *s = &b->step;
    s->law = sf_relaxation_law_for_step(r, p->dt);
    const size_t table = (size_t)((r->intervals + 1) * r->mechanisms);
    sf_cuda_upload(b->relaxation_weights, r->weight, table * sizeof(float), "uploading the relaxation weights");
    s->law.weight = b->relaxation_weights;
    s->plane_size = (long)L->plane_size;
    const float *compact[2] = {b->bulk->coordinate, b->shear->coordinate};
    for (int q = 0; q < 2; ++q)
        sf_cuda_upload_planes(L, b->coordinates + L->plane_size * (size_t)q, compact[q],
                              p->first_equal_plane, "uploading the points' Q");
    s->bulk_coordinate = b->coordinates;
    s->shear_coordinate = b->coordinates + L->plane_size;
    b->bulk = b->shear = NULL;   /* the medium's, which may go once uploaded */
}

static double inverse_or_zero(double x) { return x > 0.0 ? 1.0 / x : 0.0; }

/* The CPU backend's energy weights at the owned points, from the same
 * dt-scaled floats of the medium (the padding's stay 0). */
static void energy_weights(const elastic_state *b, const sf_elastic_medium *medium,
                           float *const *w)
{
    const sf_layout *L = &b->c->L;
    const double dt = b->dt;
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                float m[SF_MEDIUM_ARRAYS];
                sf_elastic_medium_scaled_point(medium, dt, i, j, k, m);
                const size_t q = sf_plane_index(L, i, j, k);
                for (int v = 0; v < 3; ++v) w[v][q] = (float)(0.5 * dt * inverse_or_zero(m[SF_MEDIUM_BX + v]));
                double lambda = m[SF_MEDIUM_LAMBDA] / dt, l2m = m[SF_MEDIUM_L2M] / dt;
                double mu = 0.5 * (l2m - lambda);
                w[3][q] = (float)inverse_or_zero(18.0 * (lambda + 2.0 * mu / 3.0));
                w[4][q] = (float)inverse_or_zero(4.0 * mu);
                for (int s = 0; s < 3; ++s)
                    w[5 + s][q] = (float)(0.5 * dt * inverse_or_zero(m[SF_MEDIUM_MUXY + s]));
            }
}

typedef struct {
    const sf_layout *L;
    const sf_elastic_medium *medium;
    sf_node_array array;
    double scale;
} node_planes;

/* Node planes in the field layout; padding rows and columns repeat the
 * edge nodes, which is what the CPU medium's averages take past the edges. */
static void write_node_planes(const void *context, long k0, long count, float *planes)
{
    const node_planes *c = (const node_planes *)context;
    const sf_layout *L = c->L;
    #pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < count; ++k)
        for (long j = -SF_PAD; j < L->ny + SF_PAD; ++j) {
            float *row = planes + sf_plane_index(L, 0, j, k);
            sf_elastic_medium_node_row(c->medium, c->array, j < 0 ? 0 : j < L->ny ? j : L->ny - 1,
                                       k0 + k, row);
            for (long i = 0; i < L->nx; ++i) row[i] = (float)(c->scale * row[i]);
            for (long i = 1; i <= SF_PAD; ++i) {
                row[-i] = row[0];
                row[L->nx - 1 + i] = row[L->nx - 1];
            }
        }
}

/* The node arrays in the field layout, mu and lambda times dt; plane nz
 * is the medium's next plane. */
static void upload_nodes(elastic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->c->L;
    const sf_elastic_medium *medium = (const sf_elastic_medium *)p->medium;
    long *first_equal = p->first_equal_plane ? sf_elastic_medium_repeats(medium, p->first_equal_plane, 0)
                                             : NULL;
    for (int a = 0; a < SF_NODE_ARRAYS; ++a) {
        b->step.node[a] = b->medium + L->field_size * (size_t)a;
        const node_planes context = {L, medium, (sf_node_array)a, a == SF_NODE_RHO ? 1.0 : p->dt};
        sf_cuda_upload_written_planes(L, b->medium + L->field_size * (size_t)a + SF_HALO * L->sp,
                                      L->nz + 1, first_equal, write_node_planes, &context,
                                      "uploading the medium");
    }
    free(first_equal);
}

static void upload_energy_weights(elastic_state *b, const sf_problem *p)
{
    const sf_layout *L = &b->c->L;
    float *w = (float *)sf_calloc(L->plane_size * SF_ENERGY_WEIGHTS, sizeof(float), "energy weights");
    float *wq[SF_ENERGY_WEIGHTS];
    for (int q = 0; q < SF_ENERGY_WEIGHTS; ++q) {
        wq[q] = w + L->plane_size * (size_t)q;
        b->energy_weights.w[q] = b->weights + L->plane_size * (size_t)q;
    }
    energy_weights(b, (const sf_elastic_medium *)p->medium, wq);
    sf_cuda_upload(b->weights, w, L->plane_size * SF_ENERGY_WEIGHTS * sizeof(float), "uploading energy weights");
    free(w);
    for (int q = 0; q < 6; ++q) b->step.before[q] = b->before + L->plane_size * (size_t)q;
}

static int is_velocity(sf_elastic_field f) { return f <= SF_FIELD_VZ; }

/* The dt-scaled buoyancy of a velocity field at an owned point, formed as
 * the CPU medium does from the two densities around it, read back from
 * the device's node arrays (which hold the same floats). */
static float buoyancy_at(const elastic_state *b, sf_elastic_field f, long i, long j, long k)
{
    const sf_layout *L = &b->c->L;
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
static int place_source(const void *state, const sf_problem *p, const sf_field_weight *w,
                        sf_cuda_source_point *out)
{
    const elastic_state *b = (const elastic_state *)state;
    const sf_elastic_field f = (sf_elastic_field)w->field;
    if (b->step.free_surface_here && f == SF_FIELD_SZZ && w->k == 0) return 0;
    const float scale = is_velocity(f) ? buoyancy_at(b, f, w->i, w->j, w->k) : (float)p->dt;
    out->index = (long)(b->c->L.field_size * (size_t)f + sf_field_index(&b->c->L, w->i, w->j, w->k));
    out->coef = w->weight * scale;
    out->group = is_velocity(f) ? SF_HALF_VELOCITY : SF_HALF_STRESS;
    return 1;
}

static void setup_step(elastic_state *b, const sf_problem *p)
{
    sf_cuda_elastic_step *s = &b->step;
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) s->f[f] = b->fields + b->c->L.field_size * (size_t)f;
    s->nx = (int)p->nx, s->ny = (int)p->ny, s->nz = (int)p->nz, s->z0 = (int)p->z0;
    s->radius = p->stencil.radius;
    s->dt = (float)p->dt;
    s->free_surface_here = p->free_surface && p->z0 == 0;
    s->gx = b->c->L.gx, s->sx = b->c->L.sx, s->sp = b->c->L.sp;
    for (int a = 0; a < 3; ++a) {
        const sf_cuda_cpml_coefficients *k = &b->c->cpml[a];
        s->a[a] = k->a, s->b[a] = k->b, s->a_half[a] = k->a_half, s->b_half[a] = k->b_half;
    }
    const sf_stencil_scaled scaled = sf_stencil_scale(&p->stencil, p->h);
    memcpy(s->d1, scaled.first, sizeof s->d1);
    static const sf_elastic_field velocity[] = {SF_FIELD_VX, SF_FIELD_VY, SF_FIELD_VZ};
    static const sf_elastic_field stress[] = {SF_FIELD_SZZ, SF_FIELD_SXZ, SF_FIELD_SYZ,
                                              SF_FIELD_SXX, SF_FIELD_SYY};
    for (int q = 0; q < MAX_HALO_FIELDS; ++q) {
        if (q < 3) b->halo_fields[SF_HALF_VELOCITY].f[q] = s->f[velocity[q]];
        b->halo_fields[SF_HALF_STRESS].f[q] = s->f[stress[q]];
    }
}

void *sf_cuda_elastic_create_relaxing(sf_cuda_common *c, const sf_problem *p,
                                      const sf_relaxation_medium *bulk, const sf_relaxation_medium *shear)
{
    elastic_state *b = (elastic_state *)sf_calloc(1, sizeof *b, "the elastic CUDA kernels");
    b->c = c;
    b->dt = p->dt;
    b->bulk = bulk, b->shear = shear;
    memcpy(b->h, p->h, sizeof b->h);
    plan_arrays(b, p);
    return b;
}

static void *elastic_create(sf_cuda_common *c, const sf_problem *p)
{
    return sf_cuda_elastic_create_relaxing(c, p, NULL, NULL);
}

static void elastic_upload(void *state, const sf_problem *p)
{
    elastic_state *b = (elastic_state *)state;
    setup_step(b, p);
    upload_nodes(b, p);
    if (b->bulk) upload_relaxation(b, p);
    if (p->energy) upload_energy_weights(b, p);
}

/* Every field is checked, in sf_elastic_field order. */
static int guard_fields(const void *state, const float *fields[SF_GUARD_MAX_FIELDS])
{
    const elastic_state *b = (const elastic_state *)state;
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) fields[f] = b->step.f[f];
    return SF_ELASTIC_FIELDS;
}

/* ---- halo planes and the free surface ----------------------------------- */

static int halo_arrays(const void *state, int g)
{
    return ((const elastic_state *)state)->halo_fields[g].count;
}

/* One launch over the group's fields. */
static void move_halo(void *state, int g, long k0, float *buffer, int to_buffer, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    sf_cuda_elastic_planes(&b->step, b->halo_fields[g], (int)k0, buffer, to_buffer, stream);
}

/* Images after either half-step above a free surface. */
static int finish_stage(void *state, int g)
{
    (void)g;
    return ((const elastic_state *)state)->step.free_surface_here;
}

/* Node planes mirror about k = 0, half planes about k = -1/2. */
static void mirror(void *state, int g, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    float *const *f = b->step.f;
    sf_cuda_images im = g == SF_HALF_STRESS
        ? sf_cuda_images{{f[SF_FIELD_SZZ], f[SF_FIELD_SXZ], f[SF_FIELD_SYZ]}, {0, 1, 1}, {-1.0f, -1.0f, -1.0f}}
        : sf_cuda_images{{f[SF_FIELD_VX], f[SF_FIELD_VY], f[SF_FIELD_VZ]}, {0, 0, 1}, {1.0f, 1.0f, 1.0f}};
    sf_cuda_elastic_mirror(&b->step, im, stream);
}

/* ---- the half-steps ----------------------------------------------------- */

static void update(void *state, int g, long k0, long k1, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    sf_cuda_elastic_update(&b->step, (sf_half_step)g, (int)k0, (int)k1, stream);
}

/* Every source point indexes the block of all fields. */
static void inject(void *state, int g, float amplitude, long k0, long k1, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    const sf_cuda_sources *s = &b->c->source;
    sf_cuda_elastic_inject(b->fields, s->index, s->coef, s->plane, s->group, (int)s->count, g, amplitude,
                           (int)k0, (int)k1, stream);
}

/* ---- receivers, snapshots, energy ---------------------------------------- */

/* Each channel's component under the elastic recording rule. */
static void sample_receivers(void *state, const sf_cuda_receivers *r, float *out, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    const sf_cuda_channels channels = {r->component, r->offset, r->index, r->weight, r->previous,
                                       (int)r->count};
    sf_cuda_elastic_sample(&b->step, channels, out, stream);
}

static void gather_lattice(void *state, sf_component c, const sf_sampling_lattice *s,
                           const long n[3], float *out, cudaStream_t stream)
{
    const elastic_state *b = (const elastic_state *)state;
    sf_cuda_elastic_lattice(&b->step, c, s->di, s->dj, s->dk, s->k0, n[0], n[1], n[2], out, stream);
}

static void energy(void *state, double out[2])
{
    elastic_state *b = (elastic_state *)state;
    if (!b->before) sf_fatal("internal: energy asked of a backend created without it");
    double sums[2];
    SF_CUDA_CHECK(cudaMemsetAsync(b->energy_sums, 0, 2 * sizeof(double), b->c->xfer.compute),
                  "clearing the energy sums");
    sf_cuda_elastic_energy(&b->step, b->energy_weights, b->energy_sums, b->c->xfer.compute);
    sf_cuda_download(sums, b->energy_sums, sizeof sums, b->c->xfer.compute, "the energy");
    double cell = b->h[0] * b->h[1] * b->h[2];
    out[0] = sums[0] * cell;
    out[1] = sums[1] * cell;
}

extern const sf_cuda_physics sf_cuda_elastic_kernels = {
    "elastic", SF_HALF_STEPS, 1, 1,
    elastic_create, elastic_upload, NULL, NULL,
    update, finish_stage, mirror,
    place_source, NULL, inject,
    halo_arrays, NULL, move_halo,
    NULL, sample_receivers, gather_lattice,
    guard_fields, energy};

SF_CUDA_BACKEND(sf_backend_cuda_elastic, sf_cuda_elastic_kernels, sf_cuda_backend_energy)
