/* As much of Open MPI's mpi.h as halo/gpu_aware_mpi.c uses, so the module
 * is built as it is against Open MPI but with the library's answers in the
 * test's hands (tests/ompi_ucx_stub_test.c). */
#ifndef SF_OMPI_STUB_MPI_H
#define SF_OMPI_STUB_MPI_H

#define OPEN_MPI 1
#define MPI_SUCCESS 0
#define MPI_MAX_LIBRARY_VERSION_STRING 256

int MPI_Get_library_version(char *version, int *resultlen);

#endif
