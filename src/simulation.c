/* A shot's simulation: its set-up (the slab cut, the model, the checks,
 * the backend), a survey's next shot on the same set-up and its end. Its
 * parts lie in shot_parts.c (with its release), setup_checks.c,
 * setup_summary.c, slab_cut.c, time_loop.c, instability_guard.c,
 * shot_outputs.c and timing_report.c. */
#include "simulation_internal.h"
#include "sf_acquisition_checks.h"
#include "sf_error.h"
#include "sf_memory_check.h"
#include "sf_output.h"
#include "sf_rank_counts.h"

#include <stdlib.h>
#include <string.h>

/* SEISFD_TEST_GROWTH=FACTOR[:SHOT], for tests only (README, "Tests"):
 * the backend multiplies the shot's whole state by FACTOR after every
 * step (sf_backend_ops.amplify), in every shot or in shot SHOT alone, so
 * that the guard meets growth on any physics and backend. */
static void read_test_growth(sf_simulation *s)
{
    const char *text = getenv("SEISFD_TEST_GROWTH");
    if (!text) return;
    char *end = NULL;
    double factor = strtod(text, &end);
    long shot = 0;
    if (end != text && *end == ':') shot = strtol(end + 1, &end, 10);
    if (end == text || *end || !(factor > 1.0 && factor <= 1e3) || shot < 0)
        sf_fail_collective("SEISFD_TEST_GROWTH: '%s' is not FACTOR or FACTOR:SHOT with 1 < "
                           "FACTOR <= 1000 (a setting for tests only)", text);
    s->test_growth = factor;
    s->test_growth_shot = shot;
    sf_warn("SEISFD_TEST_GROWTH=%s: the wavefield is multiplied by %g after every step of %s "
            "(for tests only)", text, factor, shot ? "one shot" : "every shot");
}

/* A table without the guard's operations is a programming error, named
 * rather than called through NULL. */
static void require_guard_operations(const sf_simulation *s)
{
    const sf_backend_ops *o = s->ops;
    const char *missing = !o->find_nonfinite ? "find_nonfinite"
                          : !o->field_norms  ? "field_norms"
                          : s->test_growth > 1.0 && !o->amplify ? "amplify"
                                                                 : NULL;
    if (missing)
        sf_fatal("internal: the %s backend of the %s physics has no %s operation, which the "
                 "instability guard needs", o->name, s->physics->declared->name, missing);
}

/* ---- the shot ---------------------------------------------------------------- */

static const char *const SETUP_PART_NAMES[SF_SETUP_PARTS] = {
    [SF_SETUP_DEVICES] = "devices", [SF_SETUP_SLAB_CUT] = "slab_cut", [SF_SETUP_MODEL] = "model",
    [SF_SETUP_CHECKS] = "checks",   [SF_SETUP_MEDIUM] = "medium",     [SF_SETUP_BACKEND] = "backend"};

const char *sf_setup_part_name(sf_setup_part part) { return SETUP_PART_NAMES[part]; }

double sim_setup_part_done(sf_simulation *s, sf_setup_part part, double started)
{
    const double now = MPI_Wtime();
    s->setup_seconds[part] += now - started;
    return now;
}

