/* Device memory of a CUDA backend (CUDA sources only): arrays are first
 * requested, then allocated together once the total is known to fit in
 * the GPU's free memory, so a job too large fails before any allocation
 * with what it needs and what is free. */
#ifndef SF_CUDA_MEMORY_H
#define SF_CUDA_MEMORY_H

#include <cuda_runtime.h>
#include <stddef.h>

extern "C" {
#include "sf_layout.h"
}

enum { SF_CUDA_MAX_REQUESTS = 160 };

typedef struct {
    struct {
        void **slot;
        size_t bytes;
        const char *what;
        int state;             /* changed by a shot: zeroed by sf_cuda_zero_state */
    } request[SF_CUDA_MAX_REQUESTS];
    int requests;
    size_t bytes;              /* allocated in all */
} sf_cuda_arrays;

/* Asks for count elements of size bytes, stored at *slot once allocated. */
void sf_cuda_want(sf_cuda_arrays *a, void *slot, size_t count, size_t size, const char *what);
/* The same for an array of per-shot state (fields, memory variables). */
void sf_cuda_want_state(sf_cuda_arrays *a, void *slot, size_t count, size_t size,
                        const char *what);
/* Queues the zeroing of every state array on stream (a new shot). */
void sf_cuda_zero_state(const sf_cuda_arrays *a, cudaStream_t stream);
/* Queues every state array (of floats) times factor on stream (tests only). */
void sf_cuda_scale_state(const sf_cuda_arrays *a, float factor, cudaStream_t stream);
/* Checks the total against the free memory (an error names the slab's
 * nx x ny x nz points, the GPU, host and rank), then allocates and zeroes. */
void sf_cuda_allocate(sf_cuda_arrays *a, long nx, long ny, long nz);
void sf_cuda_free_arrays(sf_cuda_arrays *a);

void sf_cuda_upload(void *to, const void *from, size_t bytes, const char *what);
/* A compact [nz][ny][nx] host array onto the owned planes of a device
 * array in the field layout L (its padding zeros), through two
 * pinned buffers: a batch of planes is laid out on every core while the
 * batch before it travels. first_equal (sf_problem's first_equal_plane,
 * or NULL) names the planes that repeat an earlier one: they are copied
 * on the device instead of sent. */
void sf_cuda_upload_planes(const sf_layout *L, float *device, const float *compact,
                           const long *first_equal, const char *what);
/* Writes planes [k0, k0 + count) into planes (count x sp floats), on
 * every core; it fills the same points of every plane, the others being
 * zeros. */
typedef void (*sf_cuda_plane_writer)(const void *context, long k0, long count, float *planes);
/* The same for the planes [0, planes) of device (sp floats each) that
 * write lays out; first_equal, if not NULL, has an entry a plane. */
void sf_cuda_upload_written_planes(const sf_layout *L, float *device, long planes,
                                   const long *first_equal, sf_cuda_plane_writer write,
                                   const void *context, const char *what);
/* Each of count values v becomes v v factor factor, in double in that
 * order as the CPU backend computes v^2 dt^2, on the default stream. */
void sf_cuda_square_times(float *values, size_t count, double factor, const char *what);
/* Copies bytes back on stream and waits for them; what names the data. */
void sf_cuda_download(void *to, const void *from, size_t bytes, cudaStream_t stream,
                      const char *what);
/* A device buffer of at least count floats, kept between calls and grown
 * when a call asks for more (snapshot lattices). */
float *sf_cuda_grow(float **buffer, size_t *floats, size_t count, const char *what);
/* Page-locked host memory (NULL for 0 bytes). */
void *sf_cuda_pinned(size_t bytes, const char *what);

#endif
