/* Open MPI's extension header as an Open MPI built without CUDA has it:
 * the query is there, and the test answers it. */
#ifndef SF_OMPI_STUB_MPI_EXT_H
#define SF_OMPI_STUB_MPI_EXT_H

#define OMPI_HAVE_MPI_EXT_CUDA 1
#define MPIX_CUDA_AWARE_SUPPORT 0
int MPIX_Query_cuda_support(void);

#endif
