/* OpenMP threads per rank. OMP_NUM_THREADS where it is set; otherwise
 * the rank's share of its host's cores (the host's cores / its ranks),
 * no more than the cores it is bound to (divided among the ranks bound to
 * the very same cores), and at least 1: so that by default the ranks'
 * threads fit the host. One warning, for all ranks, when the launcher's
 * binding or OMP_NUM_THREADS do not fit, naming the flags that fix it. */
#ifndef SF_THREAD_COUNT_H
#define SF_THREAD_COUNT_H

#include <mpi.h>
#include <stddef.h>

/* Room for where a thread count came from, e.g. "its share of its host's
 * 128 cores among 8 ranks, at least 1". */
#define SF_THREAD_ORIGIN_TEXT 200

/* Collective over comm, on every rank before any OpenMP region: sets this
 * rank's thread count; rank 0 prints the one warning when the threads do
 * not fit the cores or the binding leaves cores idle. */
void sf_thread_count_init(MPI_Comm comm);

/* Collective over comm, after seisfd bound the ranks to the cores nearest
 * their GPUs (moved: it moved this rank): the threads follow the binding. */
void sf_thread_count_rebind(MPI_Comm comm, int moved);

/* This rank's threads and where that number came from, for the set-up
 * summary: "2 (OMP_NUM_THREADS)", "1 (its binding: 1 core)". */
void sf_thread_count_describe(char *text, size_t size);

/* This rank's threads, and where that number came from alone
 * ("OMP_NUM_THREADS", "its binding: 1 core"), for the run report. */
int sf_thread_count_chosen(const char **origin);

#endif
