/* GPU-aware MPI: whether a GPU rank hands MPI its halo buffers in device
 * memory or stages them through pinned host memory. The setting (job key
 * run.gpu_aware_mpi, bench --gpu-aware-mpi, or the environment variable
 * SEISFD_GPU_AWARE_MPI for job scripts), what the MPI library says of
 * itself, and each rank's choice with its reason. Plain C and MPI: the
 * probe that checks the choice on the devices lives in src/gpu/mpi.c. */
#ifndef SF_GPU_AWARE_MPI_H
#define SF_GPU_AWARE_MPI_H

#include <stddef.h>

typedef enum { SF_GPU_AWARE_AUTO, SF_GPU_AWARE_ON, SF_GPU_AWARE_OFF } sf_gpu_aware_mode;

/* Overrides the job file's run.gpu_aware_mpi (not an explicit bench option). */
#define SF_GPU_AWARE_ENV "SEISFD_GPU_AWARE_MPI"

enum { SF_GPU_AWARE_TEXT = 320, SF_MPI_LIBRARY_TEXT = 96 };

typedef struct {
    sf_gpu_aware_mode mode;
    /* Who set it, for messages: "job.yaml:31:18: run.gpu_aware_mpi",
     * "SEISFD_GPU_AWARE_MPI", "bench --gpu-aware-mpi" or "the default". */
    char origin[SF_GPU_AWARE_TEXT];
} sf_gpu_aware_setting;

/* "auto", "on", "off" -> the mode; -1 for any other word. */
int sf_gpu_aware_parse(const char *word);
const char *sf_gpu_aware_name(sf_gpu_aware_mode mode);

/* The setting in force: SEISFD_GPU_AWARE_MPI when it is set and
 * `environment_wins`, else `given` from `origin`. 0, or -1 with why when
 * the variable holds something other than auto, on or off. */
int sf_gpu_aware_resolve(sf_gpu_aware_mode given, const char *origin, int environment_wins,
                         sf_gpu_aware_setting *out, char *why, size_t len);

/* What an MPI library says about device buffers. */
typedef struct {
    int takes_device;                    /* 1: it says it takes device pointers */
    char library[SF_MPI_LIBRARY_TEXT];   /* the first line of MPI_Get_library_version */
    char evidence[SF_GPU_AWARE_TEXT];    /* what was asked and what it answered */
} sf_mpi_gpu_answer;

/* The answers of the queries the MPI headers offered at compile time:
 * 1 or 0, or -1 where the query is not there. */
typedef struct {
    int open_mpi_cuda;    /* Open MPI: MPIX_Query_cuda_support() */
    int mpich_gpu_cuda;   /* MPICH 3.4+: MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &answer) */
    /* Open MPI built without CUDA can still move device buffers through
     * its UCX transport when that UCX was built with CUDA, yet answers 0
     * above; so, for Open MPI: the point-to-point component it selected
     * ("ucx", "ob1"; NULL where it could not be read), and whether the UCX
     * loaded in this process lists CUDA among its context's memory types
     * (1 or 0; -1: no UCX loaded, or seisfd built without UCX's headers),
     * with its version and the reason where it could not be asked. */
    const char *open_mpi_pml;
    int ucx_cuda;
    char ucx_said[SF_MPI_LIBRARY_TEXT];
} sf_mpi_gpu_queries;

/* The queries' "not asked" answers. */
#define SF_MPI_GPU_QUERIES_NONE {-1, -1, NULL, -1, ""}

/* UCX's cache of memory types may take a device buffer for host memory
 * (small sends crash, large ones hang): device buffers through UCX need
 * this variable at n before MPI_Init, which sf_gpu_aware_prepare_ucx sets
 * where it is unset. */
#define SF_UCX_MEMTYPE_CACHE "UCX_MEMTYPE_CACHE"

/* Before MPI_Init: sets UCX_MEMTYPE_CACHE=n unless the environment gives it. */
void sf_gpu_aware_prepare_ucx(void);

/* Reads an environment variable; getenv, or a table in the unit tests. */
typedef const char *(*sf_env_lookup)(const char *name);

/* From the library's version text, the queries and the environment: Open
 * MPI by its query, or by its pml being ucx with a UCX that lists CUDA
 * memory and UCX_MEMTYPE_CACHE off; MPICH by its query, Cray MPICH by
 * MPICH_GPU_SUPPORT_ENABLED=1, MVAPICH2 by MV2_USE_CUDA=1; any other
 * library does not say. */
void sf_mpi_gpu_interpret(const char *version, sf_mpi_gpu_queries queries, sf_env_lookup env,
                          sf_mpi_gpu_answer *out);

/* Asks this process's MPI library (after MPI_Init). */
void sf_mpi_gpu_ask(sf_mpi_gpu_answer *out);

/* One rank's choice: 1 for device buffers, 0 for host staging, with the
 * reason ("device buffers: run.gpu_aware_mpi is on (SEISFD_GPU_AWARE_MPI)"). */
int sf_gpu_aware_choose(const sf_gpu_aware_setting *setting, const sf_mpi_gpu_answer *answer,
                        char *reason, size_t len);

/* The warning due where auto ended on host staging and a node holds
 * gpu_ranks_per_node >= 2 GPU ranks (staged halos then cost most, and a
 * GPU-aware launch is the cure): 1 with the text, else 0. */
int sf_gpu_staging_warning(const sf_gpu_aware_setting *setting, int device_buffers,
                           int gpu_ranks_per_node, char *text, size_t len);

#endif
