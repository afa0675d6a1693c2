/* The job's attenuation band and the standard linear solids fitted to it
 * (sf_attenuation.h). */
#include "sf_attenuation.h"

#include "sf_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* From very lossy sediments to no loss worth the name (1e9: the lossless
 * physics to float precision); a model file's from 5 unless qp_range says. */
const sf_parameter_declaration SF_VISCO_QP = {
    .name = "qp", .unit = "", .values = "quality factors", .limits = {2.0, 1e9},
    .range = {5.0, 1e9}, .typical = 100.0, .resampling = SF_RESAMPLE_AS_MODEL,
};

/* The times are fitted at one Q and shared by every point (each point's
 * weights are solved for its own Q): fitted at 30 they hold Q from 10 to
 * 1000 within 2% over the bands the mechanism counts allow (the unit
 * tests'). */
static const double FIT_Q = 30.0;

/* The band where the job leaves it: from a quarter of the dominant
 * frequency of the job's source wavelet to its upper frequency. */
int sf_visco_attenuation_of(const sf_config *shot, sf_visco_attenuation *a, char *reason,
                            size_t len)
{
    /* The job's, never a survey shot's: every shot runs the same medium. */
    const sf_config *c = sf_config_job(shot);
    const sf_wavelet *w = c->source.wavelet.built;
    a->band[0] = c->attenuation_band[0], a->band[1] = c->attenuation_band[1];
    a->reference = c->reference_frequency;
    if (w && a->band[1] <= 0.0) a->band[0] = 0.25 * w->dominant_frequency, a->band[1] = w->upper_frequency;
    if (w && a->reference <= 0.0) a->reference = w->dominant_frequency;
    if (!(a->band[0] > 0.0 && a->band[1] > a->band[0] && a->reference > 0.0)) {
        snprintf(reason, len, "physics.attenuation_band: [%g, %g] Hz with reference_frequency %g "
                 "Hz: the band needs 0 < lowest < highest and a reference frequency above 0",
                 a->band[0], a->band[1], a->reference);
        return 1;
    }
    a->coarse = c->relaxation_coarse;
    if (a->coarse) {
        sf_relaxation_coarse_times(a->band[0], a->band[1], &a->times);
        return 0;
    }
    const int mechanisms = (int)c->mechanisms;
    if (sf_relaxation_fit_times(a->band[0], a->band[1], mechanisms, FIT_Q, &a->times) != 0) {
        snprintf(reason, len, "physics.attenuation_band: no fit of %d mechanisms over [%g, %g] Hz",
                 mechanisms, a->band[0], a->band[1]);
        return 1;
    }
    return 0;
}

/* A coarse layout's point: its weights from start (0: none yet), into Y
 * for the next; the unrelaxed velocity over v. */
static double coarse_point(const sf_visco_attenuation *a, double q, double *Y, float *weight)
{
    sf_relaxation_coarse_weights(&a->times, a->band[0], a->band[1], q, Y);
    for (int l = 0; l < a->times.count; ++l) weight[l] = (float)Y[l];
    return sf_relaxation_coarse_unrelaxed_ratio(&a->times, Y, a->reference);
}

double sf_visco_point(const sf_visco_attenuation *a, double v, double q, float *weight)
{
    double y[SF_MAX_MECHANISMS] = {0.0}, sum = 0.0;
    if (a->coarse) return v * coarse_point(a, q, y, weight);
    sf_relaxation_weights(&a->times, a->band[0], a->band[1], q, y);
    for (int l = 0; l < a->times.count; ++l) sum += y[l];
    for (int l = 0; l < a->times.count; ++l) weight[l] = (float)(y[l] / (1.0 + sum));
    const double relaxed = v * v * sf_relaxation_relaxed_modulus_factor(&a->times, y, a->reference);
    return sqrt(relaxed * (1.0 + sum));
}

double sf_visco_worst_misfit(const sf_visco_attenuation *a, double q)
{
    double y[SF_MAX_MECHANISMS] = {0.0};
    if (!a->coarse) {
        sf_relaxation_weights(&a->times, a->band[0], a->band[1], q, y);
        return sf_relaxation_worst_misfit(&a->times, y, a->band[0], a->band[1], q);
    }
    sf_relaxation_coarse_weights(&a->times, a->band[0], a->band[1], q, y);
    return sf_relaxation_coarse_worst_misfit(&a->times, y, a->band[0], a->band[1], q);
}

double sf_visco_slowest_ratio(const sf_visco_attenuation *a, double q)
{
    double y[SF_MAX_MECHANISMS] = {0.0};
    if (!a->coarse) {
        sf_relaxation_weights(&a->times, a->band[0], a->band[1], q, y);
        return sf_relaxation_velocity_ratio(&a->times, y, a->reference, a->band[0]);
    }
    sf_relaxation_coarse_weights(&a->times, a->band[0], a->band[1], q, y);
    return sf_relaxation_coarse_unrelaxed_ratio(&a->times, y, a->reference) /
           sf_relaxation_coarse_unrelaxed_ratio(&a->times, y, a->band[0]);
}

