/* Checks of a run's outputs before any time step. */
#ifndef SF_OUTPUT_PLAN_H
#define SF_OUTPUT_PLAN_H

#include "sf_simulation.h"

/* Collective: refuses to start when an output exists and overwrite is off,
 * two outputs share a path, or a directory cannot be made or written. */
void sf_check_outputs(const sf_config *cfg, MPI_Comm comm);

/* Collective: refuses to start when the outputs would not fit in the free
 * space of the file systems that will hold them. */
void sf_check_output_space(const sf_simulation *s);

#endif
