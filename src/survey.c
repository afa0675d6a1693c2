/* A survey as one job: groups of ranks, each with the model read once,
 * working through the shots world rank 0 hands out; each shot's gather
 * written under its own name, recorded in the manifest; a run report at
 * the end; a non-zero exit when any shot failed. */
#include "sf_device.h"
#include "sf_error.h"
#include "sf_interrupt.h"
#include "sf_jobs.h"
#include "sf_json.h"
#include "sf_output.h"
#include "sf_rank_counts.h"
#include "sf_shot_report.h"
#include "sf_shots.h"
#include "sf_survey.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every rank of a survey keeps. */
typedef struct {
    const sf_config *job;
    const sf_job_request *request;
    int world_rank, world_size, ranks_per_shot, groups, group;
    MPI_Comm group_comm;      /* the ranks of this group: one slab decomposition */
    MPI_Comm dispatch;        /* a duplicate of MPI_COMM_WORLD for shot requests */
    sf_placement placement;   /* chosen over the world: every group alike */
    sf_simulation sim;
    sf_shot_job first;        /* shot 1: the set-up's shot */
    sf_shot_job shot;         /* the shot being computed */
    sf_dispatcher dispatcher; /* world rank 0 */
    sf_dispatch_listener listener;   /* the other groups' leaders */
    int stop;                 /* world rank 0: the signal request that left shots undone, or 0 */
    sf_manifest manifest;     /* world rank 0 */
    sf_shot_result *plan;     /* world rank 0: per shot */
    double compute_seconds;   /* world rank 0: from the first shot handed out to the last result */
    char unrecorded[1024];    /* world rank 0: why the manifest misses this run's results, or "" */
} survey;

static void split_groups(survey *sv)
{
    const sf_config *job = sv->job;
    SF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &sv->world_rank), "splitting the survey");
    SF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &sv->world_size), "splitting the survey");
    sv->ranks_per_shot = job->survey.ranks_per_shot ? job->survey.ranks_per_shot : sv->world_size;
    /* Only a check comes here with fewer ranks than a shot takes (a run's
     * count is checked first, sf_ranks_check): it sets a shot up on the
     * ranks it has. */
    if (sv->ranks_per_shot > sv->world_size) sv->ranks_per_shot = sv->world_size;
    sv->groups = sv->world_size / sv->ranks_per_shot;
    /* Consecutive ranks form a group: launchers place them on one node. */
    sv->group = sv->world_rank / sv->ranks_per_shot;
    SF_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, sv->group, sv->world_rank, &sv->group_comm),
                 "splitting the ranks into groups");
    SF_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &sv->dispatch), "duplicating the world communicator");
}

/* The shot of widest band, when it is wider than shot 1's (whose
 * dispersion the set-up checked already). */
static void check_frequencies(const survey *sv)
{
    long number;
    const sf_wavelet_spec *top = sf_widest_band_wavelet(sv->job, &number);
    if (top->built->upper_frequency <= sv->first.cfg.source.wavelet.built->upper_frequency) return;
    sf_simulation_check_wavelet(&sv->sim, top, number);
}

/* Every shot's coordinates must fit SEG-Y's integers (they differ from
 * shot to shot); known before any shot runs. */
static void check_segy(survey *sv)
{
    const sf_config *job = sv->job;
    if (!job->survey_segy) return;
    int coarse = 0;
    for (long n = 0; n < job->survey.count; ++n) {
        sf_shot_job shot;
        sf_shot_job_make(job, n, &shot);
        sf_segy_plan plan;
        char reason[512];
        int failed = sf_simulation_segy_plan(&sv->sim, &shot.cfg, &plan, reason, sizeof reason);
        sf_shot_job_free(&shot);
        if (failed) {
            sf_config_report(job, job->segy_mark, "output.segy: shot %ld: %s", n + 1, reason);
            sf_exit_collective();
        }
        coarse |= plan.coordinate_scalar != SF_SEGY_CENTIMETRES ||
                  plan.elevation_scalar != SF_SEGY_CENTIMETRES;
    }
    if (coarse)
        sf_warn("%s:%d:%d: output.segy: coordinates of some shots too large for centimetres in "
                "32 bits; their SEG-Y files store coarser scalars (see the headers)",
                job->source_path, job->segy_mark.line, job->segy_mark.column);
}

