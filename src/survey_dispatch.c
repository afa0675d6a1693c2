/* Handing out a survey's shots: world rank 0 keeps the book; a group's
 * leader asks for a shot with its group's signal request (TAG_REQUEST),
 * gets its index or -1 and the survey's request (TAG_ASSIGN), and reports
 * the outcome (TAG_RESULT) before asking again. A request to stop now
 * reaches the leaders at work as TAG_STOP, sent before any answer of -1 to
 * them, so that a leader told -1 with such a request knows that the word
 * is waiting for it. Rank 0 answers by polling (MPI_Iprobe) between its
 * own time steps and, once its group has nothing left, in a loop of its
 * own: no one-sided MPI, whose passive progress OpenMPI over TCP does not
 * guarantee. */
#include "sf_error.h"
#include "sf_interrupt.h"
#include "sf_survey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_REQUEST = 7101, TAG_ASSIGN, TAG_RESULT, TAG_STOP };

void sf_dispatch_start(sf_dispatcher *d, const sf_config *job, MPI_Comm comm, int groups,
                       int ranks_per_shot, sf_shot_result *plan, sf_manifest *m)
{
    memset(d, 0, sizeof *d);
    d->comm = comm;
    d->job = job;
    d->groups = groups;
    d->ranks_per_shot = ranks_per_shot;
    d->finished = sf_calloc((size_t)groups, 1, "the groups' states");
    d->shots = job->survey.count;
    d->results = plan;
    d->manifest = m;
    for (long n = 0; n < d->shots; ++n) {
        d->skipped += plan[n].status == SF_SHOT_SKIPPED;
        d->to_compute += plan[n].status == SF_SHOT_PENDING;
    }
    d->started = sf_now();
}

long sf_dispatch_assign(sf_dispatcher *d, int group)
{
    while (d->next < d->shots && d->results[d->next].status != SF_SHOT_PENDING) ++d->next;
    if (d->next == d->shots || d->stop) {
        d->finished[group] = 1;
        ++d->groups_finished;
        return -1;
    }
    sf_shot_result *r = &d->results[d->next];
    r->status = SF_SHOT_RUNNING;
    r->group = group;
    ++d->running;
    return d->next++;
}

void sf_dispatch_hear(sf_dispatcher *d, int request)
{
    if (request <= d->stop) return;
    int announce = sf_interrupt_kind(request) == SF_STOP_NOW &&
                   sf_interrupt_kind(d->stop) != SF_STOP_NOW;
    d->stop = request;
    sf_interrupt_learn(request);   /* group 0 hears it at its next step */
    for (int g = 1; announce && g < d->groups; ++g)
        if (!d->finished[g])
            SF_MPI_CHECK(MPI_Send(&request, 1, MPI_INT, g * d->ranks_per_shot, TAG_STOP, d->comm),
                         "telling a group to stop");
}

int sf_dispatch_stopped(const sf_dispatcher *d)
{
    long undone = d->interrupted;
    for (long n = 0; n < d->shots; ++n) undone += d->results[n].status == SF_SHOT_PENDING;
    return undone ? d->stop : 0;
}

