/* The elastic physics: velocity-stress on the staggered grid, a step in
 * two half-steps (sf_elastic_backend.h), the receivers sampling after the
 * velocity half-step; its summary lines. */
#include "sf_acoustic.h"
#include "sf_elastic_medium.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int is_velocity(sf_component c) { return c != SF_COMPONENT_P; }

/* The grid-unit offsets of a field's samples from the nodes. */
static void field_shift(int f, double shift[3])
{
    static const double shifts[SF_ELASTIC_FIELDS][3] = {
        [SF_FIELD_VX] = {0.5, 0, 0},    [SF_FIELD_VY] = {0, 0.5, 0},   [SF_FIELD_VZ] = {0, 0, 0.5},
        [SF_FIELD_SXY] = {0.5, 0.5, 0}, [SF_FIELD_SXZ] = {0.5, 0, 0.5}, [SF_FIELD_SYZ] = {0, 0.5, 0.5},
    };
    for (int a = 0; a < 3; ++a) shift[a] = shifts[f][a];
}

/* Velocities are imaged evenly above a free surface, so weights falling
 * there fold back with their sign; the stresses have no image that every
 * component shares, so their weights above the surface are dropped. */
static sf_hicks_fold surface_fold(int f)
{
    switch (f) {
    case SF_FIELD_VX:
    case SF_FIELD_VY: return SF_FOLD_EVEN_NODE;
    case SF_FIELD_VZ: return SF_FOLD_EVEN_HALF;
    default: return SF_FOLD_NONE;
    }
}

/* A force adds its direction to the velocities; a moment tensor M (an
 * explosion: the identity) -M to the stresses, so that the stress glut
 * radiates like the body force -div(M delta). */
static void source_coefficients(const sf_source_config *s, double *coef)
{
    static const double identity[6] = {1, 1, 1, 0, 0, 0};
    for (int f = 0; f < SF_ELASTIC_FIELDS; ++f) coef[f] = 0.0;
    if (s->type == SF_SOURCE_FORCE) {
        for (int a = 0; a < 3; ++a) coef[SF_FIELD_VX + a] = s->direction[a];
        return;
    }
    const double *m = s->type == SF_SOURCE_MOMENT ? s->moment : identity;
    for (int q = 0; q < 6; ++q) coef[SF_FIELD_SXX + q] = -m[q];
}

/* Pressure is read from the normal stresses on the nodes. */
static int component_field(sf_component k)
{
    return k == SF_COMPONENT_P ? SF_FIELD_SXX : SF_FIELD_VX + (int)k;
}

static const sf_field_lattice STAGGERED = {
    .fields = SF_ELASTIC_FIELDS,
    .shift = field_shift,
    .surface_fold = surface_fold,
    .source_coefficients = source_coefficients,
    .component_field = component_field,
};

/* 0 in fluids; a model file's up to 15000 m/s unless vs_range says. */
static const sf_parameter_declaration VS_DECLARED = {
    .name = "vs", .unit = "m/s", .values = "velocities", .limits = {0.0, 20000.0},
    .range = {0.0, 15000.0}, .typical = 1700.0, .resampling = SF_RESAMPLE_AS_MODEL,
};
static const sf_parameter_declaration RHO_DECLARED = {
    .name = "rho", .unit = "kg/m^3", .values = "densities", .limits = {1.0, 25000.0},
    .range = {100.0, 25000.0}, .typical = 2200.0, .resampling = SF_RESAMPLE_AS_MODEL,
};

/* An isotropic solid needs a positive bulk modulus: vs < sqrt(3)/2 vp. */
#define VS_OVER_VP_MAX 0.8660254037844386

/* The medium goes to the backend, which keeps what it needs of it. */
static void *elastic_build_medium(const sf_physics_context *context, sf_problem *p)
{
    sf_elastic_medium *medium = sf_malloc(sizeof *medium, "the elastic medium");
    const float *const *param = (const float *const *)context->model->param;
    sf_elastic_medium_build(medium, param, context->slab, context->cfg);
    p->medium = medium;
    return medium;
}

