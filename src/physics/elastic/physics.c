/* The elastic physics: velocity-stress on the staggered grid, a step in
 * two half-steps (sf_elastic_backend.h), the receivers sampling after the
 * velocity half-step; its summary lines and energy series. */
#include "sf_elastic_medium.h"
#include "sf_energy.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"

#include <stdlib.h>
#include <string.h>


static int is_velocity(sf_component c) { return c != SF_COMPONENT_P; }

static void describe_problem(const sf_simulation *s, const sf_elastic_medium *medium,
                             sf_problem *problem)
{
    const sf_config *c = s->cfg;
    const sf_elastic_acquisition *a = &s->elastic_acq;
    sf_problem p = {0};
    p.nx = c->n[0];
    p.ny = c->n[1];
    p.nz = s->slab.nz;
    p.z0 = s->slab.z0;
    p.stencil = s->stencil;
    memcpy(p.h, c->spacing, sizeof p.h);
    p.dt = s->dt;
    p.medium = medium;
    p.cpml = s->cpml;
    p.free_surface = c->free_surface;
    p.source = a->source;
    p.source_count = a->source_count;
    p.channel_component = a->channel_component;
    p.channel_points = a->channel_points;
    p.channel_offset = a->channel_offset;
    p.channel_count = a->channel_count;
    p.sample_block = SF_SAMPLE_BLOCK;
    p.exchange_normal_stresses = a->records_pressure;
    p.energy = c->energy_path != NULL;
    p.halo_transport = s->halo_transport;
    *problem = p;
}

static void take_channels(sf_simulation *s)
{
    s->channel_count = s->elastic_acq.channel_count;
    s->channel_global = s->elastic_acq.channel_global;
}

/* The medium goes to the backend, which keeps what it needs of it. */
static void elastic_setup(sf_simulation *s)
{
    sf_elastic_medium medium;
    sf_elastic_medium_build(&medium, &s->model, &s->slab, s->cfg);
    sf_elastic_acquisition_build(&s->elastic_acq, s->cfg, &s->slab);
    sf_problem p;
    describe_problem(s, &medium, &p);
    s->backend = s->ops->create(&p);
    sf_elastic_medium_free(&medium);
    take_channels(s);
}

static void elastic_begin_shot(sf_simulation *s)
{
    sf_elastic_acquisition_free(&s->elastic_acq);
    sf_elastic_acquisition_build(&s->elastic_acq, s->cfg, &s->slab);
    sf_problem p;
    describe_problem(s, NULL, &p);
    s->ops->reset(s->backend, &p);
    take_channels(s);
}

static void elastic_free(sf_simulation *s) { sf_elastic_acquisition_free(&s->elastic_acq); }

static const char *elastic_field_name(int field)
{
    static const char *const names[SF_ELASTIC_FIELDS] = {"vx",  "vy",  "vz",  "sxx", "syy",
                                                         "szz", "sxy", "sxz", "syz"};
    return field >= 0 && field < SF_ELASTIC_FIELDS ? names[field] : "?";
}

static void elastic_summary(const sf_simulation *s);

static const char *elastic_slowest_wave(const sf_model *m)
{
    return m->vs_min > 0.0 ? "vs_min" : "slowest of vs (vp where vs = 0)";
}

static void elastic_model_summary(const sf_model *m)
{
    sf_info("  model             vp %g .. %g m/s, vs %g .. %g m/s, rho %g .. %g kg/m^3", m->vmin,
            m->vmax, m->vs_min, m->vs_max, m->rho_min, m->rho_max);
}

const sf_physics_plugin *sf_physics_elastic(void)
{
    /* Velocities live half a step off: they are sampled after their
     * half-step, as the mean of the half steps around t = n dt. */
    static const sf_physics_plugin physics = {
        .name = "elastic",
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
        .field_name = elastic_field_name,
        .slowest_wave_name = elastic_slowest_wave,
        .model_summary = elastic_model_summary,
        .setup = elastic_setup,
        .begin_shot = elastic_begin_shot,
        .summary = elastic_summary,
        .free = elastic_free,
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

int sf_elastic_write_energy(sf_simulation *s)
{
    long count = s->steps;
    double *sum = s->slab.rank == 0 ? sf_malloc((size_t)(count ? count : 1) * 2 * sizeof(double),
                                                "the energy series")
                                    : NULL;
    if (count > 0)
        SF_MPI_CHECK(MPI_Reduce(s->energy, sum, (int)(2 * count), MPI_DOUBLE, MPI_SUM, 0,
                                s->slab.comm),
                     "summing the energy over ranks");
    int rc = sf_energy_write(s->cfg->energy_path, s->slab.comm, count, s->dt, sum, s->failure,
                             sizeof s->failure);
    free(sum);
    if (rc == 0)
        sf_info("seisfd: energy series written to %s (%ld steps)", s->cfg->energy_path, count);
    return rc;
}
