/* One shot: set-up from a validated job, the time loop, and the gather.
 * The loop is the same for every physics: a physics (sf_physics_plugin) lists
 * its stages and what is its own, and the loop drives its backend's
 * operations only. */
#ifndef SF_SIMULATION_H
#define SF_SIMULATION_H

#include "sf_acquisition.h"
#include "sf_backend.h"
#include "sf_bench.h"
#include "sf_config.h"
#include "sf_cpml.h"
#include "sf_decomp.h"
#include "sf_device.h"
#include "sf_elastic_backend.h"
#include "sf_growth_guard.h"
#include "sf_halo.h"
#include "sf_interrupt.h"
#include "sf_memory_check.h"
#include "sf_model.h"
#include "sf_output.h"
#include "sf_physics_registry.h"
#include "sf_plane_costs.h"
#include "sf_resample.h"
#include "sf_segy.h"
#include "sf_snapshot.h"
#include "sf_source_signal.h"
#include "sf_stencil.h"
#include "sf_timers.h"

typedef struct sf_simulation sf_simulation;

/* Time levels of receiver samples a backend keeps before the loop fetches them. */
enum { SF_SAMPLE_BLOCK = 64 };

enum { SF_MAX_STAGES = SF_MAX_HALO_GROUPS };

/* What a plug-in may read of the shot when it builds its medium: the
 * job, the model over this rank's slab and the slab; it changes none of
 * them, and the driver creates the backend. */
typedef struct {
    const sf_config *cfg;
    const sf_model *model;
    const sf_slab *slab;
} sf_physics_context;

/* A physics as the time loop drives it. Step n is its stages in order,
 * stage g followed by the exchange of halo group g; the receivers sample
 * t = n dt after the first sample_after stages. The loop, the overlap of
 * exchanges with the interior, the guard, snapshots, energy and surveys
 * are the driver's (simulation.c, time_loop.c and the files beside
 * them); what is the physics' own is here and in its backends' kernels. */
struct sf_physics_plugin {
    /* Its name (physics.type) and what it takes from a job. */
    const sf_physics_declaration *declared;
    /* First derivatives on a staggered grid: the CFL limit and the
     * accuracy estimate use the staggered stencil. */
    int staggered;
    /* The gather: a leading component axis, and what the traces hold. */
    int component_axis;
    const char *trace_units;
    int stages;
    /* Planes at each slab end that stage g updates before its exchange
     * (the planes its neighbours read). */
    int edge_planes[SF_MAX_STAGES];
    /* The source signal stage g injects: at t = (n + source_half[g] / 2)
     * dt, or none for -1. */
    int source_half[SF_MAX_STAGES];
    /* 1: stage g's interior may wait for the next stage's exchange (the
     * next stage's edge planes read only its edge planes). Its
     * finish_stage then runs after the next stage's edges, so it must
     * have nothing to do; the last stage of a step never waits. */
    int interior_waits[SF_MAX_STAGES];
    /* 1: halo group g crosses only a boundary inside a z layer (CPML
     * memory variables differentiated across z). */
    int in_z_layers[SF_MAX_STAGES];
    int sample_after;
    /* 1 for a component that lives half a step off t = n dt at the sample
     * (elastic velocities): a snapshot averages it over the stages before
     * the sample. */
    int (*half_step_component)(sf_component c);
    /* Its fields as the source and receivers are placed on them. */
    const sf_field_lattice *fields;
    /* The name of a field index of sf_nonfinite ("p", "vx", "sxz", ...). */
    const char *(*field_name)(int field);
    /* Collective over comm: m->slowest (the dispersion check's) and
     * m->vmax (the CFL limit's) over the model's points, from its
     * parameters (m->min and m->max are global already) and the job c. */
    void (*wave_speeds)(sf_model *m, const sf_config *c, long points, MPI_Comm comm);
    /* The slowest wave the dispersion check speaks of ("vp_min", ...),
     * and the summary's line of the model. */
    const char *(*slowest_wave_name)(const sf_model *m);
    void (*model_summary)(const sf_model *m);
    /* For create only, a medium derived from the model that the backend
     * copies (elastic: moduli and buoyancies on the staggered grid), set
     * in p; returns what free_medium releases once the backend is
     * created. NULL where the model's parameters say all. */
    void *(*build_medium)(const sf_physics_context *context, sf_problem *p);
    void (*free_medium)(void *built);
    /* Its lines of the set-up summary: source and receivers. */
    void (*summary)(const sf_simulation *s);
    /* Its kernels on each backend: NULL where it has none (cuda in builds
     * without CUDA). */
    const sf_backend_ops *(*cpu)(void);
    const sf_backend_ops *(*cuda)(void);
    /* What its backends allocate (the memory check's estimate). */
    sf_physics_memory memory;
    /* What bench assumes of it. */
    sf_physics_bench bench;
};

