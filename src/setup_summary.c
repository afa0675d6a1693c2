/* The set-up summary, the run's first lines: the grid, the slabs and
 * what a point costs, the time step, dispersion and accuracy, the
 * boundaries, the instability guard and the memory per rank. */
#include "simulation_internal.h"
#include "sf_accuracy.h"
#include "sf_block16.h"
#include "sf_error.h"
#include "sf_memory_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- accuracy ------------------------------------------------------------ */

static const double MISFIT_TARGET = 0.01;

static sf_accuracy_setup accuracy_setup(const sf_simulation *s, int time_corrected)
{
    const sf_config *c = s->cfg;
    sf_accuracy_setup a = {.stencil = &s->stencil, .staggered = s->physics->staggered,
                           .dt = s->dt, .v = s->model.slowest, .time_corrected = time_corrected};
    memcpy(a.h, c->spacing, sizeof a.h);
    return a;
}

static void format_distance(double metres, char *out, size_t len)
{
    if (metres >= 1e8)
        snprintf(out, len, "never within 100,000 km");
    else if (metres >= 1000.0)
        snprintf(out, len, "%.3g km", metres / 1000.0);
    else
        snprintf(out, len, "%.3g m", metres);
}

/* The phase errors at the peak and upper frequencies and the distance at
 * which a direct wave's misfit reaches 1%, with a warning when the job's
 * receivers lie beyond it; for a survey, at its highest frequency and its
 * farthest receiver from a shot. */
static void print_accuracy(const sf_simulation *s)
{
    /* Only rank 0 prints: the other ranks (of every survey group) skip the
     * searches. */
    if (sf_error_rank() != 0) return;
    const sf_config *c = s->cfg;
    long widest;
    const sf_wavelet *w = sf_widest_band_wavelet(sf_config_job(c), &widest)->built;
    const double f0 = w->dominant_frequency, fu = w->upper_frequency;
    sf_accuracy_setup a = accuracy_setup(s, c->dispersion_correction);
    char reach[48];
    double distance = sf_misfit_distance(&a, w, MISFIT_TARGET);
    format_distance(distance, reach, sizeof reach);
    sf_info("  accuracy          phase error per wavelength travelled at %g Hz (%g Hz), in %% of a "
            "period: time %+.3f (%+.3f)%s, space %+.4f (%+.4f) at %s %g m/s",
            f0, fu, 100.0 * sf_time_phase_error(&a, f0), 100.0 * sf_time_phase_error(&a, fu),
            c->dispersion_correction ? ", removed by the time-dispersion transforms" : "",
            100.0 * sf_space_phase_error(&a, f0), 100.0 * sf_space_phase_error(&a, fu),
            sim_slowest_wave_name(s), s->model.slowest);
    if (c->dispersion_correction) {
        sf_accuracy_setup raw = accuracy_setup(s, 0);
        char uncorrected[48];
        format_distance(sf_misfit_distance(&raw, w, MISFIT_TARGET), uncorrected,
                        sizeof uncorrected);
        sf_info("                    a direct wave's misfit reaches 1%% after %s (without the "
                "correction: %s)", reach, uncorrected);
    } else
        sf_info("                    a direct wave's misfit reaches 1%% after %s "
                "(time.dispersion_correction is off)", reach);
    if (s->dt_shortened)
        sf_info("                    dt: auto is below %.2f of the CFL limit: the source's "
                "spectrum reaches %.3g Hz, and the corrected run carries up to 1/(pi dt)",
                c->cfl_safety, 1.0 / (M_PI * s->dt));
    long shot;
    double far = sf_farthest_receiver(sf_config_job(c), &shot);
    if (far > distance) {
        char farthest[48], which[48] = "";
        format_distance(far, farthest, sizeof farthest);
        if (c->survey.enabled) snprintf(which, sizeof which, " (in shot %ld)", shot);
        sf_warn("%s:%d:%d: receivers: the farthest lies %s from the source%s, beyond the %s "
                "after which a direct wave's misfit passes 1%%%s", c->source_path,
                c->receivers.mark.line, c->receivers.mark.column, farthest, which, reach,
                c->dispersion_correction ? " (the spatial error: refine the grid, raise the "
                                           "order or lower the frequency)"
                                         : " (turn time.dispersion_correction on)");
    }
}

