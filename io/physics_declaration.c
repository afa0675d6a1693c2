/* The questions the job reader asks of a physics' declaration
 * (sf_physics_declaration, each physics' own): which parameters it
 * takes, and the parameters of all physics. */
#include "sf_config.h"
#include "sf_physics_registry.h"

#include <stddef.h>
#include <string.h>

#define PRESSURE_ONLY (1u << SF_COMPONENT_P)

int sf_physics_takes_parameter(sf_physics p, const char *name)
{
    const sf_physics_declaration *d = sf_physics_declared(p);
    for (int n = 0; n < d->nparams; ++n)
        if (strcmp(d->param[n]->name, name) == 0) return 1;
    return 0;
}

/* Whether parameter n of physics p was declared by a physics before it
 * (or earlier in its own list). */
static int declared_before(int p, int n)
{
    const char *name = sf_physics_declared((sf_physics)p)->param[n]->name;
    for (int q = 0; q <= p; ++q) {
        const sf_physics_declaration *d = sf_physics_declared((sf_physics)q);
        for (int m = 0; m < (q < p ? d->nparams : n); ++m)
            if (strcmp(d->param[m]->name, name) == 0) return 1;
    }
    return 0;
}

const char *sf_any_parameter(int n)
{
    int seen = 0;
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        const sf_physics_declaration *d = sf_physics_declared((sf_physics)p);
        for (int m = 0; m < d->nparams; ++m)
            if (!declared_before(p, m) && seen++ == n) return d->param[m]->name;
    }
    return NULL;
}

const sf_physics_declaration *sf_config_physics(const sf_config *c)
{
    return sf_physics_declared(c->physics);
}

int sf_config_component_axis(const sf_config *c)
{
    return sf_config_physics(c)->components != PRESSURE_ONLY;
}