/* A survey's leader gathers a shot's traces in one MPI message. */
static void check_gather_size(const survey *sv)
{
    const sf_config *job = sv->job;
    double samples = (double)job->receivers.count * (double)job->receivers.ncomponents *
                     (double)sv->sim.resampler.nsamples;
    if (samples <= (double)INT_MAX) return;
    sf_config_report(job, job->output_directory_mark,
                     "output.directory: a shot's gather of %.4g samples exceeds the %d that a "
                     "survey's group leader gathers and writes; use fewer receivers or samples",
                     samples, INT_MAX);
    sf_exit_collective();
}

static void print_survey(const survey *sv)
{
    const sf_config *job = sv->job;
    char first[64], last[64];
    sf_shot_file_name(job, 1, "h5", first, sizeof first);
    sf_shot_file_name(job, job->survey.count, "h5", last, sizeof last);
    /* The groups of the count run or checked for; a check for no count in
     * particular gives their size alone. */
    const int ranks = sv->request->ranks;
    const int per_shot = job->survey.ranks_per_shot ? job->survey.ranks_per_shot : ranks;
    char groups[96];
    if (ranks > 0)
        snprintf(groups, sizeof groups, "%d group%s of %d rank%s", ranks / per_shot,
                 ranks / per_shot == 1 ? "" : "s", per_shot, per_shot == 1 ? "" : "s");
    else if (per_shot > 0)
        snprintf(groups, sizeof groups, "groups of %d rank%s", per_shot, per_shot == 1 ? "" : "s");
    else
        snprintf(groups, sizeof groups, "one group of all ranks");
    sf_info("  survey            %ld shots, receivers %s, %s (survey.ranks_per_shot)",
            job->survey.count, job->survey.receivers == SF_RECEIVERS_MOVING ? "moving with the "
                                                                              "source" : "fixed",
            groups);
    sf_info("  outputs           %s/%s .. %s%s, manifest.jsonl", job->output_directory, first,
            last, job->survey_segy ? " and SEG-Y" : "");
    sf_info("  job hash          %s; instability check every %ld steps%s", job->hash,
            job->check_every, job->check_every ? "" : " (off)");
}

static void set_up(survey *sv)
{
    split_groups(sv);
    sf_placement_request request;
    sf_placement_request_of(sv->job, &request);
    sf_placement_choose(&request, MPI_COMM_WORLD, &sv->placement);
    sf_shot_job_make(sv->job, 0, &sv->first);
    /* The group's share of the shots, each stepped on this set-up. */
    double shots = fmax(1.0, ceil((double)sv->job->survey.count / sv->groups));
    sf_simulation_setup(&sv->sim, &sv->first.cfg, sv->group_comm, &sv->placement, shots);
    sv->sim.quiet = 1;
    sv->sim.stops_on = SF_STOP_NOW;   /* SIGUSR1 lets the shots under way finish */
    sf_simulation_summary(&sv->sim);
    sf_placement_print(&sv->placement, MPI_COMM_WORLD);
    check_frequencies(sv);
    check_segy(sv);
    check_gather_size(sv);
    print_survey(sv);
}

/* The group agrees on its signal request, the leader asks with it (world
 * rank 0 asks itself), the group learns. */
static long next_shot(survey *sv)
{
    long shot = -1;
    int leader = sv->world_rank % sv->ranks_per_shot == 0;
    int request = sf_interrupt_agree(sv->group_comm);
    if (sv->world_rank == 0) {
        sf_dispatch_poll(&sv->dispatcher);   /* hears the group's request, now rank 0's */
        shot = sf_dispatch_assign(&sv->dispatcher, sv->group);
    } else if (leader) {
        shot = sf_dispatch_request(&sv->listener, sv->group, request);
    }
    SF_MPI_CHECK(MPI_Bcast(&shot, 1, MPI_LONG, 0, sv->group_comm), "sharing the next shot");
    return shot;
}