/* What the backend allocated, and for a backend with the fields on the
 * host what the memory check estimated of it beforehand (so that an
 * estimate drifting from the allocations shows). */
static void print_memory(const sf_simulation *s)
{
    double mine[2] = {(double)s->ops->memory_bytes(s->backend) +
                          (double)s->channel_count * (double)s->resampler.nsamples * sizeof(float),
                      0.0};
    if (s->host_fields) {
        double bytes[SF_MEMORY_PARTS];
        sf_memory_estimate(s->cfg, s->slab.z0, s->slab.nz, 1, 0.0, bytes);
        mine[1] = bytes[SF_MEMORY_FIELDS] + bytes[SF_MEMORY_CPML];
    }
    double lo = 0.0, hi[2] = {0.0, 0.0};   /* rank 0's only */
    SF_MPI_CHECK(MPI_Reduce(mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, s->slab.comm), "memory stats");
    SF_MPI_CHECK(MPI_Reduce(mine, hi, 2, MPI_DOUBLE, MPI_MAX, 0, s->slab.comm), "memory stats");
    char estimate[96] = "";
    if (s->host_fields)
        snprintf(estimate, sizeof estimate, " (the memory check's estimate of the fields and "
                 "layers: %.1f MiB)", hi[1] / 1048576.0);
    sf_info("  memory per rank   %.1f MiB (min) .. %.1f MiB (max), %s backend%s", lo / 1048576.0,
            hi[0] / 1048576.0, s->ops->name, estimate);
}

/* How long each part of the set-up took, the most any rank took, and
 * the slowest rank's whole set-up (so that a slow model read or device
 * shows before the time loop, not after it). */
static void print_setup_times(const sf_simulation *s)
{
    double mine[SF_SETUP_PARTS + 1], most[SF_SETUP_PARTS + 1] = {0};   /* rank 0's only */
    mine[SF_SETUP_PARTS] = 0.0;
    for (int p = 0; p < SF_SETUP_PARTS; ++p) mine[p] = s->setup_seconds[p], mine[SF_SETUP_PARTS] += mine[p];
    SF_MPI_CHECK(MPI_Reduce(mine, most, SF_SETUP_PARTS + 1, MPI_DOUBLE, MPI_MAX, 0, s->slab.comm),
                 "set-up times");
    char parts[256] = "";
    size_t used = 0;
    for (int p = 0; p < SF_SETUP_PARTS && used < sizeof parts; ++p) {
        char name[32];
        snprintf(name, sizeof name, "%s", sf_setup_part_name((sf_setup_part)p));
        for (char *c = name; *c; ++c)
            if (*c == '_') *c = ' ';
        used += (size_t)snprintf(parts + used, sizeof parts - used, "%s%s %.3f", p ? ", " : "", name,
                                 most[p]);
    }
    sf_info("  set-up            %.3f s on the slowest rank: %s s (each part the most a rank took)",
            most[SF_SETUP_PARTS], parts);
}

/* A time per step as the summary gives it: "8.21 ms", "35.2 us". */
static void format_step_time(double seconds, char *out, size_t len)
{
    if (seconds >= 1.0) snprintf(out, len, "%.3g s", seconds);
    else if (seconds >= 1e-3) snprintf(out, len, "%.3g ms", seconds * 1e3);
    else snprintf(out, len, "%.3g us", seconds * 1e6);
}

/* Every rank's planes and predicted compute time per step, on lines of a
 * readable length. */
