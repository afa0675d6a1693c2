/* As much of MPICH's mpi.h as halo/gpu_aware_mpi.c uses, so that module
 * can be built and run as it would be against MPICH (3.4 and later) on a
 * machine that has Open MPI: tests/mpich_stub_test.c links it with
 * stand-ins for the two library calls. */
#ifndef SF_MPICH_STUB_MPI_H
#define SF_MPICH_STUB_MPI_H

#define MPI_SUCCESS 0
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPIX_GPU_SUPPORT_CUDA (0)
#define MPIX_GPU_SUPPORT_ZE (1)

int MPI_Get_library_version(char *version, int *resultlen);
int MPIX_GPU_query_support(int gpu_type, int *is_supported);

#endif
