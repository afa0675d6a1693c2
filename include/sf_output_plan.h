/* Checks of a run's outputs before any time step. */
#ifndef SF_OUTPUT_PLAN_H
#define SF_OUTPUT_PLAN_H

#include "sf_simulation.h"

/* How far sf_check_outputs goes: only look (seisfd check); before the
 * set-up, claim the outputs whose directory exists and look at the
 * others; once the set-up has passed, claim every output. */
typedef enum { SF_OUTPUTS_LOOK, SF_OUTPUTS_CLAIM_EXISTING, SF_OUTPUTS_CLAIM_ALL } sf_outputs_stage;

/* Collective: refuses to start when an output exists and overwrite is off,
 * two outputs share a path, a path is too long or a directory, a
 * directory cannot be made or written (sf_output_check_path), or another
 * run holds an output's lock, naming the key and its line. To claim an
 * output, rank 0 makes its directories, takes its lock for the run
 * (sf_output_unlock_all releases them), removes what killed runs left
 * and tries its temporary file; only looking creates nothing, and gives
 * the same messages. So a run refused at its set-up (memory, model)
 * makes no directory. */
void sf_check_outputs(const sf_config *cfg, MPI_Comm comm, sf_outputs_stage stage);

/* Collective: refuses to start when the outputs would not fit in the free
 * space of the file systems that will hold them (of their nearest
 * existing directories: seisfd check creates none). */
void sf_check_output_space(const sf_simulation *s);

#endif