static void print_slabs(const sf_simulation *s)
{
    enum { SHOWN = 64 };
    const int nranks = s->slab.nranks;
    char line[160] = "";
    for (int r = 0; r < nranks && r < SHOWN; ++r) {
        long z0 = s->slab_start[r], n = s->slab_start[r + 1] - z0;
        char item[80], time[24] = "", predicted[20];
        int neighbours = (r > 0) + (r < nranks - 1);
        if (sf_point_costs_known(&s->costs)) {
            format_step_time(sf_slab_cost(&s->costs, s->cfg, z0, n, neighbours), predicted,
                             sizeof predicted);
            snprintf(time, sizeof time, " %s", predicted);
        }
        snprintf(item, sizeof item, "%s%d:%ld-%ld%s", *line ? "  " : "", r, z0, z0 + n - 1, time);
        if (strlen(line) + strlen(item) > 72) {
            sf_info("    planes by rank  %s", line);
            snprintf(item, sizeof item, "%d:%ld-%ld%s", r, z0, z0 + n - 1, time);
            line[0] = '\0';
        }
        strcat(line, item);
    }
    if (*line) sf_info("    planes by rank  %s%s", line, nranks > SHOWN ? "  ..." : "");
}

/* The decomposition: the slabs, how they were cut and what a point costs. */
static void print_decomposition(const sf_simulation *s)
{
    const sf_slab *sl = &s->slab;
    long thick = 0, thin = s->cfg->n[2];
    for (int r = 0; r < sl->nranks; ++r) {
        long n = s->slab_start[r + 1] - s->slab_start[r];
        thick = n > thick ? n : thick;
        thin = n < thin ? n : thin;
    }
    const int known = sf_point_costs_known(&s->costs);
    sf_info("  decomposition     %d rank%s along z, slabs of %ld..%ld planes, %s; each rank's "
            "planes%s:", sl->nranks, sl->nranks == 1 ? "" : "s", thin, thick,
            s->cfg->slabs == SF_SLABS_EQUAL ? "equal numbers of planes (run.slabs: equal)"
            : known ? "cut by cost" : sl->nranks == 1 ? "one slab"
            : "equal numbers of planes (the costs not timed)",
            known ? " and predicted compute time per step" : "");
    print_slabs(s);
    if (!known) {
        sf_info("    point costs     %s", s->costs.source);
        return;
    }
    const double *ns = s->costs.point;
    sf_info("    point costs     %.4g ns a step outside the layers; in the x, y, z layers %.4g, "
            "%.4g, %.4g ns; a neighbour %.4g ns a plane point: %s", ns[0] * 1e9, ns[1] * 1e9,
            ns[2] * 1e9, ns[3] * 1e9, ns[4] * 1e9, s->costs.source);
}

void sf_simulation_summary(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    sf_info("seisfd: %s, order %d, job %s", s->physics->declared->name, c->order, c->source_path);
    sf_info("  grid              %ld x %ld x %ld points, spacing %g x %g x %g m, origin "
            "(%g, %g, %g) m",
            c->n[0], c->n[1], c->n[2], c->spacing[0], c->spacing[1], c->spacing[2], c->origin[0],
            c->origin[1], c->origin[2]);
    print_decomposition(s);
    s->physics->model_summary(&s->model);
    sf_info("  time step         dt = %.6g s = %.3f of the CFL limit %.6g s, %ld steps "
            "(%.4g s)",
            s->dt, s->dt / s->dt_max, s->dt_max, s->steps, (double)s->steps * s->dt);
    sf_info("  dispersion        %.2f points per minimum wavelength (%s, %.4g Hz)",
            sim_points_per_wavelength(s, c->source.wavelet.built->upper_frequency),
            sim_slowest_wave_name(s), c->source.wavelet.built->upper_frequency);
    print_accuracy(s);
    sf_info("  boundaries        CPML x %d/%d, y %d/%d, z %d/%d points%s", c->cpml[0], c->cpml[1],
            c->cpml[2], c->cpml[3], c->cpml[4], c->cpml[5],
            c->free_surface ? ", free surface on top" : "");
    if (c->precision == SF_PRECISION_MIXED)
        sf_info("  precision         mixed: fields, memory variables and medium stored as 16-bit "
                "blocks of %d values, float32 arithmetic (the CPU keeps the stored values in "
                "float32 arrays)", SF_BLOCK16_VALUES);
    else
        sf_info("  precision         float32");
    s->physics->summary(s);
    sim_print_guard(s);
    print_memory(s);
    print_setup_times(s);
}
