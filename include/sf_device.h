/* Where a job or benchmark runs: the CPU backend, or the CUDA backend with
 * one GPU per rank, and how its halo buffers reach MPI. */
#ifndef SF_DEVICE_H
#define SF_DEVICE_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_gpu_aware_mpi.h"
#include "sf_physics_registry.h"

#include <mpi.h>

typedef struct {
    sf_physics physics;
    sf_device_kind device;
    sf_precision precision;         /* run.precision: mixed has no cuda kernels yet */
    char device_what[640];          /* names the setting in messages: "job.yaml: run.device" */
    sf_gpu_aware_setting gpu_aware; /* run.gpu_aware_mpi, resolved */
} sf_placement_request;

enum { SF_TRANSPORT_TEXT = SF_GPU_AWARE_TEXT + 160 };

typedef struct {
    const sf_backend_ops *ops;               /* the job's physics on that backend */
    const char *name;                        /* "cpu" or "cuda" */
    int cuda;
    sf_gpu_aware_setting gpu_aware;          /* as requested */
    sf_halo_transport transport;             /* the same on every rank */
    char transport_reason[SF_TRANSPORT_TEXT];/* this rank's */
    double seconds;                          /* this rank's choice: devices, binding, transport */
} sf_placement;

/* A job's request: run.device and run.gpu_aware_mpi, which
 * SEISFD_GPU_AWARE_MPI overrides (a bad value of it ends the run). */
void sf_placement_request_of(const sf_config *cfg, sf_placement_request *out);

/* Collective over comm. cpu: the CPU backend. cuda: the CUDA backend,
 * bound to this rank's GPU; a build without CUDA, or a rank without a GPU,
 * is an error naming the rank and host. auto: CUDA when the build has it,
 * every rank sees a GPU and the physics has cuda kernels (else a note says
 * the GPUs stay idle), otherwise the CPU. A physics without kernels on
 * the backend asked for is one error (sf_placement_refusal) before any
 * GPU is probed or memory allocated. On GPUs the ranks then agree on the
 * halo transport (sf_gpu_halo_transport). */
void sf_placement_choose(const sf_placement_request *request, MPI_Comm comm, sf_placement *out);

/* Why physics cannot run on the device asked for, from its plug-in's
 * backends and this build alone: one line naming the physics, the backend
 * and what to use instead ("vti has no cuda backend; use cpu"), or that
 * precision mixed has no cuda kernels yet, written to why; NULL when it
 * can (auto can whenever the physics has any backend). */
const char *sf_placement_refusal(const sf_physics_plugin *physics, sf_device_kind device,
                                 sf_precision precision,
                                 char *why, size_t len);

/* Collective: the set-up lines saying where each rank computes (threads
 * per rank; with cuda each rank's host, GPU and cores) and how each
 * rank's halos travel, and why. */
void sf_placement_print(const sf_placement *placement, MPI_Comm comm);

/* The backends this build has and the GPUs it sees, for --version. */
void sf_backend_print_build(void);

#endif
