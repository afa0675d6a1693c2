/* The CPU cores a rank may use and the cores of its host, counted as
 * OpenMP threads should be: with hwloc, the hardware threads of one core
 * count once and the host is what the process is allowed (a container's
 * or batch job's CPU set); without hwloc, every online CPU counts. */
#ifndef SF_CPU_CORES_H
#define SF_CPU_CORES_H

/* How many CPU ids a set of this host's CPUs spans: the length of the
 * arrays below, the same for every process of the host. */
int sf_cpu_id_count(void);

/* This process's CPUs, one byte per id (1: it may run there): the OpenMP
 * places when OMP_PROC_BIND or OMP_PLACES bind the threads (the runtime
 * has then pinned the main thread to the first place alone), otherwise
 * its affinity mask (sched_getaffinity). */
void sf_cpu_allowed(unsigned char *cpus, int id_count);

/* The host's cores, and the cores holding at least one of `cpus`. */
void sf_cpu_count_cores(const unsigned char *cpus, int id_count, int *host_cores,
                        int *cores);

#endif
