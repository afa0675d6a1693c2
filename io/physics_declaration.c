/* What each physics takes from a job file. A new physics adds its line
 * here and its plug-in (sf_simulation.h); the job reader follows. */
#include "sf_config.h"

#include <stddef.h>

#define BIT(x) (1u << (x))
#define PRESSURE_ONLY BIT(SF_COMPONENT_P)
/* The pressure-like field of the acoustic equations answers a source of
 * unit amplitude with s(t - r/v) / (4 pi r): per metre. */
#define PER_AMPLITUDE_PER_METRE "per unit source amplitude per metre"
#define VELOCITY_PER_AMPLITUDE "m/s per unit source amplitude"
#define PSEUDO_ACOUSTIC_P "horizontal stress p of the pseudo-acoustic system"

static const sf_physics_declaration DECLARED[SF_PHYSICS_KINDS] = {
    [SF_PHYSICS_ACOUSTIC] = {"acoustic", 1, {SF_PARAM_VP}, BIT(SF_SOURCE_PRESSURE),
                             SF_SOURCE_PRESSURE, PRESSURE_ONLY, PRESSURE_ONLY, 0,
                             .quantity = {[SF_COMPONENT_P] = "pressure"},
                             .units = {[SF_COMPONENT_P] = PER_AMPLITUDE_PER_METRE}},
    [SF_PHYSICS_ELASTIC] = {"elastic", 3, {SF_PARAM_VP, SF_PARAM_VS, SF_PARAM_RHO},
                            BIT(SF_SOURCE_EXPLOSIVE) | BIT(SF_SOURCE_FORCE) | BIT(SF_SOURCE_MOMENT),
                            SF_SOURCE_EXPLOSIVE,
                            BIT(SF_COMPONENT_VX) | BIT(SF_COMPONENT_VY) | BIT(SF_COMPONENT_VZ) |
                                BIT(SF_COMPONENT_P),
                            BIT(SF_COMPONENT_VX) | BIT(SF_COMPONENT_VY) | BIT(SF_COMPONENT_VZ), 1,
                            .quantity = {[SF_COMPONENT_VX] = "particle velocity vx",
                                         [SF_COMPONENT_VY] = "particle velocity vy",
                                         [SF_COMPONENT_VZ] = "particle velocity vz",
                                         [SF_COMPONENT_P] = "pressure"},
                            .units = {[SF_COMPONENT_VX] = VELOCITY_PER_AMPLITUDE,
                                      [SF_COMPONENT_VY] = VELOCITY_PER_AMPLITUDE,
                                      [SF_COMPONENT_VZ] = VELOCITY_PER_AMPLITUDE,
                                      [SF_COMPONENT_P] = "Pa per unit source amplitude"}},
    [SF_PHYSICS_VTI] = {"vti", 3, {SF_PARAM_VP, SF_PARAM_EPSILON, SF_PARAM_DELTA},
                        BIT(SF_SOURCE_PRESSURE), SF_SOURCE_PRESSURE, PRESSURE_ONLY, PRESSURE_ONLY,
                        0,
                        .quantity = {[SF_COMPONENT_P] = PSEUDO_ACOUSTIC_P},
                        .units = {[SF_COMPONENT_P] = PER_AMPLITUDE_PER_METRE}},
    [SF_PHYSICS_TTI] = {"tti", 5,
                        {SF_PARAM_VP, SF_PARAM_EPSILON, SF_PARAM_DELTA, SF_PARAM_THETA,
                         SF_PARAM_PHI},
                        BIT(SF_SOURCE_PRESSURE), SF_SOURCE_PRESSURE, PRESSURE_ONLY, PRESSURE_ONLY,
                        0,
                        .quantity = {[SF_COMPONENT_P] = PSEUDO_ACOUSTIC_P},
                        .units = {[SF_COMPONENT_P] = PER_AMPLITUDE_PER_METRE}},
};

const sf_physics_declaration *sf_physics_declared(sf_physics p)
{
    return (unsigned)p < SF_PHYSICS_KINDS ? &DECLARED[p] : &DECLARED[SF_PHYSICS_ACOUSTIC];
}

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
