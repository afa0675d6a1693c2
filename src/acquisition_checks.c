#include "sf_acquisition_checks.h"
#include "sf_error.h"
#include "sf_shots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sources and receivers inside a layer named one by one; the rest are
 * counted. Moving receivers are looked at shot by shot until this many
 * positions are seen (a survey of 90000 shots of 100000 receivers would
 * otherwise take minutes). */
enum { NAMED = 3 };
static const double POSITIONS_LOOKED_AT = 1e7;

/* The largest of the physics' source coefficients (a force's direction,
 * a moment's components; 1 for a pressure source). */
static double largest_coefficient(const sf_source_config *src, const sf_field_lattice *fields)
{
    double *coef = sf_calloc((size_t)fields->fields, sizeof *coef, "source coefficients");
    fields->source_coefficients(src, coef);
    double largest = 0.0;
    for (int f = 0; f < fields->fields; ++f) largest = fmax(largest, fabs(coef[f]));
    free(coef);
    return largest;
}

static double cell_volume(const sf_config *job)
{
    return job->spacing[0] * job->spacing[1] * job->spacing[2];
}

double sf_source_density(const sf_config *job, const sf_source_config *src,
                         const sf_field_lattice *fields)
{
    return fabs(src->amplitude) * sf_wavelet_peak(src->wavelet.built) *
           largest_coefficient(src, fields) / cell_volume(job);
}

/* The key that sets a source's amplitude and where it is: a shot's own,
 * else source.amplitude, else (the default 1) the key of its wavelet. */
static sf_mark amplitude_key(const sf_config *job, const sf_source_config *src, long index,
                             char *key, size_t len)
{
    const sf_shot_spec *shot = job->survey.enabled ? &job->survey.shots[index] : NULL;
    if (shot && shot->has_amplitude) {
        snprintf(key, len, "%s.amplitude", shot->where);
        return shot->amplitude_mark;
    }
    if (src->amplitude_mark.line > 0) {
        snprintf(key, len, "source.amplitude");
        return src->amplitude_mark;
    }
    snprintf(key, len, "source.amplitude (not given: 1)");
    return (sf_mark){src->wavelet.line, src->wavelet.column};
}

void sf_source_density_window(sf_precision precision, double *least, double *most)
{
    const int mixed = precision == SF_PRECISION_MIXED;
    *least = mixed ? 1e-25 : 1e-30;
    *most = mixed ? 1e29 : 1e30;
}

static void report_density(const sf_config *job, const sf_source_config *src, long index,
                           const sf_field_lattice *fields, double density)
{
    double least, most;
    sf_source_density_window(job->precision, &least, &most);
    char key[96];
    sf_mark mark = amplitude_key(job, src, index, key, sizeof key);
    const double peak = sf_wavelet_peak(src->wavelet.built);
    const double coefficient = largest_coefficient(src, fields);
    const double per_amplitude = peak * coefficient / cell_volume(job);
    sf_config_report(job, mark,
                     "%s: %g makes the source inject %.3g per cubic metre at its peak "
                     "(|amplitude| x the wavelet's peak %g x the largest of the source's "
                     "coefficients %g / the cell volume %g m^3), %s %s fields can carry "
                     "with room for the physics' scale and the wavefield's build-up (%g .. %g); "
                     "allowed here: %.3g <= |amplitude| <= %.3g, or 0",
                     key, src->amplitude, density, peak, coefficient, cell_volume(job),
                     density > most ? "more than" : "less than",
                     job->precision == SF_PRECISION_MIXED ? "mixed precision's" : "float32",
                     least, most, least / per_amplitude, most / per_amplitude);
}

int sf_check_source_amplitudes(const sf_config *job, const sf_field_lattice *fields)
{
    const long shots = job->survey.enabled ? job->survey.count : 1;
    double least, most;
    sf_source_density_window(job->precision, &least, &most);
    int problems = 0;
    for (long n = 0; n < shots; ++n) {
        sf_source_config src = job->source;
        if (job->survey.enabled) sf_shot_source(&src, &job->survey.shots[n]);
        const double density = sf_source_density(job, &src, fields);
        if (density == 0.0 || (density >= least && density <= most))
            continue;
        report_density(job, &src, n, fields, density);
        ++problems;
    }
    return problems;
}

/* ---- inside the layers ---------------------------------------------------- */

