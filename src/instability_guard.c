/* The instability guard in the time loop: its sums of the fields per
 * region, where a NaN or Inf first is, the messages of a growth verdict
 * (judged in growth_guard.c), the step it starts judging at, and its
 * lines in the summaries. */
#include "simulation_internal.h"
#include "sf_error.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

/* When the source has ended: the last time the injected signal (every
 * half step, as warped) is above SOURCE_ENDED of its peak. */
static const double SOURCE_ENDED = 1e-3;

static double source_end_time(const sf_simulation *s)
{
    const sf_source_signal *sig = &s->source;
    double peak = 0.0;
    for (long k = 0; k < sig->count; ++k) peak = fmax(peak, fabs(sig->at[k]));
    long last = 0;
    for (long k = 0; k < sig->count; ++k)
        if (fabs(sig->at[k]) >= SOURCE_ENDED * peak) last = k;
    return 0.5 * (double)last * s->dt;
}

/* The longest straight path across the grid (its diagonal) at the slowest wave's speed. */
static double crossing_time(const sf_simulation *s)
{
    double diagonal = 0.0;
    for (int a = 0; a < 3; ++a) {
        double side = (double)(s->cfg->n[a] - 1) * s->cfg->spacing[a];
        diagonal += side * side;
    }
    return sqrt(diagonal) / s->model.slowest;
}

/* The first step the growth guard judges: the source has ended and its
 * slowest waves have had time to cross the grid. */
long sim_guard_start(const sf_simulation *s)
{
    return (long)ceil((source_end_time(s) + crossing_time(s)) / s->dt);
}

void sim_print_guard(const sf_simulation *s)
{
    if (s->check_every == 0) {
        sf_info("  instability guard off (run.check_every: 0): only the record is checked for "
                "NaN and Inf");
        return;
    }
    const long start = sim_guard_start(s);
    sf_info("  instability guard every %ld step%s: NaN and Inf; growth from step %ld (t = %.4g "
            "s)%s: the source ends at %.4g s, and a wave at %g m/s crosses the grid in %.4g s",
            s->check_every, s->check_every == 1 ? "" : "s", start, (double)start * s->dt,
            start <= s->steps ? "" : ", after the last step", source_end_time(s),
            s->model.slowest, crossing_time(s));
}
/* Is step n (the level just computed) one the guard looks at? Every
 * check_every steps, and the last, so no shot ends unchecked. */
int sim_guard_due(const sf_simulation *s, long n)
{
    return s->check_every > 0 && (n % s->check_every == 0 || n == s->steps);
}

/* The layers around this rank's slab, as the guard's regions. */
static sf_regions guard_regions(const sf_simulation *s)
{
    sf_regions r;
    for (int a = 0; a < 3; ++a) {
        r.n[a] = s->cfg->n[a];
        r.thick[a][0] = s->cpml[a].thick[0];
        r.thick[a][1] = s->cpml[a].thick[1];
    }
    r.z0 = s->slab.z0;
    return r;
}

/* Collective: every field's sums of squares per region over the slab's
 * ranks. Rank 0 adds them and sends the result, so that every rank holds
 * the same numbers and takes the same decision. */
static int measure_fields(sf_simulation *s, double sums[][SF_REGIONS])
{
    sf_regions r = guard_regions(s);
    double mine[SF_GUARD_MAX_FIELDS][SF_REGIONS] = {{0.0}};
    int fields = s->ops->field_norms(s->backend, &r, mine);
    const int count = SF_GUARD_MAX_FIELDS * SF_REGIONS;
    SF_MPI_CHECK(MPI_Reduce(mine, sums, count, MPI_DOUBLE, MPI_SUM, 0, s->slab.comm),
                 "adding the instability guard's sums");
    SF_MPI_CHECK(MPI_Bcast(sums, count, MPI_DOUBLE, 0, s->slab.comm),
                 "sharing the instability guard's sums");
    return fields;
}

/* A NaN or Inf anywhere makes its field's sum NaN or Inf (a float's
 * square cannot overflow a double, nor can their sum over any grid). */
static int all_finite(int fields, const double sums[][SF_REGIONS])
{
    for (int f = 0; f < fields; ++f)
        for (int q = 0; q < SF_REGIONS; ++q)
            if (!isfinite(sums[f][q])) return 0;
    return 1;
}

static const char *checked_every(const sf_simulation *s, char *text, size_t len)
{
    if (s->check_every > 1) snprintf(text, len, "every %ld steps", s->check_every);
    else snprintf(text, len, "every step");
    return text;
}

/* The global position of a local point, for messages. */
static void describe_nonfinite(sf_simulation *s, long step, int field, long i, long j, long k)
{
    const sf_config *c = s->cfg;
    char every[48];
    snprintf(s->failure, sizeof s->failure,
             "unstable: a non-finite value (NaN or Inf) in %s at step %ld (t = %.6g s; checked "
             "%s), first at grid point (i=%ld, j=%ld, k=%ld) = (%g, %g, %g) m",
             s->physics->field_name(field), step, (double)step * s->dt,
             checked_every(s, every, sizeof every), i, j, k,
             c->origin[0] + (double)i * c->spacing[0], c->origin[1] + (double)j * c->spacing[1],
             c->origin[2] + (double)k * c->spacing[2]);
}

