/* The set-up's checks of a shot against its model and its run: host
 * memory, the time step and the dispersion of the source's band, the
 * record's length and its SEG-Y limits, the spans of signature files. */
#include "simulation_internal.h"
#include "sf_error.h"
#include "sf_memory_check.h"
#include "sf_segy.h"
#include "sf_shots.h"

#include <math.h>
#include <stdio.h>

static const double MIN_POINTS_PER_WAVELENGTH = 5.0;
/* The corrected run carries no frequency above 2/dt (rad/s): the source's
 * spectrum there must be below this fraction of its peak. */
static const double UNCARRIED_SPECTRUM = 1e-4;
/* A corrected record runs this many samples past its end: the transform's
 * reach back from where the run stops (1e-4 of the peak at 8). */
enum { CORRECTION_MARGIN = 8 };

/* The checks of the set-up each return the problems they reported, so
 * that those of one stage all reach the user before the run ends. */

/* Host memory for the record of nsamples samples (0 before the model is
 * read, when the record is not known yet). */
int sim_check_memory(const sf_simulation *s, double nsamples)
{
    double bytes[SF_MEMORY_PARTS];
    sf_memory_estimate(s->cfg, s->slab.z0, s->slab.nz, s->host_fields, nsamples, bytes);
    return sf_memory_check(s->cfg, bytes, s->memory_per_rank, s->ranks_on_node);
}

double sim_time_step(const sf_simulation *s, double vmax, double *dt_max, int *shortened)
{
    const sf_config *c = s->cfg;
    *dt_max = s->physics->staggered ? sf_staggered_dt_max(&s->stencil, c->spacing, vmax)
                                    : sf_cfl_dt_max(&s->stencil, c->spacing, vmax);
    *shortened = 0;
    if (!c->dt_auto) return c->dt;
    double dt = c->cfl_safety * *dt_max;
    /* The corrected records keep frequencies below 1/dt rad/s (see
     * sf_tdt_correct_traces): a source reaching beyond gets a shorter
     * step. */
    double edge = sf_highest_band_edge(sf_config_job(c), UNCARRIED_SPECTRUM);
    double carried = 1.0 / (2.0 * M_PI * edge);
    *shortened = c->dispersion_correction && carried < dt;
    return *shortened ? carried : dt;
}

/* The samples the record stores past its end. */
static long samples_past_the_end(const sf_config *c)
{
    return c->dispersion_correction ? CORRECTION_MARGIN : 0;
}

/* The record's length, its samples and the time levels it takes at dt. */
static double record_counts(const sf_config *c, double dt, double *duration, double *interval,
                            double *samples)
{
    double levels;
    *duration = c->nt > 0 ? (double)c->nt * dt : c->duration;
    *interval = c->receivers.sampling > 0 ? c->receivers.sampling : dt;
    sf_resampler_counts(dt, *interval, *duration, samples_past_the_end(c), samples, &levels);
    return levels;
}

double sim_step_count(const sf_config *c, double dt)
{
    double duration, interval, samples;
    return record_counts(c, dt, &duration, &interval, &samples) - 1.0;
}

int sim_resolve_time_step(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    s->dt = sim_time_step(s, s->model.vmax, &s->dt_max, &s->dt_shortened);
    if (c->dt_auto || s->dt <= s->dt_max) return 0;
    /* Rounded down to 6 significant digits, so the value shown is usable. */
    double unit = pow(10.0, floor(log10(s->dt_max)) - 5);
    double shown = floor(s->dt_max / unit) * unit;
    sf_config_report(c, c->dt_mark,
                     "time.dt: %g s exceeds the stability (CFL) limit for vp_max = %g m/s, "
                     "order %d and spacing %g/%g/%g m; the largest stable dt is %.6g s "
                     "(allowed: 0 < dt <= %.6g)",
                     s->dt, s->model.vmax, c->order, c->spacing[0], c->spacing[1], c->spacing[2],
                     shown, shown);
    return 1;
}

/* On the slowest wave (vp_min acoustic; vs_min, or vp where vs = 0,
 * elastic), at frequency f. */
double sim_points_per_wavelength(const sf_simulation *s, double f)
{
    const sf_config *c = s->cfg;
    double h = fmax(c->spacing[0], fmax(c->spacing[1], c->spacing[2]));
    return s->model.slowest / (f * h);
}

const char *sim_slowest_wave_name(const sf_simulation *s)
{
    return s->physics->slowest_wave_name(&s->model);
}

