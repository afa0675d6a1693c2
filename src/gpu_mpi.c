/* Whether MPI can send from and receive into device memory directly
 * (CUDA-aware MPI), so the halo planes need no trip through the host. */
#include "sf_gpu.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

int sf_mpi_takes_device_memory(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    /* Compiled against a CUDA-aware library; ask the one loaded at run time. */
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
