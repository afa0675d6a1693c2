#include "sf_error.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int error_rank = 0;
static int error_nranks = 1;
static void (*error_cleanup)(void);

void sf_error_set_rank(int rank, int nranks)
{
    error_rank = rank;
    error_nranks = nranks;
}

int sf_error_rank(void) { return error_rank; }

void sf_error_set_cleanup(void (*cleanup)(void)) { error_cleanup = cleanup; }

static void clean_up(void)
{
    void (*cleanup)(void) = error_cleanup;
    error_cleanup = NULL;   /* a failure inside it must not come back here */
    if (cleanup) cleanup();
}

static int mpi_is_running(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

SF_NORETURN void sf_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (error_nranks > 1)
        fprintf(stderr, "seisfd: error (rank %d): ", error_rank);
    else
        fprintf(stderr, "seisfd: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    clean_up();
    if (mpi_is_running() && error_nranks > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

SF_NORETURN void sf_exit_collective(void)
{
    fflush(stdout);
    fflush(stderr);
    clean_up();
    if (mpi_is_running()) MPI_Finalize();
    exit(1);
}

SF_NORETURN void sf_fail_collective(const char *fmt, ...)
{
    if (error_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "seisfd: error: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    sf_exit_collective();
}

void sf_warn(const char *fmt, ...)
{
    if (error_rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "seisfd: warning: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

void sf_info(const char *fmt, ...)
{
    if (error_rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
}

void *sf_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) sf_fatal("out of memory allocating %zu bytes for %s", bytes, what);
    return p;
}

void *sf_calloc(size_t count, size_t size, const char *what)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) sf_fatal("out of memory allocating %zu x %zu bytes for %s", count, size, what);
    return p;
}

char *sf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = sf_malloc(n, "a string");
    memcpy(copy, s, n);
    return copy;
}

SF_NORETURN void sf_mpi_failed(int rc, const char *what, const char *file, int line)
{
    char text[MPI_MAX_ERROR_STRING] = "unknown MPI error";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    sf_fatal("MPI failed while %s: %s (%s:%d)", what, text, file, line);
}

int sf_first_flagged_rank(MPI_Comm comm, int flagged, char *text, int len, const char *what)
{
    int rank, first;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), what);
    int mine = flagged ? rank : INT_MAX;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), what);
    if (first == INT_MAX) return -1;
    SF_MPI_CHECK(MPI_Bcast(text, len, MPI_CHAR, first, comm), what);
    return first;
}
