/* The questions the job reader asks of a physics' declaration
 * (sf_physics_declaration, each physics' own), and the names and units
 * of the parameters and components. */
#include "sf_config.h"
#include "sf_physics_registry.h"

#include <stddef.h>

#define PRESSURE_ONLY (1u << SF_COMPONENT_P)

int sf_physics_takes(sf_physics p, sf_parameter q)
{
    const sf_physics_declaration *d = sf_physics_declared(p);
    for (int n = 0; n < d->nparams; ++n)
        if (d->param[n] == q) return 1;
    return 0;
}

const char *sf_parameter_name(sf_parameter p)
{
    static const char *const names[SF_PARAMS] = {"vp", "vs", "rho", "epsilon", "delta", "theta",
                                                 "phi"};
    return (unsigned)p < SF_PARAMS ? names[p] : "?";
}

const char *sf_parameter_unit(sf_parameter p)
{
    static const char *const units[SF_PARAMS] = {"m/s", "m/s", "kg/m^3", "", "", "degrees",
                                                 "degrees"};
    return (unsigned)p < SF_PARAMS ? units[p] : "";
}

const sf_physics_declaration *sf_config_physics(const sf_config *c)
{
    return sf_physics_declared(c->physics);
}

int sf_config_component_axis(const sf_config *c)
{
    return sf_config_physics(c)->components != PRESSURE_ONLY;
}
