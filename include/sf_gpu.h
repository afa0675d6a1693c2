/* GPUs for the CUDA backend (CUDA builds only): which devices a rank
 * sees, binding each rank to one device of its node (and its CPU cores to
 * those nearest that device), the set-up lines that say so, and whether
 * the halo buffers go to MPI in device memory. */
#ifndef SF_GPU_H
#define SF_GPU_H

#include "sf_backend.h"
#include "sf_gpu_aware_mpi.h"

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Devices visible to this process (CUDA_VISIBLE_DEVICES applies); 0 when
 * there are none or no driver, with CUDA's reason in why. */
int sf_gpu_count(char *why, size_t why_size);

/* Collective over comm: 1 when every rank sees at least one device;
 * otherwise 0, and missing names the first rank without one, its host and
 * CUDA's reason (on every rank). */
int sf_gpu_everywhere(MPI_Comm comm, char *missing, size_t missing_size);

/* Collective over comm: device = node-local rank index modulo the node's
 * device count; warns once per node when ranks share a device; binds the
 * CPU affinity to the cores nearest the device (hwloc builds) unless the
 * launcher already bound the rank, and the OpenMP threads follow that
 * binding (sf_thread_count_rebind). */
void sf_gpu_bind(MPI_Comm comm);

/* The device chosen by sf_gpu_bind, or -1 before it. */
int sf_gpu_device(void);

/* Collective over comm: rank 0 prints one line per rank: host, device
 * index, name, PCI bus id, free and total memory, and the CPU cores. */
void sf_gpu_print_binding(MPI_Comm comm);

/* Prints the devices this process sees, for `seisfd --version`. */
void sf_gpu_print_visible(void);

/* Collective over comm: is this rank the lowest one bound to its device
 * (devices told apart by host and PCI bus id)? */
int sf_gpu_first_on_device(MPI_Comm comm);

/* Device-to-device copy bandwidth of the bound device, bytes read plus
 * bytes written per second over buffers of mib MiB in all, best of 10. */
double sf_gpu_copy_bandwidth(long mib);

/* Collective over comm: ranks 2k and 2k+1 swap messages of 1 to 64 MiB
 * both ways at once, with device buffers (when transport has them) and
 * host staged as the halos are; rank 0 prints GB/s per direction beside a
 * direct peer copy between its GPU and its partner's (the link's rate). */
void sf_gpu_exchange_bandwidth(MPI_Comm comm, sf_halo_transport transport);

/* Collective over comm, after sf_gpu_bind: device buffers or host staging
 * for the halos, the same on every rank, with this rank's reason. Device
 * buffers are first exchanged between neighbours and checked; an MPI that
 * crashes, hangs or delivers wrong data ends the run with one message. */
sf_halo_transport sf_gpu_halo_transport(const sf_gpu_aware_setting *setting, MPI_Comm comm,
                                        char *reason, size_t len);

/* The bound device's index, name and UUID ("GPU-8-4-4-4-12" hex digits,
 * as nvidia-smi prints it), for the run report. */
void sf_gpu_identity(int *index, char *name, size_t name_size, char *uuid, size_t uuid_size);

/* "GPU 0 (NVIDIA H100) of host node1, rank 3": names the device of this
 * rank in messages. */
void sf_gpu_describe(char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
