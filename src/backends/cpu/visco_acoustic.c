/* The visco-acoustic kernels of the CPU backend: the acoustic ones
 * (acoustic_kernels.h) at the unrelaxed velocity, with a law that
 * finishes each block of rows: each point's standard linear solids
 * (sf_relaxation.h) driven by D = p_next - 2 p + p_prev, the acoustic
 * increment (v_U^2 dt^2 times the stretched Laplacian). */
#include "acoustic_kernels.h"
#include "cpu_backend.h"
#include "cpu_relaxation.h"
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
    sf_relaxation_law law;              /* its table the medium's, read at creation only */
    int mechanisms;                     /* memory variables a point */
    long z0;
    /* S_l and w_l on the owned planes (the memory variables are state);
     * in a coarse layout one of each, the point's mechanism's. */
    float *memory[SF_MAX_MECHANISMS];
    float *weight[SF_MAX_MECHANISMS];
    row_scratch *scratch;               /* [threads]; the full layout's */
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
        const float *restrict weight = v->weight[l] + q, decay = v->law.decay[l];
        for (long i = 0; i < nx; ++i)
            loss[i] += sf_relaxation_advance(decay, weight[i], increment[i], &memory[i]);
    }
    for (long i = 0; i < nx; ++i) out[i] -= 0.5f * loss[i];
}

/* A coarse layout's row: its points alternate between two mechanisms. */
static void finish_coarse_row(const visco *v, long nx, size_t q, int corner, float *restrict out,
                              const float *restrict now, const float *restrict was)
{
    float *restrict memory = v->memory[0] + q;
    const float *restrict weight = v->weight[0] + q;
    const float even = v->law.decay[corner], odd = v->law.decay[corner | 1];
    for (long i = 0; i < nx; ++i) {
        const float increment = out[i] - 2.0f * now[i] + was[i];
        out[i] -= 0.5f * sf_relaxation_advance(i & 1 ? odd : even, weight[i], increment, &memory[i]);
    }
}

static inline void finish_rows(void *state, const sf_layout *L, long j0, long j1, long k, float *next,
                               const float *cur, const float *before)
{
    const visco *v = state;
    for (long j = j0; j < j1; ++j) {
        const size_t q = sf_plane_index(L, 0, j, k);
        float *out = next + (j - j0) * L->sx;
        const float *now = cur + (j - j0) * L->sx, *was = before + (j - j0) * L->nx;
        if (v->law.coarse)
            finish_coarse_row(v, L->nx, q, sf_relaxation_corner(0, j, v->z0 + k), out, now, was);
        else
            finish_row(v, &v->scratch[omp_get_thread_num()], L->nx, q, out, now, was);
    }
}

SF_CPU_VECTOR_KERNEL(finish_rows,
                     (void *state, const sf_layout *L, long j0, long j1, long k, float *next,
                      const float *cur, const float *before),
                     (state, L, j0, j1, k, next, cur, before));

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

/* The law and its arrays live in the arena, freed with the backend; the
 * acoustic state runs at the unrelaxed velocity. */
static void *visco_create(sf_cpu_shared *shared, const sf_problem *p)
{
    const sf_visco_medium *m = p->medium;
    const sf_relaxation_medium *r = &m->relaxation;
    visco *v = sf_cpu_take(shared->arena, 1, sizeof *v, "the visco-acoustic law");
    v->law = sf_relaxation_law_for_step(r, p->dt);
    v->mechanisms = sf_relaxation_memory_variables(r);
    v->z0 = p->z0;
    for (int l = 0; l < v->mechanisms; ++l) {
        v->memory[l] = sf_cpu_take_state(shared->arena, (size_t)shared->L.plane_size,
                                         sf_cpu_owned_rows(&shared->L),
                                         SF_CPU_STAGE(SF_ACOUSTIC_ADVANCE),
                                         "the relaxation memory variables");
        v->weight[l] = sf_cpu_relaxation_weights(shared, &v->law, r->coordinate, l);
    }
    if (!r->coarse) v->scratch = take_scratch(shared);
    v->rows = (sf_cpu_row_law){finish_rows_kernels[shared->vectors], v};
    const float *param[SF_MAX_PARAMS] = {NULL};
    const sf_problem acoustic = sf_visco_unrelaxed_problem(p, param);
    return sf_cpu_acoustic_create(shared, &acoustic, &v->rows);
}

SF_CPU_ACOUSTIC_BACKEND(sf_backend_cpu_visco_acoustic, "visco_acoustic", visco_create)
