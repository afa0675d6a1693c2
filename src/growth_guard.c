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

static int grew(const sf_growth_field *f)
{
    return f->rises >= SF_GROWTH_CHECKS && f->last >= SF_GROWTH_FACTOR * f->before &&
           f->last >= SF_GROWTH_FLOOR * f->peak;
}

static void describe(const sf_growth_guard *g, int f, const double sums[SF_REGIONS],
                     sf_growth_verdict *v)
{
    const sf_growth_field *s = &g->field[f];
    v->field = f;
    v->checks = s->rises;
    v->from = s->trough_step;
    v->to = g->last_step;
    v->start = g->first_step;
    v->rise = s->last / norm_of(s->trough);
    v->over_start = s->first > 0.0 ? s->last / s->first : INFINITY;
    v->of_peak = s->last / s->peak;
    double total = 0.0, most = -1.0;
    for (int q = 0; q < SF_REGIONS; ++q) {
        const double gain = sums[q] - s->trough[q];
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
    int tripped = -1;
    for (int f = 0; f < fields; ++f) {
        sf_growth_field *s = &g->field[f];
        judge(s, step, sums[f], first);
        if (s->rises > g->longest) g->longest = s->rises;
        if (s->rises > 0 && s->before > 0.0) g->closest = fmax(g->closest, s->last / s->before);
        if (tripped < 0 && grew(s)) tripped = f;
    }
    if (tripped < 0) return 0;
    describe(g, tripped, sums[tripped], v);
    return 1;
}
