/* The timing report at a run's end: each rank's phase times, the halo
 * time exposed and hidden, the time loop's wall time and the compute time
 * per step as predicted and measured. */
#include "simulation_internal.h"
#include "sf_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPORT_EXPOSED = SF_PHASE_COUNT, REPORT_HIDDEN, REPORT_LOOP, REPORT_PREDICTED,
       REPORT_MEASURED, REPORT_COLUMNS };

/* A rank's report row: its phase times over the whole run, then the halo
 * time the steps waited for (the time loop less its compute phases) and
 * the halo time that overlapped compute, then the loop's wall time, then
 * its compute time per step as predicted and measured, in milliseconds. */
static void report_row(const sf_simulation *s, double row[REPORT_COLUMNS])
{
    const double *loop = s->loop_timers.seconds;
    double busy = loop[SF_PHASE_STENCIL] + loop[SF_PHASE_ACQUISITION] + loop[SF_PHASE_IO] +
                  loop[SF_PHASE_GUARD];
    double halo = 0.0;
    for (int p = 0; p < SF_PHASE_COUNT; ++p) {
        row[p] = s->timers.seconds[p] + s->setup_timers.seconds[p];
        if (sf_phase_is_halo((sf_phase)p)) halo += loop[p];
    }
    double exposed = s->loop_seconds - busy;
    row[REPORT_EXPOSED] = exposed < 0.0 ? 0.0 : exposed > halo ? halo : exposed;
    row[REPORT_HIDDEN] = halo - row[REPORT_EXPOSED];
    row[REPORT_LOOP] = s->loop_seconds;
    sf_simulation_compute_per_step(s, &row[REPORT_PREDICTED], &row[REPORT_MEASURED]);
    row[REPORT_PREDICTED] *= 1e3;
    row[REPORT_MEASURED] *= 1e3;
}

void sf_simulation_phases(const sf_simulation *s, double seconds[SF_REPORT_PHASES])
{
    double row[REPORT_COLUMNS];
    report_row(s, row);
    for (int p = 0; p < SF_PHASE_COUNT; ++p) seconds[p] = row[p];
    seconds[SF_PHASE_EXPOSED] = row[REPORT_EXPOSED];
}

static const char *report_name(int column)
{
    switch (column) {
    case REPORT_EXPOSED: return "halo exposed";
    case REPORT_HIDDEN: return "halo hidden";
    case REPORT_LOOP: return "time loop (wall)";
    case REPORT_PREDICTED: return "ms/step predicted";
    case REPORT_MEASURED: return "ms/step measured";
    default: return sf_phase_name((sf_phase)column);
    }
}

enum { MAX_RANKS_LISTED = 16 };

void sf_simulation_report(const sf_simulation *s)
{
    const int nranks = s->slab.nranks;
    double row[REPORT_COLUMNS];
    report_row(s, row);
    double *all = s->slab.rank == 0 ? sf_malloc((size_t)nranks * sizeof row, "timing rows") : NULL;
    SF_MPI_CHECK(MPI_Gather(row, REPORT_COLUMNS, MPI_DOUBLE, all, REPORT_COLUMNS, MPI_DOUBLE, 0,
                            s->slab.comm),
                 "collecting timers");
    if (s->slab.rank != 0) return;
    const sf_config *c = s->cfg;
    int listed = nranks <= MAX_RANKS_LISTED ? nranks : 0;
    char head[256] = "";
    for (int r = 0; r < listed; ++r)
        snprintf(head + strlen(head), sizeof head - strlen(head), " %8s%-2d", "rank ", r);
    sf_info("seisfd: timing in seconds (%d rank%s)", nranks, nranks == 1 ? "" : "s");
    sf_info("  %-18s %9s %9s%s", "phase", "max", "mean", head);
    for (int p = 0; p < REPORT_COLUMNS; ++p) {
        if (p < SF_PHASE_COUNT && !sf_phase_applies((sf_phase)p, s->halo_transport)) continue;
        if (p == REPORT_PREDICTED && !sf_point_costs_known(&s->costs)) continue;
        double hi = 0.0, sum = 0.0;
        char ranks[256] = "";
        for (int r = 0; r < nranks; ++r) {
            double v = all[r * REPORT_COLUMNS + p];
            hi = v > hi ? v : hi;
            sum += v;
            if (r < listed) snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), " %10.3f", v);
        }
        sf_info("  %-18s %9.3f %9.3f%s", report_name(p), hi, sum / nranks, ranks);
    }
    free(all);
    double points = (double)c->n[0] * c->n[1] * c->n[2] * (double)sf_simulation_timed_steps(s);
    sf_info("  throughput         %.4g Mpoints/s (%ld steps of %.4g Mpoints)",
            points / s->loop_seconds / 1e6, sf_simulation_timed_steps(s),
            (double)c->n[0] * c->n[1] * c->n[2] / 1e6);
}
