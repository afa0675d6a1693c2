/* The MPICH branch of sf_mpi_gpu_ask, built against tests/mpich_stub: it
 * must ask MPIX_GPU_query_support about CUDA and believe the answer.
 * Prints "PASS name" or "FAIL name: why", as tests/unit_tests.c does. */
#include "sf_gpu_aware_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int answer, asked_type = -1, calls;

int MPI_Get_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "MPICH Version:      4.2.0\nMPICH Release date: Fri Feb  9 12:29:21 CST 2024\n");
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int MPIX_GPU_query_support(int gpu_type, int *is_supported)
{
    ++calls;
    asked_type = gpu_type;
    *is_supported = answer;
    return MPI_SUCCESS;
}

static int asks_and_believes(int says)
{
    answer = says;
    calls = 0;
    sf_mpi_gpu_answer a;
    sf_mpi_gpu_ask(&a);
    return calls == 1 && asked_type == MPIX_GPU_SUPPORT_CUDA && a.takes_device == says &&
           strstr(a.evidence, "MPICH Version: 4.2.0") && strstr(a.evidence, "MPIX_GPU_query_support");
}

int main(void)
{
    int ok = asks_and_believes(1) && asks_and_believes(0);
    if (ok)
        printf("PASS unit.mpich_gpu_query_is_asked\n");
    else
        printf("FAIL unit.mpich_gpu_query_is_asked: %d calls, type %d asked\n", calls, asked_type);
    return ok ? 0 : 1;
}
