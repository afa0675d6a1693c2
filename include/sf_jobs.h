/* The two kinds of job `seisfd run` and `seisfd check` take: one shot
 * (a source: section) or a survey (a survey: section). Each returns the
 * process's exit status. */
#ifndef SF_JOBS_H
#define SF_JOBS_H

#include "sf_config.h"

/* Collective over MPI_COMM_WORLD. execute 0: validate and print the
 * set-up only. */
int sf_single_shot_main(const sf_config *cfg, int execute);

/* Collective over MPI_COMM_WORLD. fresh: start over, replacing the
 * manifest of an earlier run (seisfd run --restart fresh). */
int sf_survey_main(const sf_config *cfg, int execute, int fresh);

#endif
