/* The acoustic physics' stages, which are also its halo groups: a time
 * step updates the CPML memory variables (whose z ones are exchanged
 * where a slab boundary lies in a z layer), then advances the pressure
 * to the next time level (exchanged), and ends by making that level the
 * current one (and its images above a free surface). */
#ifndef SF_ACOUSTIC_H
#define SF_ACOUSTIC_H

#include "sf_parameter_declaration.h"

enum { SF_ACOUSTIC_MEMORY, SF_ACOUSTIC_ADVANCE, SF_ACOUSTIC_STAGES };
enum { SF_HALO_CPML_Z = SF_ACOUSTIC_MEMORY, SF_HALO_WAVEFIELD = SF_ACOUSTIC_ADVANCE };

/* The P-wave velocity as the acoustic physics declares it; the physics
 * that build on its pressure (VTI, TTI) and the elastic one take the same. */
extern const sf_parameter_declaration SF_ACOUSTIC_VP;
/* Its one parameter's index in sf_problem.param. */
enum { SF_ACOUSTIC_PARAM_VP };

#endif
