/* The energy diagnostic of elastic runs (output.energy): the whole grid's
 * kinetic and strain energy after every step, as CSV text. */
#ifndef SF_ENERGY_H
#define SF_ENERGY_H

#include <mpi.h>
#include <stddef.h>

/* Collective: rank 0 writes rows (step n, time (n + 1/2) dt, kinetic,
 * strain, total) for n = 0 .. count - 1 from energy[count][2] (joules,
 * summed over ranks on rank 0), under path's temporary name (the
 * caller's sf_output_set puts it in place). 0, or -1 with the reason on
 * every rank. */
int sf_energy_write(const char *path, MPI_Comm comm, long count, double dt, const double *energy,
                    char *error, size_t len);

#endif
