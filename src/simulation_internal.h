/* What the files of the simulation (simulation.c and the files of its
 * parts: shot_parts.c, setup_checks.c, setup_summary.c, slab_cut.c,
 * time_loop.c, instability_guard.c, shot_outputs.c, timing_report.c)
 * share. Private to them: other code sees sf_simulation.h. */
#ifndef SF_SIMULATION_INTERNAL_H
#define SF_SIMULATION_INTERNAL_H

#include "sf_gather.h"
#include "sf_simulation.h"

/* Adds the time since `started` (MPI_Wtime) to a set-up part; returns now. */
double sim_setup_part_done(sf_simulation *s, sf_setup_part part, double started);

/* The shot's parts (shot_parts.c): its CPML profiles, its source and receivers
 * on the physics' fields, the slab as the backend takes it, and whether
 * the test-only growth applies to it. */
void sim_build_cpml(sf_simulation *s);
void sim_place_acquisition(sf_simulation *s);
void sim_describe_problem(const sf_simulation *s, sf_problem *problem);
/* s->backend from s->ops over problem, with the medium the physics builds. */
void sim_create_backend(sf_simulation *s, sf_problem *problem);
int sim_test_growth_here(const sf_simulation *s);

/* The set-up's checks (setup_checks.c); each returns the problems it
 * reported. */
int sim_check_memory(const sf_simulation *s, double nsamples);
/* The time step where the fastest wave is vmax: time.dt, or auto (a
 * fraction of the stability limit dt_max, shortened where the source's
 * band reaches past what the corrected records carry). */
double sim_time_step(const sf_simulation *s, double vmax, double *dt_max, int *shortened);
/* The time steps c's record takes at dt. */
double sim_step_count(const sf_config *c, double dt);
int sim_resolve_time_step(sf_simulation *s);
void sim_check_dispersion(const sf_simulation *s);
int sim_resolve_record(sf_simulation *s, double *samples);
int sim_check_signature_spans(const sf_simulation *s);
/* Points per wavelength at frequency f on the slowest wave, and its name. */
double sim_points_per_wavelength(const sf_simulation *s, double f);
const char *sim_slowest_wave_name(const sf_simulation *s);

/* The slab cut (slab_cut.c), collective over comm: the equal one, and
 * the one by cost (timing the physics when the table has no row). */
void sim_equal_cut(sf_simulation *s, MPI_Comm comm);
void sim_cut_slabs(sf_simulation *s, MPI_Comm comm, const sf_placement *placement);

/* The time loop (time_loop.c): stages [first, last) of step n, and
 * whether an agreed interrupt request stops the shot at step. */
void sim_run_stages(sf_simulation *s, long n, int first, int last);
int sim_stopped_by(sf_simulation *s, int request, long step);

/* The instability guard (instability_guard.c): the first step it judges
 * growth at, its set-up line, whether step n is checked, and the check
 * (collective over the slab: 0, or -1 with s->failure). */
long sim_guard_start(const sf_simulation *s);
void sim_print_guard(const sf_simulation *s);
int sim_guard_due(const sf_simulation *s, long n);
int sim_check_stability(sf_simulation *s, long step);

/* A shot's outputs (shot_outputs.c): what the gather writers need to
 * know of it, and output.model. */
sf_gather_info sim_gather_info(const sf_simulation *s);
void sim_write_model(sf_simulation *s);

#endif
