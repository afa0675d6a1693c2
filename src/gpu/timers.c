/* A ring of event pairs: a span is read once the ring needs its slot
 * again (by then its work has long finished) or at take, after the solver
 * has synchronised. */
#include "sf_gpu_timers.h"
#include "sf_error.h"

#include <stdlib.h>
#include <string.h>

enum { RING = 2048 };   /* spans in flight: about 150 steps of 14 spans */

typedef struct {
    cudaEvent_t start, stop;
    sf_phase phase;
} span;

struct sf_gpu_timers {
    span ring[RING];
    long oldest, next;   /* spans [oldest, next) are recorded and not yet read */
    double seconds[SF_PHASE_COUNT];
};

sf_gpu_timers *sf_gpu_timers_create(void)
{
    sf_gpu_timers *t = sf_calloc(1, sizeof *t, "the GPU phase timers");
    for (int n = 0; n < RING; ++n) {
        SF_CUDA_CHECK(cudaEventCreate(&t->ring[n].start), "creating timing events");
        SF_CUDA_CHECK(cudaEventCreate(&t->ring[n].stop), "creating timing events");
    }
    return t;
}

void sf_gpu_timers_destroy(sf_gpu_timers *t)
{
    if (!t) return;
    for (int n = 0; n < RING; ++n) {
        SF_CUDA_CHECK(cudaEventDestroy(t->ring[n].start), "destroying timing events");
        SF_CUDA_CHECK(cudaEventDestroy(t->ring[n].stop), "destroying timing events");
    }
    free(t);
}

static void read_oldest(sf_gpu_timers *t)
{
    span *s = &t->ring[t->oldest % RING];
    float ms = 0.0f;
    SF_CUDA_CHECK(cudaEventSynchronize(s->stop), "waiting for timed device work");
    SF_CUDA_CHECK(cudaEventElapsedTime(&ms, s->start, s->stop), "reading a phase time");
    t->seconds[s->phase] += 1e-3 * ms;
    ++t->oldest;
}

void sf_gpu_timers_begin(sf_gpu_timers *t, sf_phase phase, cudaStream_t stream)
{
    if (t->next - t->oldest == RING) read_oldest(t);
    span *s = &t->ring[t->next % RING];
    s->phase = phase;
    SF_CUDA_CHECK(cudaEventRecord(s->start, stream), "timing a device phase");
}

void sf_gpu_timers_end(sf_gpu_timers *t, cudaStream_t stream)
{
    SF_CUDA_CHECK(cudaEventRecord(t->ring[t->next % RING].stop, stream), "timing a device phase");
    ++t->next;
}

void sf_gpu_timers_take(sf_gpu_timers *t, double *seconds)
{
    while (t->oldest < t->next) read_oldest(t);
    for (int p = 0; p < SF_PHASE_COUNT; ++p) seconds[p] += t->seconds[p];
    memset(t->seconds, 0, sizeof t->seconds);
}