#if SF_HAVE_CUDA
#define SF_CUDA_IF_BUILT(ops) (ops)
#else
#define SF_CUDA_IF_BUILT(ops) NULL
#endif

/* The acoustic lines of the set-up summary (source and receivers), which
 * the physics built on the acoustic pressure share, and the pressure as
 * placed on the nodes. */
void sf_acoustic_summary(const sf_simulation *s);
extern const sf_field_lattice SF_PRESSURE_LATTICE;

/* What a physics recording the pressure-like p takes and records: a
 * pressure source, p (quantity: what its p is), per metre. */
#define SF_PRESSURE_RECORDED(what)                                                               \
    .sources = 1u << SF_SOURCE_PRESSURE, .default_source = SF_SOURCE_PRESSURE,                   \
    .components = 1u << SF_COMPONENT_P, .default_receivers = 1u << SF_COMPONENT_P,               \
    .quantity = {[SF_COMPONENT_P] = what},                                                       \
    .units = {[SF_COMPONENT_P] = "per unit source amplitude per metre"}
/* The name of the acoustic pressure's one field ("p"). */
const char *sf_pressure_field_name(int field);

/* The acoustic leapfrog's schedule, for the plug-ins of the physics built
 * on its pressure (sf_acoustic.h's stages: the CPML memory variables,
 * then the new level). The memory variables' edge planes reach R further
 * than the pressure's, since an edge plane's update reads them R
 * half-planes inward; so the memory interior can wait for the pressure's
 * exchange. */
#define SF_ACOUSTIC_SCHEDULE                                                                     \
    .stages = SF_ACOUSTIC_STAGES,                                                                \
    .edge_planes = {[SF_ACOUSTIC_MEMORY] = 2 * SF_HALO, [SF_ACOUSTIC_ADVANCE] = SF_HALO},        \
    .source_half = {[SF_ACOUSTIC_MEMORY] = -1, [SF_ACOUSTIC_ADVANCE] = 0},                       \
    .interior_waits = {[SF_ACOUSTIC_MEMORY] = 1}, .in_z_layers = {[SF_HALO_CPML_Z] = 1},         \
    .sample_after = 0, .fields = &SF_PRESSURE_LATTICE

/* Seconds per phase of a shot as reports give them: the sf_phase
 * phases, then the halo time the steps waited for ("halo exposed"). */
enum { SF_PHASE_EXPOSED = SF_PHASE_COUNT, SF_REPORT_PHASES };


/* The set-up's parts, timed on each rank: choosing the devices (binding,
 * the GPU's context, the halo transport), cutting the slabs (timing the
 * physics where the table has no row), reading or building the model,
 * the checks and the shot's parts (time step, record, source, CPML
 * profiles, acquisition), the physics' medium, and the backend's
 * allocations and uploads. */
typedef enum {
    SF_SETUP_DEVICES,
    SF_SETUP_SLAB_CUT,
    SF_SETUP_MODEL,
    SF_SETUP_CHECKS,
    SF_SETUP_MEDIUM,
    SF_SETUP_BACKEND,
    SF_SETUP_PARTS
} sf_setup_part;

