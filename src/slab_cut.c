/* The slab cut: what a point costs (the shipped table's row for this
 * device, or timed at set-up on it) and the slabs of a shot's ranks cut
 * by those costs, or in equal numbers of planes. */
#include "simulation_internal.h"
#include "sf_error.h"
#include "sf_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Time steps a calibration slab runs before and while it is timed. */
enum { CALIBRATION_WARMUP = 2, CALIBRATION_STEPS = 5 };
/* Points a calibration slab aims at: enough to fill the device. */
static const double CALIBRATION_POINTS[2] = {1 << 20, 1 << 27};   /* cpu, cuda */
/* Slabs the calibration times: one per kind of point, one with neighbours. */
enum { CALIBRATION_SLABS = SF_COST_NEIGHBOUR + 1 };
/* Set-up times the physics only where its slabs' steps are at most this
 * share of the steps the set-up serves on the job's thickest slab: a cut
 * by cost wins back a share of a step's imbalance, often 10-30%, and the
 * timed layer slabs cost more a step than most of the job's. */
static const double CALIBRATION_SHARE = 0.1;

/* The job on `planes` planes of its own rows, for timing one kind of point
 * (sf_plane_costs.h): no layers, or a layer of one axis whose reach covers
 * every point; the sample medium, no free surface, no receivers, the
 * source mid-slab. */
static void calibration_job(sf_config *c, const sf_config *job, long planes, int kind)
{
    *c = *job;
    c->n[2] = planes;
    for (int f = 0; f < 6; ++f) c->cpml[f] = 0;
    if (kind != SF_COST_INTERIOR) {
        int a = kind - SF_COST_X_LAYER;
        c->cpml[2 * a] = (int)(c->n[a] - job->order / 2);
    }
    c->free_surface = 0;
    memset(&c->model, 0, sizeof c->model);
    sf_config_sample_medium(&c->model, c->physics);
    c->receivers.count = 0;
    c->receivers.ncomponents = 0;
    c->energy_path = NULL;
    c->source.position[2] = c->origin[2] + c->spacing[2] * (double)(planes / 2);
}

/* Planes of a calibration slab: about CALIBRATION_POINTS, no more than the
 * job's thickest equal slab (whose memory the job needs anyway), and
 * enough for a z layer with the stencil's reach. */
static long calibration_planes(const sf_config *job, int cuda, int nranks)
{
    const long least = job->order / 2 + 2;
    double want = CALIBRATION_POINTS[cuda] / ((double)job->n[0] * (double)job->n[1]);
    long planes = want > 1e6 ? 1000000 : (long)ceil(want);
    long thickest = sf_slab_planes(job->n[2], nranks, 0, NULL);
    if (planes > thickest) planes = thickest;
    return planes < least ? least : planes;
}

/* Stencil seconds per point update of c's whole grid, on one slab of this
 * rank's device: with no neighbour, or with itself as the neighbour on
 * either side (its steps cut into edge pieces and interior, its halos
 * packed, sent to itself through host memory and unpacked, as a rank
 * between two others does), the source left out. */
static double time_per_point(const sf_config *c, const sf_placement *placement, int neighbours)
{
    sf_simulation s;
    memset(&s, 0, sizeof s);
    s.cfg = c;
    s.physics = sf_physics_of(c->physics);
    s.ops = placement->ops;
    s.halo_transport = placement->transport;
    s.host_fields = !placement->cuda;
    if (sf_stencil_init(&s.stencil, c->order) != 0)
        sf_fatal("timing the physics: unsupported spatial order %d", c->order);
    long start[2] = {0, c->n[2]};
    sf_slab_init(&s.slab, MPI_COMM_SELF, start);
    sf_physics_plugin sourceless = *s.physics;
    for (int g = 0; g < sourceless.stages; ++g) sourceless.source_half[g] = -1;
    s.physics = &sourceless;
    if (neighbours) {
        s.slab.lower = s.slab.upper = 0;
        if (placement->cuda) s.halo_transport = SF_HALO_HOST_STAGED;
    }
    sf_model_build(&s.model, c, &s.slab);
    /* The values only scale the work, not its cost: a quarter of the grid's CFL step. */
    double h = fmin(c->spacing[0], fmin(c->spacing[1], c->spacing[2]));
    s.dt = 0.25 * h / s.model.vmax;
    sim_build_cpml(&s);
    sim_place_acquisition(&s);
    sf_problem problem;
    sim_describe_problem(&s, &problem);
    sim_create_backend(&s, &problem);
    sf_halo_init(&s.halo, &s.slab, &s.cpml[2], s.physics->stages, s.physics->in_z_layers);
    /* The fastest step: a step that another process on the node slowed
     * would otherwise make its kind of point look dearer (or the others
     * cheaper) than it is, and cut the slabs by that. */
    double fastest = HUGE_VAL;
    for (long n = 0; n < CALIBRATION_WARMUP + CALIBRATION_STEPS; ++n) {
        double seconds[SF_PHASE_COUNT] = {0};
        sim_run_stages(&s, n, 0, s.physics->stages);
        s.ops->synchronize(s.backend);
        s.ops->take_timers(s.backend, seconds);
        if (n >= CALIBRATION_WARMUP) fastest = fmin(fastest, seconds[SF_PHASE_STENCIL]);
    }
    sf_simulation_free(&s);
    return fastest / ((double)c->n[0] * (double)c->n[1] * (double)c->n[2]);
}

