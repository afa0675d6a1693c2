/* The reference of every job-file key, printed from the tables the job
 * reader reads with (`seisfd help keys`, docs/job-keys.md). */
#ifndef SF_JOB_KEYS_H
#define SF_JOB_KEYS_H

#include <stdio.h>

/* The reference as Markdown. */
void sf_job_keys_print(FILE *out);

#endif
