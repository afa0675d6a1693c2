#include "sf_simulation.h"
#include "sf_accuracy.h"
#include "sf_acquisition_checks.h"
#include "sf_energy.h"
#include "sf_error.h"
#include "sf_gather.h"
#include "sf_layout.h"
#include "sf_memory_check.h"
#include "sf_output.h"
#include "sf_rank_counts.h"
#include "sf_segy.h"
#include "sf_shots.h"
#include "sf_snapshot.h"
#include "sf_time_dispersion.h"
#include "sf_volume.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int check_memory(const sf_simulation *s, double nsamples)
{
    double bytes[SF_MEMORY_PARTS];
    sf_memory_estimate(s->cfg, s->slab.z0, s->slab.nz, s->host_fields, nsamples, bytes);
    return sf_memory_check(s->cfg, bytes, s->memory_per_rank, s->ranks_on_node);
}

/* The job a configuration belongs to: a survey shot's keeps its survey's
 * receivers as given and every shot's source keys. */
static const sf_config *job_of(const sf_config *c) { return c->survey_job ? c->survey_job : c; }

static int resolve_time_step(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    s->dt_max = s->physics->staggered ? sf_staggered_dt_max(&s->stencil, c->spacing, s->model.vmax)
                                      : sf_cfl_dt_max(&s->stencil, c->spacing, s->model.vmax);
    if (c->dt_auto) {
        s->dt = c->cfl_safety * s->dt_max;
        /* The corrected records keep frequencies below 1/dt rad/s (see
         * sf_tdt_correct_traces): a source reaching beyond gets a shorter
         * step. */
        double edge = sf_highest_band_edge(job_of(c), UNCARRIED_SPECTRUM);
        double carried = 1.0 / (2.0 * M_PI * edge);
        s->dt_shortened = c->dispersion_correction && carried < s->dt;
        if (s->dt_shortened) s->dt = carried;
        return 0;
    }
    s->dt = c->dt;
    if (s->dt <= s->dt_max) return 0;
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
static double points_per_wavelength(const sf_simulation *s, double f)
{
    const sf_config *c = s->cfg;
    double h = fmax(c->spacing[0], fmax(c->spacing[1], c->spacing[2]));
    return s->model.slowest / (f * h);
}

static const char *slowest_wave_name(const sf_simulation *s)
{
    return s->physics->slowest_wave_name(&s->model);
}

void sf_simulation_check_wavelet(const sf_simulation *s, const sf_wavelet_spec *spec,
                                 long shot_number)
{
    const sf_config *c = s->cfg;
    const sf_wavelet *w = spec->built;
    double ppw = points_per_wavelength(s, w->upper_frequency);
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
            c->source_path, spec->line, spec->column, spec->key, shot, ppw, slowest_wave_name(s),
            s->model.slowest, upper, h, MIN_POINTS_PER_WAVELENGTH,
            100.0 * sf_wavelet_energy_share_above(w, limit), limit,
            s->model.slowest / (w->upper_frequency * MIN_POINTS_PER_WAVELENGTH), lower);
}

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
    const sf_wavelet *w = sf_widest_band_wavelet(job_of(c), &widest)->built;
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
            slowest_wave_name(s), s->model.slowest);
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
    double far = sf_farthest_receiver(job_of(c), &shot);
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

