/* Whether a point lies inside a job's grid: every source, receiver and
 * shot position must, so that the interpolation weights are defined. */
#include "grid_bounds.h"

#include <stdio.h>

int cfg_outside_grid(const sf_config *c, const double p[3], char *why, size_t len)
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; ++a) {
        double lo = c->origin[a], hi = c->origin[a] + (double)(c->n[a] - 1) * c->spacing[a];
        if (p[a] < lo - 1e-9 * c->spacing[a] || p[a] > hi + 1e-9 * c->spacing[a]) {
            /* Nine digits: a point just past the edge is not shown on it. */
            snprintf(why, len, "%c = %.9g m lies outside the grid (allowed: %.9g <= %c <= %.9g "
                     "m)", axis[a], p[a], lo, axis[a], hi);
            return 1;
        }
    }
    return 0;
}
