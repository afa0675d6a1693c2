/* The visco-acoustic kernels of the CPU backend: the acoustic ones
 * (acoustic_kernels.h) at the unrelaxed velocity, with a law that
 * finishes each block of rows. With D = p_next - 2 p + p_prev the acoustic
 * increment (v_U^2 dt^2 times the stretched Laplacian) and S_l = dt^2 s_l
 * a mechanism's memory variable at half steps, each point takes
 *
 *     S_l <- a_l S_l + (1 - a_l) Y_l D,   a_l = exp(-dt / tau_l)
 *     p_next <- p_next - sum_l (S_l before + S_l after) / 2,
 *
 * Y_l the point's weight (sf_visco_point): the memory variable integrated
 * exactly over the step for a drive constant over it (stable for any
 * tau_l / dt), at the step's middle the mean of its two half steps. */
#include "acoustic_kernels.h"
#include "cpu_backend.h"
#include "sf_acoustic.h"
#include "sf_visco_acoustic.h"

#include <math.h>

typedef struct {
    int mechanisms;
    float decay[SF_MAX_MECHANISMS];
    float *memory[SF_MAX_MECHANISMS];   /* S_l on the owned planes (state) */
    float *weight[SF_MAX_MECHANISMS];   /* Y_l on the owned planes */
    sf_cpu_row_law law;
} visco;

static void finish_rows(void *state, const sf_layout *L, long j0, long j1, long k, float *next,
                        const float *cur, const float *before)
{
    const visco *v = state;
    for (long j = j0; j < j1; ++j) {
        float *restrict out = next + (j - j0) * L->sx;
        const float *restrict now = cur + (j - j0) * L->sx, *restrict was = before + (j - j0) * L->nx;
        const size_t q = sf_plane_index(L, 0, j, k);
        for (long i = 0; i < L->nx; ++i) {
            const float d = out[i] - 2.0f * now[i] + was[i];
            float sum = 0.0f;
            for (int l = 0; l < v->mechanisms; ++l) {
                float *s = v->memory[l] + q + i;
                const float after = v->decay[l] * *s + (1.0f - v->decay[l]) * v->weight[l][q + i] * d;
                sum += *s + after;
                *s = after;
            }
            out[i] -= 0.5f * sum;
        }
    }
}

/* A compact [nz][ny][nx] array into the owned planes' layout. */
static float *on_planes(sf_cpu_shared *shared, const float *compact, const char *what)
{
    const sf_layout *L = &shared->L;
    float *out = sf_cpu_take(shared->arena, (size_t)L->plane_size, sizeof(float), what);
    for (long k = 0; k < L->nz; ++k)
        for (long j = 0; j < L->ny; ++j)
            for (long i = 0; i < L->nx; ++i)
                out[sf_plane_index(L, i, j, k)] = compact[(k * L->ny + j) * L->nx + i];
    return out;
}

/* The law and its arrays live in the arena, freed with the backend; the
 * acoustic state runs at the unrelaxed velocity. */
static void *visco_create(sf_cpu_shared *shared, const sf_problem *p)
{
    const sf_visco_medium *m = p->medium;
    visco *v = sf_cpu_take(shared->arena, 1, sizeof *v, "the visco-acoustic law");
    v->mechanisms = m->mechanisms;
    for (int l = 0; l < m->mechanisms; ++l) {
        v->decay[l] = (float)exp(-p->dt / m->tau[l]);
        v->memory[l] = sf_cpu_take_state(shared->arena, (size_t)shared->L.plane_size,
                                         "the relaxation memory variables");
        v->weight[l] = on_planes(shared, m->weight[l], "the relaxation weights");
    }
    v->law = (sf_cpu_row_law){finish_rows, v};
    sf_problem acoustic = *p;
    const float *unrelaxed[SF_MAX_PARAMS] = {m->unrelaxed};
    acoustic.param = unrelaxed;
    acoustic.nparams = 1;
    return sf_cpu_acoustic_create(shared, &acoustic, &v->law);
}

static const sf_cpu_physics VISCO_ACOUSTIC = {
    .name = "visco_acoustic",
    .create = visco_create,
    SF_CPU_ACOUSTIC_KERNELS,
};

SF_CPU_BACKEND(sf_backend_cpu_visco_acoustic, VISCO_ACOUSTIC, NULL)