static void check_dispersion(const sf_simulation *s)
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
static int check_signature_spans(const sf_simulation *s)
{
    const sf_config *job = job_of(s->cfg);
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

/* What the gather writers need to know about shot c. */
static sf_gather_info gather_info_of(const sf_simulation *s, const sf_config *c)
{
    sf_gather_info info = {
        .path = c->gather_path,
        .nrec = c->receivers.count,
        .nsamples = s->resampler.nsamples,
        .interval = s->interval,
        .simulation_dt = s->dt,
        .receiver_position = (const double(*)[3])c->receivers.position,
        .receiver_line = c->receivers.line,
        .source_position = c->source.position,
        .wavelet = &c->source.wavelet,
        .source_delay = c->source.delay,
        .source_amplitude = c->source.amplitude,
        .wavelet_at_dt = s->source.at_dt,
        .wavelet_levels = s->source.count / 2,
        .wavelet_record = s->source.record,
        .wavelet_injected = s->source.warped ? s->source.at : NULL,
        .time_dispersion = c->dispersion_correction
                               ? "corrected: time-dispersion transforms (source warped before "
                                 "the run, traces after it)"
                               : "not corrected (time.dispersion_correction: false)",
        .config_text = c->text,
        .config_path = c->source_path,
        .physics = s->physics->declared->name,
        .order = c->order,
        .component_axis = s->physics->component_axis,
        .ncomponents = c->receivers.ncomponents,
        .trace_units = s->physics->trace_units,
        .shot_number = c->shot_number > 0 ? c->shot_number : 1,
        .survey_shots = c->survey.enabled ? c->survey.count : 0,
    };
    const sf_physics_declaration *declared = sf_config_physics(c);
    for (int q = 0; q < c->receivers.ncomponents; ++q) {
        sf_component k = c->receivers.component[q];
        info.component[q] = sf_component_name(k);
        info.quantity[q] = declared->quantity[k];
        info.units[q] = declared->units[k];
    }
    memcpy(info.grid_n, c->n, sizeof info.grid_n);
    memcpy(info.grid_spacing, c->spacing, sizeof info.grid_spacing);
    memcpy(info.grid_origin, c->origin, sizeof info.grid_origin);
    return info;
}

static sf_gather_info gather_info(const sf_simulation *s) { return gather_info_of(s, s->cfg); }

int sf_simulation_segy_plan(const sf_simulation *s, const sf_config *shot, sf_segy_plan *plan,
                            char *reason, size_t len)
{
    sf_gather_info info = gather_info_of(s, shot);
    return sf_segy_plan_headers(&info, plan, reason, len);
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
    sf_gather_info info = gather_info(s);
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

static int resolve_record(sf_simulation *s, double *samples)
{
    const sf_config *c = s->cfg;
    double duration = c->nt > 0 ? (double)c->nt * s->dt : c->duration, levels;
    s->interval = c->receivers.sampling > 0 ? c->receivers.sampling : s->dt;
    long extra = c->dispersion_correction ? CORRECTION_MARGIN : 0;
    sf_resampler_counts(s->dt, s->interval, duration, extra, samples, &levels);
    if (check_record_size(s, duration, *samples, levels)) return 1;
    sf_resampler_init(&s->resampler, s->dt, s->interval, duration, extra);
    s->steps = s->resampler.levels - 1;
    if (!c->segy_path) return 0;
    return check_segy_sampling(s) + check_segy_coordinates(s);
}

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

/* Does the test-only growth apply to this shot? */
static int test_growth_here(const sf_simulation *s)
{
    const long shot = s->cfg->shot_number > 0 ? s->cfg->shot_number : 1;
    return s->test_growth > 1.0 && (s->test_growth_shot == 0 || s->test_growth_shot == shot);
}

/* The frequency shift of the profiles follows the source's peak
 * frequency, so a survey rebuilds them for a shot that changes it. */
static void build_cpml(sf_simulation *s)
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

/* ---- the backend -------------------------------------------------------- */

/* The slab as a backend takes it, the physics' own medium aside (vp on
 * the nodes is every physics'; the acoustic backends read it on a reset
 * too, to scale the new source). */
static void describe_problem(const sf_simulation *s, sf_problem *problem)
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
    p.vp = s->model.vp;
    p.cpml = s->cpml;
    p.free_surface = c->free_surface;
    p.source = a->source;
    p.source_count = a->source_count;
    p.channel_component = a->channel_component;
    p.channel_points = a->channel_points;
    p.channel_offset = a->channel_offset;
    p.channel_count = a->channel_count;
    p.sample_block = SF_SAMPLE_BLOCK;
    p.exchange_normal_stresses = a->records_pressure;
    p.energy = c->energy_path != NULL;
    p.halo_transport = s->halo_transport;
    *problem = p;
}

/* The shot's source and receivers on the physics' fields. */
static void place_acquisition(sf_simulation *s)
{
    sf_acquisition_build(&s->acq, s->cfg, &s->slab, s->physics->fields);
    s->channel_count = s->acq.channel_count;
    s->channel_global = s->acq.channel_global;
}

/* ---- the slab cut ------------------------------------------------------- */

/* Time steps a calibration slab runs before and while it is timed. */
enum { CALIBRATION_WARMUP = 2, CALIBRATION_STEPS = 5 };
/* Points a calibration slab aims at: enough to fill the device. */
static const double CALIBRATION_POINTS[2] = {1 << 20, 1 << 27};   /* cpu, cuda */

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
    sf_config_sample_medium(&c->model);
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

static void run_stages(sf_simulation *s, long n, int first, int last);

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
    build_cpml(&s);
    place_acquisition(&s);
    sf_problem problem;
    describe_problem(&s, &problem);
    s.physics->create(&s, &problem);
    sf_halo_init(&s.halo, &s.slab, &s.cpml[2], s.physics->stages, s.physics->in_z_layers);
    double seconds[SF_PHASE_COUNT] = {0};
    for (long n = 0; n < CALIBRATION_WARMUP + CALIBRATION_STEPS; ++n) {
        if (n == CALIBRATION_WARMUP) {
            s.ops->synchronize(s.backend);
            s.ops->take_timers(s.backend, seconds);
            memset(seconds, 0, sizeof seconds);
        }
        run_stages(&s, n, 0, s.physics->stages);
    }
    s.ops->synchronize(s.backend);
    s.ops->take_timers(s.backend, seconds);
    sf_simulation_free(&s);
    return seconds[SF_PHASE_STENCIL] / CALIBRATION_STEPS /
           ((double)c->n[0] * (double)c->n[1] * (double)c->n[2]);
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
    key->precision = "float32";
    key->order = cfg->order;
    key->device = device;
}

