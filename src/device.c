/* Backend choice: the CUDA parts exist only in builds with CUDA, so the
 * GPU side of the choice has a CUDA and a CPU-only form. */
#include "sf_device.h"
#include "sf_cpu_vectors.h"
#include "sf_error.h"
#include "sf_simulation.h"
#include "sf_thread_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SF_HAVE_CUDA
#define SF_HAVE_CUDA 0
#endif

#if SF_HAVE_CUDA
#include "sf_gpu.h"

#include <cuda_runtime_api.h>
#endif

void sf_placement_request_of(const sf_config *cfg, sf_placement_request *out)
{
    memset(out, 0, sizeof *out);
    out->physics = cfg->physics;
    out->device = cfg->device;
    out->precision = cfg->precision;
    snprintf(out->device_what, sizeof out->device_what, "%.600s: run.device", cfg->source_path);
    char origin[SF_GPU_AWARE_TEXT] = "the default", why[200];
    if (cfg->gpu_aware_mpi_mark.line > 0)
        snprintf(origin, sizeof origin, "run.gpu_aware_mpi at %.200s:%d", cfg->source_path,
                 cfg->gpu_aware_mpi_mark.line);
    if (sf_gpu_aware_resolve(cfg->gpu_aware_mpi, origin, 1, &out->gpu_aware, why, sizeof why))
        sf_fail_collective("%s", why);
}

/* A backend's line of --version: the physics its plug-ins have kernels for. */
static void print_backend_physics(int cuda)
{
    char names[160];
    sf_physics_on_backend(cuda, ", ", names, sizeof names);
    sf_info("  physics   %s: %s", cuda ? "cuda" : "cpu", *names ? names : "none");
}

const char *sf_placement_refusal(const sf_physics_plugin *physics, sf_device_kind device,
                                 sf_precision precision, char *why, size_t len)
{
    const char *name = physics->declared->name;
    const int cpu = sf_physics_has_backend(physics, 0), cuda = sf_physics_has_backend(physics, 1);
    if (!cpu && !cuda)
        snprintf(why, len, "%s has no backend in this build of seisfd (no cpu kernels%s)", name,
                 SF_HAVE_CUDA ? ", no cuda kernels" : ", and the build has no CUDA backend");
    else if (device == SF_DEVICE_CPU && !cpu)
        snprintf(why, len, "%s has no cpu backend; use cuda", name);
    else if (device == SF_DEVICE_CUDA && !SF_HAVE_CUDA)
        snprintf(why, len, "cuda was asked for, but this build of seisfd has no CUDA backend "
                 "(built with CUDA=0 or without nvcc); use cpu or auto");
    else if (device == SF_DEVICE_CUDA && !cuda)
        snprintf(why, len, "%s has no cuda backend; use cpu", name);
    else if (precision == SF_PRECISION_MIXED && !cpu)
        snprintf(why, len, "precision mixed runs on the cpu backend only so far, which %s lacks; "
                 "use precision float32", name);
    else if (device == SF_DEVICE_CUDA && precision == SF_PRECISION_MIXED)
        snprintf(why, len, "precision mixed has no cuda kernels yet; use cpu, or precision float32 "
                 "on cuda");
    else
        return NULL;
    return why;
}

#if SF_HAVE_CUDA

/* Collective: does this job run on the GPUs (binding each rank to one)?
 * Auto runs a physics without cuda kernels on the CPU, with a note when
 * every rank has a GPU it leaves idle. */
static int choose_gpu(const sf_placement_request *r, const sf_physics_plugin *physics,
                      MPI_Comm comm)
{
    if (r->device == SF_DEVICE_CPU) return 0;
    const char *name = physics->declared->name;
    char missing[400];
    if (!sf_gpu_everywhere(comm, missing, sizeof missing)) {
        if (r->device == SF_DEVICE_CUDA)
            sf_fail_collective("%s: cuda was asked for, but %s; use cpu or auto", r->device_what,
                               missing);
        if (!sf_physics_has_backend(physics, 0))
            sf_fail_collective("%s: %s has no cpu backend, and cuda cannot run here: %s",
                               r->device_what, name, missing);
        return 0;
    }
    if (!sf_physics_has_backend(physics, 1)) {
        sf_info("seisfd: note: %s has no cuda backend; auto runs it on the cpu, leaving the GPUs "
                "idle (%s)", name, r->device_what);
        return 0;
    }
    if (r->precision == SF_PRECISION_MIXED) {
        sf_info("seisfd: note: precision mixed has no cuda kernels yet; auto runs it on the cpu, "
                "leaving the GPUs idle (%s)", r->device_what);
        return 0;
    }
    sf_gpu_bind(comm);
    return 1;
}