/* The part's name in the summary and the run report ("slab_cut"). */
const char *sf_setup_part_name(sf_setup_part part);

struct sf_simulation {
    const sf_config *cfg;
    const sf_physics_plugin *physics;
    const sf_backend_ops *ops;
    sf_backend *backend;
    sf_halo halo;
    sf_slab slab;
    long *slab_start;         /* [nranks + 1]: every rank's first plane, then nz */
    sf_point_costs costs;     /* what a point costs a step, which cut the slabs */
    double shots_served;      /* shots the set-up runs (sf_simulation_setup) */
    sf_stencil stencil;
    sf_model model;
    double dt, dt_max;
    int dt_shortened;         /* dt: auto went below cfl_safety x the limit (the source's band) */
    double interval;          /* record interval */
    long steps;               /* time steps computed */
    sf_cpml_axis cpml[3];
    sf_halo_transport halo_transport;   /* how the backend's halos reach MPI */
    /* The record: channels this rank samples, [channel_count][nsamples]
     * in traces, rows channel_global of the gather (component-major). */
    long channel_count;
    const long *channel_global;
    sf_resampler resampler;
    sf_source_signal source;  /* the shot's source at every half step, as injected */
    sf_acquisition acq;       /* the source and receivers placed on the physics' fields */
    double *energy;           /* [steps][2]: this slab's energy diagnostic, when asked for */
    float *half_step_before[SF_COMPONENTS];   /* snapshots: half-step components before */
    sf_timers timers;         /* from the start of the timed steps */
    sf_timers setup_timers;   /* model reading, before the time loop */
    sf_timers loop_timers;    /* the timed steps alone */
    float *traces;            /* [channel_count][nsamples] */
    long warmup_steps;        /* steps run before the clock starts (benchmarks) */
    double loop_seconds;      /* wall time of the timed steps */
    double setup_seconds[SF_SETUP_PARTS];   /* this rank's */
    double cpml_frequency;    /* the peak frequency the CPML profiles were made for */
    /* SEISFD_TEST_GROWTH (tests only): the growth factor of every step,
     * and the shot it applies to (0: all). */
    double test_growth;
    long test_growth_shot;
    long check_every;         /* steps between guard checks; 0: none */
    long guard_checks;        /* checks made in the timed steps */
    sf_growth_guard growth;   /* the guard's judgement of the shot's growth */
    int host_fields;          /* the backend keeps the fields in host memory (the CPU's) */
    double memory_per_rank;   /* bytes this rank's node offers each of its ranks; 0: unknown */
    int ranks_on_node;
    int quiet;                /* no per-output lines (surveys print their own) */
    /* Called on every rank between time steps when set (a survey's world
     * rank 0 answers the other groups there). */
    void (*between_steps)(void *arg);
    void *between_steps_arg;
    /* The least request (sf_interrupt.h) that stops a shot: a single shot
     * cannot finish early, so any; a survey's shot finishes on SIGUSR1. */
    sf_stop_kind stops_on;
    int stop;                 /* the request that stopped the shot, or 0 */
    long stop_step;           /* the steps computed before it stopped */
    char failure[1024];       /* why the shot failed (guard, output) or stopped */
    /* The shot's outputs (model, snapshots, gather, SEG-Y, energy), under
     * their temporary names until sf_simulation_finish. */
    sf_output_set outputs;
};

/* Collective (the memory check over MPI_COMM_WORLD: every group of a
 * survey sets up at once). Validates what needs the rank count (slab
 * size, memory of the grid) and then the model (CFL, dispersion, steps and
 * samples, SEG-Y, memory with the record), reporting every problem of a
 * stage before exiting, each pointing into the job file. The backend and
 * its halo transport are the placement's. shots_served, the shots it
 * will run, decides whether timing the physics for the slab cut pays
 * (slab_cut.c); INFINITY for a bench, whose steps stand for a long
 * run's and whose report checks the predicted step even on one rank. */