/* The table's costs where every rank finds its device's row, else every
 * rank's timing. */
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
        sf_simulation_calibrate(s->cfg, placement, s->slab.comm, &s->costs);
        size_t n = strlen(s->costs.source);
        snprintf(s->costs.source + n, sizeof s->costs.source - n, " at set-up (%s has no row "
                 "for %s)", found ? "another rank's device" : "the table", found ? "it" : device);
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
static void equal_cut(sf_simulation *s, MPI_Comm comm)
{
    const int nranks = s->slab.nranks;
    s->slab_start = sf_malloc((size_t)(nranks + 1) * sizeof(long), "the slab cut");
    for (int r = 0; r < nranks; ++r) sf_slab_planes(s->cfg->n[2], nranks, r, &s->slab_start[r]);
    s->slab_start[nranks] = s->cfg->n[2];
    sf_slab_init(&s->slab, comm, s->slab_start);
}

/* Collective: the slabs of comm's ranks, by cost unless run.slabs is equal. */
static void cut_slabs(sf_simulation *s, MPI_Comm comm, const sf_placement *placement)
{
    const sf_config *c = s->cfg;
    const int nranks = s->slab.nranks;
    choose_costs(s, placement);
    double *cost = sf_malloc((size_t)c->n[2] * sizeof(double), "the planes' costs");
    for (long z = 0; z < c->n[2]; ++z)
        cost[z] = c->slabs == SF_SLABS_EQUAL ? 1.0 : sf_plane_cost(&s->costs, c, z);
    double neighbour = c->slabs == SF_SLABS_EQUAL ? 0.0 : sf_neighbour_cost(&s->costs, c);
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

/* ---- the time step ----------------------------------------------------- */

static void snapshot_fields(sf_simulation *s, sf_snapshot_file *f, float *const *out, int before)
{
    for (int q = 0; q < f->nfields; ++q) {
        sf_component c = s->cfg->snapshot_field[q];
        int half = s->physics->half_step_component && s->physics->half_step_component(c);
        if (before && !half) continue;
        if (before && !s->half_step_before[c])
            s->half_step_before[c] = sf_malloc(sf_snapshot_local_count(f) * sizeof(float),
                                               "a half-step snapshot of this slab");
        s->ops->fetch_field(s->backend, c, &f->lattice, before ? s->half_step_before[c] : out[q]);
    }
}

/* The fields at t = n dt: a half-step component is the mean of its values
 * before and after the stages that precede the sample. */
static void write_snapshot(sf_simulation *s, sf_snapshot_file *f, long n, float *const *samples)
{
    sf_timer_start(&s->timers);
    snapshot_fields(s, f, samples, 0);
    size_t count = sf_snapshot_local_count(f);
    for (int q = 0; q < f->nfields; ++q) {
        const float *before = s->half_step_before[s->cfg->snapshot_field[q]];
        if (!before) continue;   /* kept for half-step components only */
        for (size_t i = 0; i < count; ++i) samples[q][i] = 0.5f * (samples[q][i] + before[i]);
    }
    sf_snapshot_write(f, n, (double)n * s->dt, samples);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* Stage g of step n over planes [k0, k1), with its source. */
static void update_planes(sf_simulation *s, int g, long n, long k0, long k1)
{
    s->ops->update(s->backend, g, k0, k1);
    int half = s->physics->source_half[g];
    if (half >= 0)
        s->ops->inject_source(s->backend, g, sf_source_signal_at(&s->source, 2 * n + half), k0, k1);
}

/* Stages [first, last) of step n. Each updates the planes its neighbours
 * read first, so that their exchange overlaps the interior; a stage whose
 * interior may wait does it during the next stage's exchange instead. A
 * rank with no neighbour has no exchange to overlap and goes in one piece
 * (on a GPU the edge pieces were launches of a few planes). */
static void run_stages(sf_simulation *s, long n, int first, int last)
{
    const sf_physics_plugin *ph = s->physics;
    const long nz = s->slab.nz;
    if (s->slab.lower == MPI_PROC_NULL && s->slab.upper == MPI_PROC_NULL) {
        for (int g = first; g < last; ++g) {
            update_planes(s, g, n, 0, nz);
            s->ops->finish_stage(s->backend, g);
        }
        return;
    }
    long lo[SF_MAX_STAGES], hi[SF_MAX_STAGES];
    int waiting[SF_MAX_STAGES], nwaiting = 0;
    for (int g = first; g < last; ++g) {
        long e = ph->edge_planes[g];
        lo[g] = nz < e ? nz : e;
        hi[g] = nz - e > lo[g] ? nz - e : lo[g];
        update_planes(s, g, n, 0, lo[g]);
        update_planes(s, g, n, hi[g], nz);
        if (ph->interior_waits[g] && g + 1 < last) {
            sf_halo_exchange(&s->halo, s->ops, s->backend, g, &s->timers);
            waiting[nwaiting++] = g;
            continue;
        }
        sf_halo_begin(&s->halo, s->ops, s->backend, g);
        for (int w = 0; w < nwaiting; ++w) {
            update_planes(s, waiting[w], n, lo[waiting[w]], hi[waiting[w]]);
            s->ops->finish_stage(s->backend, waiting[w]);
        }
        nwaiting = 0;
        update_planes(s, g, n, lo[g], hi[g]);
        sf_halo_finish(&s->halo, s->ops, s->backend, g, &s->timers);
        s->ops->finish_stage(s->backend, g);
    }
}

/* Step n up to the sample of t = n dt, with the snapshot of that time. */
static void before_sampling(sf_simulation *s, long n, sf_snapshot_file *snapshot,
                            float *const *samples)
{
    if (snapshot && s->physics->sample_after > 0) {
        sf_timer_start(&s->timers);
        snapshot_fields(s, snapshot, samples, 1);
        sf_timer_stop(&s->timers, SF_PHASE_IO);
    }
    run_stages(s, n, 0, s->physics->sample_after);
    if (snapshot) write_snapshot(s, snapshot, n, samples);
}

/* The rest of step n, and the energy diagnostic of its end. */
static void after_sampling(sf_simulation *s, long n)
{
    run_stages(s, n, s->physics->sample_after, s->physics->stages);
    if (!s->energy) return;
    sf_timer_start(&s->timers);
    s->ops->energy(s->backend, s->energy + 2 * n);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* ---- the shot ---------------------------------------------------------------- */

void sf_simulation_setup(sf_simulation *s, const sf_config *cfg, MPI_Comm comm,
                         const sf_placement *placement)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->physics = sf_physics_of(cfg->physics);
    s->halo_transport = placement->transport;
    s->stops_on = SF_STOP_AFTER_SHOT;
    if (sf_stencil_init(&s->stencil, cfg->order) != 0)
        sf_fail_collective("unsupported spatial order %d", cfg->order);
    SF_MPI_CHECK(MPI_Comm_size(comm, &s->slab.nranks), "querying the rank count");
    s->host_fields = !placement->cuda;
    s->memory_per_rank = sf_memory_per_rank(&s->ranks_on_node);
    /* The checks that need the rank count (on the equal cut, before the
     * physics is timed on slabs as large), then the cut by cost and its
     * own memory check, then those that need the model. */
    equal_cut(s, comm);
    if (sf_ranks_check_slabs(cfg, s->slab.nranks) + check_memory(s, 0.0))
        sf_exit_collective();
    cut_slabs(s, comm, placement);
    if (check_memory(s, 0.0)) sf_exit_collective();

    sf_timer_start(&s->timers);
    sf_model_build(&s->model, cfg, &s->slab);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    s->model_seconds = s->timers.seconds[SF_PHASE_IO];
    s->check_every = cfg->check_every;

    double samples = 0.0;
    int problems = resolve_time_step(s);
    check_dispersion(s);
    problems += resolve_record(s, &samples);
    problems += sf_check_source_amplitudes(job_of(cfg), s->physics->fields);
    if (!problems) problems += check_signature_spans(s);
    if (problems + check_memory(s, samples)) sf_exit_collective();
    sf_source_signal_build(&s->source, &cfg->source, s->dt, s->steps, cfg->dispersion_correction,
                           &s->resampler);
    read_test_growth(s);
    build_cpml(s);
    sf_warn_inside_layers(job_of(cfg), s->cpml);
    s->ops = placement->ops;
    require_guard_operations(s);
    place_acquisition(s);
    sf_problem problem;
    describe_problem(s, &problem);
    s->physics->create(s, &problem);
    sf_halo_init(&s->halo, &s->slab, &s->cpml[2], s->physics->stages, s->physics->in_z_layers);
    if (cfg->energy_path && s->ops->energy)
        s->energy = sf_calloc((size_t)(s->steps ? s->steps : 1) * 2, sizeof(double),
                              "the energy series");
    s->traces = sf_calloc((size_t)(s->channel_count ? s->channel_count : 1) *
                              (size_t)s->resampler.stored,
                          sizeof(float), "receiver traces");
}

static void print_memory(const sf_simulation *s)
{
    double mine = (double)s->ops->memory_bytes(s->backend) +
                  (double)s->channel_count * (double)s->resampler.nsamples * sizeof(float);
    double lo, hi;
    SF_MPI_CHECK(MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, s->slab.comm), "memory stats");
    SF_MPI_CHECK(MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, s->slab.comm), "memory stats");
    sf_info("  memory per rank   %.1f MiB (min) .. %.1f MiB (max), %s backend", lo / 1048576.0,
            hi / 1048576.0, s->ops->name);
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
        char item[80], time[24];
        int neighbours = (r > 0) + (r < nranks - 1);
        format_step_time(sf_slab_cost(&s->costs, s->cfg, z0, n, neighbours), time, sizeof time);
        snprintf(item, sizeof item, "%s%d:%ld-%ld %s", *line ? "  " : "", r, z0, z0 + n - 1, time);
        if (strlen(line) + strlen(item) > 72) {
            sf_info("    planes by rank  %s", line);
            snprintf(item, sizeof item, "%d:%ld-%ld %s", r, z0, z0 + n - 1, time);
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
    sf_info("  decomposition     %d rank%s along z, slabs of %ld..%ld planes, %s; each rank's "
            "planes and predicted compute time per step:", sl->nranks,
            sl->nranks == 1 ? "" : "s", thin, thick,
            s->cfg->slabs == SF_SLABS_EQUAL ? "equal numbers of planes (run.slabs: equal)"
                                            : "cut by cost");
    print_slabs(s);
    const double *ns = s->costs.point;
    sf_info("    point costs     %.4g ns a step outside the layers; in the x, y, z layers %.4g, "
            "%.4g, %.4g ns; a neighbour %.4g ns a plane point: %s", ns[0] * 1e9, ns[1] * 1e9,
            ns[2] * 1e9, ns[3] * 1e9, ns[4] * 1e9, s->costs.source);
}

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
static long guard_start(const sf_simulation *s)
{
    return (long)ceil((source_end_time(s) + crossing_time(s)) / s->dt);
}

static void print_guard(const sf_simulation *s)
{
    if (s->check_every == 0) {
        sf_info("  instability guard off (run.check_every: 0): only the record is checked for "
                "NaN and Inf");
        return;
    }
    const long start = guard_start(s);
    sf_info("  instability guard every %ld step%s: NaN and Inf; growth from step %ld (t = %.4g "
            "s)%s: the source ends at %.4g s, and a wave at %g m/s crosses the grid in %.4g s",
            s->check_every, s->check_every == 1 ? "" : "s", start, (double)start * s->dt,
            start <= s->steps ? "" : ", after the last step", source_end_time(s),
            s->model.slowest, crossing_time(s));
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
            points_per_wavelength(s, c->source.wavelet.built->upper_frequency),
            slowest_wave_name(s), c->source.wavelet.built->upper_frequency);
    print_accuracy(s);
    sf_info("  boundaries        CPML x %d/%d, y %d/%d, z %d/%d points%s", c->cpml[0], c->cpml[1],
            c->cpml[2], c->cpml[3], c->cpml[4], c->cpml[5],
            c->free_surface ? ", free surface on top" : "");
    s->physics->summary(s);
    print_guard(s);
    print_memory(s);
}