/* Collective over the slab, once a sum is not finite: the ranks agree on
 * the first field with a non-finite value, then on its lowest global
 * point (k, j, i), so every rank names the same one. */
static void locate_nonfinite(sf_simulation *s, long step)
{
    sf_nonfinite where = {0, 0, 0, 0};
    int found = s->ops->find_nonfinite(s->backend, &where);
    int field = found ? where.field : INT_MAX, first_field = INT_MAX;
    SF_MPI_CHECK(MPI_Allreduce(&field, &first_field, 1, MPI_INT, MPI_MIN, s->slab.comm),
                 "agreeing on the instability check");
    if (first_field == INT_MAX)
        sf_fatal("internal: the guard's sums are not finite, but its fields are");
    const long *n = s->cfg->n;
    long long mine = found && where.field == first_field
                         ? ((long long)(s->slab.z0 + where.k) * n[1] + where.j) * n[0] + where.i
                         : LLONG_MAX,
              first = LLONG_MAX;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, s->slab.comm),
                 "locating a non-finite value");
    describe_nonfinite(s, step, first_field, (long)(first % n[0]), (long)(first / n[0] % n[1]),
                       (long)(first / ((long long)n[0] * n[1])));
}

static const char *region_name(sf_region r)
{
    static const char *const names[SF_REGIONS] = {
        "the interior", "the xmin absorbing layer", "the xmax absorbing layer",
        "the ymin absorbing layer", "the ymax absorbing layer", "the zmin absorbing layer",
        "the zmax absorbing layer"};
    return names[r];
}

/* What to change, by where the field grows. */
static const char *growth_advice(sf_region r)
{
    if (r == SF_REGION_INTERIOR)
        return "lower time.cfl_safety (or time.dt), refine the grid, or make the absorbing "
               "layers thicker (boundaries.cpml) or less absorbing (a larger "
               "boundaries.cpml_reflection)";
    return "make the absorbing layers thicker (boundaries.cpml) or less absorbing (a larger "
           "boundaries.cpml_reflection, e.g. 1e-3), or drop that face's layer (0 points); a "
           "smaller time.cfl_safety (or time.dt) or a finer grid may also help";
}

static void describe_growth(sf_simulation *s, const sf_growth_verdict *v)
{
    char every[48], where[120], how[160];
    if (v->share >= 0.5)
        snprintf(where, sizeof where, "%.0f%% of that growth is in %s", 100.0 * v->share,
                 region_name(v->region));
    else
        snprintf(where, sizeof where, "that growth is spread over the grid, the most (%.0f%%) "
                 "in %s", 100.0 * v->share, region_name(v->region));
    if (v->windows > 0)
        snprintf(how, sizeof how, "swung up: its highest over each of the last %d windows of %d "
                 "checks topped the window's before,", v->windows, SF_GROWTH_CHECKS);
    else
        snprintf(how, sizeof how, "rose at each of the last %d checks,", v->checks);
    snprintf(s->failure, sizeof s->failure,
             "unstable: the wavefield grows after the source has ended: the norm of %s %s x %.3g "
             "from step %ld to %ld (t = %.4g to %.4g s), to %.3g times its level when the source "
             "ended (step %ld) and %.3g of its peak; %s (checked %s); %s",
             s->physics->field_name(v->field), how, v->rise, v->from, v->to,
             (double)v->from * s->dt, (double)v->to * s->dt, v->over_start, v->start, v->of_peak,
             where, checked_every(s, every, sizeof every), growth_advice(v->region));
}

/* Collective over the slab: 0, or -1 with s->failure. */
int sim_check_stability(sf_simulation *s, long step)
{
    s->ops->synchronize(s->backend);   /* queued steps are not booked as guard time */
    sf_timer_start(&s->timers);
    ++s->guard_checks;
    double sums[SF_GUARD_MAX_FIELDS][SF_REGIONS];
    int fields = measure_fields(s, sums), failed = !all_finite(fields, sums);
    sf_growth_verdict verdict;
    if (failed) {
        locate_nonfinite(s, step);
    } else if (sf_growth_guard_observe(&s->growth, step, fields, sums, &verdict)) {
        describe_growth(s, &verdict);
        failed = 1;
    }
    sf_timer_stop(&s->timers, SF_PHASE_GUARD);
    return failed ? -1 : 0;
}

void sf_simulation_guard_summary(const sf_simulation *s)
{
    const sf_growth_guard *g = &s->growth;
    if (s->check_every == 0) {
        sf_info("seisfd: instability guard off (run.check_every: 0); the record was checked "
                "for NaN and Inf");
        return;
    }
    if (g->judged == 0) {
        sf_info("seisfd: instability guard: NaN and Inf looked for every %ld steps; growth not "
                "judged, no check after the source ended (step %ld, t = %.4g s)",
                s->check_every, g->start, (double)g->start * s->dt);
        return;
    }
    sf_info("seisfd: instability guard: %ld checks judged from step %ld (the source ended); the "
            "longest rise %d checks, the largest x %.3g over the level before it (%d checks and "
            "x %g stop a run); the highest of a window of %d checks x %.3g over the first "
            "window's (%d windows rising and x %g stop a run)",
            g->judged, g->first_step, g->longest, g->closest, SF_GROWTH_CHECKS,
            SF_GROWTH_FACTOR, SF_GROWTH_CHECKS, g->envelope, SF_GROWTH_WINDOWS, SF_GROWTH_FACTOR);
}
