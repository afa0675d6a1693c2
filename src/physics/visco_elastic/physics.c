/* The visco-elastic physics (sf_visco_elastic.h): the elastic physics'
 * fields, stages, sources and records, with qp and qs beside vp, vs and
 * rho, the velocities given at the job's reference frequency. */
#include "sf_error.h"
#include "sf_simulation.h"
#include "sf_visco_elastic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VP = SF_ELASTIC_VP, VS = SF_ELASTIC_VS, RHO = SF_ELASTIC_RHO, QP = SF_VISCO_ELASTIC_QP,
       QS = SF_VISCO_ELASTIC_QS };
enum { UNRELAXED_VP = SF_VISCO_ELASTIC_UNRELAXED_VP, UNRELAXED_VS = SF_VISCO_ELASTIC_UNRELAXED_VS,
       BULK_COORDINATE = SF_VISCO_ELASTIC_BULK_COORDINATE,
       SHEAR_COORDINATE = SF_VISCO_ELASTIC_SHEAR_COORDINATE, DERIVED = SF_VISCO_ELASTIC_VOLUMES };

/* The table's range of Q: qp's limits (qs has them too). */
#define Q_LOWEST (SF_VISCO_QP.limits[0])
#define Q_HIGHEST (SF_VISCO_QP.limits[1])

double sf_visco_elastic_inverse_bulk_q(double vp, double vs, double qp, double qs)
{
    const double shear = vs > 0.0 ? 4.0 / 3.0 * (vs / vp) * (vs / vp) : 0.0;
    return (1.0 / qp - (vs > 0.0 ? shear / qs : 0.0)) / (1.0 - shear);
}

/* A point's bulk Q within the table's range: a bulk modulus without loss
 * (1/Q_kappa = 0, as where qs = (4/3)(vs/vp)^2 qp) at its top. */
static double bulk_q(const float *const *param, long n)
{
    const double inverse = sf_visco_elastic_inverse_bulk_q(param[VP][n], param[VS][n], param[QP][n],
                                                           param[QS][n]);
    if (!(inverse > 1.0 / Q_HIGHEST)) return Q_HIGHEST;
    return inverse < 1.0 / Q_LOWEST ? 1.0 / inverse : Q_LOWEST;
}

/* The elastic rule, then a non-negative bulk loss. */
static const char *visco_point_problem(const double *value, char *text, size_t len)
{
    const char *elastic = sf_physics_elastic()->declared->point_problem(value, text, len);
    if (elastic) return elastic;
    const double vp = value[VP], vs = value[VS], qp = value[QP], qs = value[QS];
    if (!(vs > 0.0) || sf_visco_elastic_inverse_bulk_q(vp, vs, qp, qs) >= -1e-12 / qp) return NULL;
    const double least = 4.0 / 3.0 * (vs / vp) * (vs / vp) * qp;
    snprintf(text, len, "qs = %g is below (4/3)(vs/vp)^2 qp = %g (vp = %g m/s, vs = %g m/s, qp = %g): "
             "the bulk modulus would gain energy (1/Q_kappa < 0)", qs, least, vp, vs, qp);
    return text;
}

/* Whether point n holds the four values of last (which then takes them):
 * neighbouring points mostly do, and a thread computes a point's values
 * anew only where they differ. */
static int repeats(const float *const *param, long n, float last[4])
{
    const float v[4] = {param[VP][n], param[VS][n], param[QP][n], param[QS][n]};
    if (v[0] == last[0] && v[1] == last[1] && v[2] == last[2] && v[3] == last[3]) return 1;
    memcpy(last, v, sizeof v);
    return 0;
}

/* The extremes of the bulk Q over the whole grid. */
static void bulk_q_range(const float *const *param, long points, MPI_Comm comm, double range[2])
{
    double lo = Q_HIGHEST, hi = Q_LOWEST;
    #pragma omp parallel reduction(min : lo) reduction(max : hi)
    {
        float last[4] = {NAN, NAN, NAN, NAN};
        #pragma omp for schedule(static)
        for (long n = 0; n < points; ++n) {
            if (repeats(param, n, last)) continue;
            const double q = bulk_q(param, n);
            lo = q < lo ? q : lo;
            hi = q > hi ? q : hi;
        }
    }
    SF_MPI_CHECK(MPI_Allreduce(&lo, &range[0], 1, MPI_DOUBLE, MPI_MIN, comm), "the bulk Q's range");
    SF_MPI_CHECK(MPI_Allreduce(&hi, &range[1], 1, MPI_DOUBLE, MPI_MAX, comm), "the bulk Q's range");
}