/* Gathers the receiver samples of the last `count` levels ending at `level`. */
static void flush_samples(sf_simulation *s, long level, int count, float *block)
{
    /* A queuing backend first finishes the steps queued so far, so that
     * wait is not booked as receiver time (the device phases hold it). */
    s->ops->synchronize(s->backend);
    sf_timer_start(&s->timers);
    s->ops->fetch_receivers(s->backend, count, block);
    sf_resampler_accumulate(&s->resampler, level - count + 1, count, s->channel_count, block,
                            s->traces);
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}

/* Starts the clock of the timed steps: phase times restart from zero. */
static void start_timing(sf_simulation *s)
{
    double discarded[SF_PHASE_COUNT] = {0};
    s->ops->take_timers(s->backend, discarded);
    memset(&s->timers, 0, sizeof s->timers);
    s->guard_checks = 0;
}

static void print_progress(const sf_simulation *s, long done, double started)
{
    double elapsed = sf_now() - started;
    double rate = (double)s->cfg->n[0] * s->cfg->n[1] * s->cfg->n[2] * done / elapsed;
    double eta = elapsed / (double)done * (double)(s->steps - done);
    sf_info("  step %ld/%ld  t = %.4f s  %3.0f%%  %.3g Mpoints/s  ETA %.0f s", done, s->steps,
            (double)done * s->dt, 100.0 * done / s->steps, rate / 1e6, eta);
}

