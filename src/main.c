/* seisfd command line: run a job, check a job, or benchmark. Help,
 * --version and mistakes in the arguments are answered from argv alone,
 * before MPI starts (which takes a second or more). */
#include "sf_bench.h"
#include "sf_command_line.h"
#include "sf_config.h"
#include "sf_device.h"
#include "sf_error.h"
#include "sf_gpu_aware_mpi.h"
#include "sf_interrupt.h"
#include "sf_job_keys.h"
#include "sf_jobs.h"
#include "sf_output.h"
#include "sf_rank_counts.h"
#include "sf_thread_count.h"
#include "sf_version.h"

#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Launchers tell each process its rank in the environment before it
 * starts: -1 for a process started alone. Read before MPI_Init, which sets
 * such variables in a process started alone too. */
static int launched_rank(void)
{
    static const char *const variables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (int v = 0; v < 3; ++v) {
        const char *rank = getenv(variables[v]);
        if (rank) return (int)strtol(rank, NULL, 10);
    }
    return -1;
}

/* The rank count a job is checked for: a run's ranks, check --ranks N, the
 * ranks of a check under a launcher, or 0 for a check alone (any count). */
static int ranks_to_check(const sf_command *command, int nranks, int launched)
{
    if (command->kind == SF_COMMAND_RUN) return nranks;
    if (command->ranks > 0 && launched && command->ranks != nranks)
        sf_fail_collective("check: --ranks %d differs from the %d rank%s mpirun started; check "
                           "under mpirun, or with --ranks alone",
                           command->ranks, nranks, nranks == 1 ? "" : "s");
    if (command->ranks > 0) return command->ranks;
    return launched ? nranks : 0;
}

static int run_job(const sf_command *command, int nranks, int launched)
{
    sf_job_request request = {.execute = command->kind == SF_COMMAND_RUN,
                              .fresh = command->fresh,
                              .ranks = ranks_to_check(command, nranks, launched)};
    sf_config cfg;
    sf_config_load(command->job, &cfg);
    if (request.fresh && !cfg.survey.enabled)
        sf_fail_collective("--restart is for surveys (a job with a survey: section); '%s' is a "
                           "single shot",
                           command->job);
    if (sf_ranks_check(&cfg, request.ranks)) sf_exit_collective();
    int rc = cfg.survey.enabled ? sf_survey_main(&cfg, &request)
                                : sf_single_shot_main(&cfg, &request);
    sf_config_free(&cfg);
    return rc;
}

/* Collective over MPI_COMM_WORLD: the command's work (launched: whether a
 * launcher started the process). */
static int run_command(const sf_command *command, int launched)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Beyond a file size limit a write should fail (EFBIG) with a message
     * naming the file, not kill the rank. */
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR) {
        fprintf(stderr, "seisfd: error: cannot ignore SIGXFSZ: %s\n", strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank, nranks;
    SF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "starting");
    SF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "starting");
    sf_error_set_rank(rank, nranks);
    sf_output_init(MPI_COMM_WORLD);
    /* Before any OpenMP region; check too, so that its set-up summary
     * shows the threads a run would take. */
    sf_thread_count_init(MPI_COMM_WORLD);
    if (command->kind == SF_COMMAND_BENCH) return sf_bench_main(&command->bench);
    /* Only a run has files to leave clean; check ends as before. */
    if (command->kind == SF_COMMAND_RUN) sf_interrupt_install();
    return run_job(command, nranks, launched);
}

/* What needs no MPI: 0 for help and --version, 2 for a mistake (with the
 * usage it concerns), -1 for a command to run. */
static int answer_without_mpi(const sf_command *command)
{
    /* Under a launcher every rank reads the same arguments: the first answers. */
    if (command->kind != SF_COMMAND_RUN && command->kind != SF_COMMAND_CHECK &&
        command->kind != SF_COMMAND_BENCH && launched_rank() > 0)
        return command->kind == SF_COMMAND_MISUSED ? 2 : 0;
    switch (command->kind) {
    case SF_COMMAND_HELP:
        sf_command_usage(command->topic, stdout);
        return 0;
    case SF_COMMAND_KEYS:
        sf_job_keys_print(stdout);
        return 0;
    case SF_COMMAND_VERSION:
        sf_info("seisfd %s", SEISFD_VERSION);
        sf_backend_print_build();
        return 0;
    case SF_COMMAND_MISUSED:
        fprintf(stderr, "seisfd: error: %s%s%s\n\n", command->topic ? command->topic : "",
                command->topic ? ": " : "", command->why);
        sf_command_usage(command->topic, stderr);
        return 2;
    default:
        return -1;
    }
}

int main(int argc, char **argv)
{
    sf_command command;
    sf_command_parse(argc, argv, &command);
    int rc = answer_without_mpi(&command);
    if (rc >= 0) return rc;
    const int launched = launched_rank() >= 0;
    int provided;
    /* Read by Open MPI's UCX during MPI_Init, before the halo path is chosen. */
    sf_gpu_aware_prepare_ucx();
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "seisfd: error: MPI_Init failed\n");
        return 1;
    }
    rc = run_command(&command, launched);
    MPI_Finalize();
    return rc;
}
