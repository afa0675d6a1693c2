/* seisfd command line: run a job, check a job, or benchmark. */
#include "sf_bench.h"
#include "sf_config.h"
#include "sf_device.h"
#include "sf_error.h"
#include "sf_output_plan.h"
#include "sf_simulation.h"
#include "sf_version.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char USAGE[] =
    "usage: seisfd run JOB.yaml      run the job and write its gather\n"
    "       seisfd check JOB.yaml    validate the job and print its set-up, without running\n"
    "       seisfd bench [options]   measure copy bandwidth and time-step throughput\n"
    "                                (--device D --physics P --size N --steps S --warmup W\n"
    "                                --order O --cpml C)\n"
    "       seisfd --version         the version, the backends built in and the GPUs visible\n";

static int run_job(const char *path, int execute)
{
    sf_config cfg;
    sf_config_load(path, &cfg);
    if (execute) sf_check_outputs(&cfg, MPI_COMM_WORLD);
    char what[600];
    snprintf(what, sizeof what, "%s: run.device", path);
    const sf_backend_ops *acoustic = NULL;
    const sf_elastic_backend_ops *elastic = NULL;
    if (cfg.physics == SF_PHYSICS_ELASTIC)
        elastic = sf_elastic_backend_choose(cfg.device, what, MPI_COMM_WORLD);
    else
        acoustic = sf_backend_choose(cfg.device, what, MPI_COMM_WORLD);
    sf_simulation sim;
    sf_simulation_setup(&sim, &cfg, MPI_COMM_WORLD, acoustic, elastic);
    sf_simulation_summary(&sim);
    const char *backend = acoustic ? acoustic->name : elastic->name;
    sf_backend_print_placement(!strcmp(backend, "cuda"), MPI_COMM_WORLD);
    if (execute) {
        sf_check_output_space(&sim);
        sf_simulation_run(&sim, 1);
        sf_simulation_write(&sim);
        sf_simulation_report(&sim);
    } else {
        sf_info("seisfd: job '%s' is valid", path);
    }
    sf_simulation_free(&sim);
    sf_config_free(&cfg);
    return 0;
}

int main(int argc, char **argv)
{
    int provided;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "seisfd: error: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    sf_error_set_rank(rank, nranks);

    const char *command = argc > 1 ? argv[1] : "";
    int rc = 0;
    if (!strcmp(command, "run") && argc == 3) {
        rc = run_job(argv[2], 1);
    } else if (!strcmp(command, "check") && argc == 3) {
        rc = run_job(argv[2], 0);
    } else if (!strcmp(command, "bench")) {
        rc = sf_bench_main(argc - 2, argv + 2);
    } else if (!strcmp(command, "--version")) {
        sf_info("seisfd %s", SEISFD_VERSION);
        sf_backend_print_build();
    } else if (!strcmp(command, "--help") || !strcmp(command, "-h")) {
        if (rank == 0) fputs(USAGE, stdout);
    } else {
        if (rank == 0) fputs(USAGE, stderr);
        rc = 2;
    }
    MPI_Finalize();
    return rc;
}
