/* The two kinds of job `seisfd run` and `seisfd check` take: one shot
 * (a source: section) or a survey (a survey: section). Each returns the
 * process's exit status. */
#ifndef SF_JOBS_H
#define SF_JOBS_H

#include "sf_config.h"

/* What the command asks of a job. */
typedef struct {
    int execute;   /* 0: validate and print the set-up only (seisfd check) */
    int fresh;     /* a survey: start over, replacing the manifest of an earlier run */
    int ranks;     /* the rank count the job is checked for: the ranks of the run, check
                    * --ranks N, or 0 (a check without mpirun: any count) */
} sf_job_request;

/* Collective over MPI_COMM_WORLD. */
int sf_single_shot_main(const sf_config *cfg, const sf_job_request *request);

/* Collective over MPI_COMM_WORLD. A check on fewer ranks than
 * survey.ranks_per_shot sets a shot up on the ranks it has. */
int sf_survey_main(const sf_config *cfg, const sf_job_request *request);

#endif
