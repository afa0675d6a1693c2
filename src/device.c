/* Backend choice: the CUDA parts exist only in builds with CUDA, so each
 * function has a CUDA and a CPU-only form. */
#include "sf_device.h"
#include "sf_error.h"

#include <omp.h>

#ifndef SF_HAVE_CUDA
#define SF_HAVE_CUDA 0
#endif

#if SF_HAVE_CUDA
#include "sf_gpu.h"

#include <cuda_runtime_api.h>

/* Collective: does this job run on the GPUs (binding each rank to one)? */
static int choose_gpu(sf_device_kind kind, const char *what, MPI_Comm comm)
{
    if (kind == SF_DEVICE_CPU) return 0;
    char missing[400];
    if (!sf_gpu_everywhere(comm, missing, sizeof missing)) {
        if (kind == SF_DEVICE_AUTO) return 0;
        sf_fail_collective("%s: cuda was asked for, but %s; use cpu or auto", what, missing);
    }
    sf_gpu_bind(comm);
    return 1;
}

const sf_backend_ops *sf_backend_choose(sf_device_kind kind, const char *what, MPI_Comm comm)
{
    return choose_gpu(kind, what, comm) ? sf_backend_cuda() : sf_backend_cpu();
}

const sf_elastic_backend_ops *sf_elastic_backend_choose(sf_device_kind kind, const char *what,
                                                        MPI_Comm comm)
{
    return choose_gpu(kind, what, comm) ? sf_elastic_backend_cuda() : sf_elastic_backend_cpu();
}

void sf_backend_print_placement(int cuda, MPI_Comm comm)
{
    if (cuda)
        sf_gpu_print_binding(comm);
    else
        sf_info("  threads per rank  %d", omp_get_max_threads());
}

void sf_backend_print_build(void)
{
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    sf_info("  backends  cpu, cuda (CUDA runtime %d.%d)", runtime / 1000, runtime % 1000 / 10);
    sf_gpu_print_visible();
}

#else

static void refuse_cuda(sf_device_kind kind, const char *what)
{
    if (kind == SF_DEVICE_CUDA)
        sf_fail_collective("%s: cuda was asked for, but this build of seisfd has no CUDA backend "
                           "(built with CUDA=0 or without nvcc); use cpu or auto",
                           what);
}

const sf_backend_ops *sf_backend_choose(sf_device_kind kind, const char *what, MPI_Comm comm)
{
    (void)comm;
    refuse_cuda(kind, what);
    return sf_backend_cpu();
}

const sf_elastic_backend_ops *sf_elastic_backend_choose(sf_device_kind kind, const char *what,
                                                        MPI_Comm comm)
{
    (void)comm;
    refuse_cuda(kind, what);
    return sf_elastic_backend_cpu();
}

void sf_backend_print_placement(int cuda, MPI_Comm comm)
{
    (void)cuda;
    (void)comm;
    sf_info("  threads per rank  %d", omp_get_max_threads());
}

void sf_backend_print_build(void) { sf_info("  backends  cpu (built without CUDA)"); }

#endif
