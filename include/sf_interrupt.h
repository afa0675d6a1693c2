/* Stopping a run on a signal. The handler only notes the signal; the
 * ranks agree to stop at their next time step, or the next point where
 * they all meet, so that every rank leaves the same way: this run's
 * temporary files and locks removed, earlier outputs as they were, one
 * message, the run report and exit status 128 + the signal. */
#ifndef SF_INTERRUPT_H
#define SF_INTERRUPT_H

#include <mpi.h>

/* What a signal asks. SIGUSR1 (a batch system's notice before its time
 * limit): a survey finishes the shots under way and starts no more.
 * SIGINT and SIGTERM: the shots under way stop at once. */
typedef enum { SF_STOP_NONE, SF_STOP_AFTER_SHOT, SF_STOP_NOW } sf_stop_kind;

/* A request as the ranks pass it on: its kind times 256 plus the signal
 * number, so that the largest of several requests is the one that wins. */
enum { SF_STOP_KIND_UNIT = 256 };

/* Once after MPI_Init, for `seisfd run`: SIGINT, SIGTERM and SIGUSR1 then
 * set a flag instead of ending the process. */
void sf_interrupt_install(void);

/* This rank's request: the signals it got and the requests it learnt
 * from other ranks; 0 when none. */
int sf_interrupt_request(void);

/* Takes a request heard from another rank as this rank's own. */
void sf_interrupt_learn(int request);

sf_stop_kind sf_interrupt_kind(int request);
const char *sf_interrupt_signal_name(int request);   /* "SIGTERM" */
int sf_interrupt_exit_status(int request);           /* 128 + the signal */

/* Rank 0: "seisfd: " and the text on the error output, the one message
 * of a run that a signal stopped. */
void sf_interrupt_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Collective over comm: the largest request of its ranks, which every
 * rank learns. */
int sf_interrupt_agree(MPI_Comm comm);

/* The agreement of a time loop: each step starts a non-blocking
 * reduction and completes the one of the step before, so no step waits
 * for it. */
typedef struct {
    MPI_Request request;
    int mine, reduced;
    int started;
} sf_interrupt_poll;

void sf_interrupt_poll_begin(sf_interrupt_poll *p);

/* Collective over comm, once a step on every rank: the request agreed at
 * the previous call (0 at the first), the same on every rank. */
int sf_interrupt_poll_step(sf_interrupt_poll *p, MPI_Comm comm);

/* Completes the reduction under way, so that comm is free again. */
void sf_interrupt_poll_end(sf_interrupt_poll *p);

#endif
