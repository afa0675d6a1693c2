/* Planes of equal value mapped onto one page-aligned plane of a memory
 * file (sf_plane_volume.h). */
#define _GNU_SOURCE   /* memfd_create */
#include "sf_plane_volume.h"
#include "sf_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

static int same_plane_values(const float *const *param, int nparams, long stride, long a, long b)
{
    for (int p = 0; p < nparams; ++p)
        if (memcmp(&param[p][a * stride], &param[p][b * stride], sizeof(float))) return 0;
    return 1;
}

long *sf_first_equal_planes(const float *const *param, int nparams, long nz, long stride)
{
    long *first = sf_malloc((size_t)nz * sizeof(long), "the model's repeated planes");
    long *distinct = sf_malloc((size_t)nz * sizeof(long), "the model's distinct planes");
    long count = 0;
    for (long k = 0; k < nz; ++k) {
        long d = 0;
        while (d < count && !same_plane_values(param, nparams, stride, distinct[d], k)) ++d;
        if (d == count) distinct[count++] = k;
        first[k] = distinct[d];
    }
    free(distinct);
    return first;
}

#if defined(__linux__)
/* A plane is a mapping of its own (planes of one value cannot merge), and
 * the kernel allows a process 65530 by default: the shared volumes of a
 * process together take at most half of that, leaving the rest to the
 * allocator, CUDA and MPI; past it a volume is an ordinary one. */
enum { MOST_SHARED_PLANES = 32768 };
static long shared_planes = 0;

/* The index of each plane's value among the distinct ones, which go to
 * distinct[]; returns how many there are. */
static long distinct_values(const float *values, long nz, long *slot, float *distinct)
{
    long *first = sf_first_equal_planes(&values, 1, nz, 1);
    long count = 0;
    for (long k = 0; k < nz; ++k) {
        if (first[k] == k) distinct[count++] = values[k];
        slot[k] = first[k] == k ? count - 1 : slot[first[k]];
    }
    free(first);
    return count;
}

static void unmap(void *at, size_t bytes)
{
    if (munmap(at, bytes) != 0)
        sf_fatal("releasing %zu bytes of shared model planes: munmap: %s", bytes, strerror(errno));
}

/* Maps plane k of a reserved range onto plane slot[k] of a memory file
 * holding the distinct planes; returns NULL where the system refuses. The
 * mappings are writable, as memory handed to MPI or HDF5 may have to be
 * for a network card to register it, though nothing writes them. */
static float *map_shared(const long *slot, const float *distinct, long count, long nz,
                         size_t plane_bytes)
{
    const int fd = memfd_create("seisfd-model-planes", MFD_CLOEXEC);
    if (fd < 0) return NULL;
    float *volume = NULL;
    const size_t file_bytes = plane_bytes * (size_t)count, bytes = plane_bytes * (size_t)nz;
    float *file = ftruncate(fd, (off_t)file_bytes) == 0
                      ? mmap(NULL, file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
    void *range = file != MAP_FAILED ? mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                     : MAP_FAILED;
    if (range != MAP_FAILED) {
        const size_t floats = plane_bytes / sizeof(float);
        for (long s = 0; s < count; ++s)
            for (size_t n = 0; n < floats; ++n) file[(size_t)s * floats + n] = distinct[s];
        long k = 0;
        for (; k < nz; ++k) {
            char *at = (char *)range + plane_bytes * (size_t)k;
            if (mmap(at, plane_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                     (off_t)(plane_bytes * (size_t)slot[k])) == MAP_FAILED)
                break;
        }
        if (k == nz) volume = range;
        else unmap(range, bytes);
    }
    if (file != MAP_FAILED) unmap(file, file_bytes);
    close(fd);
    return volume;
}

/* The shared volume of these values, or one with data NULL. */
static sf_plane_volume shared_volume(const float *values, long nz, long plane, const char *what)
{
    sf_plane_volume v = {NULL, 0, 0};
    const long page = sysconf(_SC_PAGESIZE);
    const size_t plane_bytes = (size_t)plane * sizeof(float);
    if (page <= 0 || plane_bytes % (size_t)page != 0 || nz < 2 || shared_planes + nz > MOST_SHARED_PLANES)
        return v;
    long *slot = sf_malloc((size_t)nz * sizeof(long), what);
    float *distinct = sf_malloc((size_t)nz * sizeof(float), what);
    const long count = distinct_values(values, nz, slot, distinct);
    if (count < nz) v.data = map_shared(slot, distinct, count, nz, plane_bytes);
    free(slot);
    free(distinct);
    if (v.data) {
        v.mapped_bytes = plane_bytes * (size_t)nz;
        v.mapped_planes = nz;
        shared_planes += nz;
    }
    return v;
}
#endif

sf_plane_volume sf_plane_volume_of_values(const float *values, long nz, long plane, const char *what)
{
#if defined(__linux__)
    sf_plane_volume v = shared_volume(values, nz, plane, what);
    if (v.data) return v;
#else
    sf_plane_volume v = {NULL, 0, 0};
#endif
    v.data = sf_malloc((size_t)plane * (size_t)nz * sizeof(float), what);
    /* Threads over the planes: a 1024^3 model took 8 s on one core, and
     * each plane's pages land by the core that will step it. */
    #pragma omp parallel for schedule(static)
    for (long k = 0; k < nz; ++k)
        for (long n = 0; n < plane; ++n) v.data[k * plane + n] = values[k];
    return v;
}

void sf_plane_volume_free(sf_plane_volume *v)
{
#if defined(__linux__)
    if (v->mapped_bytes) {
        unmap(v->data, v->mapped_bytes);
        shared_planes -= v->mapped_planes;
    } else {
        free(v->data);
    }
#else
    free(v->data);
#endif
    *v = (sf_plane_volume){NULL, 0, 0};
}
