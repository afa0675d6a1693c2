/* The visco-acoustic kernels of the CPU backend: the acoustic ones
 * (acoustic_kernels.h) at the unrelaxed velocity, with a law that
 * finishes each block of rows: each point's standard linear solids
 * (sf_relaxation.h) driven by D = p_next - 2 p + p_prev, the acoustic
 * increment (v_U^2 dt^2 times the stretched Laplacian). */
#include "acoustic_kernels.h"
#include "cpu_backend.h"
#include "sf_acoustic.h"
#include "sf_relaxation.h"
#include "sf_visco_acoustic.h"

#include <math.h>
#include <omp.h>

/* A thread's row of each point's increment and loss. */
typedef struct {
    float *increment, *loss;
} row_scratch;

/* Each point's weights are interpolated once, at creation: a portable
 * build cannot vectorize the table's gathers, which every step paid for
 * (20% of the step at 96^3; the GPU reads the table instead). */
typedef struct {
    float decay[SF_MAX_MECHANISMS];
    int mechanisms;
    float *memory[SF_MAX_MECHANISMS];   /* S_l on the owned planes (state) */
    float *weight[SF_MAX_MECHANISMS];   /* w_l on the owned planes */
    row_scratch *scratch;               /* [threads] */
    sf_cpu_row_law rows;
} visco;

/* A mechanism at a time along the row, so that each loop is short and
 * regular. */
static void finish_row(const visco *v, const row_scratch *r, long nx, size_t q, float *restrict out,
                       const float *restrict now, const float *restrict was)
{
    float *restrict increment = r->increment, *restrict loss = r->loss;
    for (long i = 0; i < nx; ++i) {
        increment[i] = out[i] - 2.0f * now[i] + was[i];
        loss[i] = 0.0f;
    }
    for (int l = 0; l < v->mechanisms; ++l) {
        float *restrict memory = v->memory[l] + q;
        const float *restrict weight = v->weight[l] + q, decay = v->decay[l];
        for (long i = 0; i < nx; ++i)
            loss[i] += sf_relaxation_advance(decay, weight[i], increment[i], &memory[i]);
    }
    for (long i = 0; i < nx; ++i) out[i] -= 0.5f * loss[i];
}

static void finish_rows(void *state, const sf_layout *L, long j0, long j1, long k, float *next,
                        const float *cur, const float *before)
{
    const visco *v = state;
    const row_scratch *r = &v->scratch[omp_get_thread_num()];
    for (long j = j0; j < j1; ++j)
        finish_row(v, r, L->nx, sf_plane_index(L, 0, j, k), next + (j - j0) * L->sx,
                   cur + (j - j0) * L->sx, before + (j - j0) * L->nx);
}

static row_scratch *take_scratch(sf_cpu_shared *shared)
{
    const int threads = omp_get_max_threads();
    const size_t nx = (size_t)shared->L.nx;
    row_scratch *scratch = sf_cpu_take(shared->arena, (size_t)threads, sizeof *scratch, "row buffers");
    for (int t = 0; t < threads; ++t) {
        scratch[t].increment = sf_cpu_take(shared->arena, nx, sizeof(float), "row buffers");
        scratch[t].loss = sf_cpu_take(shared->arena, nx, sizeof(float), "row buffers");
    }
    return scratch;
}

/* Mechanism l's weight at every owned point, from the medium's table and
 * each point's place in it. */
static float *weights_on_planes(sf_cpu_shared *shared, const sf_relaxation_medium *r, int l)
{
    const sf_layout *L = &shared->L;
    const sf_relaxation_law law = {.mechanisms = r->mechanisms, .intervals = r->intervals,
                                   .weight = r->weight};
    float *out = sf_cpu_take(shared->arena, (size_t)L->plane_size, sizeof(float), "the relaxation weights");
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i) {
                float fraction;
                const int at = sf_relaxation_node(&law, r->coordinate[(k * L->ny + j) * L->nx + i], &fraction);
                out[sf_plane_index(L, i, j, k)] = sf_relaxation_weight(&law, at, fraction, l);
            }
    return out;
}

/* The law and its arrays live in the arena, freed with the backend; the
 * acoustic state runs at the unrelaxed velocity. */
static void *visco_create(sf_cpu_shared *shared, const sf_problem *p)
{
    const sf_visco_medium *m = p->medium;
    const sf_relaxation_medium *r = &m->relaxation;
    visco *v = sf_cpu_take(shared->arena, 1, sizeof *v, "the visco-acoustic law");
    v->mechanisms = r->mechanisms;
    for (int l = 0; l < r->mechanisms; ++l) {
        v->decay[l] = (float)exp(-p->dt / r->tau[l]);
        v->memory[l] = sf_cpu_take_state(shared->arena, (size_t)shared->L.plane_size,
                                         "the relaxation memory variables");
        v->weight[l] = weights_on_planes(shared, r, l);
    }
    v->scratch = take_scratch(shared);
    v->rows = (sf_cpu_row_law){finish_rows, v};
    sf_problem acoustic = *p;
    const float *unrelaxed[SF_MAX_PARAMS] = {m->unrelaxed};
    acoustic.param = unrelaxed;
    acoustic.nparams = 1;
    return sf_cpu_acoustic_create(shared, &acoustic, &v->rows);
}

static const sf_cpu_physics VISCO_ACOUSTIC = {
    .name = "visco_acoustic",
    .create = visco_create,
    SF_CPU_ACOUSTIC_KERNELS,
};

SF_CPU_BACKEND(sf_backend_cpu_visco_acoustic, VISCO_ACOUSTIC, NULL)
