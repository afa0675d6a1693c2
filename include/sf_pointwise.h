/* Point-wise maths that every backend shares: one definition, compiled
 * for the host by the C compiler and for host and device by nvcc, so the
 * CPU and CUDA kernels apply the same formula. Loops over a small fixed
 * bound that SF_UNROLL precedes keep their values in a GPU's registers. */
#ifndef SF_POINTWISE_H
#define SF_POINTWISE_H

#ifdef __CUDACC__
#define SF_POINTWISE __host__ __device__ static inline
#else
#define SF_POINTWISE static inline
#endif
#ifdef __CUDA_ARCH__
#define SF_UNROLL _Pragma("unroll")
#else
#define SF_UNROLL
#endif

#endif
