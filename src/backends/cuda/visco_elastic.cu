/* The visco-elastic kernels of the CUDA backend: the elastic ones
 * (cuda_elastic.h) at the unrelaxed moduli, their stress update relaxing
 * each increment through the medium's standard linear solids. */
#include "cuda_backend.h"
#include "cuda_elastic.h"

extern "C" {
#include "sf_visco_elastic.h"
}

static void *visco_create(sf_cuda_common *c, const sf_problem *p)
{
    const sf_visco_elastic_medium *m = (const sf_visco_elastic_medium *)p->medium;
    const sf_problem elastic = sf_visco_elastic_unrelaxed_problem(p);
    return sf_cuda_elastic_create_relaxing(c, &elastic, &m->bulk, &m->shear);
}

static void visco_upload(void *state, const sf_problem *p)
{
    const sf_problem elastic = sf_visco_elastic_unrelaxed_problem(p);
    sf_cuda_elastic_kernels.upload(state, &elastic);
}

/* The elastic table with the entries above and no energy diagnostic (the
 * solids hold energy the elastic sum leaves out); made on first use, after
 * the elastic one exists. */
static const sf_cuda_physics &visco_kernels()
{
    static const sf_cuda_physics kernels = [] {
        sf_cuda_physics k = sf_cuda_elastic_kernels;
        k.name = "visco_elastic";
        k.create = visco_create;
        k.upload = visco_upload;
        k.energy = NULL;
        return k;
    }();
    return kernels;
}

SF_CUDA_BACKEND(sf_backend_cuda_visco_elastic, visco_kernels(), NULL)