/* "01:02:03" */
static void clock_text(double seconds, char *out, size_t len)
{
    long s = seconds > 0.0 ? (long)(seconds + 0.5) : 0;
    snprintf(out, len, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

static void rate_text(double points_per_second, char *out, size_t len)
{
    if (points_per_second >= 1e9) snprintf(out, len, "%.3g Gpoints/s", points_per_second / 1e9);
    else snprintf(out, len, "%.3g Mpoints/s", points_per_second / 1e6);
}

/* One line per finished shot: what happened to it, the counts, the
 * aggregate rate of this run and when the rest should be done. */
static void print_progress(const sf_dispatcher *d, const sf_shot_result *r)
{
    double elapsed = sf_now() - d->started;
    long finished = d->done + d->failed, left = d->to_compute - finished;
    char eta[32] = "--:--:--", rate[48];
    if (finished > 0) clock_text(elapsed / (double)finished * (double)left, eta, sizeof eta);
    rate_text(elapsed > 0.0 ? d->points_done / elapsed : 0.0, rate, sizeof rate);
    char what[96];
    if (r->status == SF_SHOT_DONE)
        snprintf(what, sizeof what, "done in %.1f s", r->seconds);
    else if (r->status == SF_SHOT_INTERRUPTED)
        snprintf(what, sizeof what, "interrupted after %.1f s", r->seconds);
    else
        snprintf(what, sizeof what, "FAILED after %.1f s", r->seconds);
    sf_info("shot %ld/%ld %s (group %d) | %ld done, %ld running, %ld failed | %s | ETA %s",
            r->index, d->shots, what, r->group, d->done + d->skipped, d->running, d->failed, rate,
            eta);
    if (r->status == SF_SHOT_FAILED) sf_info("  shot %ld: %s", r->index, r->reason);
}

static void warn_rewritten(const sf_dispatcher *d, sf_manifest_rewrite why)
{
    if (why == SF_MANIFEST_WAS_GONE)
        sf_warn("the manifest '%s' was removed or replaced during the run; it is written again "
                "whole from this run's records", d->manifest->path);
    else if (why == SF_MANIFEST_WRITE_FAILED)
        sf_warn("the manifest '%s' is written again whole, with the lines an earlier write "
                "could not add", d->manifest->path);
}

/* A manifest that cannot take a line does not stop the survey: the shot's
 * files are complete, and a re-run that finds no line for it computes it
 * again. A later record brings the manifest up to date when it can. */
static void record(sf_dispatcher *d, const sf_shot_result *r)
{
    char reason[1024];
    sf_manifest_rewrite why;
    int rc = sf_manifest_keep(d->manifest, d->results, &why, reason, sizeof reason);
    warn_rewritten(d, why);
    if (rc == 0 && why == SF_MANIFEST_AS_IT_WAS)
        rc = sf_manifest_append(d->manifest, r, reason, sizeof reason);
    if (rc != 0)
        sf_warn("%s; shot %ld is not recorded there for now (a re-run that finds no line for "
                "it computes it again)", reason, r->index);
}

int sf_dispatch_end(sf_dispatcher *d, char *reason, size_t len)
{
    sf_manifest_rewrite why;
    int rc = sf_manifest_keep(d->manifest, d->results, &why, reason, len);
    warn_rewritten(d, why);
    free(d->finished);
    d->finished = NULL;
    return rc;
}

void sf_dispatch_record(sf_dispatcher *d, const sf_shot_result *r)
{
    if (r->index < 1 || r->index > d->shots) sf_fatal("internal: a result for shot %ld", r->index);
    d->results[r->index - 1] = *r;
    --d->running;
    if (r->status == SF_SHOT_DONE) {
        ++d->done;
        const long *n = d->job->n;
        d->points_done += (double)n[0] * (double)n[1] * (double)n[2] * (double)r->steps;
    } else if (r->status == SF_SHOT_INTERRUPTED) {
        ++d->interrupted;
    } else {
        ++d->failed;
    }
    /* An interrupted shot is as one never started: no line to count. */
    if (d->manifest && r->status != SF_SHOT_INTERRUPTED) record(d, r);
    print_progress(d, r);
}

static void answer(sf_dispatcher *d, const MPI_Status *status)
{
    if (status->MPI_TAG == TAG_RESULT) {
        sf_shot_result r;
        SF_MPI_CHECK(MPI_Recv(&r, (int)sizeof r, MPI_BYTE, status->MPI_SOURCE, TAG_RESULT, d->comm,
                              MPI_STATUS_IGNORE),
                     "receiving a shot's result");
        sf_dispatch_record(d, &r);
        return;
    }
    if (status->MPI_TAG != TAG_REQUEST)
        sf_fatal("internal: unexpected message (tag %d) from rank %d", status->MPI_TAG,
                 status->MPI_SOURCE);
    int asked[2];   /* the group, its signal request */
    SF_MPI_CHECK(MPI_Recv(asked, 2, MPI_INT, status->MPI_SOURCE, TAG_REQUEST, d->comm,
                          MPI_STATUS_IGNORE),
                 "receiving a request for a shot");
    sf_dispatch_hear(d, asked[1]);
    long answer[2] = {sf_dispatch_assign(d, asked[0]), d->stop};
    SF_MPI_CHECK(MPI_Send(answer, 2, MPI_LONG, status->MPI_SOURCE, TAG_ASSIGN, d->comm),
                 "handing out a shot");
}

void sf_dispatch_poll(void *dispatcher)
{
    sf_dispatcher *d = dispatcher;
    sf_dispatch_hear(d, sf_interrupt_request());
    for (;;) {
        int waiting = 0;
        MPI_Status status;
        SF_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &waiting, &status),
                     "looking for requests from the other groups");
        if (!waiting) return;
        answer(d, &status);
    }
}

void sf_dispatch_serve(sf_dispatcher *d)
{
    /* A leader reports its last result before it asks again, so once every
     * group has been told that nothing is left every result is in. */
    while (d->groups_finished < d->groups) sf_dispatch_poll(d);
}

long sf_dispatch_request(sf_dispatch_listener *l, int group, int request)
{
    int asked[2] = {group, request};
    long answer[2] = {-1, 0};
    SF_MPI_CHECK(MPI_Send(asked, 2, MPI_INT, 0, TAG_REQUEST, l->comm), "asking for a shot");
    SF_MPI_CHECK(MPI_Recv(answer, 2, MPI_LONG, 0, TAG_ASSIGN, l->comm, MPI_STATUS_IGNORE),
                 "receiving a shot to compute");
    int stop = (int)answer[1];
    /* The word to stop was sent before this answer: it is received here
     * unless it was between steps, so that none is left at the end. */
    if (answer[0] < 0 && sf_interrupt_kind(stop) == SF_STOP_NOW && !l->heard) {
        SF_MPI_CHECK(MPI_Recv(&stop, 1, MPI_INT, 0, TAG_STOP, l->comm, MPI_STATUS_IGNORE),
                     "receiving the word to stop");
        l->heard = 1;
    }
    return answer[0];
}

void sf_dispatch_listen(void *listener)
{
    sf_dispatch_listener *l = listener;
    int waiting = 0, request = 0;
    if (l->heard) return;
    SF_MPI_CHECK(MPI_Iprobe(0, TAG_STOP, l->comm, &waiting, MPI_STATUS_IGNORE),
                 "listening for the word to stop");
    if (!waiting) return;
    SF_MPI_CHECK(MPI_Recv(&request, 1, MPI_INT, 0, TAG_STOP, l->comm, MPI_STATUS_IGNORE),
                 "receiving the word to stop");
    l->heard = 1;
    sf_interrupt_learn(request);
}

void sf_dispatch_send_result(MPI_Comm comm, const sf_shot_result *r)
{
    /* The same binary on every rank: the result travels as bytes. */
    SF_MPI_CHECK(MPI_Send(r, (int)sizeof *r, MPI_BYTE, 0, TAG_RESULT, comm),
                 "reporting a shot's result");
}