void sf_backend_print_build(void)
{
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    sf_info("  backends  cpu, cuda (CUDA runtime %d.%d)", runtime / 1000, runtime % 1000 / 10);
    print_backend_physics(0);
    print_backend_physics(1);
    sf_gpu_print_visible();
}

#else

/* Without CUDA every request that passed sf_placement_refusal runs on the CPU. */
static int choose_gpu(const sf_placement_request *r, const sf_physics_plugin *physics,
                      MPI_Comm comm)
{
    (void)r, (void)physics, (void)comm;
    return 0;
}

void sf_backend_print_build(void)
{
    sf_info("  backends  cpu (built without CUDA)");
    print_backend_physics(0);
}

#endif

void sf_placement_choose(const sf_placement_request *r, MPI_Comm comm, sf_placement *out)
{
    const double started = MPI_Wtime();
    memset(out, 0, sizeof *out);
    out->gpu_aware = r->gpu_aware;
    const sf_physics_plugin *physics = sf_physics_of(r->physics);
    char why[300];
    if (sf_placement_refusal(physics, r->device, r->precision, why, sizeof why))
        sf_fail_collective("%s: %s", r->device_what, why);
    out->cuda = choose_gpu(r, physics, comm);
#if SF_HAVE_CUDA
    if (out->cuda) {
        out->name = "cuda";
        out->ops = physics->cuda();
        out->transport = sf_gpu_halo_transport(&r->gpu_aware, comm, out->transport_reason,
                                               sizeof out->transport_reason);
        out->seconds = MPI_Wtime() - started;
        return;
    }
#endif
    out->name = "cpu";
    out->ops = physics->cpu();
    out->transport = SF_HALO_HOST_MEMORY;
    snprintf(out->transport_reason, sizeof out->transport_reason,
             "host memory: the CPU backend's buffers (gpu_aware_mpi does not apply)");
    out->seconds = MPI_Wtime() - started;
}

/* Each run of consecutive ranks with the same text (len bytes a rank in
 * all), once. */
static void print_runs(const char *all, int nranks, int len)
{
    for (int first = 0, last; first < nranks; first = last + 1) {
        const char *text = all + (size_t)first * (size_t)len;
        for (last = first;
             last + 1 < nranks && !strcmp(all + (size_t)(last + 1) * (size_t)len, text);)
            ++last;
        if (first == last)
            sf_info("    rank %d: %s", first, text);
        else
            sf_info("    ranks %d-%d: %s", first, last, text);
    }
}

/* Rank 0 prints each run of consecutive ranks with the same reason once. */
static void print_transport(const sf_placement *p, MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char *all = rank == 0 ? sf_malloc((size_t)nranks * SF_TRANSPORT_TEXT, "halo transport lines")
                          : NULL;
    SF_MPI_CHECK(MPI_Gather(p->transport_reason, SF_TRANSPORT_TEXT, MPI_CHAR, all,
                            SF_TRANSPORT_TEXT, MPI_CHAR, 0, comm),
                 "collecting the halo transport");
    sf_info("  halo buffers      %s%s", sf_halo_transport_name(p->transport),
            nranks > 1 ? ", by rank:" : " (one rank: no halo exchange)");
    if (rank == 0 && nranks > 1) print_runs(all, nranks, SF_TRANSPORT_TEXT);
    free(all);
}

enum { RANK_TEXT = 240 };

/* Rank 0 prints each rank's text (RANK_TEXT bytes) after the label once
 * when the ranks agree, else each run of consecutive ranks with the same. */
static void print_by_rank(MPI_Comm comm, const char *label, const char *mine)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char *all = rank == 0 ? sf_malloc((size_t)nranks * RANK_TEXT, label) : NULL;
    SF_MPI_CHECK(MPI_Gather(mine, RANK_TEXT, MPI_CHAR, all, RANK_TEXT, MPI_CHAR, 0, comm), label);
    int agree = 1;
    for (int r = 1; rank == 0 && r < nranks; ++r)
        agree = agree && !strcmp(all + (size_t)r * RANK_TEXT, all);
    if (rank == 0 && agree) {
        sf_info("  %-18s%s", label, all);
    } else if (rank == 0) {
        sf_info("  %-18sby rank:", label);
        print_runs(all, nranks, RANK_TEXT);
    }
    free(all);
}

void sf_placement_print(const sf_placement *p, MPI_Comm comm)
{
    char mine[RANK_TEXT];
    sf_thread_count_describe(mine, sizeof mine);
    print_by_rank(comm, "threads per rank", mine);
    if (!p->cuda) {
        sf_cpu_vectors_describe(mine, sizeof mine);
        print_by_rank(comm, "vectors", mine);
    }
#if SF_HAVE_CUDA
    if (p->cuda) sf_gpu_print_binding(comm);
#endif
    print_transport(p, comm);
}