static void run_shot(survey *sv, long index)
{
    double started = sf_now();
    sf_shot_job_free(&sv->shot);
    sf_shot_job_make(sv->job, index, &sv->shot);
    sf_simulation_begin_shot(&sv->sim, &sv->shot.cfg);
    int failed = sf_simulation_run(&sv->sim, 0) != 0;
    if (!failed) failed = sf_simulation_write(&sv->sim) != 0;
    failed = sf_simulation_finish(&sv->sim, failed, 1) != 0;
    sf_shot_result r;
    sf_shot_result_fill(&sv->sim, failed, index + 1, sv->group, started, &r);
    if (sv->world_rank == 0)
        sf_dispatch_record(&sv->dispatcher, &r);
    else if (sv->world_rank % sv->ranks_per_shot == 0)
        sf_dispatch_send_result(sv->dispatch, &r);
}

static void run_shots(survey *sv)
{
    if (sv->world_rank == 0) {
        sf_dispatch_start(&sv->dispatcher, sv->job, sv->dispatch, sv->groups, sv->ranks_per_shot,
                          sv->plan, &sv->manifest);
        sv->sim.between_steps = sf_dispatch_poll;
        sv->sim.between_steps_arg = &sv->dispatcher;
    } else if (sv->world_rank % sv->ranks_per_shot == 0) {
        sv->listener.comm = sv->dispatch;
        sv->sim.between_steps = sf_dispatch_listen;
        sv->sim.between_steps_arg = &sv->listener;
    }
    for (long shot; (shot = next_shot(sv)) >= 0;) run_shot(sv, shot);
    if (sv->world_rank == 0) {
        sf_dispatch_serve(&sv->dispatcher);
        sv->stop = sf_dispatch_stopped(&sv->dispatcher);
        sv->compute_seconds = sf_now() - sv->dispatcher.started;
        if (sf_dispatch_end(&sv->dispatcher, sv->unrecorded, sizeof sv->unrecorded) == 0)
            sv->unrecorded[0] = '\0';
    }
}

static void write_report(survey *sv, const char *started, double wall_started)
{
    const sf_config *job = sv->job;
    char path[4200];
    if (job->report_path)
        snprintf(path, sizeof path, "%s", job->report_path);
    else
        snprintf(path, sizeof path, "%.4000s/report.json", job->output_directory);
    sf_run_report report = {
        .command = "run", .job_path = job->source_path, .job_hash = job->hash, .cfg = job,
        .dt = sv->sim.dt, .steps = sv->sim.steps, .placement = &sv->placement,
        .ranks = sv->world_size, .ranks_per_shot = sv->ranks_per_shot, .groups = sv->groups, .shots = sv->plan,
        .nshots = job->survey.count, .stop = sv->stop};
    snprintf(report.started, sizeof report.started, "%s", started);
    sf_utc_time(report.finished);
    report.wall_seconds = sf_now() - wall_started;
    report.compute_seconds = sv->compute_seconds;
    sf_run_report_finish(&report, path, MPI_COMM_WORLD, sv->group, &sv->sim);
}

/* World rank 0: what a signal left undone, in the one message of an
 * interrupted survey. */
static void print_interrupted(const survey *sv)
{
    const sf_dispatcher *d = &sv->dispatcher;
    long pending = 0;
    for (long n = 0; n < d->shots; ++n) pending += d->results[n].status == SF_SHOT_PENDING;
    sf_interrupt_message(
        "interrupted by %s%s: %ld shot%s done in this run, %ld skipped (done earlier), %ld "
        "failed, %ld stopped (their new files removed, earlier ones left as they were), %ld not "
        "started, of %ld; the manifest records the shots done, and a re-run computes the rest",
        sf_interrupt_signal_name(sv->stop),
        sf_interrupt_kind(sv->stop) == SF_STOP_AFTER_SHOT ? " once the shots under way were done"
                                                          : "",
        d->done, d->done == 1 ? "" : "s", d->skipped, d->failed, d->interrupted, pending,
        d->shots);
}

