/* seisfd command line: run a job, check a job, or benchmark. */
#include "sf_bench.h"
#include "sf_config.h"
#include "sf_device.h"
#include "sf_error.h"
#include "sf_gpu_aware_mpi.h"
#include "sf_interrupt.h"
#include "sf_jobs.h"
#include "sf_output.h"
#include "sf_thread_count.h"
#include "sf_version.h"

#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char USAGE[] =
    "usage: seisfd run JOB.yaml      run the job and write its gather(s)\n"
    "       seisfd run --restart resume|fresh JOB.yaml\n"
    "                                a survey: resume from its manifest (the default), or\n"
    "                                start over computing every shot\n"
    "       seisfd check JOB.yaml    validate the job and print its set-up, without running\n"
    "       seisfd bench [options]   measure copy bandwidth and time-step throughput\n"
    "                                (--device D --gpu-aware-mpi auto|on|off --physics P\n"
    "                                --size N --nz NZ --steps S --warmup W --order O --cpml C\n"
    "                                --cpml-z CZ --slabs balanced|equal --check-every K\n"
    "                                --report FILE; or --exchange: MPI between GPUs; or\n"
    "                                --plane-costs: this device's row of the cost table)\n"
    "       seisfd --version         the version, the backends built in and the GPUs visible\n";

static int run_job(const char *path, int execute, int fresh)
{
    sf_config cfg;
    sf_config_load(path, &cfg);
    if (fresh && !cfg.survey.enabled)
        sf_fail_collective("--restart is for surveys (a job with a survey: section); '%s' is a "
                           "single shot",
                           path);
    int rc = cfg.survey.enabled ? sf_survey_main(&cfg, execute, fresh)
                                : sf_single_shot_main(&cfg, execute);
    sf_config_free(&cfg);
    return rc;
}

/* `run [--restart resume|fresh] JOB`: 0 and the job and mode, or -1. */
static int parse_run(int argc, char **argv, const char **job, int *fresh)
{
    *fresh = 0;
    if (argc == 3) {
        *job = argv[2];
        return 0;
    }
    if (argc != 5 || strcmp(argv[2], "--restart")) return -1;
    if (strcmp(argv[3], "fresh") && strcmp(argv[3], "resume")) return -1;
    *fresh = !strcmp(argv[3], "fresh");
    *job = argv[4];
    return 0;
}

int main(int argc, char **argv)
{
    int provided;
    /* Read by Open MPI's UCX during MPI_Init, before the halo path is chosen. */
    sf_gpu_aware_prepare_ucx();
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "seisfd: error: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Beyond a file size limit a write should fail (EFBIG) with a message
     * naming the file, not kill the rank. */
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR) {
        fprintf(stderr, "seisfd: error: cannot ignore SIGXFSZ: %s\n", strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    sf_error_set_rank(rank, nranks);
    sf_output_init(MPI_COMM_WORLD);

    const char *command = argc > 1 ? argv[1] : "", *job = NULL;
    int rc = 0, fresh = 0;
    /* Before any OpenMP region; check too, so that its set-up summary
     * shows the threads a run would take. */
    if (!strcmp(command, "run") || !strcmp(command, "check") || !strcmp(command, "bench"))
        sf_thread_count_init(MPI_COMM_WORLD);
    if (!strcmp(command, "run") && parse_run(argc, argv, &job, &fresh) == 0) {
        /* Only a run has files to leave clean; check and bench end as before. */
        sf_interrupt_install();
        rc = run_job(job, 1, fresh);
    } else if (!strcmp(command, "check") && argc == 3) {
        rc = run_job(argv[2], 0, 0);
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
