/* Device time per phase, measured with CUDA events around the queued work
 * and read back only when that work has finished, so timing adds no
 * host-device synchronisation to the time loop. */
#ifndef SF_GPU_TIMERS_H
#define SF_GPU_TIMERS_H

#include "sf_timers.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sf_gpu_timers sf_gpu_timers;

sf_gpu_timers *sf_gpu_timers_create(void);
void sf_gpu_timers_destroy(sf_gpu_timers *t);
/* Brackets device work of one phase queued on stream; one span ends before
 * the next begins. */
void sf_gpu_timers_begin(sf_gpu_timers *t, sf_phase phase, cudaStream_t stream);
void sf_gpu_timers_end(sf_gpu_timers *t, cudaStream_t stream);
/* Waits for the bracketed work, adds its seconds per phase to
 * seconds[SF_PHASE_COUNT] and starts afresh. */
void sf_gpu_timers_take(sf_gpu_timers *t, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