/* output.model: the parameters as sampled on the grid. */
static void write_model(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    const sf_physics_declaration *d = sf_config_physics(c);
    const float *planes[SF_PARAMS];
    const char *names[SF_PARAMS];
    for (int p = 0; p < d->nparams; ++p) {
        planes[p] = s->model.param[d->param[p]];
        names[p] = sf_parameter_name(d->param[p]);
    }
    sf_timer_start(&s->timers);
    sf_output_set_add(&s->outputs, c->model_output_path);
    sf_hdf5_volumes_write(c->model_output_path, s->slab.comm, c->n, c->origin, c->spacing,
                          s->slab.z0, s->slab.nz, d->nparams, names, planes, c->text);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* Is step n (the level just computed) one the guard looks at? Every
 * check_every steps, and the last, so no shot ends unchecked. */
static int guard_due(const sf_simulation *s, long n)
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
    char every[48], where[120];
    if (v->share >= 0.5)
        snprintf(where, sizeof where, "%.0f%% of that growth is in %s", 100.0 * v->share,
                 region_name(v->region));
    else
        snprintf(where, sizeof where, "that growth is spread over the grid, the most (%.0f%%) "
                 "in %s", 100.0 * v->share, region_name(v->region));
    snprintf(s->failure, sizeof s->failure,
             "unstable: the wavefield grows after the source has ended: the norm of %s rose at "
             "each of the last %d checks, x %.3g from step %ld to %ld (t = %.4g to %.4g s), to "
             "%.3g times its level when the source ended (step %ld) and %.3g of its peak; %s "
             "(checked %s); %s",
             s->physics->field_name(v->field), v->checks, v->rise, v->from, v->to,
             (double)v->from * s->dt, (double)v->to * s->dt, v->over_start, v->start,
             v->of_peak, where, checked_every(s, every, sizeof every), growth_advice(v->region));
}

