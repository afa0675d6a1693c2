/* The instability guard's measure on the GPU: each block sums the squares
 * of its share of the owned points of every field asked for, per region
 * (sf_regions.h), in double, reduces them over its threads in a fixed
 * order and writes its partial sums; the host adds the blocks' in order.
 * The result does not depend on when blocks finish, so a run repeats it
 * exactly. One launch covers every field and a warp walks whole rows, so
 * the region is found once a row rather than by dividing every point's
 * index: a check reads the fields at close to the copy bandwidth. */
#include "cuda_kernels.h"
#include "cuda_memory.h"

extern "C" {
#include "sf_backend.h"
#include "sf_error.h"
}

enum { THREADS = 256, WARPS = THREADS / 32, LOADS = 4 };

typedef struct {
    const float *field[SF_GUARD_MAX_FIELDS];
} field_list;

/* Adds the squares of one row's points to the row's region (across) and
 * to the x layers': loads are issued LOADS at a time per lane. */
static __device__ void add_row(const float *row, int nx, const sf_regions *r, long nearest,
                               double *mid, double *low, double *high)
{
    const int lane = (int)(threadIdx.x & 31);
    for (int i0 = lane; i0 < nx; i0 += 32 * LOADS) {
        float v[LOADS];
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int i = i0 + 32 * u;
            v[u] = i < nx ? row[i] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const int i = i0 + 32 * u;
            int along = SF_REGION_INTERIOR;
            const long d = i < nx ? sf_face_distance(r, 0, i, &along) : -1;
            const double s = (double)v[u] * v[u];
            if (d >= 0 && (nearest < 0 || d <= nearest)) {
                if (along == SF_REGION_XMIN) *low += s;
                else *high += s;
            } else {
                *mid += s;
            }
        }
    }
}

__global__ void __launch_bounds__(THREADS)
    region_squares_kernel(field_list fields, sf_cuda_grid g, sf_regions r, double *partial)
{
    __shared__ double share[SF_REGIONS][THREADS];
    double sum[SF_REGIONS];
#pragma unroll
    for (int q = 0; q < SF_REGIONS; ++q) sum[q] = 0.0;
    const float *field = fields.field[blockIdx.y];
    const long rows = (long)g.ny * g.nz;
    for (long row = (long)blockIdx.x * WARPS + threadIdx.x / 32; row < rows;
         row += (long)gridDim.x * WARPS) {
        const long j = row % g.ny, k = row / g.ny;
        int across;
        const long nearest = sf_row_region(&r, j, r.z0 + k, &across);
        double mid = 0.0, low = 0.0, high = 0.0;
        add_row(field + (k + SF_HALO) * g.sp + (j + SF_PAD) * g.sx + g.gx, g.nx, &r, nearest,
                &mid, &low, &high);
        /* Unrolled over constant indices, the sums stay in registers. */
#pragma unroll
        for (int q = 0; q < SF_REGIONS; ++q)
            if (q == across) sum[q] += mid;
        sum[SF_REGION_XMIN] += low;
        sum[SF_REGION_XMAX] += high;
    }
#pragma unroll
    for (int q = 0; q < SF_REGIONS; ++q) share[q][threadIdx.x] = sum[q];
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            for (int q = 0; q < SF_REGIONS; ++q)
                share[q][threadIdx.x] += share[q][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < SF_REGIONS)
        partial[((size_t)blockIdx.y * gridDim.x + blockIdx.x) * SF_REGIONS + threadIdx.x] =
            share[threadIdx.x][0];
}

void sf_cuda_region_squares(const float *const *fields, int count, sf_cuda_grid g,
                            const sf_regions *r, double *partial, double *partial_host,
                            cudaStream_t stream, double out[][SF_REGIONS])
{
    if (count < 0 || count > SF_GUARD_MAX_FIELDS)
        sf_fatal("internal: %d fields for the instability guard's sums", count);
    field_list list = {{NULL}};
    for (int f = 0; f < count; ++f) {
        list.field[f] = fields[f];
        for (int q = 0; q < SF_REGIONS; ++q) out[f][q] = 0.0;
    }
    const long rows = (long)g.ny * g.nz;
    if (count == 0 || rows == 0 || g.nx == 0) return;
    const long wanted = (rows + WARPS - 1) / WARPS;
    const long most = SF_CUDA_NORM_BLOCKS;
    const int blocks = (int)(wanted < most ? wanted : most);
    const dim3 grid((unsigned)blocks, (unsigned)count);
    region_squares_kernel<<<grid, THREADS, 0, stream>>>(list, g, *r, partial);
    SF_CUDA_CHECK(cudaGetLastError(), "launching the instability guard's sums");
    sf_cuda_download(partial_host, partial, (size_t)count * blocks * SF_REGIONS * sizeof(double),
                     stream, "the instability guard's sums");
    for (int f = 0; f < count; ++f)
        for (int b = 0; b < blocks; ++b)
            for (int q = 0; q < SF_REGIONS; ++q)
                out[f][q] += partial_host[((size_t)f * blocks + b) * SF_REGIONS + q];
}
