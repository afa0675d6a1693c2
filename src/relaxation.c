/* The standard linear solids' law for a time step (sf_relaxation.h). */
#include "sf_relaxation.h"

#include <math.h>

sf_relaxation_law sf_relaxation_law_for_step(const sf_relaxation_medium *r, double dt)
{
    sf_relaxation_law law = {.mechanisms = r->mechanisms, .intervals = r->intervals, .coarse = r->coarse,
                             .weight = r->weight};
    for (int l = 0; l < r->mechanisms; ++l) law.decay[l] = (float)exp(-dt / r->tau[l]);
    return law;
}
