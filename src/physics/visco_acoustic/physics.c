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

/* The unrelaxed velocity grows as Q falls: the fastest wave is vp_max's at
 * the lowest Q (an upper bound where they are not at one point); the
 * slowest is the relaxed end's, below vp_min. */
static void visco_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    (void)points, (void)comm;
    const sf_visco_attenuation a = sf_visco_attenuation_or_fail(c);
    float weight[SF_MAX_MECHANISMS];
    m->vmax = sf_visco_point(&a, m->max[VP], m->min[QP], weight);
    m->slowest = m->min[VP] * sf_visco_slowest_ratio(&a, m->min[QP]);
}

static void *visco_build_medium(const sf_physics_context *context, sf_problem *p)
{
    const sf_visco_attenuation a = sf_visco_attenuation_or_fail(context->cfg);
    sf_model_points points = sf_model_points_of(context->model, context->cfg, context->slab);
    const long count = points.count;
    float *unrelaxed = sf_malloc((size_t)count * sizeof(float), "the unrelaxed velocities");
    float *coordinate = sf_malloc((size_t)count * sizeof(float), "the points' Q");
    const float *vp = points.param[VP], *qp = points.param[QP];
    sf_visco_table table;
    sf_visco_table_build(&table, &a, context->model->min[QP], context->model->max[QP]);
    /* Neighbouring points mostly hold the same values: a thread computes
     * a point's anew only where they differ from its last point's. */
    #pragma omp parallel
    {
        float last_vp = NAN, last_qp = NAN, at = 0.0f, v = 0.0f;
        #pragma omp for schedule(static)
        for (long n = 0; n < count; ++n) {
            if (vp[n] != last_vp || qp[n] != last_qp) {
                last_vp = vp[n];
                last_qp = qp[n];
                at = sf_visco_table_coordinate(&table, qp[n]);
                v = (float)sf_visco_table_unrelaxed(&table, vp[n], at);
            }
            coordinate[n] = at;
            unrelaxed[n] = v;
        }
    }
    sf_visco_medium *medium = sf_calloc(1, sizeof *medium, "the visco-acoustic medium");
    sf_plane_volume *volumes = medium->volumes;
    volumes[SF_VISCO_UNRELAXED] = sf_model_points_volume(&points, unrelaxed, "the unrelaxed velocities");
    volumes[SF_VISCO_COORDINATE] = sf_model_points_volume(&points, coordinate, "the points' Q");
    sf_model_points_free(&points);
    medium->unrelaxed = volumes[SF_VISCO_UNRELAXED].data;
    medium->relaxation = sf_visco_relaxation_medium(&a, &table, volumes[SF_VISCO_COORDINATE].data);
    free(table.ratio);
    p->medium = medium;
    return medium;
}

static void visco_free_medium(void *built)
{
    sf_visco_medium *medium = built;
    for (int v = 0; v < SF_VISCO_VOLUMES; ++v) sf_plane_volume_free(&medium->volumes[v]);
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

/* The fit as the run uses it, at the model's extremes of qp. */
static void visco_summary(const sf_simulation *s)
{
    sf_acoustic_summary(s);
    const double q[2] = {s->model.min[QP], s->model.max[QP]};
    sf_visco_attenuation_summary(s->cfg, q, 2);
}

sf_problem sf_visco_unrelaxed_problem(const sf_problem *p, const float *param[SF_MAX_PARAMS])
{
    sf_problem acoustic = *p;
    param[0] = ((const sf_visco_medium *)p->medium)->unrelaxed;
    acoustic.param = param;
    acoustic.nparams = 1;
    return acoustic;
}

static const sf_physics_declaration DECLARED = {
    .name = "visco_acoustic",
    .nparams = 2,
    .param = {[VP] = &SF_ACOUSTIC_VP, [QP] = &SF_VISCO_QP},
    SF_PRESSURE_RECORDED("pressure"),
    .attenuates = SF_ATTENUATES_PER_POINT,
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
