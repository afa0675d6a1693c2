/* A job of one shot: the outputs checked, the set-up printed, the time
 * loop, the gather, the timing table and the run report. */
#include "sf_device.h"
#include "sf_error.h"
#include "sf_interrupt.h"
#include "sf_jobs.h"
#include "sf_json.h"
#include "sf_output.h"
#include "sf_output_plan.h"
#include "sf_rank_counts.h"
#include "sf_shot_report.h"

#include <stdio.h>
#include <string.h>

static void write_report(const sf_config *cfg, sf_simulation *sim, const sf_placement *placement,
                         const char *started, double wall_started, const sf_shot_result *shot)
{
    char path[4200];
    if (cfg->report_path)
        snprintf(path, sizeof path, "%s", cfg->report_path);
    else
        sf_report_default_path(cfg->gather_path, path, sizeof path);
    sf_run_report report = {
        .command = "run", .job_path = cfg->source_path, .job_hash = cfg->hash, .cfg = cfg,
        .dt = sim->dt, .steps = sim->steps, .placement = placement, .ranks = sim->slab.nranks,
        .ranks_per_shot = sim->slab.nranks, .groups = 1, .shots = shot, .nshots = 1,
        .stop = sim->stop};
    snprintf(report.started, sizeof report.started, "%s", started);
    sf_utc_time(report.finished);
    report.wall_seconds = sf_now() - wall_started;
    report.compute_seconds = sim->loop_seconds;
    sf_run_report_finish(&report, path, MPI_COMM_WORLD, 0, sim);
}

/* The message of a shot a signal stopped (reason: rank 0's) and the
 * exit status. */
static int interrupted(int stop, const char *reason)
{
    sf_interrupt_message("%s; no outputs written, earlier files left as they were%s", reason,
                         sf_interrupt_kind(stop) == SF_STOP_AFTER_SHOT
                             ? " (a single shot cannot finish early: SIGUSR1 stops it as SIGTERM "
                               "does)"
                             : "");
    return sf_interrupt_exit_status(stop);
}

int sf_single_shot_main(const sf_config *cfg, const sf_job_request *job)
{
    const int execute = job->execute;
    char started[32];
    sf_utc_time(started);
    double wall_started = sf_now();
    sf_check_outputs(cfg, MPI_COMM_WORLD, execute ? SF_OUTPUTS_CLAIM_EXISTING : SF_OUTPUTS_LOOK);
    sf_placement_request request;
    sf_placement_request_of(cfg, &request);
    sf_placement placement;
    sf_placement_choose(&request, MPI_COMM_WORLD, &placement);
    sf_simulation sim;
    sf_simulation_setup(&sim, cfg, MPI_COMM_WORLD, &placement, 1.0);
    sf_simulation_summary(&sim);
    sf_placement_print(&placement, MPI_COMM_WORLD);
    sf_check_output_space(&sim);
    if (!execute) {
        sf_ranks_print(cfg, job->ranks);
        sf_info("seisfd: job '%s' is valid", cfg->source_path);
        sf_simulation_free(&sim);
        return 0;
    }
    sf_check_outputs(cfg, MPI_COMM_WORLD, SF_OUTPUTS_CLAIM_ALL);
    double shot_started = sf_now();
    int failed = sf_simulation_run(&sim, 1) != 0;
    if (!failed) sf_simulation_guard_summary(&sim);
    if (!failed) failed = sf_simulation_write(&sim) != 0;
    failed = sf_simulation_finish(&sim, failed, 0) != 0;
    sf_simulation_report(&sim);
    sf_shot_result shot;
    sf_shot_result_fill(&sim, failed, 1, 0, shot_started, &shot);
    write_report(cfg, &sim, &placement, started, wall_started, &shot);
    sf_output_unlock_all();
    int stop = sim.stop;
    sf_simulation_free(&sim);
    if (stop) return interrupted(stop, shot.reason);
    if (failed) sf_fail_collective("%s", shot.reason);
    return 0;
}
