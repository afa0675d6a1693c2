/* The shots of a survey as jobs of their own: the job file's settings
 * with one shot's source position and overrides, its receivers (moved
 * with it when they move) and its output names in output.directory. */
#ifndef SF_SHOTS_H
#define SF_SHOTS_H

#include "sf_config.h"

#include <stddef.h>

enum { SF_SHOT_PATH = 4200 };

typedef struct {
    sf_config cfg;            /* a shallow copy of the job: do not sf_config_free it */
    double (*receivers)[3];   /* this shot's receiver positions when they move */
    char gather[SF_SHOT_PATH], segy[SF_SHOT_PATH];
} sf_shot_job;

/* Digits of the shot numbers in file names: at least 4, enough for all. */
int sf_shot_number_width(long shots);

/* The name (no directory) of shot `number`'s file with extension ext:
 * "shot_0007.h5". */
void sf_shot_file_name(const sf_config *job, long number, const char *ext, char *out, size_t len);

/* src, the job's source, becomes the shot's: its position and the keys
 * it overrides (wavelet, delay, amplitude). */
void sf_shot_source(sf_source_config *src, const sf_shot_spec *shot);

/* The shot of index (from 0) as a job; its source follows the job's
 * source section except where the shot overrides it (a wavelet of its
 * own with an automatic delay gets that wavelet's). Valid while job is. */
void sf_shot_job_make(const sf_config *job, long index, sf_shot_job *out);
void sf_shot_job_free(sf_shot_job *shot);

/* The files of shot `number` (full paths): the gather, then the SEG-Y
 * files when asked for (one per component of an elastic gather).
 * Returns how many, at most max. */
int sf_shot_outputs(const sf_config *job, long number, char (*paths)[SF_SHOT_PATH], int max);

#endif