void sf_simulation_calibrate(const sf_config *cfg, const sf_placement *placement, MPI_Comm comm,
                             sf_point_costs *out)
{
    int nranks;
    SF_MPI_CHECK(MPI_Comm_size(comm, &nranks), "timing the physics");
    const long planes = calibration_planes(cfg, placement->cuda, nranks);
    double mine[SF_COST_KINDS];
    sf_config c;
    for (int q = 0; q < SF_COST_NEIGHBOUR; ++q) {
        /* An axis too short for a layer has none to cost. */
        int axis = q - SF_COST_X_LAYER;
        long n = axis < 0 ? 0 : axis < 2 ? cfg->n[axis] : planes;
        if (q != SF_COST_INTERIOR && n <= cfg->order / 2) {
            mine[q] = mine[SF_COST_INTERIOR];
            continue;
        }
        calibration_job(&c, cfg, planes, q);
        mine[q] = time_per_point(&c, placement, 0);
    }
    /* Two neighbours' cost over the planes, per point of a plane each. */
    calibration_job(&c, cfg, planes, SF_COST_INTERIOR);
    double both = time_per_point(&c, placement, 1) - mine[SF_COST_INTERIOR];
    mine[SF_COST_NEIGHBOUR] = both > 0.0 ? both * (double)planes / 2.0 : 0.0;
    SF_MPI_CHECK(MPI_Allreduce(mine, out->point, SF_COST_KINDS, MPI_DOUBLE, MPI_SUM, comm),
                 "timing the physics");
    for (int q = 0; q < SF_COST_KINDS; ++q) out->point[q] /= nranks;
    snprintf(out->source, sizeof out->source, "timed on %d rank%s over %ld planes of the rows",
             nranks, nranks == 1 ? "" : "s", planes);
}

void sf_simulation_cost_key(const sf_config *cfg, const sf_placement *placement, char *device,
                            sf_cost_key *key)
{
    sf_cost_device_name(placement->cuda, device, SF_DEVICE_NAME_TEXT);
    key->backend = placement->name;
    key->physics = sf_config_physics(cfg)->name;
    key->precision = sf_precision_name(cfg->precision);
    key->order = cfg->order;
    key->device = device;
}

/* The steps the set-up serves as far as they are known before the model
 * is read: from time.nt or time.dt, else from an analytic model's
 * fastest wave; HUGE_VAL where a model file's speeds decide the step. */
static double steps_served(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    double vmax = sf_model_fastest_wave_of_values(c), dt_max;
    int shortened;
    if (!c->dt_auto || !isnan(vmax))
        return sim_step_count(c, sim_time_step(s, vmax, &dt_max, &shortened)) * s->shots_served;
    return c->nt > 0 ? (double)c->nt * s->shots_served : HUGE_VAL;
}

/* Costs left unknown, and why: the cut is equal and nothing predicted. */
static void leave_costs_unknown(sf_point_costs *costs, const char *why, const char *why_no_row)
{
    for (int q = 0; q < SF_COST_KINDS; ++q) costs->point[q] = NAN;
    snprintf(costs->source, sizeof costs->source, "not timed: %s, and %s", why, why_no_row);
}

/* Every rank's timing where a cut by cost pays for it (a bench's infinite
 * steps always pay, even on one rank: its report checks the cost model);
 * else the costs left unknown. */
