/* Where a job or benchmark runs: the CPU backend, or the CUDA backend with
 * one GPU per rank. */
#ifndef SF_DEVICE_H
#define SF_DEVICE_H

#include "sf_backend.h"
#include "sf_config.h"
#include "sf_elastic_backend.h"

#include <mpi.h>

/* Collective over comm. cpu: the CPU backend. cuda: the CUDA backend,
 * bound to this rank's GPU; a build without CUDA, or a rank without a GPU,
 * is an error naming the rank and host. auto: CUDA when the build has it
 * and every rank sees a GPU, otherwise the CPU. `what` names the setting
 * in messages, e.g. "job.yaml: run.device". */
const sf_backend_ops *sf_backend_choose(sf_device_kind kind, const char *what, MPI_Comm comm);

/* The same choice for elastic physics. */
const sf_elastic_backend_ops *sf_elastic_backend_choose(sf_device_kind kind, const char *what,
                                                        MPI_Comm comm);

/* Collective: the set-up lines saying where each rank computes (threads
 * per rank; with cuda each rank's host, GPU and cores). */
void sf_backend_print_placement(int cuda, MPI_Comm comm);

/* The backends this build has and the GPUs it sees, for --version. */
void sf_backend_print_build(void);

#endif
