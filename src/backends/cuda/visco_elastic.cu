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

SF_CUDA_DERIVED_BACKEND(sf_backend_cuda_visco_elastic, sf_cuda_elastic_kernels, "visco_elastic",
                        visco_create, visco_upload)
