/* The visco-acoustic physics (sf_visco_acoustic.h): the acoustic pressure
 * and its stages, with qp beside vp, the velocities given at the job's
 * reference frequency. */
#include "sf_acoustic.h"
#include "sf_error.h"
#include "sf_simulation.h"
#include "sf_visco_acoustic.h"

#include <math.h>
#include <stdlib.h>

enum { VP = SF_VISCO_ACOUSTIC_VP, QP = SF_VISCO_ACOUSTIC_QP };

/* From very lossy sediments to no loss worth the name (1e9: the lossless
 * physics to float precision); a model file's from 5 unless qp_range says. */
static const sf_parameter_declaration QP_DECLARED = {
    .name = "qp", .unit = "", .values = "quality factors", .limits = {2.0, 1e9},
    .range = {5.0, 1e9}, .typical = 100.0, .resampling = SF_RESAMPLE_AS_MODEL,
};

static sf_visco_attenuation attenuation_or_fail(const sf_config *c)
{
    sf_visco_attenuation a;
    char reason[256];
    if (sf_visco_attenuation_of(c, &a, reason, sizeof reason) != 0)
        sf_fatal("%s: %s", c->source_path ? c->source_path : "the job", reason);
    return a;
}

/* The unrelaxed velocity grows as Q falls: the fastest wave is vp_max's at
 * the lowest Q (an upper bound where they are not at one point); the
 * slowest is the relaxed end's, below vp_min. */
static void visco_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    (void)points, (void)comm;
    const sf_visco_attenuation a = attenuation_or_fail(c);
    float weight[SF_MAX_MECHANISMS];
    m->vmax = sf_visco_point(&a, m->max[VP], m->min[QP], weight);
    m->slowest = m->min[VP] * sf_visco_slowest_ratio(&a, m->min[QP]);
}

static void *visco_build_medium(const sf_physics_context *context, sf_problem *p)
{
    const sf_visco_attenuation a = attenuation_or_fail(context->cfg);
    const long count = (long)context->cfg->n[0] * context->cfg->n[1] * context->slab->nz;
    sf_visco_medium *medium = sf_calloc(1, sizeof *medium, "the visco-acoustic medium");
    sf_relaxation_medium *r = &medium->relaxation;
    medium->unrelaxed = sf_malloc((size_t)count * sizeof(float), "the unrelaxed velocities");
    r->coordinate = sf_malloc((size_t)count * sizeof(float), "the points' Q");
    const float *vp = context->model->param[VP], *qp = context->model->param[QP];
    sf_visco_table table;
    sf_visco_table_build(&table, &a, context->model->min[QP], context->model->max[QP]);
    for (long n = 0; n < count; ++n) {
        r->coordinate[n] = sf_visco_table_coordinate(&table, qp[n]);
        medium->unrelaxed[n] = (float)sf_visco_table_unrelaxed(&table, vp[n], r->coordinate[n]);
    }
    r->mechanisms = a.times.count;
    r->coarse = a.coarse;
    r->intervals = table.intervals;
    for (int l = 0; l < a.times.count; ++l) r->tau[l] = a.times.tau[l];
    r->weight = table.weight;   /* the medium's from here */
    free(table.ratio);
    p->medium = medium;
    return medium;
}

static void visco_free_medium(void *built)
{
    sf_visco_medium *medium = built;
    free(medium->unrelaxed);
    free(medium->relaxation.coordinate);
    free(medium->relaxation.weight);
    free(medium);
}

static const char *visco_slowest_wave(const sf_model *m)
{
    (void)m;
    return "vp_min at the band's lowest frequency";
}

static void visco_model_summary(const sf_model *m)
{
    sf_info("  model             vp %g .. %g m/s, qp %g .. %g", m->min[VP], m->max[VP], m->min[QP],
            m->max[QP]);
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

/* The fit as the run uses it: the band, the mechanisms and the worst
 * misfit of Q over the band at the model's extremes of qp. */
static void visco_summary(const sf_simulation *s)
{
    sf_acoustic_summary(s);
    const sf_visco_attenuation a = attenuation_or_fail(s->cfg);
    warn_shots_outside(s->cfg, &a);
    double worst = 0.0;
    for (int e = 0; e < 2; ++e) {
        const double off = sf_visco_worst_misfit(&a, e ? s->model.max[QP] : s->model.min[QP]);
        worst = off > worst ? off : worst;
    }
    char taus[160] = "";
    for (int l = 0, used = 0; l < a.times.count; ++l)
        used += snprintf(taus + used, sizeof taus - (size_t)used, "%s%.3g", l ? ", " : "",
                         1.0 / (2.0 * M_PI * a.times.tau[l]));
    sf_info("  attenuation       Q held over %g .. %g Hz by %d standard linear solids%s (relaxing at "
            "%s Hz), velocities at %g Hz; fitted Q within %.2f%% of qp over the band",
            a.band[0], a.band[1], a.times.count, a.coarse ? ", one a point" : "", taus, a.reference,
            100.0 * worst);
}

static const sf_physics_declaration DECLARED = {
    .name = "visco_acoustic",
    .nparams = 2,
    .param = {[VP] = &SF_ACOUSTIC_VP, [QP] = &QP_DECLARED},
    SF_PRESSURE_RECORDED("pressure"),
    .attenuates = 1,
};

const sf_physics_plugin *sf_physics_visco_acoustic(void)
{
    static const sf_physics_plugin physics = {
        .declared = &DECLARED,
        .trace_units = "pressure per unit source amplitude per metre, attenuated and dispersed "
                       "by the model's qp",
        SF_ACOUSTIC_SCHEDULE,
        .field_name = sf_pressure_field_name,
        .wave_speeds = visco_wave_speeds,
        .slowest_wave_name = visco_slowest_wave,
        .model_summary = visco_model_summary,
        .build_medium = visco_build_medium,
        .free_medium = visco_free_medium,
        .summary = visco_summary,
        .cpu = sf_backend_cpu_visco_acoustic,
        .cuda = SF_CUDA_IF_BUILT(sf_backend_cuda_visco_acoustic),
        /* p at two levels; vp, qp and the medium built from them (the
         * unrelaxed velocity, each point's place in the weight table); on
         * the owned planes v^2 dt^2 and per mechanism a weight and a
         * memory variable (the CPU backend's). */
        .memory = {.model_volumes = 4, .field_volumes = 2, .medium_volumes = 1,
                   .mechanism_volumes = 2, .halo_fields = 1, .cpml_arrays = 2, .cpml_reach = 1},
        /* The acoustic step's 16 bytes and the point's place in the
         * table; each memory variable read and written. */
        .bench = {.gpu_size = 1000, .bytes_per_point = 16.0 + 4.0, .bytes_per_memory_variable = 8.0},
    };
    return &physics;
}
