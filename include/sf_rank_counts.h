/* The rank counts a job takes: a shot's ranks (all of them, or a survey's
 * survey.ranks_per_shot) cut grid.nz into slabs of at least SF_HALO
 * planes, and a survey's groups are all of one size. `seisfd check` alone
 * checks what no rank count mends and says which counts the job takes;
 * `run`, `check --ranks N` and `check` under mpirun check one count. */
#ifndef SF_RANK_COUNTS_H
#define SF_RANK_COUNTS_H

#include "sf_config.h"

/* The most ranks one shot can take. */
int sf_ranks_most_per_shot(const sf_config *c);

/* Reports on rank 0, each at its key, why the job cannot run on `ranks`
 * ranks (0: any count; then only what fails every count):
 * survey.ranks_per_shot not dividing them, and the slabs of a shot's ranks
 * where they are more than this process's set-up has (a check without
 * mpirun), since the set-up checks the slabs of its own ranks, together
 * with their memory. Returns the number of problems. */
int sf_ranks_check(const sf_config *c, int ranks);

/* Slabs of the equal cut of `ranks` ranks thinner than SF_HALO planes:
 * reported on rank 0 at grid.nz; 1, else 0. */
int sf_ranks_check_slabs(const sf_config *c, int ranks);

/* Rank 0's line of a check's set-up: the rank counts the job takes, and
 * the count it was checked for (0: none in particular). */
void sf_ranks_print(const sf_config *c, int ranks);

#endif
