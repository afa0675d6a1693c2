/* The physics plug-ins by the kind a job names. */
#include "sf_simulation.h"

const sf_physics_plugin *sf_physics_of(sf_physics kind)
{
    switch (kind) {
    case SF_PHYSICS_ELASTIC: return sf_physics_elastic();
    case SF_PHYSICS_VTI: return sf_physics_vti();
    case SF_PHYSICS_TTI: return sf_physics_tti();
    default: return sf_physics_acoustic();
    }
}
