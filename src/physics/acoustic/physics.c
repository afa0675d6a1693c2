/* The acoustic physics: the pressure on the nodes, advanced by the
 * leapfrog in two stages (sf_acoustic.h), the receivers sampling the
 * current level at the start of each step. */
#include "sf_acoustic.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"

/* The pressure is imaged oddly above a free surface: weights there fold
 * back with the opposite sign, and the surface's own is dropped. */
static sf_hicks_fold pressure_fold(int field)
{
    (void)field;
    return SF_FOLD_ODD;
}

static void pressure_source(const sf_source_config *s, double *coef)
{
    (void)s;
    coef[0] = 1.0;
}

static int pressure_field(sf_component c)
{
    (void)c;
    return 0;
}

const sf_field_lattice SF_PRESSURE_LATTICE = {
    .fields = 1,
    .surface_fold = pressure_fold,
    .source_coefficients = pressure_source,
    .component_field = pressure_field,
};

/* From air to the fastest rocks; a model file's from 100 m/s unless
 * vp_range says. */
const sf_parameter_declaration SF_ACOUSTIC_VP = {
    .name = "vp",
    .unit = "m/s",
    .values = "velocities",
    .limits = {10.0, 20000.0},
    .range = {100.0, 15000.0},
    .typical = 3000.0,
    .resampling = SF_RESAMPLE_AS_MODEL,
};

enum { VP = SF_ACOUSTIC_PARAM_VP };


/* vp is both the slowest and the fastest wave. */
static void acoustic_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    (void)c, (void)points, (void)comm;
    m->slowest = m->min[VP];
    m->vmax = m->max[VP];
}

void sf_acoustic_summary(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char wavelet[1200];
    sf_wavelet_describe(&c->source.wavelet, wavelet, sizeof wavelet);
    sf_info("  source            %s, delay %g s at (%g, %g, %g) m", wavelet, c->source.delay,
            c->source.position[0], c->source.position[1], c->source.position[2]);
    sf_info("  receivers         %ld, %ld samples at %.6g s", c->receivers.count,
            s->resampler.nsamples, s->interval);
}

static const char *acoustic_slowest_wave(const sf_model *m)
{
    (void)m;
    return "vp_min";
}

static void acoustic_model_summary(const sf_model *m)
{
    sf_info("  model             vp %g .. %g m/s", m->min[VP], m->max[VP]);
}

const char *sf_pressure_field_name(int field)
{
    (void)field;
    return "p";
}

/* The pressure-like field of the acoustic equations answers a source of
 * unit amplitude with s(t - r/v) / (4 pi r): per metre. */
static const sf_physics_declaration DECLARED = {
    .name = "acoustic",
    .nparams = 1,
    .param = {[VP] = &SF_ACOUSTIC_VP},
    SF_PRESSURE_RECORDED("pressure"),
};

const sf_physics_plugin *sf_physics_acoustic(void)
{
    static const sf_physics_plugin physics = {
        .declared = &DECLARED,
        .trace_units = "pressure per unit source amplitude per metre: p = s(t - r/v) / (4 pi r) "
                       "in a homogeneous medium",
        SF_ACOUSTIC_SCHEDULE,
        .field_name = sf_pressure_field_name,
        .wave_speeds = acoustic_wave_speeds,
        .slowest_wave_name = acoustic_slowest_wave,
        .model_summary = acoustic_model_summary,
        .summary = sf_acoustic_summary,
        .cpu = sf_backend_cpu_acoustic,
        .cuda = SF_CUDA_IF_BUILT(sf_backend_cuda_acoustic),
        /* p at two levels, vp; psi and zeta per layer point. */
        .memory = {.model_volumes = 1, .field_volumes = 2, .medium_volumes = 1,
                   .halo_fields = 1, .cpml_arrays = 2, .cpml_reach = 1},
        /* 1000^3 takes about 14 GiB of a GPU. A point update at the least
         * reads p, p_prev and v^2 dt^2 and writes p_next. */
        .bench = {.gpu_size = 1000, .bytes_per_point = 16.0},
    };
    return &physics;
}