/* Collective over the slab: 0, or -1 with s->failure. */
static int check_stability(sf_simulation *s, long step)
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

/* The records become the true medium's (sf_time_dispersion.h): elastic
 * velocities are sampled as the mean of two half steps, whose filter is
 * undone too. */
static void correct_time_dispersion(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    if (!c->dispersion_correction) return;
    sf_timer_start(&s->timers);
    int *averaged = sf_malloc((size_t)(s->channel_count ? s->channel_count : 1) * sizeof(int),
                              "the channels' kinds");
    for (long q = 0; q < s->channel_count; ++q) {
        long component = s->channel_global[q] / c->receivers.count;
        const sf_physics_plugin *ph = s->physics;
        averaged[q] = ph->half_step_component && ph->half_step_component(c->receivers.component[component]);
    }
    const long stored = s->resampler.stored, kept = s->resampler.nsamples;
    sf_tdt_correct_traces(s->traces, s->channel_count, stored, s->interval, s->dt, averaged);
    free(averaged);
    /* The samples past the record's end have served: the rows close up. */
    for (long q = 1; q < s->channel_count; ++q)
        memmove(s->traces + (size_t)q * (size_t)kept, s->traces + (size_t)q * (size_t)stored,
                (size_t)kept * sizeof(float));
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}

/* Collective over the slab: the first sample of the record (rows of
 * `stride` samples, `count` of them looked at) that is NaN or Inf, as
 * gather row * count + sample, the same on every rank; -1 when none is. */
static long long first_nonfinite_sample(const sf_simulation *s, long stride, long count)
{
    long long mine = LLONG_MAX, first = LLONG_MAX;
    for (long q = 0; q < s->channel_count; ++q) {
        const float *row = s->traces + (size_t)q * (size_t)stride;
        for (long n = 0; n < count; ++n)
            if (!isfinite(row[n])) {
                long long at = (long long)s->channel_global[q] * count + n;
                mine = at < mine ? at : mine;
                break;
            }
    }
    SF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, s->slab.comm),
                 "checking the traces");
    return first == LLONG_MAX ? -1 : first;
}

/* Collective over the slab: a record with a NaN or Inf is never written
 * as a good one, whether the guard was off or the values overflowed after
 * its last check; `stage` says when the record was looked at. 0, or -1
 * with s->failure. */
static int check_traces(sf_simulation *s, long stride, const char *stage)
{
    sf_timer_start(&s->timers);
    const long count = s->resampler.nsamples;
    const long long first = first_nonfinite_sample(s, stride, count);
    sf_timer_stop(&s->timers, SF_PHASE_GUARD);
    if (first < 0) return 0;
    const sf_receiver_config *r = &s->cfg->receivers;
    const long row = (long)(first / count);
    char component[48] = "";
    if (r->ncomponents > 1)
        snprintf(component, sizeof component, ", component %s",
                 sf_component_name(r->component[row / r->count]));
    snprintf(s->failure, sizeof s->failure,
             "unstable: the record holds a value that is not finite (NaN or Inf) %s, first at "
             "receiver %ld of %ld%s, t = %.6g s: the wavefield overflowed float32%s; no gather "
             "is written",
             stage, row % r->count + 1, r->count, component, (double)(first % count) * s->interval,
             s->check_every ? ""
                            : " with the instability guard off (run.check_every: 0); turn it "
                              "on to stop such a run where it starts and learn why");
    return -1;
}

/* The snapshots of a shot, under their temporary names. */
static void open_snapshots(sf_simulation *s, sf_snapshot_file *f, float **snapshot)
{
    const sf_config *c = s->cfg;
    char xdmf[SF_OUTPUT_PATH];
    sf_snapshot_xdmf_name(c->snapshot_path, xdmf, sizeof xdmf);
    sf_output_set_add(&s->outputs, c->snapshot_path);
    sf_output_set_add(&s->outputs, xdmf);
    sf_snapshot_open(f, c, &s->slab);
    for (int q = 0; q < f->nfields; ++q)
        snapshot[q] = sf_malloc(sf_snapshot_local_count(f) * sizeof(float),
                                "a snapshot of this slab");
}

