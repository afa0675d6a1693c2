/* The pseudo-acoustic VTI and TTI physics (sf_anisotropic.h): the stages
 * and the acquisition are the acoustic ones, p being the recorded
 * pressure; the medium adds epsilon and delta, and for TTI the tilt. */
#include "sf_anisotropic.h"
#include "sf_error.h"
#include "sf_simulation.h"

#include <math.h>
#include <stdlib.h>

/* How far (0 at its inner edge, 1 from TAPER_DEPTH of its thickness
 * inward) point g lies in an absorbing layer of an axis. */
#define TAPER_DEPTH 0.5
static double layer_depth(const sf_cpml_axis *axis, long g)
{
    const long t0 = axis->thick[0], t1 = axis->thick[1];
    double d = 0.0;
    if (t0 > 0 && g < t0) d = fmax(d, (double)(t0 - g) / (TAPER_DEPTH * t0));
    if (t1 > 0 && g >= axis->n - t1)
        d = fmax(d, (double)(g - (axis->n - 1 - t1)) / (TAPER_DEPTH * t1));
    return fmin(d, 1.0);
}

/* The nearest of angles target + 180 m to a. */
static double nearest_turn(double a, double target)
{
    return target + 180.0 * round((a - target) / 180.0);
}

/* The tilt and azimuth of the grid axis nearest a symmetry axis: z
 * (theta 0 or 180, phi kept), x (theta +-90, phi 0 or 180) or y (theta
 * +-90, phi +-90). */
static void nearest_grid_axis(double theta, double phi, double *theta_to, double *phi_to)
{
    const double r = M_PI / 180.0;
    const double nx = fabs(sin(theta * r) * cos(phi * r)), ny = fabs(sin(theta * r) * sin(phi * r));
    const double nz = fabs(cos(theta * r));
    if (nz >= nx && nz >= ny) {
        *theta_to = nearest_turn(theta, 0.0), *phi_to = phi;
    } else {
        *theta_to = nearest_turn(theta, 90.0);
        *phi_to = nearest_turn(phi, nx >= ny ? 0.0 : 90.0);
    }
}

/* The tilt the backends use: the model's, turned towards the nearest grid
 * axis inside the absorbing layers. A perfectly matched layer is unstable
 * in a medium whose waves' group and phase velocities point opposite ways
 * along its axis (Becache, Fauqueux & Joly 2003), which a symmetry axis
 * oblique to the grid gives; one along a grid axis does not. The tilt
 * turns over the inner half of each layer, so the change reflects little,
 * and an axis along the grid is left as it is. */
static void tapered_tilt(const sf_simulation *s, float **theta, float **phi)
{
    const long nx = s->cfg->n[0], ny = s->cfg->n[1], count = nx * ny * s->slab.nz;
    const float *t = s->model.param[SF_PARAM_THETA], *f = s->model.param[SF_PARAM_PHI];
    *theta = sf_malloc((size_t)count * sizeof(float), "the tilt");
    *phi = sf_malloc((size_t)count * sizeof(float), "the tilt");
    for (long n = 0; n < count; ++n) {
        const long i = n % nx, j = (n / nx) % ny, k = n / (nx * ny);
        const double depth = fmax(layer_depth(&s->cpml[0], i),
                                  fmax(layer_depth(&s->cpml[1], j),
                                       layer_depth(&s->cpml[2], s->slab.z0 + k)));
        double theta_to, phi_to;
        nearest_grid_axis(t[n], f[n], &theta_to, &phi_to);
        (*theta)[n] = (float)(t[n] + depth * (theta_to - t[n]));
        (*phi)[n] = (float)(f[n] + depth * (phi_to - f[n]));
    }
}

static void anisotropic_create(sf_simulation *s, sf_problem *p)
{
    float *theta = NULL, *phi = NULL;
    if (s->model.param[SF_PARAM_THETA]) tapered_tilt(s, &theta, &phi);
    p->anisotropy[0] = s->model.param[SF_PARAM_EPSILON];
    p->anisotropy[1] = s->model.param[SF_PARAM_DELTA];
    p->anisotropy[2] = theta;
    p->anisotropy[3] = phi;
    s->backend = s->ops->create(p);
    free(theta);
    free(phi);
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