static void elastic_free_medium(void *built)
{
    sf_elastic_medium_free(built);
    free(built);
}

static const char *elastic_field_name(int field)
{
    static const char *const names[SF_ELASTIC_FIELDS] = {"vx",  "vy",  "vz",  "sxx", "syy",
                                                         "szz", "sxy", "sxz", "syz"};
    return field >= 0 && field < SF_ELASTIC_FIELDS ? names[field] : "?";
}

static void elastic_summary(const sf_simulation *s);

static const char *elastic_slowest_wave(const sf_model *m)
{
    return m->min[SF_ELASTIC_VS] > 0.0 ? "vs_min" : "slowest of vs (vp where vs = 0)";
}

static void elastic_model_summary(const sf_model *m)
{
    sf_info("  model             vp %g .. %g m/s, vs %g .. %g m/s, rho %g .. %g kg/m^3",
            m->min[SF_ELASTIC_VP], m->max[SF_ELASTIC_VP], m->min[SF_ELASTIC_VS],
            m->max[SF_ELASTIC_VS], m->min[SF_ELASTIC_RHO], m->max[SF_ELASTIC_RHO]);
}

/* An isotropic solid needs a positive bulk modulus. */
static const char *elastic_point_problem(const double *value, char *text, size_t len)
{
    const double vp = value[SF_ELASTIC_VP], vs = value[SF_ELASTIC_VS];
    if (vs < VS_OVER_VP_MAX * vp) return NULL;
    snprintf(text, len, "vs = %g m/s is not below %.4f vp = %g m/s (vp = %g m/s): an isotropic "
             "solid needs a positive bulk modulus", vs, VS_OVER_VP_MAX, VS_OVER_VP_MAX * vp, vp);
    return text;
}

#define VELOCITY_PER_AMPLITUDE "m/s per unit source amplitude"
#define VELOCITIES ((1u << SF_COMPONENT_VX) | (1u << SF_COMPONENT_VY) | (1u << SF_COMPONENT_VZ))

static const sf_physics_declaration DECLARED = {
    .name = "elastic",
    .nparams = 3,
    .param = {[SF_ELASTIC_VP] = &SF_ACOUSTIC_VP, [SF_ELASTIC_VS] = &VS_DECLARED,
              [SF_ELASTIC_RHO] = &RHO_DECLARED},
    .sources = (1u << SF_SOURCE_EXPLOSIVE) | (1u << SF_SOURCE_FORCE) | (1u << SF_SOURCE_MOMENT),
    .default_source = SF_SOURCE_EXPLOSIVE,
    .components = VELOCITIES | (1u << SF_COMPONENT_P),
    .default_receivers = VELOCITIES,
    .energy = 1,
    .quantity = {[SF_COMPONENT_VX] = "particle velocity vx",
                 [SF_COMPONENT_VY] = "particle velocity vy",
                 [SF_COMPONENT_VZ] = "particle velocity vz", [SF_COMPONENT_P] = "pressure"},
    .units = {[SF_COMPONENT_VX] = VELOCITY_PER_AMPLITUDE,
              [SF_COMPONENT_VY] = VELOCITY_PER_AMPLITUDE,
              [SF_COMPONENT_VZ] = VELOCITY_PER_AMPLITUDE,
              [SF_COMPONENT_P] = "Pa per unit source amplitude"},
    .point_problem = elastic_point_problem,
    .point_key = SF_ELASTIC_VS,
};

/* The slowest wave: vs, or vp where vs = 0 (a fluid); the fastest is vp. */
static void elastic_wave_speeds(sf_model *m, const sf_config *c, long points, MPI_Comm comm)
{
    (void)c;
    const float *vp = m->param[SF_ELASTIC_VP], *vs = m->param[SF_ELASTIC_VS];
    double lo = INFINITY;
    #pragma omp parallel for reduction(min : lo) schedule(static)
    for (long i = 0; i < points; ++i) {
        double v = vs[i] > 0.0f ? vs[i] : vp[i];
        if (v < lo) lo = v;
    }
    m->vmax = m->max[SF_ELASTIC_VP];
    SF_MPI_CHECK(MPI_Allreduce(&lo, &m->slowest, 1, MPI_DOUBLE, MPI_MIN, comm), "model min");
}

