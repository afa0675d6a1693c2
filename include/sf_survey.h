/* A survey run as one job: MPI_COMM_WORLD split into groups of
 * ranks_per_shot ranks; each group reads the model once and works through
 * shots that world rank 0 hands out one at a time (the next unfinished
 * shot to whichever group asks), so uneven shots balance. World rank 0
 * computes in group 0 too and answers the other groups' leaders between
 * its time steps (MPI_Iprobe), and records every result in the manifest. */
#ifndef SF_SURVEY_H
#define SF_SURVEY_H

#include "sf_config.h"
#include "sf_manifest.h"
#include "sf_shot_result.h"
#include "sf_simulation.h"

#include <mpi.h>

/* World rank 0's book of the survey. */
typedef struct {
    MPI_Comm comm;            /* a duplicate of MPI_COMM_WORLD for the dispatch messages */
    const sf_config *job;
    int groups, groups_finished;   /* groups told there is nothing left */
    int ranks_per_shot;       /* a group's leader is world rank group * ranks_per_shot */
    unsigned char *finished;  /* per group: told there is nothing left */
    long shots;
    sf_shot_result *results;  /* per shot: the plan (pending or skipped), then the outcome */
    long next;                /* the first shot not yet handed out or passed over */
    long to_compute, running, done, failed, skipped, interrupted;
    /* The largest signal request heard (sf_interrupt.h): with one, no shot
     * is handed out; one to stop now is passed on to every group at work. */
    int stop;
    double started;           /* sf_now() when the dispatch began */
    double points_done;       /* grid points x steps of the shots done in this run */
    sf_manifest *manifest;
} sf_dispatcher;

/* A leader's ear for rank 0's word to stop. */
typedef struct {
    MPI_Comm comm;            /* the dispatch communicator */
    int heard;                /* the word has been received */
} sf_dispatch_listener;

/* ---- the plan (survey_plan.c) ---------------------------------------- */

/* Collective over MPI_COMM_WORLD, first of all: rank 0 checks the paths
 * the survey writes (sf_output_check_path) and, with execute, when the
 * output directory exists, locks it for the run (sf_output_unlock_all
 * releases it; another run's lock ends this one at once, naming its host
 * and process), then removes the temporary files killed runs left in
 * it: 1, claimed. A directory yet to be made is made and claimed only
 * once the set-up has passed (sf_survey_plan), so that a run refused at
 * its set-up makes none; without execute (seisfd check) it only looks,
 * creating nothing, with the same messages: 0. */
int sf_survey_claim(const sf_config *job, int execute);

/* Collective over MPI_COMM_WORLD, before any shot. Rank 0 reads the
 * output directory's manifest: a manifest of another job is refused
 * unless fresh; shots recorded as done whose files still verify are
 * marked skipped in plan[shots] (the others pending); a directory at a
 * file of a shot to compute is refused, and without a manifest existing
 * files need output.overwrite; the outputs must fit the free space. Problems end the run (file:line:column
 * of output.directory). With execute, a directory sf_survey_claim did
 * not claim (claimed 0) is made and claimed, and what is in it decided
 * again, then the manifest is opened for appending (m, rank 0). Prints
 * what the run will do. */
void sf_survey_plan(const sf_config *job, const sf_simulation *s, int execute, int fresh,
                    int claimed, sf_shot_result *plan, sf_manifest *m);

/* ---- the dispatch (survey_dispatch.c) --------------------------------- */

void sf_dispatch_start(sf_dispatcher *d, const sf_config *job, MPI_Comm comm, int groups,
                       int ranks_per_shot, sf_shot_result *plan, sf_manifest *m);
/* Rank 0: the next shot for group (index from 0), or -1 when none is left
 * or a signal stops the survey. */
long sf_dispatch_assign(sf_dispatcher *d, int group);
/* Rank 0: a group's signal request (its own group's included); one to
 * stop now goes to the leaders of the other groups still at work, whose
 * groups then stop at their next time step. */
void sf_dispatch_hear(sf_dispatcher *d, int request);
/* Rank 0: a shot's outcome: recorded in the manifest and printed. A
 * manifest removed or replaced meanwhile, or one a write to had failed,
 * is first written again whole (with a warning); one that cannot take
 * the line is a warning, not the survey's end. */
void sf_dispatch_record(sf_dispatcher *d, const sf_shot_result *r);
/* Rank 0, once every result is in: the manifest checked a last time as
 * before a record. 0, or -1 with the reason when it does not record the
 * run. */
int sf_dispatch_end(sf_dispatcher *d, char *reason, size_t len);
/* Rank 0: the signal request that left shots undone (interrupted or not
 * started), or 0. */
int sf_dispatch_stopped(const sf_dispatcher *d);
/* Rank 0: hears its own signal request, then answers what the other
 * leaders have sent, without waiting; the sf_simulation between_steps
 * hook (arg: the dispatcher). */
void sf_dispatch_poll(void *dispatcher);
/* Rank 0: answers until every group has been told that nothing is left. */
void sf_dispatch_serve(sf_dispatcher *d);

/* A group leader other than world rank 0: asks for the next shot (-1:
 * none left), telling its group's signal request, and sends a shot's
 * outcome. */
long sf_dispatch_request(sf_dispatch_listener *l, int group, int request);
void sf_dispatch_send_result(MPI_Comm comm, const sf_shot_result *r);
/* A group leader other than world rank 0, between time steps (the
 * sf_simulation between_steps hook, arg: the listener): takes rank 0's
 * word to stop now, when it has come, as this rank's request. */
void sf_dispatch_listen(void *listener);

#endif