static void time_or_leave_costs(sf_simulation *s, const sf_placement *placement,
                                const char *why_no_row)
{
    const int nranks = s->slab.nranks, bench = isinf(s->shots_served);
    const long planes = calibration_planes(s->cfg, placement->cuda, nranks);
    const long thickest = sf_slab_planes(s->cfg->n[2], nranks, 0, NULL);
    const double steps = steps_served(s);
    const double timing = (double)CALIBRATION_SLABS *
                          (CALIBRATION_WARMUP + CALIBRATION_STEPS) * (double)planes;
    char why[200];
    if (!bench && nranks == 1) {
        leave_costs_unknown(&s->costs, "one rank has no slabs to cut", why_no_row);
        return;
    }
    if (timing > CALIBRATION_SHARE * steps * (double)thickest) {
        snprintf(why, sizeof why, "%.0f step%s too few to pay for timing the physics at set-up "
                 "(%d slabs of %ld planes, %d steps each)", steps, steps == 1.0 ? " is" : "s are",
                 CALIBRATION_SLABS, planes, CALIBRATION_WARMUP + CALIBRATION_STEPS);
        leave_costs_unknown(&s->costs, why, why_no_row);
        return;
    }
    sf_simulation_calibrate(s->cfg, placement, s->slab.comm, &s->costs);
    size_t n = strlen(s->costs.source);
    snprintf(s->costs.source + n, sizeof s->costs.source - n, " at set-up (%s)", why_no_row);
}

/* The table's costs where every rank finds its device's row, else every
 * rank's timing where it pays. */
static void choose_costs(sf_simulation *s, const sf_placement *placement)
{
    char device[SF_DEVICE_NAME_TEXT];
    sf_cost_key key;
    sf_simulation_cost_key(s->cfg, placement, device, &key);
    char problem[600] = "";
    int found = sf_plane_costs_lookup(&key, &s->costs, problem, sizeof problem), everywhere = 0;
    if (sf_first_flagged_rank(s->slab.comm, found < 0, problem, (int)sizeof problem,
                              "looking up the plane costs") >= 0)
        sf_fail_collective("%s", problem);
    SF_MPI_CHECK(MPI_Allreduce(&found, &everywhere, 1, MPI_INT, MPI_MIN, s->slab.comm),
                 "looking up the plane costs");
    if (!everywhere) {
        char why[SF_DEVICE_NAME_TEXT + 64];
        snprintf(why, sizeof why, "%s has no row for %s", found ? "another rank's device" :
                 "the table", found ? "it" : device);
        time_or_leave_costs(s, placement, why);
        return;
    }
    /* Rows of several devices: their mean, so every rank cuts alike. */
    double sum[SF_COST_KINDS];
    SF_MPI_CHECK(MPI_Allreduce(s->costs.point, sum, SF_COST_KINDS, MPI_DOUBLE, MPI_SUM,
                               s->slab.comm),
                 "looking up the plane costs");
    for (int q = 0; q < SF_COST_KINDS; ++q) s->costs.point[q] = sum[q] / s->slab.nranks;
}

static int neighbours_of(const sf_slab *slab)
{
    return (slab->lower != MPI_PROC_NULL) + (slab->upper != MPI_PROC_NULL);
}

/* The equal cut of comm's ranks. */
void sim_equal_cut(sf_simulation *s, MPI_Comm comm)
{
    const int nranks = s->slab.nranks;
    s->slab_start = sf_malloc((size_t)(nranks + 1) * sizeof(long), "the slab cut");
    for (int r = 0; r < nranks; ++r) sf_slab_planes(s->cfg->n[2], nranks, r, &s->slab_start[r]);
    s->slab_start[nranks] = s->cfg->n[2];
    sf_slab_init(&s->slab, comm, s->slab_start);
}

/* Collective: the slabs of comm's ranks, by cost unless run.slabs is equal. */
void sim_cut_slabs(sf_simulation *s, MPI_Comm comm, const sf_placement *placement)
{
    const sf_config *c = s->cfg;
    const int nranks = s->slab.nranks;
    choose_costs(s, placement);
    const int by_cost = c->slabs != SF_SLABS_EQUAL && sf_point_costs_known(&s->costs);
    double *cost = sf_malloc((size_t)c->n[2] * sizeof(double), "the planes' costs");
    for (long z = 0; z < c->n[2]; ++z) cost[z] = by_cost ? sf_plane_cost(&s->costs, c, z) : 1.0;
    double neighbour = by_cost ? sf_neighbour_cost(&s->costs, c) : 0.0;
    sf_slab_cut(cost, c->n[2], nranks, neighbour, SF_HALO, s->slab_start);
    free(cost);
    sf_slab_init(&s->slab, comm, s->slab_start);
}

void sf_simulation_compute_per_step(const sf_simulation *s, double *predicted, double *measured)
{
    *predicted = sf_slab_cost(&s->costs, s->cfg, s->slab.z0, s->slab.nz, neighbours_of(&s->slab));
    long steps = sf_simulation_timed_steps(s);
    *measured = steps > 0 ? s->loop_timers.seconds[SF_PHASE_STENCIL] / (double)steps : 0.0;
}
