#include "sf_energy.h"
#include "sf_error.h"
#include "sf_output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 0, or -1 with reason. */
static int write_rows(const char *partial, long count, double dt, const double *energy,
                      char *reason, size_t len)
{
    FILE *f = fopen(partial, "w");
    if (!f) {
        snprintf(reason, len, "cannot create '%.400s': %s", partial, strerror(errno));
        return -1;
    }
    fprintf(f, "step,time,kinetic,strain,total\n");
    for (long n = 0; n < count; ++n)
        fprintf(f, "%ld,%.9g,%.9e,%.9e,%.9e\n", n, ((double)n + 0.5) * dt, energy[2 * n],
                energy[2 * n + 1], energy[2 * n] + energy[2 * n + 1]);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        snprintf(reason, len, "cannot write '%.400s': %s", partial, strerror(errno));
        return -1;
    }
    return 0;
}

int sf_energy_write(const char *path, MPI_Comm comm, long count, double dt, const double *energy,
                    char *error, size_t len)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    char partial[4200], reason[512] = "";
    sf_output_partial_name(path, partial, sizeof partial);
    int failed = rank == 0 && (sf_output_make_parents(path, reason, sizeof reason) != 0 ||
                               write_rows(partial, count, dt, energy, reason, sizeof reason) != 0);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "sharing an output status");
    if (!failed) return 0;
    SF_MPI_CHECK(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, comm), "sharing an output status");
    snprintf(error, len, "cannot write the energy series '%s': %s", path, reason);
    return -1;
}
