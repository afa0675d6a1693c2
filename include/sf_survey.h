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
    long shots;
    sf_shot_result *results;  /* per shot: the plan (pending or skipped), then the outcome */
    long next;                /* the first shot not yet handed out or passed over */
    long to_compute, running, done, failed, skipped;
    double started;           /* sf_now() when the dispatch began */
    double points_done;       /* grid points x steps of the shots done in this run */
    sf_manifest *manifest;
} sf_dispatcher;

/* ---- the plan (survey_plan.c) ---------------------------------------- */

/* Collective over MPI_COMM_WORLD, before any shot. Rank 0 checks the
 * output directory and reads its manifest: a manifest of another job is
 * refused unless fresh; shots recorded as done whose files still verify
 * are marked skipped in plan[shots] (the others pending); existing files
 * of shots to compute without a manifest need output.overwrite; the
 * outputs must fit the free space. Problems end the run (file:line:column
 * of output.directory). With execute, the manifest is opened for
 * appending (m, rank 0). Prints what the run will do. */
void sf_survey_plan(const sf_config *job, const sf_simulation *s, int execute, int fresh,
                    sf_shot_result *plan, sf_manifest *m);

/* ---- the dispatch (survey_dispatch.c) --------------------------------- */

void sf_dispatch_start(sf_dispatcher *d, const sf_config *job, MPI_Comm comm, int groups,
                       sf_shot_result *plan, sf_manifest *m);
/* Rank 0: the next shot for group (index from 0), or -1 when none is left. */
long sf_dispatch_assign(sf_dispatcher *d, int group);
/* Rank 0: a shot's outcome: recorded in the manifest and printed. */
void sf_dispatch_record(sf_dispatcher *d, const sf_shot_result *r);
/* Rank 0: answers what the other leaders have sent, without waiting;
 * the sf_simulation between_steps hook (arg: the dispatcher). */
void sf_dispatch_poll(void *dispatcher);
/* Rank 0: answers until every group has been told that nothing is left. */
void sf_dispatch_serve(sf_dispatcher *d);

/* A group leader other than world rank 0: asks for the next shot (-1:
 * none left), and sends a shot's outcome. */
long sf_dispatch_request(MPI_Comm comm, int group);
void sf_dispatch_send_result(MPI_Comm comm, const sf_shot_result *r);

#endif