/* The unrelaxed moduli grow as Q falls: vp_U^2 = (K r_kappa^2 + 4/3 mu
 * r_s^2) / rho is at most vp^2 times the larger ratio squared, so the
 * fastest wave is at most vp_max's at the lower of the two lowest Qs. The
 * slowest is the elastic one's at the band's lowest frequency. */
static void visco_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    sf_physics_elastic()->wave_speeds(m, c, points, comm);
    const sf_visco_attenuation a = sf_visco_attenuation_or_fail(c);
    double bulk[2];
    bulk_q_range((const float *const *)m->param, points, comm, bulk);
    const double lowest = bulk[0] < m->min[QS] ? bulk[0] : m->min[QS];
    float weight[SF_MAX_MECHANISMS];
    m->vmax = sf_visco_point(&a, m->max[VP], lowest, weight);
    m->slowest *= sf_visco_slowest_ratio(&a, lowest);
}

/* Each point's vp and vs unrelaxed, and its bulk and shear coordinates,
 * into out[UNRELAXED_VP ...]. */
static void unrelax(const float *const *param, const sf_visco_table *table, long count,
                    float *const out[DERIVED])
{
    #pragma omp parallel
    {
        float last[4] = {NAN, NAN, NAN, NAN}, value[DERIVED] = {0};
        #pragma omp for schedule(static)
        for (long n = 0; n < count; ++n) {
            if (!repeats(param, n, last)) {
                const float vp = param[VP][n], vs = param[VS][n];
                value[BULK_COORDINATE] = sf_visco_table_coordinate(table, bulk_q(param, n));
                value[SHEAR_COORDINATE] = sf_visco_table_coordinate(table, param[QS][n]);
                const double rk = sf_visco_table_unrelaxed(table, 1.0, value[BULK_COORDINATE]);
                const double rs = sf_visco_table_unrelaxed(table, 1.0, value[SHEAR_COORDINATE]);
                const double shear = 4.0 / 3.0 * vs * vs;
                value[UNRELAXED_VS] = (float)(vs * rs);
                const double squared = ((double)vp * vp - shear) * rk * rk + shear * rs * rs;
                value[UNRELAXED_VP] = (float)sqrt(squared);
            }
            for (int d = 0; d < DERIVED; ++d) out[d][n] = value[d];
        }
    }
}

static void *visco_build_medium(const sf_physics_context *context, sf_problem *p)
{
    const sf_visco_attenuation a = sf_visco_attenuation_or_fail(context->cfg);
    const sf_model *model = context->model;
    sf_model_points points = sf_model_points_of(model, context->cfg, context->slab);
    double bulk[2];
    bulk_q_range(points.param, points.count, context->slab->comm, bulk);
    sf_visco_table table;
    sf_visco_table_build(&table, &a, fmin(bulk[0], model->min[QS]), fmax(bulk[1], model->max[QS]));
    static const char *const what[DERIVED] = {"the unrelaxed velocities",
                                              "the unrelaxed velocities", "the points' bulk Q",
                                              "the points' qs"};
    float *derived[DERIVED];
    for (int d = 0; d < DERIVED; ++d)
        derived[d] = sf_malloc((size_t)points.count * sizeof(float), what[d]);
    unrelax(points.param, &table, points.count, derived);
    sf_visco_elastic_medium *m = sf_calloc(1, sizeof *m, "the visco-elastic medium");
    for (int d = 0; d < DERIVED; ++d)
        m->volumes[d] = sf_model_points_volume(&points, derived[d], what[d]);
    sf_model_points_free(&points);
    const float *const param[SF_ELASTIC_PARAMS] = {m->volumes[UNRELAXED_VP].data,
                                                   m->volumes[UNRELAXED_VS].data,
                                                   model->param[SF_ELASTIC_RHO]};
    sf_elastic_medium_build(&m->elastic, param, context->slab, context->cfg);
    /* One table for both parts, freed with the bulk part's. */
    m->bulk = sf_visco_relaxation_medium(&a, &table, m->volumes[BULK_COORDINATE].data);
    m->shear = sf_visco_relaxation_medium(&a, &table, m->volumes[SHEAR_COORDINATE].data);
    free(table.ratio);
    p->medium = m;
    return m;
}

