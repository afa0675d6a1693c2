/* A shot's result from its simulation, for the manifest and the run
 * report, and the report of a whole run. */
#ifndef SF_SHOT_REPORT_H
#define SF_SHOT_REPORT_H

#include "sf_run_report.h"
#include "sf_shot_result.h"
#include "sf_simulation.h"

/* Collective over the slab, after sf_simulation_finish: fills r on its
 * rank 0 from the shot just run (failed: with s->failure as the reason):
 * steps, loop time, rate, each phase's maximum over the ranks and the
 * files put in place, with their sizes and checksums when the finish
 * verified them. started: sf_now() when the shot began. */
void sf_shot_result_fill(sf_simulation *s, int failed, long number, int group, double started,
                         sf_shot_result *r);

/* Collective over every rank of the run: gathers the processes and has
 * rank 0 write the report (a failure to write it is a warning). */
void sf_run_report_finish(sf_run_report *report, const char *path, MPI_Comm world, int group,
                          const sf_simulation *s);

#endif