void sf_simulation_check_wavelet(const sf_simulation *s, const sf_wavelet_spec *spec,
                                 long shot_number)
{
    const sf_config *c = s->cfg;
    const sf_wavelet *w = spec->built;
    double ppw = sim_points_per_wavelength(s, w->upper_frequency);
    if (ppw >= MIN_POINTS_PER_WAVELENGTH) return;
    double h = fmax(c->spacing[0], fmax(c->spacing[1], c->spacing[2]));
    double limit = s->model.slowest / (MIN_POINTS_PER_WAVELENGTH * h);
    char shot[32] = "", upper[64], lower[96];
    if (shot_number > 0) snprintf(shot, sizeof shot, " (shot %ld)", shot_number);
    if (spec->kind == SF_WAVELET_RICKER) {
        snprintf(upper, sizeof upper, "%g Hz = 2.5 x %g Hz", w->upper_frequency, spec->frequency);
        snprintf(lower, sizeof lower, "frequency <= %.3g Hz", limit / 2.5);
    } else {
        snprintf(upper, sizeof upper, "%.4g Hz", w->upper_frequency);
        snprintf(lower, sizeof lower, "a wavelet whose band ends lower");
    }
    sf_warn("%s:%d:%d: %s%s: %.3g points per minimum wavelength (%s %g m/s, upper frequency %s, "
            "spacing %g m) is below %.0f; %.2g%% of the wavelet's energy lies above %.4g Hz, "
            "where the grid has fewer; expect numerical dispersion (use spacing <= %.3g m or %s)",
            c->source_path, spec->line, spec->column, spec->key, shot, ppw, sim_slowest_wave_name(s),
            s->model.slowest, upper, h, MIN_POINTS_PER_WAVELENGTH,
            100.0 * sf_wavelet_energy_share_above(w, limit), limit,
            s->model.slowest / (w->upper_frequency * MIN_POINTS_PER_WAVELENGTH), lower);
}

void sim_check_dispersion(const sf_simulation *s)
{
    sf_simulation_check_wavelet(s, &s->cfg->source.wavelet, 0);
}

/* A windowed wavelet whose delay is under half its window starts cut;
 * returns 1 when it warned. */
static int warn_window_cut(const sf_simulation *s, const sf_source_config *src, long shot)
{
    const sf_wavelet_spec *spec = &src->wavelet;
    double half = 0.5 * spec->built->length;
    if (src->delay >= half - 1e-9 * s->dt) return 0;
    if (sf_error_rank() != 0) return 1;
    char which[32] = "";
    if (shot > 0) snprintf(which, sizeof which, " (shot %ld)", shot);
    sf_warn("%s:%d:%d: %s%s: a delay of %g s cuts the first %g s of the %g s window: the "
            "wavelet starts at t = 0 where it is not zero (a delay of %g s injects it whole)",
            s->cfg->source_path, spec->line, spec->column, spec->key, which, src->delay,
            half - src->delay, spec->built->length, half);
    return 1;
}

/* A signature file must lie within the run: after its time 0 and ended
 * by its last step; a windowed wavelet cut at time 0 is warned of. */
int sim_check_signature_spans(const sf_simulation *s)
{
    const sf_config *job = sf_config_job(s->cfg);
    const double run = (double)s->steps * s->dt, slack = 1e-9 * s->dt;
    long shots = job->survey.enabled ? job->survey.count : 1;
    int warned = 0;   /* a survey's first cut window is warned of, not each */
    for (long n = 0; n < shots; ++n) {
        sf_source_config src = job->source;
        if (job->survey.enabled) sf_shot_source(&src, &job->survey.shots[n]);
        const sf_wavelet_spec *spec = &src.wavelet;
        if (!warned && (spec->kind == SF_WAVELET_ORMSBY || spec->kind == SF_WAVELET_KLAUDER))
            warned = warn_window_cut(s, &src, job->survey.enabled ? n + 1 : 0);
        if (spec->kind != SF_WAVELET_FILE) continue;
        const sf_signature *sig = &spec->built->samples;
        double begin = sig->start + src.delay;
        double end = begin + (double)(sig->count - 1) * sig->interval;
        char shot[32] = "";
        if (job->survey.enabled) snprintf(shot, sizeof shot, " (shot %ld)", n + 1);
        if (begin < -slack) {
            sf_config_report(s->cfg, (sf_mark){spec->line, spec->column},
                             "%s%s: '%s' begins at %g s with the delay of %g s, before the "
                             "run's time 0; give a delay of at least %g s", spec->key, shot,
                             spec->file, begin, src.delay, src.delay - begin);
            return 1;
        }
        if (end > run + slack) {
            sf_config_report(s->cfg, (sf_mark){spec->line, spec->column},
                             "%s%s: '%s' ends at %g s (delay %g s, %ld samples of %g s), after "
                             "the run's %g s; lengthen the run or shorten the signature",
                             spec->key, shot, spec->file, end, src.delay, sig->count,
                             sig->interval, run);
            return 1;
        }
    }
    return 0;
}