static void visco_free_medium(void *built)
{
    sf_visco_elastic_medium *m = built;
    sf_elastic_medium_free(&m->elastic);
    for (int d = 0; d < DERIVED; ++d) sf_plane_volume_free(&m->volumes[d]);
    free(m->bulk.weight);
    free(m);
}

sf_problem sf_visco_elastic_unrelaxed_problem(const sf_problem *p)
{
    sf_problem elastic = *p;
    elastic.medium = &((const sf_visco_elastic_medium *)p->medium)->elastic;
    return elastic;
}

static const char *visco_slowest_wave(const sf_model *m)
{
    return m->min[VS] > 0.0 ? "vs_min at the band's lowest frequency"
                            : "slowest of vs (vp where vs = 0) at the band's lowest frequency";
}

static void visco_model_summary(const sf_model *m)
{
    sf_physics_elastic()->model_summary(m);
    sf_info("  quality factors   qp %g .. %g, qs %g .. %g", m->min[QP], m->max[QP], m->min[QS],
            m->max[QS]);
}

/* The fit as the run uses it, at the model's extremes of qp and qs. */
static void visco_summary(const sf_simulation *s)
{
    sf_physics_elastic()->summary(s);
    const double q[4] = {s->model.min[QP], s->model.max[QP], s->model.min[QS], s->model.max[QS]};
    sf_visco_attenuation_summary(s->cfg, q, 4);
}

/* The elastic declaration and plug-in with what attenuation changes; made
 * on first use, from the elastic ones. */
const sf_physics_plugin *sf_physics_visco_elastic(void)
{
    static sf_physics_declaration declared;
    static sf_parameter_declaration qs;   /* qp's declaration under its own name; ignored where vs = 0 */
    static sf_physics_plugin physics;
    if (physics.declared) return &physics;
    qs = SF_VISCO_QP;
    qs.name = "qs";
    declared = *sf_physics_elastic()->declared;
    declared.name = "visco_elastic";
    declared.nparams = 5;
    declared.param[QP] = &SF_VISCO_QP;
    declared.param[QS] = &qs;
    declared.point_problem = visco_point_problem;
    declared.attenuates = SF_ATTENUATES_STAGGERED;
    declared.energy = 0;   /* the solids hold energy the elastic sum leaves out */
    physics = *sf_physics_elastic();
    physics.declared = &declared;
    physics.trace_units = "per unit source amplitude (force: N; explosive and moment: N m/s of "
                          "moment rate): vx, vy, vz particle velocity in m/s, p pressure in Pa, "
                          "attenuated and dispersed by the model's qp and qs";
    physics.wave_speeds = visco_wave_speeds;
    physics.slowest_wave_name = visco_slowest_wave;
    physics.model_summary = visco_model_summary;
    physics.build_medium = visco_build_medium;
    physics.free_medium = visco_free_medium;
    physics.summary = visco_summary;
    physics.cpu = sf_backend_cpu_visco_elastic;
    physics.cuda = SF_CUDA_IF_BUILT(sf_backend_cuda_visco_elastic);
    /* The elastic volumes with qp, qs, two unrelaxed velocities and two
     * coordinates while the medium is built; per memory variable (a
     * solid, or the one of a coarse layout) six memory variables and two
     * weights (the CPU backend's). */
    physics.memory.model_volumes += 6;
    physics.memory.mechanism_volumes = SF_VISCO_ELASTIC_MEMORY + 2;
    /* The elastic step's bytes and the point's two coordinates; each
     * solid's six memory variables read and written. */
    physics.bench.bytes_per_point += 8.0;
    physics.bench.bytes_per_memory_variable = 8.0 * SF_VISCO_ELASTIC_MEMORY;
    return &physics;
}