void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_placement *placement, double shots_served)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->shots_served = shots_served;
    s->physics = sf_physics_of(cfg->physics);
    s->halo_transport = placement->transport;
    s->stops_on = SF_STOP_AFTER_SHOT;
    if (sf_stencil_init(&s->stencil, cfg->order) != 0)
        sf_fail_collective("unsupported spatial order %d", cfg->order);
    SF_MPI_CHECK(MPI_Comm_size(comm, &s->slab.nranks), "querying the rank count");
    s->host_fields = !placement->cuda;
    s->memory_per_rank = sf_memory_per_rank(&s->ranks_on_node);
    s->setup_seconds[SF_SETUP_DEVICES] = placement->seconds;
    double part_started = MPI_Wtime();
    /* The checks that need the rank count (on the equal cut, before the
     * physics is timed on slabs as large), then the cut by cost and its
     * own memory check, then those that need the model. */
    sim_equal_cut(s, comm);
    if (sf_ranks_check_slabs(cfg, s->slab.nranks) + sim_check_memory(s, 0.0))
        sf_exit_collective();
    sim_cut_slabs(s, comm, placement);
    if (sim_check_memory(s, 0.0)) sf_exit_collective();
    part_started = sim_setup_part_done(s, SF_SETUP_SLAB_CUT, part_started);

    sf_timer_start(&s->timers);
    sf_model_build(&s->model, cfg, &s->slab);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    part_started = sim_setup_part_done(s, SF_SETUP_MODEL, part_started);
    s->check_every = cfg->check_every;

    double samples = 0.0;
    int problems = sim_resolve_time_step(s);
    sim_check_dispersion(s);
    problems += sim_resolve_record(s, &samples);
    problems += sf_check_source_amplitudes(sf_config_job(cfg), s->physics->fields);
    if (!problems) problems += sim_check_signature_spans(s);
    if (problems + sim_check_memory(s, samples)) sf_exit_collective();
    sf_source_signal_build(&s->source, &cfg->source, s->dt, s->steps, cfg->dispersion_correction,
                           &s->resampler);
    read_test_growth(s);
    sim_build_cpml(s);
    sf_warn_inside_layers(sf_config_job(cfg), s->cpml);
    s->ops = placement->ops;
    require_guard_operations(s);
    sim_place_acquisition(s);
    sf_problem problem;
    sim_describe_problem(s, &problem);
    sim_setup_part_done(s, SF_SETUP_CHECKS, part_started);
    sim_create_backend(s, &problem);
    sf_halo_init(&s->halo, &s->slab, &s->cpml[2], s->physics->stages, s->physics->in_z_layers);
    if (cfg->energy_path && s->ops->energy)
        s->energy = sf_calloc((size_t)(s->steps ? s->steps : 1) * 2, sizeof(double),
                              "the energy series");
    s->traces = sf_calloc((size_t)(s->channel_count ? s->channel_count : 1) *
                              (size_t)s->resampler.stored,
                          sizeof(float), "receiver traces");
}

int sf_simulation_finish(sf_simulation *s, int failed, int verify)
{
    int request = sf_interrupt_agree(s->slab.comm);
    if (!failed && sim_stopped_by(s, request, s->steps)) failed = 1;
    sf_timer_start(&s->timers);
    int rc = sf_output_set_finish(&s->outputs, !failed, verify, s->slab.comm, s->failure,
                                  sizeof s->failure);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    return failed || rc != 0 ? -1 : 0;
}

/* Discards the backend's phase times so far and zeroes the shot's. */
static void restart_timers(sf_simulation *s)
{
    double discarded[SF_PHASE_COUNT] = {0};
    s->ops->take_timers(s->backend, discarded);
    memset(&s->timers, 0, sizeof s->timers);
    memset(&s->setup_timers, 0, sizeof s->setup_timers);
    memset(&s->loop_timers, 0, sizeof s->loop_timers);
    s->loop_seconds = 0.0;
}

void sf_simulation_begin_shot(sf_simulation *s, const sf_config *shot)
{
    s->cfg = shot;
    s->failure[0] = '\0';
    s->stop = 0;
    s->stop_step = 0;
    sf_output_set_clear(&s->outputs);
    restart_timers(s);
    sf_timer_start(&s->timers);
    if (shot->source.wavelet.built->dominant_frequency != s->cpml_frequency) {
        for (int a = 0; a < 3; ++a) sf_cpml_axis_free(&s->cpml[a]);
        sim_build_cpml(s);
    }
    sf_source_signal_build(&s->source, &shot->source, s->dt, s->steps, shot->dispersion_correction,
                           &s->resampler);
    sf_acquisition_free(&s->acq);
    sim_place_acquisition(s);
    sf_problem problem;
    sim_describe_problem(s, &problem);
    s->ops->reset(s->backend, &problem);
    if (s->energy) memset(s->energy, 0, (size_t)(s->steps ? s->steps : 1) * 2 * sizeof(double));
    free(s->traces);
    s->traces = sf_calloc((size_t)(s->channel_count ? s->channel_count : 1) *
                              (size_t)s->resampler.stored,
                          sizeof(float), "receiver traces");
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}
