#include "sf_growth_guard.h"

#include <math.h>
#include <string.h>

void sf_growth_guard_init(sf_growth_guard *g, long start)
{
    memset(g, 0, sizeof *g);
    g->start = start;
}

static double norm_of(const double sums[SF_REGIONS])
{
    double total = 0.0;
    for (int q = 0; q < SF_REGIONS; ++q) total += sums[q];
    return sqrt(total);
}

/* A judged check of one field: a rise extends the run, anything else
 * ends it and becomes the level a later run is measured against. */
static void judge(sf_growth_field *f, long step, const double sums[SF_REGIONS], int first)
{
    const double x = norm_of(sums);
    f->high = fmax(first ? 0.0 : f->high, x);
    if (!first && x > f->last) {
        ++f->rises;
    } else {
        f->rises = 0;
        f->before = f->high;
        f->trough_step = step;
        memcpy(f->trough, sums, sizeof f->trough);
    }
    if (first) f->first = x;
    f->last = x;
}

/* Takes a judged check (judged: its number from 1), whose norm judge has
 * just made f->last, into its window; the last check of a window sets the
 * window's highest against the one before. */
static void judge_window(sf_growth_field *f, long judged, long step, const double sums[SF_REGIONS])
{
    if (f->last > f->window || (judged - 1) % SF_GROWTH_CHECKS == 0) {
        f->window = f->last;
        if (judged <= SF_GROWTH_CHECKS) {
            f->first_window_step = step;
            memcpy(f->first_window_sums, sums, sizeof f->first_window_sums);
        }
    }
    if (judged % SF_GROWTH_CHECKS) return;
    if (judged == SF_GROWTH_CHECKS) {
        f->first_window = f->window;
    } else {
        f->window_rises = f->window > f->last_window ? f->window_rises + 1 : 0;
    }
    f->last_window = f->window;
}

static int grew(const sf_growth_field *f)
{
    return f->rises >= SF_GROWTH_CHECKS && f->last >= SF_GROWTH_FACTOR * f->before &&
           f->last >= SF_GROWTH_FLOOR * f->peak;
}

static int envelope_grew(const sf_growth_field *f, long judged)
{
    return judged % SF_GROWTH_CHECKS == 0 && f->window_rises >= SF_GROWTH_WINDOWS &&
           f->last_window >= SF_GROWTH_FACTOR * f->first_window &&
           f->last_window >= SF_GROWTH_FLOOR * f->peak;
}

/* envelope: the envelope rule's verdict, else the run's. */
static void describe(const sf_growth_guard *g, int f, int envelope, const double sums[SF_REGIONS],
                     sf_growth_verdict *v)
{
    const sf_growth_field *s = &g->field[f];
    const double *from = envelope ? s->first_window_sums : s->trough;
    v->field = f;
    v->checks = s->rises;
    v->windows = envelope ? s->window_rises : 0;
    v->from = envelope ? s->first_window_step : s->trough_step;
    v->to = g->last_step;
    v->start = g->first_step;
    v->rise = s->last / norm_of(from);
    v->over_start = s->first > 0.0 ? s->last / s->first : INFINITY;
    v->of_peak = s->last / s->peak;
    double total = 0.0, most = -1.0;
    for (int q = 0; q < SF_REGIONS; ++q) {
        const double gain = sums[q] - from[q];
        total += gain > 0.0 ? gain : 0.0;
        if (gain > most) most = gain, v->region = (sf_region)q;
    }
    v->share = total > 0.0 ? most / total : 1.0;
}

int sf_growth_guard_observe(sf_growth_guard *g, long step, int fields,
                            const double sums[][SF_REGIONS], sf_growth_verdict *v)
{
    for (int f = 0; f < fields; ++f) g->field[f].peak = fmax(g->field[f].peak, norm_of(sums[f]));
    if (step < g->start || (g->judged > 0 && step - g->last_step < SF_GROWTH_SPACING)) return 0;
    const int first = g->judged++ == 0;
    if (first) g->first_step = step;
    g->last_step = step;
    int tripped = -1, envelope = 0;
    for (int f = 0; f < fields; ++f) {
        sf_growth_field *s = &g->field[f];
        judge(s, step, sums[f], first);
        judge_window(s, g->judged, step, sums[f]);
        if (s->rises > g->longest) g->longest = s->rises;
        if (s->rises > 0 && s->before > 0.0) g->closest = fmax(g->closest, s->last / s->before);
        if (s->first_window > 0.0) g->envelope = fmax(g->envelope, s->last_window / s->first_window);
        if (tripped >= 0) continue;
        if (grew(s)) tripped = f;
        else if (envelope_grew(s, g->judged)) tripped = f, envelope = 1;
    }
    if (tripped < 0) return 0;
    describe(g, tripped, envelope, sums[tripped], v);
    return 1;
}
