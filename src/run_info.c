/* Where each rank of a run computed, for the run report: its host, its
 * GPU (CUDA backend), how its halos travelled and the memory it held. */
#include "sf_error.h"
#include "sf_run_report.h"
#include "sf_thread_count.h"

#if SF_HAVE_CUDA
#include "sf_gpu.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void describe_gpu(sf_process_info *p, int cuda)
{
    p->gpu_index = -1;
#if SF_HAVE_CUDA
    if (cuda)
        sf_gpu_identity(&p->gpu_index, p->gpu_name, sizeof p->gpu_name, p->gpu_uuid,
                        sizeof p->gpu_uuid);
#else
    (void)cuda;
#endif
}

sf_process_info *sf_report_processes(MPI_Comm comm, int group, const sf_placement *placement,
                                     double memory_bytes, const double setup_seconds[SF_SETUP_PARTS],
                                     const sf_slab_share *slab)
{
    int rank, size, length = 0;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "describing the ranks");
    SF_MPI_CHECK(MPI_Comm_size(comm, &size), "describing the ranks");
    sf_process_info mine;
    memset(&mine, 0, sizeof mine);
    mine.rank = rank;
    mine.group = group;
    char host[MPI_MAX_PROCESSOR_NAME] = "unknown";
    if (MPI_Get_processor_name(host, &length) != MPI_SUCCESS) strcpy(host, "unknown");
    snprintf(mine.host, sizeof mine.host, "%s", host);
    describe_gpu(&mine, placement->cuda);
    snprintf(mine.halo_reason, sizeof mine.halo_reason, "%s", placement->transport_reason);
    const char *origin;
    mine.threads = sf_thread_count_chosen(&origin);
    snprintf(mine.threads_origin, sizeof mine.threads_origin, "%s", origin);
    mine.memory_bytes = memory_bytes;
    memcpy(mine.setup_seconds, setup_seconds, sizeof mine.setup_seconds);
    mine.slab = *slab;
    sf_process_info *all = rank == 0 ? sf_malloc((size_t)size * sizeof *all, "the ranks' report") : NULL;
    /* The same binary on every rank: the entries travel as bytes. */
    SF_MPI_CHECK(MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                            comm),
                 "collecting the ranks' report entries");
    return all;
}
