#include "sf_shots.h"
#include "sf_error.h"
#include "sf_segy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sf_shot_number_width(long shots)
{
    int width = 1;
    for (long n = shots; n >= 10; n /= 10) ++width;
    return width < 4 ? 4 : width;
}

void sf_shot_file_name(const sf_config *job, long number, const char *ext, char *out, size_t len)
{
    enum { MAX_WIDTH = 15 };   /* surveys hold at most a million shots */
    int width = sf_shot_number_width(job->survey.count);
    char digits[32];
    snprintf(digits, sizeof digits, "%0*ld", width < MAX_WIDTH ? width : MAX_WIDTH, number);
    snprintf(out, len, "shot_%s.%.16s", digits, ext);
}

static void shot_path(const sf_config *job, long number, const char *ext, char *out, size_t len)
{
    char name[64];
    sf_shot_file_name(job, number, ext, name, sizeof name);
    snprintf(out, len, "%.4000s/%s", job->output_directory, name);
}

void sf_shot_source(sf_source_config *src, const sf_shot_spec *shot)
{
    memcpy(src->position, shot->position, sizeof src->position);
    if (shot->has_amplitude) src->amplitude = shot->amplitude;
    if (shot->wavelet) src->wavelet = *shot->wavelet;
    if (shot->has_delay) {
        src->delay = shot->delay;
        src->delay_auto = 0;
    } else if (shot->delay_auto) {
        src->delay_auto = 1;
    }
    if (src->delay_auto) src->delay = sf_wavelet_auto_delay(src->wavelet.built);
}

void sf_shot_job_make(const sf_config *job, long index, sf_shot_job *out)
{
    const sf_shot_spec *shot = &job->survey.shots[index];
    memset(out, 0, sizeof *out);
    out->cfg = *job;
    sf_config *c = &out->cfg;
    c->shot_number = index + 1;
    c->survey_job = job;
    sf_shot_source(&c->source, shot);
    if (job->survey.receivers == SF_RECEIVERS_MOVING) {
        long n = job->receivers.count;
        out->receivers = sf_malloc((size_t)(n ? n : 1) * sizeof *out->receivers,
                                   "the receivers of a shot");
        for (long q = 0; q < n; ++q) sf_survey_receiver_position(job, shot, q, out->receivers[q]);
        c->receivers.position = out->receivers;
    }
    shot_path(job, index + 1, "h5", out->gather, sizeof out->gather);
    c->gather_path = out->gather;
    c->segy_path = NULL;
    if (job->survey_segy) {
        shot_path(job, index + 1, "sgy", out->segy, sizeof out->segy);
        c->segy_path = out->segy;
    }
}

void sf_shot_job_free(sf_shot_job *shot)
{
    free(shot->receivers);
    shot->receivers = NULL;
}

int sf_shot_outputs(const sf_config *job, long number, char (*paths)[SF_SHOT_PATH], int max)
{
    int count = 0;
    if (count < max) shot_path(job, number, "h5", paths[count++], SF_SHOT_PATH);
    if (!job->survey_segy) return count;
    char segy[SF_SHOT_PATH];
    shot_path(job, number, "sgy", segy, sizeof segy);
    if (!sf_config_component_axis(job)) {
        if (count < max) snprintf(paths[count++], SF_SHOT_PATH, "%s", segy);
        return count;
    }
    for (int q = 0; q < job->receivers.ncomponents && count < max; ++q)
        sf_segy_component_path(segy, sf_component_name(job->receivers.component[q]),
                               paths[count++], SF_SHOT_PATH);
    return count;
}
