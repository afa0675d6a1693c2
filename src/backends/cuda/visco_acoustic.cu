/* The visco-acoustic kernels of the CUDA backend: the acoustic ones
 * (cuda_acoustic.h) at the unrelaxed velocity, their update relaxing
 * through the medium's standard linear solids. */
#include "cuda_acoustic.h"
#include "cuda_backend.h"

extern "C" {
#include "sf_visco_acoustic.h"
}

static void *visco_create(sf_cuda_common *c, const sf_problem *p)
{
    const float *param[SF_MAX_PARAMS] = {NULL};
    const sf_problem acoustic = sf_visco_unrelaxed_problem(p, param);
    return sf_cuda_acoustic_create_relaxing(c, &acoustic,
                                            &((const sf_visco_medium *)p->medium)->relaxation);
}

static void visco_upload(void *state, const sf_problem *p)
{
    const float *param[SF_MAX_PARAMS] = {NULL};
    const sf_problem acoustic = sf_visco_unrelaxed_problem(p, param);
    sf_cuda_acoustic_kernels.upload(state, &acoustic);
}

SF_CUDA_DERIVED_BACKEND(sf_backend_cuda_visco_acoustic, sf_cuda_acoustic_kernels, "visco_acoustic",
                        visco_create, visco_upload)