/* SEG-Y stores the interval as whole microseconds and the sample count in
 * 16 bits: a job whose record does not fit must fail before time stepping,
 * not when its results are written. */
static int check_segy_sampling(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char reason[512];
    int us;
    long nsamples = s->resampler.nsamples;
    if (sf_segy_interval_us(s->interval, nsamples, &us, reason, sizeof reason) != 0) {
        const char *defaulted =
            c->receivers.sampling > 0 ? "" : "not given (or auto), so records are sampled at dt; ";
        sf_config_report(c, c->receivers.sampling_mark,
                         "receivers.sampling: %sfor output.segy, %s", defaulted, reason);
        return 1;
    }
    if (nsamples > SF_SEGY_SIGNED_SAMPLES)
        sf_warn("%s:%d:%d: receivers.sampling: %ld samples per trace; SEG-Y readers that take "
                "the count as signed (segyio 1.8 and older) read at most %d",
                c->source_path, c->receivers.sampling_mark.line,
                c->receivers.sampling_mark.column, nsamples, SF_SEGY_SIGNED_SAMPLES);
    return 0;
}

/* Coordinates lose precision (a warning) or do not fit at all (an error)
 * in SEG-Y's 32-bit integers; both are known before the run. */
static int check_segy_coordinates(const sf_simulation *s)
{
    const sf_config *c = s->cfg;
    char reason[512];
    sf_gather_info info = sim_gather_info(s);
    sf_segy_plan plan;
    if (sf_segy_plan_headers(&info, &plan, reason, sizeof reason) != 0) {
        sf_config_report(c, c->segy_mark, "output.segy: %s", reason);
        return 1;
    }
    if (plan.coordinate_scalar != SF_SEGY_CENTIMETRES ||
        plan.elevation_scalar != SF_SEGY_CENTIMETRES)
        sf_warn("%s:%d:%d: output.segy: coordinates too large for centimetres in 32 bits; "
                "x and y are stored in %s (scalar %d), elevations and depths in %s (scalar %d)",
                c->source_path, c->segy_mark.line, c->segy_mark.column,
                sf_segy_precision(plan.coordinate_scalar), plan.coordinate_scalar,
                sf_segy_precision(plan.elevation_scalar), plan.elevation_scalar);
    return 0;
}

/* The steps and samples of the record, counted in floating point before
 * anything is converted or allocated; each at most SF_MAX_STEPS. */
static int check_record_size(const sf_simulation *s, double duration, double samples,
                             double levels)
{
    const sf_config *c = s->cfg;
    int problems = 0;
    if (levels - 1.0 > SF_MAX_STEPS) {
        /* The key the user gave for the record's length; counts in full,
         * so that they read against the limit. */
        char record[128];
        if (c->nt > 0)
            snprintf(record, sizeof record, "time.nt: %ld steps", c->nt);
        else
            snprintf(record, sizeof record, "time.duration: %.6g s at dt = %.6g s%s", duration,
                     s->dt, c->dt_auto ? " (auto)" : "");
        sf_config_report(c, c->record_mark,
                         "%s make%s %.0f time steps; at most %d are allowed (%s)%s", record,
                         c->nt > 0 ? "" : "s", levels - 1.0, SF_MAX_STEPS,
                         c->nt > 0 ? "fewer steps" : "a shorter record, or a larger dt",
                         levels - 1.0 > ceil(duration / s->dt)
                             ? "; the count includes the steps past the record's end that the "
                               "resampling kernel and the time-dispersion correction need"
                             : "");
        ++problems;
    }
    if (samples > SF_MAX_STEPS) {
        sf_config_report(c, c->receivers.sampling_mark,
                         "receivers.sampling: %.6g s over %.6g s makes %.0f samples per trace; at "
                         "most %d are allowed",
                         s->interval, duration, samples, SF_MAX_STEPS);
        ++problems;
    }
    return problems;
}

int sim_resolve_record(sf_simulation *s, double *samples)
{
    const sf_config *c = s->cfg;
    double duration;
    double levels = record_counts(c, s->dt, &duration, &s->interval, samples);
    if (check_record_size(s, duration, *samples, levels)) return 1;
    sf_resampler_init(&s->resampler, s->dt, s->interval, duration, samples_past_the_end(c));
    s->steps = s->resampler.levels - 1;
    if (!c->segy_path) return 0;
    return check_segy_sampling(s) + check_segy_coordinates(s);
}
