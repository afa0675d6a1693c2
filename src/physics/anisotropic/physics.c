/* The pseudo-acoustic VTI and TTI physics (sf_anisotropic.h): the stages
 * and the acquisition are the acoustic ones, p being the recorded
 * pressure; the medium adds epsilon and delta, and for TTI the tilt. */
#include "sf_anisotropic.h"
#include "sf_error.h"
#include "sf_simulation.h"

#include <math.h>
#include <stdio.h>

enum { VP = SF_ANISOTROPIC_VP, EPSILON = SF_ANISOTROPIC_EPSILON, DELTA = SF_ANISOTROPIC_DELTA,
       THETA = SF_ANISOTROPIC_THETA, PHI = SF_ANISOTROPIC_PHI };

/* Thomsen's epsilon and delta are dimensionless: 1 + 2 epsilon and
 * 1 + 2 delta must stay positive, and rocks keep well within. */
static const sf_parameter_declaration EPSILON_DECLARED = {
    .name = "epsilon", .unit = "", .values = "values", .limits = {-0.45, 2.0},
    .range = {-0.2, 1.0}, .typical = 0.2, .resampling = SF_RESAMPLE_AS_MODEL,
};
static const sf_parameter_declaration DELTA_DECLARED = {
    .name = "delta", .unit = "", .values = "values", .limits = {-0.45, 2.0},
    .range = {-0.3, 1.0}, .typical = 0.1, .resampling = SF_RESAMPLE_AS_MODEL,
};
/* The tilt of the symmetry axis from the vertical, and its azimuth from
 * x towards y. */
static const sf_parameter_declaration THETA_DECLARED = {
    .name = "theta", .unit = "degrees", .values = "values", .limits = {-180.0, 180.0},
    .range = {-180.0, 180.0}, .typical = 30.0, .resampling = SF_RESAMPLE_AS_MODEL,
};
static const sf_parameter_declaration PHI_DECLARED = {
    .name = "phi", .unit = "degrees", .values = "values", .limits = {-360.0, 360.0},
    .range = {-360.0, 360.0}, .typical = 20.0, .resampling = SF_RESAMPLE_AS_MODEL,
};



/* The least of g over s in [0, 1] (gmin) and its largest (gmax). */
static void g_bounds(double eps, double delta, double *gmin, double *gmax)
{
    const double ends = 1.0 + 2.0 * eps;
    *gmin = ends < 1.0 ? ends : 1.0;
    *gmax = ends > 1.0 ? ends : 1.0;
    /* The vertex is positive only where delta < 0 (and eps > delta). */
    if (eps > delta && delta < 0.0) {
        const double vertex = -delta / (2.0 * (eps - delta));
        const double least = 1.0 - delta * delta / (2.0 * (eps - delta));
        if (vertex > 0.0 && vertex < 1.0 && least < *gmin) *gmin = least;
    }
}

/* The slowest and fastest qP phase velocities of a pseudo-acoustic medium.
 * Thomsen's weak-anisotropy form v^2 = vp^2 g(s), s = sin^2 of the angle
 * from the axis, g = 1 + 2 delta s + 2 (epsilon - delta) s^2, is convex in
 * s where epsilon >= delta: its largest value is at an end (vp, or
 * vp sqrt(1 + 2 epsilon)), its least at an end or at its vertex. The CFL
 * limit of the discrete system is the isotropic one at that largest speed,
 * since its symbol is the dispersion relation's with discrete wavenumbers.
 * Two square roots a point took 1.5 s of a 1024^3 model's set-up on 16
 * cores. A point with its predecessor's values is passed over, and
 * squared speeds judge whether a point can move either bound: their
 * rounding is some 1e-16 of them, far inside the margin, so the bounds
 * are exactly those of every point's vp sqrt(g), however the points are
 * split among threads and ranks. */
static void anisotropic_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    (void)c;
    const float *vp = m->param[VP], *eps = m->param[EPSILON], *delta = m->param[DELTA];
    const double margin = 1e-9;
    double lo = INFINITY, hi = 0.0;
    #pragma omp parallel reduction(min : lo) reduction(max : hi)
    {
        double lo_squared = INFINITY, hi_squared = 0.0;
        #pragma omp for schedule(static)
        for (long i = 0; i < points; ++i) {
            if (i > 0 && vp[i] == vp[i - 1] && eps[i] == eps[i - 1] && delta[i] == delta[i - 1])
                continue;
            double gmin, gmax;
            g_bounds(eps[i], delta[i], &gmin, &gmax);
            const double v = vp[i];
            if (v * v * gmin < lo_squared && v * sqrt(gmin) < lo) {
                lo = v * sqrt(gmin);
                lo_squared = lo * lo * (1.0 + margin);
            }
            if (v * v * gmax > hi_squared && v * sqrt(gmax) > hi) {
                hi = v * sqrt(gmax);
                hi_squared = hi * hi * (1.0 - margin);
            }
        }
    }
    SF_MPI_CHECK(MPI_Allreduce(&lo, &m->slowest, 1, MPI_DOUBLE, MPI_MIN, comm), "model min");
    SF_MPI_CHECK(MPI_Allreduce(&hi, &m->vmax, 1, MPI_DOUBLE, MPI_MAX, comm), "model max");
}