/* World rank 0: the last lines; returns the number of failures (failed
 * shots, and a manifest that does not record the run). */
static long print_outcome(const survey *sv)
{
    const sf_dispatcher *d = &sv->dispatcher;
    if (sv->stop)
        print_interrupted(sv);
    else
        sf_info("seisfd: survey finished: %ld shot%s done in this run, %ld skipped (done "
                "earlier), %ld failed, of %ld", d->done, d->done == 1 ? "" : "s", d->skipped,
                d->failed, d->shots);
    if (sv->unrecorded[0])
        fprintf(stderr, "seisfd: error: %s; the manifest misses results of this run, and a "
                "re-run computes the shots it does not record again\n", sv->unrecorded);
    if (d->failed == 0) return sv->unrecorded[0] != '\0';
    fprintf(stderr, "seisfd: error: %ld shot%s failed (re-run the job to compute %s again):\n",
            d->failed, d->failed == 1 ? "" : "s", d->failed == 1 ? "it" : "them");
    for (long n = 0; n < d->shots; ++n)
        if (d->results[n].status == SF_SHOT_FAILED)
            fprintf(stderr, "  shot %ld: %s\n", n + 1, d->results[n].reason);
    fflush(stderr);
    return d->failed + (sv->unrecorded[0] != '\0');
}

/* World rank 0, the last look before the exit: a manifest removed or cut
 * after the last check of the dispatch would otherwise go unnoticed.
 * 1 when it no longer records the run. */
static int manifest_lost(const survey *sv)
{
    char reason[1024];
    if (sv->unrecorded[0] || sf_manifest_intact(&sv->manifest, reason, sizeof reason) == 0)
        return 0;
    fprintf(stderr, "seisfd: error: %s; a re-run computes the shots it does not record "
            "again\n", reason);
    fflush(stderr);
    return 1;
}

static void tear_down(survey *sv)
{
    sf_simulation_free(&sv->sim);
    sf_shot_job_free(&sv->shot);
    sf_shot_job_free(&sv->first);
    if (sv->world_rank == 0) sf_manifest_close(&sv->manifest);
    free(sv->plan);
    MPI_Comm_free(&sv->group_comm);
    MPI_Comm_free(&sv->dispatch);
}

int sf_survey_main(const sf_config *job, const sf_job_request *request)
{
    const int execute = request->execute, fresh = request->fresh;
    char started[32];
    sf_utc_time(started);
    double wall_started = sf_now();
    survey sv;
    memset(&sv, 0, sizeof sv);
    sv.job = job;
    sv.request = request;
    sv.manifest.fd = -1;
    int claimed = sf_survey_claim(job, execute);
    set_up(&sv);
    if (sv.world_rank == 0)
        sv.plan = sf_calloc((size_t)job->survey.count, sizeof *sv.plan, "the survey's plan");
    sf_survey_plan(job, &sv.sim, execute, fresh, claimed, sv.plan, &sv.manifest);
    long outcome[2] = {0, 0};   /* failures, the signal request that left shots undone */
    if (execute) {
        run_shots(&sv);
        write_report(&sv, started, wall_started);
        if (sv.world_rank == 0)
            outcome[0] = print_outcome(&sv) + manifest_lost(&sv), outcome[1] = sv.stop;
        SF_MPI_CHECK(MPI_Bcast(outcome, 2, MPI_LONG, 0, MPI_COMM_WORLD), "ending the survey");
    } else {
        sf_ranks_print(job, request->ranks);
        sf_info("seisfd: job '%s' is valid", job->source_path);
    }
    tear_down(&sv);
    sf_output_unlock_all();
    if (outcome[1]) return sf_interrupt_exit_status((int)outcome[1]);
    return outcome[0] ? 1 : 0;
}
