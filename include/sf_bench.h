/* `seisfd bench`: memory copy bandwidth and the full acoustic or elastic
 * time step on a cubic grid, in one process (or one MPI job, decomposed
 * along z). */
#ifndef SF_BENCH_H
#define SF_BENCH_H

/* Collective: parses the options after `bench`, chooses the backend
 * (--device, --physics) and prints the measurements on rank 0. */
int sf_bench_main(int argc, char **argv);

#endif
