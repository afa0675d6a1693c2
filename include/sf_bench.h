/* `seisfd bench`: memory copy bandwidth and the full acoustic time step
 * on a cubic grid, in one process (or one MPI job, decomposed along z). */
#ifndef SF_BENCH_H
#define SF_BENCH_H

#include "sf_backend.h"

int sf_bench_main(int argc, char **argv, const sf_backend_ops *ops);

#endif
