/* The parts of a shot that its set-up (simulation.c) and the slab cut's
 * timing of a physics (slab_cut.c) both build and release: the CPML
 * profiles, the source and receivers on the physics' fields, the slab as
 * a backend takes it, the backend, and the shot's release. Kept apart so
 * that both files, and the time loop, depend on these alone. */
#include "simulation_internal.h"
#include "sf_error.h"

#include <stdlib.h>
#include <string.h>

/* Does the test-only growth apply to this shot? */
int sim_test_growth_here(const sf_simulation *s)
{
    const long shot = s->cfg->shot_number > 0 ? s->cfg->shot_number : 1;
    return s->test_growth > 1.0 && (s->test_growth_shot == 0 || s->test_growth_shot == shot);
}

/* The frequency shift of the profiles follows the source's peak
 * frequency, so a survey rebuilds them for a shot that changes it. */
void sim_build_cpml(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    /* The second-order physics (acoustic, VTI, TTI) need the shift's floor
     * (sf_cpml_alpha_floor); the staggered first-order one does not. */
    double floor_ = s->physics->staggered ? 0.0 : sf_cpml_alpha_floor(&s->stencil);
    for (int a = 0; a < 3; ++a)
        sf_cpml_axis_init(&s->cpml[a], c->n[a], &c->cpml[2 * a], c->spacing[a], s->dt,
                          s->model.vmax, c->source.wavelet.built->dominant_frequency,
                          c->cpml_reflection, floor_);
    s->cpml_frequency = c->source.wavelet.built->dominant_frequency;
}

/* The slab as a backend takes it, with the medium its physics describes
 * (vp on the nodes is every physics'; the acoustic backends read it on a
 * reset too, to scale the new source). */
void sim_describe_problem(const sf_simulation *s, sf_problem *problem)
{
    const sf_config *c = s->cfg;
    const sf_acquisition *a = &s->acq;
    sf_problem p = {0};
    p.nx = c->n[0];
    p.ny = c->n[1];
    p.nz = s->slab.nz;
    p.z0 = s->slab.z0;
    p.stencil = s->stencil;
    memcpy(p.h, c->spacing, sizeof p.h);
    p.dt = s->dt;
    p.param = (const float *const *)s->model.param;
    p.nparams = s->physics->declared->nparams;
    p.first_equal_plane = s->model.first_equal_plane;
    p.cpml = s->cpml;
    p.free_surface = c->free_surface;
    p.neighbour[SF_SIDE_LOWER] = s->slab.lower != MPI_PROC_NULL;
    p.neighbour[SF_SIDE_UPPER] = s->slab.upper != MPI_PROC_NULL;
    p.source = a->source;
    p.source_count = a->source_count;
    p.channel_component = a->channel_component;
    p.channel_points = a->channel_points;
    p.channel_offset = a->channel_offset;
    p.channel_count = a->channel_count;
    p.sample_block = SF_SAMPLE_BLOCK;
    p.exchange_normal_stresses = a->records_pressure;
    p.energy = c->energy_path != NULL;
    p.precision = c->precision;
    p.halo_transport = s->halo_transport;
    *problem = p;
}

void sim_create_backend(sf_simulation *s, sf_problem *problem)
{
    const sf_physics_plugin *physics = s->physics;
    const sf_physics_context context = {s->cfg, &s->model, &s->slab};
    double started = MPI_Wtime();
    void *built = physics->build_medium ? physics->build_medium(&context, problem) : NULL;
    started = sim_setup_part_done(s, SF_SETUP_MEDIUM, started);
    s->backend = s->ops->create(problem);
    if (built) physics->free_medium(built);
    sim_setup_part_done(s, SF_SETUP_BACKEND, started);
}

/* The shot's source and receivers on the physics' fields. */
void sim_place_acquisition(sf_simulation *s)
{
    sf_acquisition_build(&s->acq, s->cfg, &s->slab, s->physics->fields);
    s->channel_count = s->acq.channel_count;
    s->channel_global = s->acq.channel_global;
}

long sf_simulation_timed_steps(const sf_simulation *s)
{
    return (s->stop ? s->stop_step : s->steps) - s->warmup_steps;
}

void sf_simulation_free(sf_simulation *s)
{
    free(s->slab_start);
    if (s->backend) s->ops->destroy(s->backend);
    sf_acquisition_free(&s->acq);
    free(s->energy);
    for (int c = 0; c < SF_COMPONENTS; ++c) free(s->half_step_before[c]);
    for (int a = 0; a < 3; ++a) sf_cpml_axis_free(&s->cpml[a]);
    sf_model_free(&s->model);
    sf_source_signal_free(&s->source);
    free(s->traces);
}
