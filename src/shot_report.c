#include "sf_shot_report.h"
#include "sf_error.h"
#include "sf_fingerprint.h"
#include "sf_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rank 0: the files, and with fingerprint the size and checksum of each
 * after flushing it to disk. */
static int list_outputs(const sf_simulation *s, int fingerprint, sf_shot_result *r)
{
    r->nfiles = 0;
    for (int o = 0; o < s->noutputs && o < SF_RESULT_FILES; ++o) {
        int k = r->nfiles++;
        snprintf(r->files[k], sizeof r->files[k], "%s", s->outputs[o]);
        if (fingerprint && sf_file_fingerprint(s->outputs[o], 1, &r->sizes[k], &r->checksums[k],
                                               r->reason, sizeof r->reason) != 0)
            return -1;
    }
    return 0;
}

void sf_shot_result_fill(sf_simulation *s, int failed, int fingerprint, long number, int group,
                         double started, sf_shot_result *r)
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
    r->status = failed ? SF_SHOT_FAILED : SF_SHOT_DONE;
    if (failed) {
        snprintf(r->reason, sizeof r->reason, "%s", s->failure);
    } else if (list_outputs(s, fingerprint, r) != 0) {
        /* A file that cannot be read back is not a result: none stays. */
        r->status = SF_SHOT_FAILED;
        for (int o = 0; o < s->noutputs; ++o) unlink(s->outputs[o]);
        r->nfiles = 0;
    }
    r->seconds = sf_now() - started;
    sf_utc_time(r->finished);
}

void sf_run_report_finish(sf_run_report *report, const char *path, MPI_Comm world, int group,
                          const sf_simulation *s)
{
    double memory = (double)s->driver->memory_bytes(s) +
                    (double)s->channel_count * (double)s->resampler.nsamples * sizeof(float);
    int cuda = report->device && !strcmp(report->device, "cuda");
    sf_process_info *all = sf_report_processes(world, group, cuda, memory, s->model_seconds);
    if (!all) return;
    report->processes = all;
    char reason[1024];
    if (sf_report_write(path, report, reason, sizeof reason) != 0)
        sf_warn("the run report could not be written: %s", reason);
    else
        sf_info("seisfd: run report written to %s", path);
    free(all);
}