/* Intervals across a model's range of 1/Q: the weights are smooth in
 * 1/Q, so linear interpolation between 1024 of them is far below float's
 * precision. A model of one Q has one interval, between equal nodes. */
enum { TABLE_INTERVALS = 1024 };

void sf_visco_table_build(sf_visco_table *t, const sf_visco_attenuation *a, double q_min,
                          double q_max)
{
    t->mechanisms = a->times.count;
    t->first = 1.0 / q_max;
    t->intervals = q_min < q_max ? TABLE_INTERVALS : 1;
    t->step = (1.0 / q_min - t->first) / t->intervals;
    const int nodes = t->intervals + 1;
    t->ratio = sf_malloc((size_t)nodes * sizeof *t->ratio, "the attenuation table");
    t->weight = sf_malloc((size_t)nodes * (size_t)t->mechanisms * sizeof *t->weight,
                          "the attenuation table");
    double start[SF_MAX_MECHANISMS] = {0.0};   /* a coarse fit starts from the last node's */
    for (int n = 0; n < nodes; ++n) {
        const double q = n == 0 ? q_max : n == t->intervals ? q_min : 1.0 / (t->first + n * t->step);
        float *weight = t->weight + (size_t)n * (size_t)t->mechanisms;
        t->ratio[n] = a->coarse ? coarse_point(a, q, start, weight) : sf_visco_point(a, 1.0, q, weight);
    }
}

float sf_visco_table_coordinate(const sf_visco_table *t, double q)
{
    if (!(t->step > 0.0)) return 0.0f;
    const double at = (1.0 / q - t->first) / t->step;
    return (float)(at < 0.0 ? 0.0 : at > t->intervals ? t->intervals : at);
}

double sf_visco_table_unrelaxed(const sf_visco_table *t, double v, float coordinate)
{
    const int n = (int)coordinate < t->intervals ? (int)coordinate : t->intervals - 1;
    const double f = (double)coordinate - n;
    return v * ((1.0 - f) * t->ratio[n] + f * t->ratio[n + 1]);
}

sf_relaxation_medium sf_visco_relaxation_medium(const sf_visco_attenuation *a, const sf_visco_table *t,
                                                float *coordinate)
{
    sf_relaxation_medium r = {.mechanisms = a->times.count, .intervals = t->intervals,
                              .coarse = a->coarse, .weight = t->weight, .coordinate = coordinate};
    for (int l = 0; l < a->times.count; ++l) r.tau[l] = a->times.tau[l];
    return r;
}

sf_visco_attenuation sf_visco_attenuation_or_fail(const sf_config *c)
{
    sf_visco_attenuation a;
    char reason[256];
    if (sf_visco_attenuation_of(c, &a, reason, sizeof reason) != 0)
        sf_fatal("%s: %s", c->source_path ? c->source_path : "the job", reason);
    return a;
}

/* The band is the job's, never a shot's: a survey shot whose wavelet's
 * dominant frequency lies outside it is warned of (its Q is held over the
 * job's band only). */
static void warn_shots_outside(const sf_config *c, const sf_visco_attenuation *a)
{
    const sf_config *job = sf_config_job(c);
    for (long n = 0; sf_error_rank() == 0 && n < job->survey.count; ++n) {
        const sf_wavelet_spec *w = job->survey.shots[n].wavelet;
        if (!w || !w->built) continue;
        const double f = w->built->dominant_frequency;
        if (f >= a->band[0] && f <= a->band[1]) continue;
        sf_warn("%s:%d:%d: %s: shot %ld's dominant frequency %g Hz lies outside the job's "
                "attenuation band %g .. %g Hz, over which Q is held (physics.attenuation_band)",
                job->source_path, w->line, w->column, w->key, n + 1, f, a->band[0], a->band[1]);
    }
}

void sf_visco_attenuation_summary(const sf_config *c, const double *q, int count)
{
    const sf_visco_attenuation a = sf_visco_attenuation_or_fail(c);
    warn_shots_outside(c, &a);
    double worst = 0.0;
    for (int e = 0; e < count; ++e) {
        const double off = sf_visco_worst_misfit(&a, q[e]);
        worst = off > worst ? off : worst;
    }
    char taus[160] = "";
    for (int l = 0, used = 0; l < a.times.count; ++l)
        used += snprintf(taus + used, sizeof taus - (size_t)used, "%s%.3g", l ? ", " : "",
                         1.0 / (2.0 * M_PI * a.times.tau[l]));
    sf_info("  attenuation       Q held over %g .. %g Hz by %d standard linear solids%s (relaxing at "
            "%s Hz), velocities at %g Hz; fitted Q within %.2f%% of the model's over the band",
            a.band[0], a.band[1], a.times.count, a.coarse ? ", one a point" : "", taus, a.reference,
            100.0 * worst);
}
