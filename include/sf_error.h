/* Error reporting: every failure reaches the user as one clear line that
 * names the rank and what was being done, followed by a non-zero exit. */
#ifndef SF_ERROR_H
#define SF_ERROR_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>

/* The header is shared with the CUDA sources, which nvcc compiles as C++. */
#ifdef __cplusplus
#define SF_NORETURN [[noreturn]]
#else
#define SF_NORETURN _Noreturn
#endif

/* Called once after MPI_Init so messages can name the rank. */
void sf_error_set_rank(int rank, int nranks);
int sf_error_rank(void);

/* Runs once on this rank before the process ends on an error (sf_fatal,
 * sf_exit_collective): removes what a failed run must not leave behind. */
void sf_error_set_cleanup(void (*cleanup)(void));

/* Unrecoverable error on this rank: prints "seisfd: error (rank R): ..."
 * and aborts every rank (MPI_Abort when MPI is up, exit(1) otherwise). */
SF_NORETURN void sf_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Error that every rank detects identically (bad input): rank 0 prints the
 * message, all ranks finalize MPI and exit(1), so there is one message. */
SF_NORETURN void sf_fail_collective(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit(1) on all ranks after finalizing MPI, without printing anything;
 * for callers that have already printed their messages on rank 0. */
SF_NORETURN void sf_exit_collective(void);

/* Warning printed by rank 0 only (every rank computes the same condition). */
void sf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Informational line printed by rank 0 only. */
void sf_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that cannot fail silently: names what was being allocated. */
void *sf_malloc(size_t bytes, const char *what);
void *sf_calloc(size_t count, size_t size, const char *what);
char *sf_strdup(const char *s);

/* Checked MPI call: on failure the MPI error string and the action. */
#define SF_MPI_CHECK(call, what)                                           \
    do {                                                                   \
        int sf_mpi_rc_ = (call);                                           \
        if (sf_mpi_rc_ != 0) sf_mpi_failed(sf_mpi_rc_, (what), __FILE__, __LINE__); \
    } while (0)
SF_NORETURN void sf_mpi_failed(int rc, const char *what, const char *file, int line);

/* Collective over comm: the lowest rank that passed `flagged`, or -1 when
 * none did; that rank's text (len bytes: its message) then replaces every
 * rank's. `what` names the step in an MPI error. */
int sf_first_flagged_rank(MPI_Comm comm, int flagged, char *text, int len, const char *what);

/* Checked CUDA runtime call (CUDA builds only): on failure the call as
 * written, CUDA's error, the action, the device, host and rank. Check a
 * kernel launch with SF_CUDA_CHECK(cudaGetLastError(), "launching NAME"). */
#define SF_CUDA_CHECK(call, what)                                          \
    do {                                                                   \
        int sf_cuda_rc_ = (int)(call);                                     \
        if (sf_cuda_rc_ != 0)                                              \
            sf_cuda_failed(sf_cuda_rc_, #call, (what), __FILE__, __LINE__); \
    } while (0)
SF_NORETURN void sf_cuda_failed(int rc, const char *call, const char *what, const char *file,
                                int line);

#endif
