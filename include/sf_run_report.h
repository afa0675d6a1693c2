/* The machine-readable run report: one JSON file per `seisfd run` or
 * `seisfd bench --report`, written by world rank 0 under a temporary name
 * and renamed (README, "Run report", lists every field). Scaling scripts
 * read it. */
#ifndef SF_RUN_REPORT_H
#define SF_RUN_REPORT_H

#include "sf_config.h"
#include "sf_device.h"
#include "sf_shot_result.h"
#include "sf_simulation.h"
#include "sf_thread_count.h"

#include <mpi.h>
#include <stddef.h>

enum { SF_HOST_NAME = 256, SF_GPU_TEXT = 128 };

/* Where one rank ran and what it held. */
/* A rank's slab and its compute time per step: as the cost model
 * predicted it, and as measured (the backend's stencil time over the
 * timed steps of the last shot, without waits for neighbours; 0 when no
 * step was timed). */
typedef struct {
    long first_plane, planes;
    double predicted, measured;
} sf_slab_share;

typedef struct {
    int rank, group;
    char host[SF_HOST_NAME];
    int gpu_index;                 /* -1: no GPU (CPU backend) */
    char gpu_name[SF_GPU_TEXT], gpu_uuid[SF_GPU_TEXT];
    double memory_bytes;           /* fields, model, tables: as the set-up summary counts */
    double setup_seconds[SF_SETUP_PARTS];  /* the set-up's parts (sf_simulation.h) */
    char halo_reason[SF_TRANSPORT_TEXT];   /* the halo transport and why (sf_placement) */
    int threads;                   /* OpenMP threads */
    char threads_origin[SF_THREAD_ORIGIN_TEXT];  /* where that number came from */
    sf_slab_share slab;
} sf_process_info;

typedef struct {
    const char *command;           /* "run" or "bench" */
    const char *job_path;          /* NULL for bench */
    const char *job_hash;          /* NULL for bench */
    char started[32], finished[32];
    double wall_seconds;
    /* The wall time shots were computed in (a survey: from the first shot
     * handed out to the last result; one shot or bench: its timed steps):
     * totals.points_per_second divides by it. */
    double compute_seconds;
    const sf_config *cfg;          /* physics, grid, model, boundaries */
    double dt;
    long steps;                    /* time steps of a shot */
    const sf_placement *placement; /* the backend and the halo transport */
    int ranks, ranks_per_shot, groups;
    const sf_process_info *processes;   /* [ranks] */
    const sf_shot_result *shots;   /* in shot order */
    long nshots;
    int stop;                      /* the signal's request that left work undone, or 0 */
} sf_run_report;

/* Collective over comm (every rank of the run): this rank's entry, all
 * of them on rank 0 ([size], to free), NULL elsewhere. On a GPU the
 * rank's device index, name and UUID are read. */
sf_process_info *sf_report_processes(MPI_Comm comm, int group, const sf_placement *placement,
                                     double memory_bytes, const double setup_seconds[SF_SETUP_PARTS],
                                     const sf_slab_share *slab);

/* Rank 0: writes the report to path (its directory made as needed) via
 * path.partial and a rename. 0, or -1 with the reason. */
int sf_report_write(const char *path, const sf_run_report *report, char *reason, size_t len);

/* The report's default path for a single-shot job: the gather's path
 * without its extension, then ".report.json". */
void sf_report_default_path(const char *gather, char *out, size_t len);

#endif