static const char *anisotropic_slowest_wave(const sf_model *m)
{
    (void)m;
    return "the slowest qP phase velocity";
}

static void anisotropic_model_summary(const sf_model *m)
{
    if (m->param[THETA])
        sf_info("  model             vp %g .. %g m/s, epsilon %g .. %g, delta %g .. %g, tilt %g .. "
                "%g, azimuth %g .. %g degrees", m->min[VP], m->max[VP], m->min[EPSILON],
                m->max[EPSILON], m->min[DELTA], m->max[DELTA], m->min[THETA], m->max[THETA],
                m->min[PHI], m->max[PHI]);
    else
        sf_info("  model             vp %g .. %g m/s, epsilon %g .. %g, delta %g .. %g", m->min[VP],
                m->max[VP], m->min[EPSILON], m->max[EPSILON], m->min[DELTA], m->max[DELTA]);
    sf_info("                    qP phase velocities %g .. %g m/s", m->slowest, m->vmax);
}

static const char *anisotropic_field_name(int field)
{
    return field == SF_ANISOTROPIC_Q ? "q" : "p";
}

/* The pseudo-acoustic system is stable for epsilon >= delta, and its
 * shear velocity (SF_ANISOTROPY_SIGMA) stays well below vp. */
static const char *anisotropic_point_problem(const double *value, char *text, size_t len)
{
    const double eps = value[EPSILON], delta = value[DELTA];
    if (!(delta <= eps)) {
        snprintf(text, len, "delta = %g exceeds epsilon = %g: the pseudo-acoustic system is "
                 "unstable where delta > epsilon (its shear velocity would be imaginary)",
                 delta, eps);
        return text;
    }
    if (!(eps - delta <= SF_ANISOTROPY_GAP_MAX)) {
        snprintf(text, len, "epsilon - delta = %g - %g exceeds %g: the shear velocity that keeps "
                 "the pseudo-acoustic system stable would near vp", eps, delta,
                 SF_ANISOTROPY_GAP_MAX);
        return text;
    }
    return NULL;
}

/* p answers a source as the acoustic pressure does (per metre). */
#define PSEUDO_ACOUSTIC_DECLARATION(kind, count, ...)                                            \
    {                                                                                            \
        .name = kind, .nparams = count, .param = {__VA_ARGS__},                                  \
        SF_PRESSURE_RECORDED("horizontal stress p of the pseudo-acoustic system"),               \
        .point_problem = anisotropic_point_problem, .point_key = DELTA,                          \
    }

static const sf_physics_declaration VTI = PSEUDO_ACOUSTIC_DECLARATION(
    "vti", 3, &SF_ACOUSTIC_VP, &EPSILON_DECLARED, &DELTA_DECLARED);
static const sf_physics_declaration TTI = PSEUDO_ACOUSTIC_DECLARATION(
    "tti", 5, &SF_ACOUSTIC_VP, &EPSILON_DECLARED, &DELTA_DECLARED, &THETA_DECLARED, &PHI_DECLARED);

/* Two acoustic-like fields (p, q), each at two levels with its own
 * memory variables and halo, over the medium's parameters; the CPU
 * backend keeps TTI's symmetry axis (three volumes) beside vp, epsilon
 * and delta (medium), and TTI's layers two memory variables for each
 * field in each of the two mixed pairs an axis's layer stretches
 * (layer_arrays 12 against 4). 800^3 (9 arrays for TTI) takes about 19
 * GiB of a GPU, and its model is built on the host. A point update at the
 * least reads p and q at two levels, writes the new ones and reads vp,
 * epsilon and delta (and for TTI theta and phi). */
#define PSEUDO_ACOUSTIC(declaration, params, medium, layer_arrays, fields)                         \
    {                                                                                            \
        .declared = &declaration,                                                                \
        .trace_units = "p, the horizontal stress of the pseudo-acoustic system, per unit source " \
                       "amplitude per metre (the acoustic pressure where epsilon = delta = 0)",  \
        SF_ACOUSTIC_SCHEDULE,                                                                    \
        .field_name = anisotropic_field_name,                                                    \
        .wave_speeds = anisotropic_wave_speeds,                                                  \
        .slowest_wave_name = anisotropic_slowest_wave,                                           \
        .model_summary = anisotropic_model_summary,                                              \
        .summary = sf_acoustic_summary,                                                          \
        .cpu = sf_backend_cpu_anisotropic,                                                       \
        .cuda = SF_CUDA_IF_BUILT(sf_backend_cuda_anisotropic),                                   \
        .memory = {.model_volumes = params, .field_volumes = fields, .medium_volumes = medium,   \
                   .medium_compact = 1, .halo_fields = 2, .cpml_arrays = layer_arrays,           \
                   .cpml_reach = 1},                                                             \
        .bench = {.gpu_size = 800, .bytes_per_point = 4.0 * (6 + params)},                       \
    }

const sf_physics_plugin *sf_physics_vti(void)
{
    static const sf_physics_plugin physics = PSEUDO_ACOUSTIC(VTI, 3, 3, 4, 4);
    return &physics;
}

const sf_physics_plugin *sf_physics_tti(void)
{
    static const sf_physics_plugin physics = PSEUDO_ACOUSTIC(TTI, 5, 6, 12, 4);
    return &physics;
}
