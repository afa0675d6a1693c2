/* The visco-elastic kernels of the CPU backend: the elastic ones
 * (elastic_kernels.h) at the unrelaxed moduli, with a law that turns each
 * stress increment D of the lossless update into D less the loss of its
 * standard linear solids (sf_relaxation.h): the bulk part, the normal
 * increments' mean, through the point's bulk Q, and the deviatoric rest
 * through its qs. */
#include "cpu_backend.h"
#include "sf_elastic_backend.h"
#include "cpu_relaxation.h"
#include "elastic_kernels.h"
#include "sf_error.h"
#include "sf_visco_elastic.h"

enum { CHUNK = SF_CPU_ELASTIC_CHUNK, BULK = SF_VISCO_ELASTIC_BULK, XX = SF_VISCO_ELASTIC_XX,
       YY = SF_VISCO_ELASTIC_YY, SHEAR = SF_VISCO_ELASTIC_XY, MEMORY = SF_VISCO_ELASTIC_MEMORY };

/* Each point's weights are interpolated once, at creation (cpu_relaxation.h);
 * the full layout only (sf_config.h, attenuates). */
typedef struct {
    sf_relaxation_law law;              /* its table the medium's, read at creation only */
    int mechanisms;
    /* Per solid, on the owned planes: the bulk and shear weights, and the
     * memory variables (state) in sf_visco_elastic.h's order. */
    float *bulk_weight[SF_MAX_MECHANISMS], *shear_weight[SF_MAX_MECHANISMS];
    float *memory[SF_MAX_MECHANISMS][MEMORY];
    sf_cpu_stress_law stresses;
} visco;

static inline void relax_normal(void *state, long len, size_t p, float increment[3][CHUNK])
{
    const visco *v = state;
    float bulk[CHUNK], xx[CHUNK], yy[CHUNK];   /* the bulk and deviatoric increments */
    for (long i = 0; i < len; ++i) {
        bulk[i] = (increment[0][i] + increment[1][i] + increment[2][i]) / 3.0f;
        xx[i] = increment[0][i] - bulk[i];
        yy[i] = increment[1][i] - bulk[i];
    }
    float loss_bulk[CHUNK] = {0.0f}, loss_xx[CHUNK] = {0.0f}, loss_yy[CHUNK] = {0.0f};
    for (int l = 0; l < v->mechanisms; ++l) {
        const float *kw = v->bulk_weight[l] + p, *mw = v->shear_weight[l] + p;
        float *sb = v->memory[l][BULK] + p, *sx = v->memory[l][XX] + p, *sy = v->memory[l][YY] + p;
        const float a = v->law.decay[l];
        for (long i = 0; i < len; ++i) {
            loss_bulk[i] += sf_relaxation_advance(a, kw[i], bulk[i], &sb[i]);
            loss_xx[i] += sf_relaxation_advance(a, mw[i], xx[i], &sx[i]);
            loss_yy[i] += sf_relaxation_advance(a, mw[i], yy[i], &sy[i]);
        }
    }
    /* The deviatoric zz memory is minus the sum of xx's and yy's. */
    for (long i = 0; i < len; ++i) {
        increment[0][i] -= 0.5f * (loss_bulk[i] + loss_xx[i]);
        increment[1][i] -= 0.5f * (loss_bulk[i] + loss_yy[i]);
        increment[2][i] -= 0.5f * (loss_bulk[i] - loss_xx[i] - loss_yy[i]);
    }
}

static inline void relax_shear(void *state, int s, long len, size_t p, float *increment)
{
    const visco *v = state;
    float loss[CHUNK] = {0.0f};
    for (int l = 0; l < v->mechanisms; ++l) {
        const float *mw = v->shear_weight[l] + p;
        float *memory = v->memory[l][SHEAR + s] + p;
        const float a = v->law.decay[l];
        for (long i = 0; i < len; ++i) loss[i] += sf_relaxation_advance(a, mw[i], increment[i], &memory[i]);
    }
    for (long i = 0; i < len; ++i) increment[i] -= 0.5f * loss[i];
}

SF_CPU_VECTOR_KERNEL(relax_normal, (void *state, long len, size_t p, float increment[3][CHUNK]),
                     (state, len, p, increment));
SF_CPU_VECTOR_KERNEL(relax_shear, (void *state, int s, long len, size_t p, float *increment),
                     (state, s, len, p, increment));

/* The law and its arrays live in the arena, freed with the backend; the
 * elastic state runs at the unrelaxed moduli. */
static void *visco_create(sf_cpu_shared *shared, const sf_problem *p)
{
    const sf_visco_elastic_medium *m = p->medium;
    visco *v = sf_cpu_take(shared->arena, 1, sizeof *v, "the visco-elastic law");
    if (m->bulk.coarse) sf_fatal("internal: the visco-elastic CPU kernels take the full layout only");
    v->law = sf_relaxation_law_for_step(&m->bulk, p->dt);
    v->mechanisms = m->bulk.mechanisms;
    for (int l = 0; l < v->mechanisms; ++l) {
        v->bulk_weight[l] = sf_cpu_relaxation_weights(shared, &v->law, m->bulk.coordinate, l);
        v->shear_weight[l] = sf_cpu_relaxation_weights(shared, &v->law, m->shear.coordinate, l);
        for (int q = 0; q < MEMORY; ++q)
            v->memory[l][q] = sf_cpu_take_state(shared->arena, (size_t)shared->L.plane_size,
                                                sf_cpu_owned_rows(&shared->L),
                                                SF_CPU_STAGE(SF_HALF_STRESS),
                                                "the relaxation memory variables");
    }
    v->stresses = (sf_cpu_stress_law){relax_normal_kernels[shared->vectors],
                                       relax_shear_kernels[shared->vectors], v};
    const sf_problem elastic = sf_visco_elastic_unrelaxed_problem(p);
    return sf_cpu_elastic_create(shared, &elastic, &v->stresses);
}

/* The elastic table with its create, without the energy diagnostic (the
 * solids hold energy that the elastic sum leaves out); made on first use. */
static const sf_cpu_physics *visco_kernels(void)
{
    static sf_cpu_physics kernels;
    if (kernels.name) return &kernels;
    kernels = sf_cpu_elastic_kernels;
    kernels.create = visco_create;
    kernels.energy = NULL;
    kernels.name = "visco_elastic";
    return &kernels;
}

SF_CPU_BACKEND(sf_backend_cpu_visco_elastic, (*visco_kernels()), NULL)
