/* Failed CUDA calls end the run with one message naming the call, CUDA's
 * error, the action, and which device of which host and rank. */
#include "sf_error.h"
#include "sf_gpu.h"

#include <cuda_runtime_api.h>

SF_NORETURN void sf_cuda_failed(int rc, const char *call, const char *what, const char *file,
                                int line)
{
    cudaError_t error = (cudaError_t)rc;
    char where[400];
    sf_gpu_describe(where, sizeof where);
    sf_fatal("CUDA failed while %s: %s returned %s (%s) on %s (%s:%d)", what, call,
             cudaGetErrorName(error), cudaGetErrorString(error), where, file, line);
}
