/* How halo buffers reach MPI, and which halo phases of the timing table
 * each way has: a GPU that stages through the host copies the packed
 * planes down and up (D2H, H2D); device buffers and the CPU's host memory
 * go to MPI as they are. */
#ifndef SF_HALO_TRANSPORT_H
#define SF_HALO_TRANSPORT_H

#include "sf_timers.h"

/* Host memory (the CPU backend), device buffers copied through pinned
 * host memory (a GPU, host staging), or the device buffers themselves (a
 * GPU with GPU-aware MPI). */
typedef enum { SF_HALO_HOST_MEMORY, SF_HALO_HOST_STAGED, SF_HALO_DEVICE_BUFFERS } sf_halo_transport;

/* "host memory", "host staging" or "device buffers". */
const char *sf_halo_transport_name(sf_halo_transport transport);

/* Does the phase happen at all with this transport? */
int sf_phase_applies(sf_phase phase, sf_halo_transport transport);

#endif