static const char *const FACE_NAMES[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

/* The face whose layer damps at pos (metres), or -1. */
static int layer_at(const sf_config *job, const sf_cpml_axis cpml[3], const double pos[3])
{
    for (int a = 0; a < 3; ++a) {
        const double u = (pos[a] - job->origin[a]) / job->spacing[a];
        double d, alpha;
        sf_cpml_profile(&cpml[a], u, &d, &alpha);
        if (d > 0.0) return 2 * a + (u > 0.5 * (double)(cpml[a].n - 1));
    }
    return -1;
}

/* What lies inside the layers: the first NAMED as text, and a count. */
typedef struct {
    long count, of;
    char named[NAMED * 160];
} inside_list;

static void note(inside_list *l, int face, const double pos[3], const char *what)
{
    ++l->of;
    if (face < 0) return;
    if (l->count++ >= NAMED) return;
    size_t used = strlen(l->named);
    snprintf(l->named + used, sizeof l->named - used, "%s%s at (%g, %g, %g) m in the %s layer",
             used ? ", " : "", what, pos[0], pos[1], pos[2], FACE_NAMES[face]);
}

/* Where the layers leave the wavefield undamped, for the advice. */
static void undamped_box(const sf_config *job, const sf_cpml_axis cpml[3], char *out, size_t len)
{
    static const char axes[3] = {'x', 'y', 'z'};
    out[0] = '\0';
    for (int a = 0; a < 3; ++a) {
        const double lo = job->origin[a] + job->spacing[a] * cpml[a].thick[0];
        const double hi =
            job->origin[a] + job->spacing[a] * (double)(cpml[a].n - 1 - cpml[a].thick[1]);
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%c %g .. %g m", a ? ", " : "", axes[a], lo, hi);
    }
}

static void warn_list(const sf_config *job, const sf_cpml_axis cpml[3], sf_mark mark,
                      const char *key, const char *things, const char *why, const inside_list *l,
                      const char *looked_at)
{
    if (l->count == 0) return;
    char box[200], more[160] = "";
    undamped_box(job, cpml, box, sizeof box);
    if (l->count > NAMED)
        snprintf(more, sizeof more, ", and %ld more%s", l->count - NAMED, looked_at);
    else
        snprintf(more, sizeof more, "%s", looked_at);
    sf_warn("%s:%d:%d: %s: %ld of %ld %s inside an absorbing layer, %s: %s%s; keep them "
            "within %s, or make the layers thinner (boundaries.cpml)",
            job->source_path, mark.line, mark.column, key, l->count, l->of, things, why, l->named,
            more, box);
}

void sf_warn_inside_layers(const sf_config *job, const sf_cpml_axis cpml[3])
{
    if (sf_error_rank() != 0) return;
    const int survey = job->survey.enabled;
    const int moving = survey && job->survey.receivers == SF_RECEIVERS_MOVING;
    const long shots = survey ? job->survey.count : 1;
    inside_list sources = {0, 0, ""}, receivers = {0, 0, ""};
    char what[96], looked_at[96] = "";
    long receiver_shots = 0;
    for (long n = 0; n < shots; ++n) {
        const double *at = survey ? job->survey.shots[n].position : job->source.position;
        snprintf(what, sizeof what, "%s", survey ? job->survey.shots[n].where : "the source");
        note(&sources, layer_at(job, cpml, at), at, what);
        if (n > 0 && (!moving || (double)receivers.of >= POSITIONS_LOOKED_AT)) continue;
        ++receiver_shots;
        for (long q = 0; q < job->receivers.count; ++q) {
            double pos[3];
            if (survey) sf_survey_receiver_position(job, &job->survey.shots[n], q, pos);
            else memcpy(pos, job->receivers.position[q], sizeof pos);
            if (moving) snprintf(what, sizeof what, "receiver %ld of shot %ld", q + 1, n + 1);
            else snprintf(what, sizeof what, "receiver %ld", q + 1);
            note(&receivers, layer_at(job, cpml, pos), pos, what);
        }
    }
    if (moving && receiver_shots < shots)
        snprintf(looked_at, sizeof looked_at,
                 " (the receivers of the first %ld of %ld shots looked at)", receiver_shots, shots);
    warn_list(job, cpml, survey ? job->survey.mark : job->source.position_mark,
              survey ? "survey" : "source.position", survey ? "shots lie" : "source lies",
              "which damps what they inject from the start", &sources, "");
    warn_list(job, cpml, job->receivers.mark, "receivers",
              moving ? "receiver positions (of the shots) lie" : "receivers lie",
              "where it damps the wavefield, so that their amplitudes mean little", &receivers,
              looked_at);
}
