#include "sf_interrupt.h"
#include "sf_error.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Written by the handler only; a handler may do no more. */
static volatile sig_atomic_t stop_now_signal, after_shot_signal;
static int learnt;

static void note_signal(int signum)
{
    if (signum == SIGUSR1)
        after_shot_signal = signum;
    else
        stop_now_signal = signum;
}

void sf_interrupt_install(void)
{
    static const int SIGNALS[] = {SIGINT, SIGTERM, SIGUSR1};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note_signal;
    sigemptyset(&action.sa_mask);
    /* File and MPI calls under way go on rather than fail with EINTR: the
     * run stops at its next agreement. */
    action.sa_flags = SA_RESTART;
    for (size_t k = 0; k < sizeof SIGNALS / sizeof SIGNALS[0]; ++k)
        if (sigaction(SIGNALS[k], &action, NULL) != 0)
            sf_fatal("cannot install the handler of signal %d: %s", SIGNALS[k], strerror(errno));
}

static int larger(int a, int b) { return a > b ? a : b; }

int sf_interrupt_request(void)
{
    int mine = 0;
    if (stop_now_signal)
        mine = SF_STOP_NOW * SF_STOP_KIND_UNIT + stop_now_signal;
    else if (after_shot_signal)
        mine = SF_STOP_AFTER_SHOT * SF_STOP_KIND_UNIT + after_shot_signal;
    return larger(mine, learnt);
}

void sf_interrupt_learn(int request) { learnt = larger(learnt, request); }

sf_stop_kind sf_interrupt_kind(int request) { return (sf_stop_kind)(request / SF_STOP_KIND_UNIT); }

const char *sf_interrupt_signal_name(int request)
{
    switch (request % SF_STOP_KIND_UNIT) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
    }
}

int sf_interrupt_exit_status(int request) { return 128 + request % SF_STOP_KIND_UNIT; }

void sf_interrupt_message(const char *fmt, ...)
{
    if (sf_error_rank() != 0) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("seisfd: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

int sf_interrupt_agree(MPI_Comm comm)
{
    int mine = sf_interrupt_request(), agreed = 0;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, comm),
                 "agreeing whether to stop on a signal");
    sf_interrupt_learn(agreed);
    return agreed;
}

void sf_interrupt_poll_begin(sf_interrupt_poll *p) { memset(p, 0, sizeof *p); }

static int complete(sf_interrupt_poll *p)
{
    if (!p->started) return 0;
    SF_MPI_CHECK(MPI_Wait(&p->request, MPI_STATUS_IGNORE), "agreeing whether to stop on a signal");
    p->started = 0;
    sf_interrupt_learn(p->reduced);
    return p->reduced;
}

int sf_interrupt_poll_step(sf_interrupt_poll *p, MPI_Comm comm)
{
    int agreed = complete(p);
    p->mine = sf_interrupt_request();
    SF_MPI_CHECK(MPI_Iallreduce(&p->mine, &p->reduced, 1, MPI_INT, MPI_MAX, comm, &p->request),
                 "agreeing whether to stop on a signal");
    p->started = 1;
    return agreed;
}

void sf_interrupt_poll_end(sf_interrupt_poll *p) { complete(p); }
