/* The acoustic physics: the pressure on the nodes, advanced by the
 * leapfrog in two stages (sf_acoustic.h), the receivers sampling the
 * current level at the start of each step. */
#include "sf_acoustic.h"
#include "sf_error.h"
#include "sf_layout.h"
#include "sf_simulation.h"

#include <string.h>

static void describe_problem(const sf_simulation *s, sf_problem *problem)
{
    const sf_config *c = s->cfg;
    sf_problem p = {0};
    p.nx = c->n[0];
    p.ny = c->n[1];
    p.nz = s->slab.nz;
    p.z0 = s->slab.z0;
    p.stencil = s->stencil;
    memcpy(p.h, c->spacing, sizeof p.h);
    p.dt = s->dt;
    p.vp = s->model.vp;
    p.cpml = s->cpml;
    p.free_surface = c->free_surface;
    p.source = s->acq.source;
    p.source_count = s->acq.source_count;
    p.channel_component = s->acq.receiver_component;
    p.channel_points = s->acq.receiver_points;
    p.channel_offset = s->acq.receiver_offset;
    p.channel_count = s->acq.receiver_count;
    p.sample_block = SF_SAMPLE_BLOCK;
    p.halo_transport = s->halo_transport;
    *problem = p;
}

static void take_channels(sf_simulation *s)
{
    s->channel_count = s->acq.receiver_count;
    s->channel_global = s->acq.receiver_global;
}

static void acoustic_setup(sf_simulation *s)
{
    sf_acquisition_build(&s->acq, s->cfg, &s->slab);
    sf_problem p;
    describe_problem(s, &p);
    s->backend = s->ops->create(&p);
    take_channels(s);
}

static void acoustic_begin_shot(sf_simulation *s)
{
    sf_acquisition_free(&s->acq);
    sf_acquisition_build(&s->acq, s->cfg, &s->slab);
    sf_problem p;
    describe_problem(s, &p);
    s->ops->reset(s->backend, &p);
    take_channels(s);
}

static void acoustic_summary(const sf_simulation *s)
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
    sf_info("  model             vp %g .. %g m/s", m->vmin, m->vmax);
}

static void acoustic_free(sf_simulation *s) { sf_acquisition_free(&s->acq); }

static const char *acoustic_field_name(int field)
{
    (void)field;
    return "p";
}

const sf_physics_plugin *sf_physics_acoustic(void)
{
    /* The memory variables' edge planes reach R further than the
     * pressure's, since an edge plane's update reads them R half-planes
     * inward; so the memory interior can wait for the pressure's exchange. */
    static const sf_physics_plugin physics = {
        .name = "acoustic",
        .trace_units = "pressure per unit source amplitude per metre: p = s(t - r/v) / (4 pi r) "
                       "in a homogeneous medium",
        .stages = SF_ACOUSTIC_STAGES,
        .edge_planes = {[SF_ACOUSTIC_MEMORY] = 2 * SF_HALO, [SF_ACOUSTIC_ADVANCE] = SF_HALO},
        .source_half = {[SF_ACOUSTIC_MEMORY] = -1, [SF_ACOUSTIC_ADVANCE] = 0},
        .interior_waits = {[SF_ACOUSTIC_MEMORY] = 1},
        .in_z_layers = {[SF_HALO_CPML_Z] = 1},
        .sample_after = 0,
        .field_name = acoustic_field_name,
        .slowest_wave_name = acoustic_slowest_wave,
        .model_summary = acoustic_model_summary,
        .setup = acoustic_setup,
        .begin_shot = acoustic_begin_shot,
        .summary = acoustic_summary,
        .free = acoustic_free,
    };
    return &physics;
}
