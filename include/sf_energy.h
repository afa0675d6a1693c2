/* The energy diagnostic of elastic runs (output.energy): the whole grid's
 * kinetic and strain energy after every step, as CSV text. */
#ifndef SF_ENERGY_H
#define SF_ENERGY_H

#include <mpi.h>

/* Collective: rank 0 writes rows (step n, time (n + 1/2) dt, kinetic,
 * strain, total) for n = 0 .. count - 1 from energy[count][2] (joules,
 * summed over ranks on rank 0), under a temporary name renamed when
 * complete. */
void sf_energy_write(const char *path, MPI_Comm comm, long count, double dt,
                     const double *energy);

#endif
