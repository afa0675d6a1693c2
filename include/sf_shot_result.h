/* What one shot of a run came to: passed from a group's leader to world
 * rank 0 (as bytes: every rank runs the same binary), recorded in the
 * manifest and in the run report. */
#ifndef SF_SHOT_RESULT_H
#define SF_SHOT_RESULT_H

#include "sf_output.h"
#include "sf_timers.h"

/* Interrupted: stopped by a signal, its new files removed (sf_interrupt.h). */
typedef enum { SF_SHOT_PENDING, SF_SHOT_RUNNING, SF_SHOT_DONE, SF_SHOT_FAILED,
               SF_SHOT_SKIPPED, SF_SHOT_INTERRUPTED } sf_shot_status;

/* The phases of sf_timers, then the halo time the steps waited for;
 * every output of a shot. */
enum { SF_RESULT_PHASES = SF_PHASE_COUNT + 1, SF_RESULT_FILES = SF_OUTPUT_SET_MAX,
       SF_RESULT_TEXT = 1024 };

typedef struct {
    long index;                /* shot number, from 1 */
    int status;                /* sf_shot_status */
    int group;
    double seconds;            /* wall time: set-up, time loop, outputs */
    double loop_seconds;       /* the time steps alone */
    long steps;
    double points_per_second;  /* nx ny nz steps / loop_seconds */
    double phases[SF_RESULT_PHASES];   /* seconds, the maximum over the group's ranks */
    int nfiles;
    char files[SF_RESULT_FILES][SF_RESULT_TEXT];   /* as written (paths) */
    long long sizes[SF_RESULT_FILES];
    unsigned long long checksums[SF_RESULT_FILES]; /* 64-bit FNV-1a of the bytes */
    char finished[32];         /* UTC, ISO 8601 */
    char reason[SF_RESULT_TEXT];   /* why it failed or was interrupted */
} sf_shot_result;

const char *sf_shot_status_name(int status);   /* "done", "failed", "interrupted", ... */

#endif