void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_placement *placement, double shots_served);
/* Collective over comm: the seconds per point update of cfg's physics on
 * placement's backend, timed by each rank on its own device over slabs of
 * cfg's rows without layers and with a z layer reaching every plane, and
 * averaged over the ranks (so every rank cuts alike). */
void sf_simulation_calibrate(const sf_config *cfg, const sf_placement *placement, MPI_Comm comm,
                             sf_point_costs *out);
/* The cost-table key of cfg's physics on placement's backend and this
 * rank's device (device: SF_DEVICE_NAME_TEXT bytes). */
void sf_simulation_cost_key(const sf_config *cfg, const sf_placement *placement, char *device,
                            sf_cost_key *key);
/* This rank's predicted and measured (the timed steps' stencil time)
 * compute seconds per step. */
void sf_simulation_compute_per_step(const sf_simulation *s, double *predicted, double *measured);
/* Prints the set-up summary on rank 0. */
void sf_simulation_summary(const sf_simulation *s);
/* Collective over the slab: one shot's time loop. Every run.check_every
 * steps (and after the last) the instability guard measures the fields
 * (README, "Instability guard"): a non-finite value, or growth after the
 * source has ended, stops the loop: -1, with s->failure naming the step,
 * the field and the grid point, or the field, its growth and where it
 * grows. So does a record holding a NaN or Inf, whatever check_every.
 * Every step the ranks agree whether a signal stops the shot
 * (s->stops_on): -1, with s->stop and s->failure naming the signal and
 * the step. 0 otherwise. */
int sf_simulation_run(sf_simulation *s, int progress);
/* Rank 0 prints what the guard saw of the shot: how many checks it
 * judged and how near the growth it saw came to stopping the run. */
void sf_simulation_guard_summary(const sf_simulation *s);
/* Collective: writes the shot's gather (and its SEG-Y files, the energy
 * series) under their temporary names. 0, or -1 with s->failure. */
int sf_simulation_write(sf_simulation *s);
/* Collective, after the loop and the writes: the ranks agree whether a
 * signal stops the shot (one during the writes too), then the shot's
 * outputs are put in place together unless it failed or stopped, else
 * removed; with verify (a
 * survey) each is read back for its size and checksum and flushed to
 * the disk first (sf_output_set_finish). 0, or -1 when the shot failed
 * or stopped or its outputs could not be put in place (s->failure says
 * why); either
 * way earlier files of those names are as they were. */
int sf_simulation_finish(sf_simulation *s, int failed, int verify);
/* Collective: another shot on the same slab, model and backend (surveys):
 * shot is the job with that shot's source and receivers; the CPML
 * profiles follow its peak frequency; the backend is reset. */
void sf_simulation_begin_shot(sf_simulation *s, const sf_config *shot);
/* This rank's seconds per phase of the shot (set-up, loop and writing),
 * in sf_phase order, then the exposed halo time. */
void sf_simulation_phases(const sf_simulation *s, double seconds[SF_REPORT_PHASES]);
/* How shot's gather would go into SEG-Y (scalars for its coordinates):
 * 0, or -1 with the reason it cannot. */
int sf_simulation_segy_plan(const sf_simulation *s, const sf_config *shot, sf_segy_plan *plan,
                            char *reason, size_t len);
/* Rank 0 warns when the wavelet's upper frequency leaves fewer than 5
 * points per minimum wavelength, naming the share of its energy above
 * the grid's limit and the key that sets its band (" (shot N)" added
 * when shot_number > 0). */
void sf_simulation_check_wavelet(const sf_simulation *s, const sf_wavelet_spec *spec,
                                 long shot_number);
/* Prints the timing breakdown and throughput on rank 0. */
void sf_simulation_report(const sf_simulation *s);
long sf_simulation_timed_steps(const sf_simulation *s);
void sf_simulation_free(sf_simulation *s);

#endif
