/* Source injection and receiver sampling on the GPU; the samples stay on
 * the device until the solver fetches a block of them. */
#include "cuda_kernels.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 128, WARP = 32 };

__global__ void __launch_bounds__(THREADS)
    inject_kernel(float *field, const long *index, const float *coef, const int *plane, int count,
                  float amplitude, int k0, int k1)
{
    const int n = blockIdx.x * THREADS + threadIdx.x;
    /* Source points are distinct grid points, so no two threads collide. */
    if (n < count && plane[n] >= k0 && plane[n] < k1) field[index[n]] += coef[n] * amplitude;
}

void sf_cuda_inject(float *field, const long *index, const float *coef, const int *plane,
                    int count, float amplitude, int k0, int k1, cudaStream_t stream)
{
    if (count == 0) return;
    inject_kernel<<<(count + THREADS - 1) / THREADS, THREADS, 0, stream>>>(field, index, coef, plane,
                                                                          count, amplitude, k0, k1);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the source kernel");
}

/* One warp per receiver: its lanes split the interpolation points. */
__global__ void __launch_bounds__(THREADS)
    sample_kernel(float *out, const float *field, const long *index, const float *weight,
                  const long *offset, int receivers)
{
    const int r = (blockIdx.x * THREADS + threadIdx.x) / WARP, lane = threadIdx.x % WARP;
    if (r >= receivers) return;
    float sum = 0.0f;
    for (long n = offset[r] + lane; n < offset[r + 1]; n += WARP) sum += weight[n] * field[index[n]];
#pragma unroll
    for (int width = WARP / 2; width > 0; width /= 2) sum += __shfl_down_sync(0xffffffffu, sum, width);
    if (lane == 0) out[r] = sum;
}

void sf_cuda_sample(float *out, const float *field, const long *index, const float *weight,
                    const long *offset, int receivers, cudaStream_t stream)
{
    if (receivers == 0) return;
    const int blocks = (receivers * WARP + THREADS - 1) / THREADS;
    sample_kernel<<<blocks, THREADS, 0, stream>>>(out, field, index, weight, offset, receivers);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the receiver kernel");
}
