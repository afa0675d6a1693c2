/* The checks that need the whole job: the absorbing layers leave an
 * interior for the stencil, and the source and receivers lie inside the
 * grid. */
#include "config_sections.h"

#include "grid_bounds.h"
#include "survey_config.h"

#include <stdio.h>

static void check_position(cfg_reader *r, const sf_config *c, const double p[3], sf_mark m,
                           const char *what)
{
    char why[256];
    if (cfg_outside_grid(c, p, why, sizeof why)) cfg_problem(r, m.line, m.column, what, "%s", why);
}

void cfg_check_geometry(cfg_reader *r, const sf_config *c, const cfg_clean_sections *ok)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (!ok->grid) return;
    for (int a = 0; a < 3 && ok->boundaries; ++a) {
        /* Each layer's terms reach a stencil radius past it; the kernels
         * rely on no point lying in one layer and in the other's reach. */
        const int lo = c->cpml[2 * a], hi = c->cpml[2 * a + 1], radius = c->order / 2;
        const long interior = c->n[a] - lo - hi;
        if (interior < radius) {
            char left[48] = "no interior";
            if (interior > 0) snprintf(left, sizeof left, "%ld interior point%s", interior, interior == 1 ? "" : "s");
            /* Layers left at their default are named at the grid's size. */
            const sf_mark at = c->cpml_mark.line ? c->cpml_mark : c->n_mark[a];
            cfg_problem(r, at.line, at.column, "boundaries.cpml",
                        "%cmin + %cmax = %d points leave %s in n%c = %ld; the order-%d stencil "
                        "needs %d (allowed: %cmin + %cmax <= %ld)",
                        axis[a], axis[a], lo + hi, left, axis[a], c->n[a], c->order, radius,
                        axis[a], axis[a], c->n[a] - radius);
        }
    }
    if (c->survey.enabled) {
        if (ok->survey) cfg_check_survey_geometry(r, c, ok->receivers);
        if (c->survey.receivers == SF_RECEIVERS_MOVING) return;
    } else if (ok->source) {
        check_position(r, c, c->source.position, c->source.position_mark, "source.position");
    }
    for (long i = 0; i < c->receivers.count && ok->receivers; ++i) {
        char what[64];
        snprintf(what, sizeof what, "receivers (receiver %ld)", i);
        check_position(r, c, c->receivers.position[i], c->receivers.mark, what);
    }
}