const sf_physics_plugin *sf_physics_elastic(void)
{
    /* Velocities live half a step off: they are sampled after their
     * half-step, as the mean of the half steps around t = n dt. */
    static const sf_physics_plugin physics = {
        .declared = &DECLARED,
        .staggered = 1,
        .component_axis = 1,
        .trace_units = "per unit source amplitude (force: N; explosive and moment: N m/s of "
                       "moment rate): vx, vy, vz particle velocity in m/s, p pressure -(sxx + "
                       "syy + szz)/3 in Pa",
        .stages = SF_HALF_STEPS,
        .edge_planes = {[SF_HALF_VELOCITY] = SF_HALO, [SF_HALF_STRESS] = SF_HALO},
        .source_half = {[SF_HALF_VELOCITY] = 0, [SF_HALF_STRESS] = 1},
        .sample_after = 1,
        .half_step_component = is_velocity,
        .fields = &STAGGERED,
        .field_name = elastic_field_name,
        .wave_speeds = elastic_wave_speeds,
        .slowest_wave_name = elastic_slowest_wave,
        .model_summary = elastic_model_summary,
        .build_medium = elastic_build_medium,
        .free_medium = elastic_free_medium,
        .summary = elastic_summary,
        .cpu = sf_backend_cpu_elastic,
        .cuda = SF_CUDA_IF_BUILT(sf_backend_cuda_elastic),
        /* The medium is the parameters and one plane each (its backend
         * forms its values while laying them out). A halo group carries the
         * stress half-step's normal stresses too; a layer point keeps a psi
         * per derivative along its axis; the energy series keeps the 6
         * stresses before the step and 8 weights. */
        .memory = {.model_volumes = 3,
                   .field_volumes = SF_ELASTIC_FIELDS, .medium_volumes = SF_MEDIUM_ARRAYS,
                   .halo_fields = 5, .cpml_arrays = 6, .energy_volumes = 14},
        /* 512^3 (17 arrays) takes about 9 GiB of a GPU. A point update at
         * the least reads and writes the 9 wavefield components and reads
         * the 3 material parameters. */
        .bench = {.gpu_size = 512, .bytes_per_point = 120.0},
    };
    return &physics;
}

static void describe_source(const sf_source_config *src, char *out, size_t len)
{
    const double *d = src->direction, *m = src->moment;
    switch (src->type) {
    case SF_SOURCE_FORCE:
        snprintf(out, len, "force (%g, %g, %g) N", d[0], d[1], d[2]);
        break;
    case SF_SOURCE_MOMENT:
        snprintf(out, len, "moment (xx %g, yy %g, zz %g, xy %g, xz %g, yz %g) N m", m[0], m[1],
                 m[2], m[3], m[4], m[5]);
        break;
    default: snprintf(out, len, "explosive");
    }
}

static void elastic_summary(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char source[160], components[32] = "", wavelet[1200];
    sf_wavelet_describe(&c->source.wavelet, wavelet, sizeof wavelet);
    describe_source(&c->source, source, sizeof source);
    for (int q = 0; q < c->receivers.ncomponents; ++q)
        snprintf(components + strlen(components), sizeof components - strlen(components), "%s%s",
                 q ? " " : "", sf_component_name(c->receivers.component[q]));
    sf_info("  source            %s, %s, delay %g s at (%g, %g, %g) m", source, wavelet,
            c->source.delay, c->source.position[0], c->source.position[1],
            c->source.position[2]);
    sf_info("  receivers         %ld, components %s, %ld samples at %.6g s", c->receivers.count,
            components, s->resampler.nsamples, s->interval);
}
