/* Checks of a run's outputs before any time step. */
#ifndef SF_OUTPUT_PLAN_H
#define SF_OUTPUT_PLAN_H

#include "sf_simulation.h"

/* Collective: refuses to start when an output exists and overwrite is off,
 * two outputs share a path, a path is too long or a directory, a
 * directory cannot be made or written (sf_output_check_path), or another
 * run holds an output's lock, naming the key and its line. With execute
 * (seisfd run) rank 0 then makes the directories, takes every output's
 * lock for the run (sf_output_unlock_all releases them), removes what
 * killed runs left and tries each temporary file; without (seisfd check)
 * it creates nothing, and gives the same messages. */
void sf_check_outputs(const sf_config *cfg, MPI_Comm comm, int execute);

/* Collective: refuses to start when the outputs would not fit in the free
 * space of the file systems that will hold them (of their nearest
 * existing directories: seisfd check creates none). */
void sf_check_output_space(const sf_simulation *s);

#endif