/* 0, or -1 with s->failure when kept snapshots could not be finished. */
static int close_snapshots(sf_simulation *s, sf_snapshot_file *f, float **snapshot, int keep)
{
    if (!snapshot[0]) return 0;
    sf_timer_start(&s->timers);
    int rc = 0;
    if (keep)
        rc = sf_snapshot_close(f, s->failure, sizeof s->failure);
    else
        sf_snapshot_abandon(f);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    for (int q = 0; q < SF_COMPONENTS; ++q) free(snapshot[q]);
    return rc;
}

/* Does the agreed request stop the shot? Then s->stop and s->failure say
 * so, naming the step. */
static int stopped_by(sf_simulation *s, int request, long step)
{
    if (request == 0 || sf_interrupt_kind(request) < s->stops_on) return 0;
    s->stop = request;
    s->stop_step = step;
    snprintf(s->failure, sizeof s->failure, "interrupted by %s at step %ld of %ld",
             sf_interrupt_signal_name(request), step, s->steps);
    return 1;
}

int sf_simulation_run(sf_simulation *s, int progress)
{
    float *block = sf_malloc((size_t)SF_SAMPLE_BLOCK *
                                 (size_t)(s->channel_count ? s->channel_count : 1) * sizeof(float),
                             "a block of receiver samples");
    const sf_config *c = s->cfg;
    if (c->model_output_path) write_model(s);
    SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "starting the time loop");
    s->setup_timers = s->timers;
    start_timing(s);
    sf_snapshot_file snapshots;
    float *snapshot[SF_COMPONENTS] = {NULL};
    if (c->snapshot_path) open_snapshots(s, &snapshots, snapshot);
    sf_growth_guard_init(&s->growth, guard_start(s));
    int failed = 0;
    sf_interrupt_poll poll;
    sf_interrupt_poll_begin(&poll);
    double started = sf_now(), last_print = started;
    for (long n = 0; n <= s->steps; ++n) {
        if (n == s->warmup_steps && n > 0) {
            /* Benchmarks time only the steps after the warm-up. */
            s->ops->synchronize(s->backend);
            SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "ending the warm-up");
            start_timing(s);
            started = sf_now();
        }
        int snap = snapshot[0] && n > 0 && n % c->snapshot_every == 0;
        before_sampling(s, n, snap ? &snapshots : NULL, snapshot);

        sf_timer_start(&s->timers);
        int slot = (int)(n % SF_SAMPLE_BLOCK);
        s->ops->sample_receivers(s->backend, slot);
        sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
        if (slot == SF_SAMPLE_BLOCK - 1 || n == s->steps) flush_samples(s, n, slot + 1, block);
        if (n == s->steps) break;

        after_sampling(s, n);
        if (test_growth_here(s)) s->ops->amplify(s->backend, (float)s->test_growth);
        if (guard_due(s, n + 1) && check_stability(s, n + 1) != 0) {
            failed = 1;
            break;
        }
        if (s->between_steps) s->between_steps(s->between_steps_arg);
        if (stopped_by(s, sf_interrupt_poll_step(&poll, s->slab.comm), n + 1)) {
            failed = 1;
            break;
        }
        if (progress && s->slab.rank == 0 && sf_now() - last_print >= s->cfg->progress_interval) {
            print_progress(s, n + 1, started);
            last_print = sf_now();
        }
    }
    sf_interrupt_poll_end(&poll);
    s->ops->synchronize(s->backend);
    SF_MPI_CHECK(MPI_Barrier(s->slab.comm), "finishing the time loop");
    s->loop_seconds = sf_now() - started;
    s->ops->take_timers(s->backend, s->timers.seconds);
    s->loop_timers = s->timers;
    free(block);
    if (!failed) failed = check_traces(s, s->resampler.stored, "as recorded") != 0;
    if (!failed) correct_time_dispersion(s);
    if (!failed && c->dispersion_correction)
        failed = check_traces(s, s->resampler.nsamples,
                              "after the time-dispersion transforms") != 0;
    if (close_snapshots(s, &snapshots, snapshot, !failed) != 0) failed = 1;
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
            "x %g stop a run)",
            g->judged, g->first_step, g->longest, g->closest, SF_GROWTH_CHECKS,
            SF_GROWTH_FACTOR);
}

/* An elastic gather goes to one SEG-Y file per component; the channels of
 * a component are consecutive, their rows component * nrec + receiver. */
