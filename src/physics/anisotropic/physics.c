/* The pseudo-acoustic VTI and TTI physics (sf_anisotropic.h): the stages
 * and the acquisition are the acoustic ones, p being the recorded
 * pressure; the medium adds epsilon and delta, and for TTI the tilt. */
#include "sf_anisotropic.h"
#include "sf_error.h"
#include "sf_simulation.h"


/* The tilt is the model's inside the absorbing layers too: they stretch
 * the mixed derivatives as well as the second ones (sf_anisotropic.h). */
static void anisotropic_create(sf_simulation *s, sf_problem *p)
{
    p->anisotropy[0] = s->model.param[SF_PARAM_EPSILON];
    p->anisotropy[1] = s->model.param[SF_PARAM_DELTA];
    p->anisotropy[2] = s->model.param[SF_PARAM_THETA];
    p->anisotropy[3] = s->model.param[SF_PARAM_PHI];
    s->backend = s->ops->create(p);
}

static const char *anisotropic_slowest_wave(const sf_model *m)
{
    (void)m;
    return "the slowest qP phase velocity";
}

static void anisotropic_model_summary(const sf_model *m)
{
    if (m->param[SF_PARAM_THETA])
        sf_info("  model             vp %g .. %g m/s, epsilon %g .. %g, delta %g .. %g, tilt %g .. "
                "%g, azimuth %g .. %g degrees", m->vmin, m->max[SF_PARAM_VP],
                m->min[SF_PARAM_EPSILON], m->max[SF_PARAM_EPSILON], m->min[SF_PARAM_DELTA],
                m->max[SF_PARAM_DELTA], m->min[SF_PARAM_THETA], m->max[SF_PARAM_THETA],
                m->min[SF_PARAM_PHI], m->max[SF_PARAM_PHI]);
    else
        sf_info("  model             vp %g .. %g m/s, epsilon %g .. %g, delta %g .. %g", m->vmin,
                m->max[SF_PARAM_VP], m->min[SF_PARAM_EPSILON], m->max[SF_PARAM_EPSILON],
                m->min[SF_PARAM_DELTA], m->max[SF_PARAM_DELTA]);
    sf_info("                    qP phase velocities %g .. %g m/s", m->slowest, m->vmax);
}

static const char *anisotropic_field_name(int field)
{
    return field == SF_ANISOTROPIC_Q ? "q" : "p";
}

#define PSEUDO_ACOUSTIC(kind)                                                                    \
    {                                                                                            \
        .name = kind,                                                                            \
        .trace_units = "p, the horizontal stress of the pseudo-acoustic system, per unit source " \
                       "amplitude per metre (the acoustic pressure where epsilon = delta = 0)",   \
        .stages = SF_ACOUSTIC_STAGES,                                                            \
        .edge_planes = {[SF_ACOUSTIC_MEMORY] = 2 * SF_HALO, [SF_ACOUSTIC_ADVANCE] = SF_HALO},    \
        .source_half = {[SF_ACOUSTIC_MEMORY] = -1, [SF_ACOUSTIC_ADVANCE] = 0},                   \
        .interior_waits = {[SF_ACOUSTIC_MEMORY] = 1},                                            \
        .in_z_layers = {[SF_HALO_CPML_Z] = 1},                                                   \
        .sample_after = 0,                                                                       \
        .fields = &SF_PRESSURE_LATTICE,                                                          \
        .field_name = anisotropic_field_name,                                                    \
        .slowest_wave_name = anisotropic_slowest_wave,                                           \
        .model_summary = anisotropic_model_summary,                                              \
        .create = anisotropic_create,                                                            \
        .summary = sf_acoustic_summary,                                                          \
        .cpu = sf_backend_cpu_anisotropic,                                                       \
        .cuda = SF_CUDA_BACKEND(sf_backend_cuda_anisotropic),                                    \
    }

/* The stages' schedule is the acoustic one (see its plug-in): the memory
 * variables' edge planes reach R further than the fields'. */
const sf_physics_plugin *sf_physics_vti(void)
{
    static const sf_physics_plugin physics = PSEUDO_ACOUSTIC("vti");
    return &physics;
}

const sf_physics_plugin *sf_physics_tti(void)
{
    static const sf_physics_plugin physics = PSEUDO_ACOUSTIC("tti");
    return &physics;
}
