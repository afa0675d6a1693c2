/* Whole-plane moves on the GPU: packing the halo planes into one buffer
 * and back, mirroring the free surface, and sampling a lattice. */
#include "cuda_kernels.h"

extern "C" {
#include "sf_error.h"
}

enum { THREADS = 256 };
static const long MAX_GRID_YZ = 65535;   /* the limit of gridDim.y and gridDim.z */

static dim3 plane_grid(int nx, int ny, int planes)
{
    return dim3((unsigned)((nx + THREADS - 1) / THREADS),
                (unsigned)(ny < MAX_GRID_YZ ? ny : MAX_GRID_YZ), (unsigned)planes);
}

__global__ void __launch_bounds__(THREADS)
    pack_kernel(float *packed, const __grid_constant__ sf_cuda_plane_sources from, long row_stride,
                int nx, int ny)
{
    const int i = blockIdx.x * THREADS + threadIdx.x, q = blockIdx.z;
    if (i >= nx) return;
    const float *plane = from.plane[q];
    for (int j = blockIdx.y; j < ny; j += gridDim.y)
        packed[((long)q * ny + j) * nx + i] = plane ? __ldg(plane + (long)j * row_stride + i) : 0.0f;
}

__global__ void __launch_bounds__(THREADS)
    unpack_kernel(const __grid_constant__ sf_cuda_plane_targets to, long row_stride,
                  const float *packed, int nx, int ny)
{
    const int i = blockIdx.x * THREADS + threadIdx.x, q = blockIdx.z;
    float *plane = to.plane[q];
    if (i >= nx || !plane) return;
    for (int j = blockIdx.y; j < ny; j += gridDim.y)
        plane[(long)j * row_stride + i] = __ldg(packed + ((long)q * ny + j) * nx + i);
}

void sf_cuda_pack_planes(float *packed, sf_cuda_plane_sources from, long row_stride, int nx,
                         int ny, cudaStream_t stream)
{
    pack_kernel<<<plane_grid(nx, ny, SF_HALO), THREADS, 0, stream>>>(packed, from, row_stride, nx, ny);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the halo pack kernel");
}

void sf_cuda_unpack_planes(sf_cuda_plane_targets to, long row_stride, const float *packed, int nx,
                           int ny, cudaStream_t stream)
{
    unpack_kernel<<<plane_grid(nx, ny, SF_HALO), THREADS, 0, stream>>>(to, row_stride, packed, nx, ny);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the halo unpack kernel");
}

/* Whole padded planes, as on the CPU: ghost plane -m = -(plane m). */
__global__ void __launch_bounds__(THREADS) mirror_kernel(float *field, long plane_size)
{
    const long n = (long)blockIdx.x * THREADS + threadIdx.x;
    const int m = blockIdx.y + 1;
    if (n < plane_size) field[(SF_HALO - m) * plane_size + n] = -field[(SF_HALO + m) * plane_size + n];
}

void sf_cuda_mirror_surface(float *field, sf_cuda_grid g, cudaStream_t stream)
{
    const dim3 grid((unsigned)((g.sp + THREADS - 1) / THREADS), SF_HALO);
    mirror_kernel<<<grid, THREADS, 0, stream>>>(field, g.sp);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the free-surface mirror kernel");
}

__global__ void __launch_bounds__(THREADS)
    lattice_kernel(float *out, const float *field, const sf_cuda_grid g, long di, long dj, long dk,
                   long k0, long planes, long rows, long columns)
{
    const long c = (long)blockIdx.x * THREADS + threadIdx.x;
    if (c >= columns) return;
    for (long pk = blockIdx.z; pk < planes; pk += gridDim.z)
        for (long r = blockIdx.y; r < rows; r += gridDim.y) {
            const long k = k0 + pk * dk, j = r * dj, i = c * di;
            out[(pk * rows + r) * columns + c] =
                field[(k + SF_HALO) * g.sp + (j + SF_PAD) * g.sx + g.gx + i];
        }
}

void sf_cuda_gather_lattice(float *out, const float *field, sf_cuda_grid g, long di, long dj,
                            long dk, long k0, long planes, long rows, long columns,
                            cudaStream_t stream)
{
    if (planes <= 0 || rows <= 0 || columns <= 0) return;
    const dim3 grid((unsigned)((columns + THREADS - 1) / THREADS),
                    (unsigned)(rows < MAX_GRID_YZ ? rows : MAX_GRID_YZ),
                    (unsigned)(planes < MAX_GRID_YZ ? planes : MAX_GRID_YZ));
    lattice_kernel<<<grid, THREADS, 0, stream>>>(out, field, g, di, dj, dk, k0, planes, rows, columns);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the wavefield lattice kernel");
}