static int write_segy(sf_simulation *s, sf_gather_info *info)
{
    const sf_config *c = s->cfg;
    if (!info->component_axis) {
        info->path = c->segy_path;
        sf_output_set_add(&s->outputs, c->segy_path);
        if (sf_gather_write_segy(info, s->slab.comm, s->channel_count, s->channel_global,
                                 s->traces, s->failure, sizeof s->failure) != 0)
            return -1;
        if (!s->quiet) sf_info("seisfd: SEG-Y gather written to %s", c->segy_path);
        return 0;
    }
    long *rows = sf_malloc((size_t)(s->channel_count ? s->channel_count : 1) * sizeof(long),
                           "SEG-Y rows");
    sf_gather_info one = *info;
    one.ncomponents = 1;
    one.component_axis = 0;
    char path[SF_OUTPUT_PATH];
    int failed = 0;
    for (long q = 0, first = 0; q < info->ncomponents && !failed; ++q) {
        long count = 0;
        while (first + count < s->channel_count &&
               s->channel_global[first + count] / info->nrec == q) {
            rows[count] = s->channel_global[first + count] - q * info->nrec;
            ++count;
        }
        sf_segy_component_path(c->segy_path, info->component[q], path, sizeof path);
        one.path = path;
        one.component[0] = info->component[q];
        one.quantity[0] = info->quantity[q];
        one.units[0] = info->units[q];
        sf_output_set_add(&s->outputs, path);
        failed = sf_gather_write_segy(&one, s->slab.comm, count, rows,
                                      s->traces + (size_t)first * (size_t)info->nsamples,
                                      s->failure, sizeof s->failure) != 0;
        if (failed) break;
        if (!s->quiet) sf_info("seisfd: SEG-Y gather of %s written to %s", info->component[q], path);
        first += count;
    }
    free(rows);
    return failed ? -1 : 0;
}

static void print_gather_written(const sf_simulation *s, const sf_gather_info *info)
{
    if (s->quiet) return;
    if (info->component_axis)
        sf_info("seisfd: gather written to %s (%d components x %ld traces x %ld samples at "
                "%.6g s)", info->path, info->ncomponents, info->nrec, info->nsamples,
                info->interval);
    else
        sf_info("seisfd: gather written to %s (%ld traces x %ld samples at %.6g s)", info->path,
                info->nrec, info->nsamples, info->interval);
}

/* output.energy: the slabs' energy summed over the ranks, under its
 * temporary name; 0, or -1 with s->failure. */
static int write_energy(sf_simulation *s)
{
    long count = s->steps;
    double *sum = s->slab.rank == 0 ? sf_malloc((size_t)(count ? count : 1) * 2 * sizeof(double),
                                                "the energy series")
                                    : NULL;
    if (count > 0)
        SF_MPI_CHECK(MPI_Reduce(s->energy, sum, (int)(2 * count), MPI_DOUBLE, MPI_SUM, 0,
                                s->slab.comm),
                     "summing the energy over ranks");
    int rc = sf_energy_write(s->cfg->energy_path, s->slab.comm, count, s->dt, sum, s->failure,
                             sizeof s->failure);
    free(sum);
    if (rc == 0)
        sf_info("seisfd: energy series written to %s (%ld steps)", s->cfg->energy_path, count);
    return rc;
}

int sf_simulation_write(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    sf_gather_info info = gather_info(s);
    sf_timer_start(&s->timers);
    /* A survey's leader writes alone, so a failure fails the shot only. */
    sf_gather_writer writer = c->survey.enabled ? SF_GATHER_BY_LEADER : SF_GATHER_PARALLEL;
    sf_output_set_add(&s->outputs, c->gather_path);
    int failed = sf_gather_write_hdf5(&info, s->slab.comm, writer, s->channel_count,
                                      s->channel_global, s->traces, s->failure,
                                      sizeof s->failure) != 0;
    if (!failed) print_gather_written(s, &info);
    failed = failed || (c->segy_path && write_segy(s, &info) != 0);
    if (!failed && s->energy) {
        sf_output_set_add(&s->outputs, c->energy_path);
        failed = write_energy(s) != 0;
    }
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    return failed ? -1 : 0;
}

int sf_simulation_finish(sf_simulation *s, int failed, int verify)
{
    int request = sf_interrupt_agree(s->slab.comm);
    if (!failed && stopped_by(s, request, s->steps)) failed = 1;
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
        build_cpml(s);
    }
    sf_source_signal_build(&s->source, &shot->source, s->dt, s->steps, shot->dispersion_correction,
                           &s->resampler);
    sf_acquisition_free(&s->acq);
    place_acquisition(s);
    sf_problem problem;
    describe_problem(s, &problem);
    s->ops->reset(s->backend, &problem);
    if (s->energy) memset(s->energy, 0, (size_t)(s->steps ? s->steps : 1) * 2 * sizeof(double));
    free(s->traces);
    s->traces = sf_calloc((size_t)(s->channel_count ? s->channel_count : 1) *
                              (size_t)s->resampler.stored,
                          sizeof(float), "receiver traces");
    sf_timer_stop(&s->timers, SF_PHASE_ACQUISITION);
}

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
