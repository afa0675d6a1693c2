/* Wall-clock accounting per phase of the run, reported at the end. */
#ifndef SF_TIMERS_H
#define SF_TIMERS_H

#include <mpi.h>

typedef enum {
    SF_PHASE_STENCIL,      /* wave-equation update and CPML */
    SF_PHASE_HALO_PACK,
    SF_PHASE_HALO_D2H,     /* device to host copies of packed halos */
    SF_PHASE_HALO_MPI,
    SF_PHASE_HALO_H2D,
    SF_PHASE_HALO_UNPACK,
    SF_PHASE_ACQUISITION,  /* source injection and receiver sampling */
    SF_PHASE_IO,           /* model read, snapshots and gather write */
    SF_PHASE_GUARD,        /* the instability guard's checks for non-finite values */
    SF_PHASE_COUNT
} sf_phase;

typedef struct {
    double seconds[SF_PHASE_COUNT];
    double started;
} sf_timers;

const char *sf_phase_name(sf_phase phase);

/* Is the phase part of the halo exchange? */
int sf_phase_is_halo(sf_phase phase);

static inline double sf_now(void) { return MPI_Wtime(); }
static inline void sf_timer_start(sf_timers *t) { t->started = MPI_Wtime(); }
static inline void sf_timer_stop(sf_timers *t, sf_phase phase)
{
    t->seconds[phase] += MPI_Wtime() - t->started;
}

#endif
