#include "sf_shot_report.h"
#include "sf_error.h"
#include "sf_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rank 0: the files the shot put in place, with their sizes and
 * checksums when they were verified. */
static void list_outputs(const sf_simulation *s, sf_shot_result *r)
{
    const sf_output_set *o = &s->outputs;
    r->nfiles = 0;
    for (int k = 0; k < o->count && k < SF_RESULT_FILES; ++k) {
        snprintf(r->files[k], sizeof r->files[k], "%s", o->path[k]);
        r->sizes[k] = o->size[k];
        r->checksums[k] = o->checksum[k];
        ++r->nfiles;
    }
}

void sf_shot_result_fill(sf_simulation *s, int failed, long number, int group, double started,
                         sf_shot_result *r)
{
    double mine[SF_REPORT_PHASES];
    sf_simulation_phases(s, mine);
    memset(r, 0, sizeof *r);
    SF_MPI_CHECK(MPI_Reduce(mine, r->phases, SF_REPORT_PHASES, MPI_DOUBLE, MPI_MAX, 0, s->slab.comm),
                 "collecting a shot's phase times");
    if (s->slab.rank != 0) return;
    const long *n = s->cfg->n;
    r->index = number;
    r->group = group;
    r->steps = sf_simulation_timed_steps(s);
    r->loop_seconds = s->loop_seconds;
    r->points_per_second = failed || s->loop_seconds <= 0.0
                               ? 0.0
                               : (double)n[0] * (double)n[1] * (double)n[2] * (double)r->steps /
                                     s->loop_seconds;
    r->status = s->stop ? SF_SHOT_INTERRUPTED : failed ? SF_SHOT_FAILED : SF_SHOT_DONE;
    if (failed)
        snprintf(r->reason, sizeof r->reason, "%s", s->failure);
    else
        list_outputs(s, r);
    r->seconds = sf_now() - started;
    sf_utc_time(r->finished);
}

void sf_run_report_finish(sf_run_report *report, const char *path, MPI_Comm world, int group,
                          const sf_simulation *s)
{
    double memory = (double)s->ops->memory_bytes(s->backend) +
                    (double)s->channel_count * (double)s->resampler.nsamples * sizeof(float);
    sf_slab_share slab = {.first_plane = s->slab.z0, .planes = s->slab.nz};
    sf_simulation_compute_per_step(s, &slab.predicted, &slab.measured);
    sf_process_info *all = sf_report_processes(world, group, report->placement, memory,
                                               s->setup_seconds, &slab);
    if (!all) return;
    report->processes = all;
    char reason[1024];
    if (sf_report_write(path, report, reason, sizeof reason) != 0)
        sf_warn("the run report could not be written: %s", reason);
    else
        sf_info("seisfd: run report written to %s", path);
    free(all);
}
