/* GPU-aware MPI on the GPU ranks: the ranks agree on device buffers or
 * host staging, and before the first step neighbours exchange device
 * buffers and compare what arrived, so an MPI that cannot take device
 * memory ends the run with one message instead of wrong results. */
#include "sf_error.h"
#include "sf_gpu.h"

#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PROBE_SECONDS = 30, MESSAGE = 1400 };

/* ---- the choice ---------------------------------------------------------- */

/* Collective: 1 when every rank chose device buffers; otherwise the
 * first rank that did not, and its reason in declined. */
static int all_choose_device(MPI_Comm comm, int mine, const char *reason, char *declined,
                             size_t len)
{
    char theirs[SF_GPU_AWARE_TEXT + 64];
    snprintf(theirs, sizeof theirs, "%s", reason);
    int first = sf_first_flagged_rank(comm, !mine, theirs, (int)sizeof theirs,
                                      "agreeing on the halo buffers");
    if (first < 0) return 1;
    snprintf(declined, len, "rank %d: %s", first, theirs);
    return 0;
}

/* ---- the check ----------------------------------------------------------- */

/* What the signal handler writes: prepared beforehand, since a handler
 * may only write(2) and _exit. */
static struct {
    char before[MESSAGE], after[MESSAGE];
} crash;

static const char *signal_words(int sig)
{
    switch (sig) {
    case SIGSEGV: return "MPI crashed (SIGSEGV, an invalid memory access) on it";
    case SIGBUS: return "MPI crashed (SIGBUS) on it";
    case SIGABRT: return "MPI aborted (SIGABRT) on it";
    case SIGALRM: return "the exchange hung (no answer within 30 s)";
    default: return "MPI stopped on a signal";
    }
}

static const char ERROR_PREFIX[] = "seisfd: error: ";

static void on_signal(int sig)
{
    const char *words = signal_words(sig);
    ssize_t ignored = write(STDERR_FILENO, ERROR_PREFIX, strlen(ERROR_PREFIX));
    ignored = write(STDERR_FILENO, crash.before, strlen(crash.before));
    ignored = write(STDERR_FILENO, words, strlen(words));
    ignored = write(STDERR_FILENO, crash.after, strlen(crash.after));
    (void)ignored;
    _exit(1);
}

static const int WATCHED[] = {SIGSEGV, SIGBUS, SIGABRT, SIGALRM};
enum { NWATCHED = sizeof WATCHED / sizeof WATCHED[0] };

static void watch(struct sigaction saved[NWATCHED])
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_signal;
    sigemptyset(&act.sa_mask);
    for (int s = 0; s < NWATCHED; ++s) sigaction(WATCHED[s], &act, &saved[s]);
    alarm(PROBE_SECONDS);
}

static void unwatch(const struct sigaction saved[NWATCHED])
{
    alarm(0);
    for (int s = 0; s < NWATCHED; ++s) sigaction(WATCHED[s], &saved[s], NULL);
}

/* The word i a rank sends down (side 0) or up (side 1). */
static uint32_t probe_word(int rank, int side, int i)
{
    return (uint32_t)i * 2654435761u ^ ((uint32_t)rank * 40503u + (uint32_t)side * 7u + 1u);
}

/* The largest message: 4 MiB, rendezvous-sized in every MPI library (the
 * 1 KiB one goes eagerly); MPIs move the two by different protocols, and
 * either may be the one that breaks. */
enum { PROBE_WORDS = 1 << 20 };

/* Allocated once and never freed: UCX keeps the IPC handle of a device
 * buffer it has sent, and its hooks cannot see a free made through the
 * static CUDA runtime, so a buffer later allocated at a freed one's
 * address would go out under the stale handle (cuIpcOpenMemHandle: invalid
 * argument on the peer). */
static struct {
    uint32_t *send[2], *recv[2];   /* device, [side] */
    uint32_t *host;                /* a host copy of one message */
} pool;

static void pool_alloc(void)
{
    if (pool.host) return;
    size_t bytes = (size_t)PROBE_WORDS * sizeof(uint32_t);
    for (int s = 0; s < 2; ++s) {
        SF_CUDA_CHECK(cudaMalloc((void **)&pool.send[s], bytes), "allocating the GPU-aware MPI check");
        SF_CUDA_CHECK(cudaMalloc((void **)&pool.recv[s], bytes), "allocating the GPU-aware MPI check");
    }
    pool.host = sf_malloc(bytes, "the GPU-aware MPI check");
}

/* Rank 0's sends and the receives of rank 1 (first) or of every rank
 * from both neighbours, as the halo does (all). */
typedef enum { FIRST_CONTACT, ALL_NEIGHBOURS } probe_kind;

/* The neighbours a rank receives from and sends to, per side. */
static void probe_peers(MPI_Comm comm, probe_kind kind, int from[2], int to[2])
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int lower = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int upper = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    from[0] = lower, from[1] = upper, to[0] = lower, to[1] = upper;
    if (kind == ALL_NEIGHBOURS) return;
    /* One message, 0 to 1: a library that crashes on device memory does
     * so in one process, and the run ends with one message. */
    from[0] = rank == 1 ? 0 : MPI_PROC_NULL;
    to[1] = rank == 0 ? 1 : MPI_PROC_NULL;
    from[1] = to[0] = MPI_PROC_NULL;
}

/* One exchange of device buffers of `words` words with the peers of
 * probe_peers; 0, or -1 with what went wrong in problem. */
static int probe_once(MPI_Comm comm, const int from[2], const int to[2], int words, char *problem,
                      size_t len)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    pool_alloc();
    size_t bytes = (size_t)words * sizeof(uint32_t);
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < words; ++i) pool.host[i] = probe_word(rank, s, i);
        SF_CUDA_CHECK(cudaMemcpy(pool.send[s], pool.host, bytes, cudaMemcpyHostToDevice),
                      "filling the GPU-aware MPI check");
        SF_CUDA_CHECK(cudaMemset(pool.recv[s], 0xff, bytes), "clearing the GPU-aware MPI check");
    }
    /* Side s receives what the neighbour there sent towards this rank:
     * tag 0 going down, 1 going up. */
    MPI_Request request[4];
    int rc = MPI_SUCCESS;
    for (int s = 0; s < 2 && rc == MPI_SUCCESS; ++s)
        rc = MPI_Irecv(pool.recv[s], words, MPI_UINT32_T, from[s], 1 - s, comm, &request[s]);
    for (int s = 0; s < 2 && rc == MPI_SUCCESS; ++s)
        rc = MPI_Isend(pool.send[s], words, MPI_UINT32_T, to[s], s, comm, &request[2 + s]);
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(4, request, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING] = "";
        int n = 0;
        MPI_Error_string(rc, text, &n);
        snprintf(problem, len, "MPI returned an error on it (%s)", text);
        return -1;
    }
    for (int s = 0; s < 2; ++s) {
        if (from[s] == MPI_PROC_NULL) continue;
        SF_CUDA_CHECK(cudaMemcpy(pool.host, pool.recv[s], bytes, cudaMemcpyDeviceToHost),
                      "reading the GPU-aware MPI check");
        for (int i = 0; i < words; ++i) {
            uint32_t want = probe_word(from[s], 1 - s, i);
            if (pool.host[i] == want) continue;
            snprintf(problem, len, "the buffer from rank %d arrived wrong (word %d of %d: "
                     "0x%08x, sent 0x%08x)", from[s], i, words, pool.host[i], want);
            return -1;
        }
    }
    return 0;
}

static void prepare_crash_message(probe_kind kind, const int from[2], const int to[2],
                                  const char *why, int words)
{
    char where[400], doing[96];
    sf_gpu_describe(where, sizeof where);
    if (kind == ALL_NEIGHBOURS)
        snprintf(doing, sizeof doing, "exchanging device buffers of %d bytes with its neighbours",
                 words * 4);
    else if (to[1] != MPI_PROC_NULL)
        snprintf(doing, sizeof doing, "sending a device buffer of %d bytes to rank %d", words * 4,
                 to[1]);
    else
        snprintf(doing, sizeof doing, "receiving a device buffer of %d bytes from rank %d",
                 words * 4, from[0]);
    snprintf(crash.before, sizeof crash.before,
             "the GPU-aware MPI check before the first step failed on %s, %s: ",
             where, doing);
    snprintf(crash.after, sizeof crash.after,
             ". Device buffers were chosen (%s), but this MPI, as launched, does not take "
             "device memory: set gpu_aware_mpi to off, or launch with a GPU-aware MPI "
             "(docs/clusters-and-gpus.md, \"GPU-aware MPI\"; Open MPI needs --mca pml ucx, a UCX built with CUDA "
             "and UCX_MEMTYPE_CACHE=n)\n",
             why);
}

/* Collective: a first message from rank 0 to rank 1, then both message
 * sizes with both neighbours. A crash or hang ends the rank from the
 * signal handler; wrong data or an MPI error ends every rank with the
 * first failing rank's message. */
static void probe(MPI_Comm comm, const char *why)
{
    static const struct {
        probe_kind kind;
        int words;
    } steps[] = {{FIRST_CONTACT, 256}, {ALL_NEIGHBOURS, 256}, {ALL_NEIGHBOURS, PROBE_WORDS}};
    char problem[600] = "";
    int first = -1;
    for (size_t n = 0; n < sizeof steps / sizeof steps[0] && first < 0; ++n) {
        SF_MPI_CHECK(MPI_Barrier(comm), "running the GPU-aware MPI check");
        int from[2], to[2];
        probe_peers(comm, steps[n].kind, from, to);
        prepare_crash_message(steps[n].kind, from, to, why, steps[n].words);
        struct sigaction saved[NWATCHED];
        watch(saved);
        int failed = probe_once(comm, from, to, steps[n].words, problem, sizeof problem) != 0;
        unwatch(saved);
        if (failed) {
            char message[MESSAGE * 2];
            snprintf(message, sizeof message, "%s%s%s", crash.before, problem, crash.after);
            snprintf(problem, sizeof problem, "%.599s", message);
        }
        first = sf_first_flagged_rank(comm, failed, problem, (int)sizeof problem,
                                      "agreeing on the GPU-aware MPI check");
    }
    if (first < 0) return;
    problem[strcspn(problem, "\n")] = '\0';
    sf_fail_collective("%s", problem);
}

/* Collective: the most ranks of comm on one node. */
static int most_ranks_on_a_node(MPI_Comm comm)
{
    MPI_Comm node;
    int here, most;
    SF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                 "counting the GPU ranks of each node");
    SF_MPI_CHECK(MPI_Comm_size(node, &here), "counting the GPU ranks of each node");
    SF_MPI_CHECK(MPI_Comm_free(&node), "counting the GPU ranks of each node");
    SF_MPI_CHECK(MPI_Allreduce(&here, &most, 1, MPI_INT, MPI_MAX, comm),
                 "counting the GPU ranks of each node");
    return most;
}

static void warn_if_staging_hurts(const sf_gpu_aware_setting *setting, MPI_Comm comm)
{
    char text[1200];
    if (sf_gpu_staging_warning(setting, 0, most_ranks_on_a_node(comm), text, sizeof text))
        sf_warn("%s", text);
}

sf_halo_transport sf_gpu_halo_transport(const sf_gpu_aware_setting *setting, MPI_Comm comm,
                                        char *reason, size_t len)
{
    sf_mpi_gpu_answer answer;
    sf_mpi_gpu_ask(&answer);
    char mine[SF_GPU_AWARE_TEXT + 64], declined[SF_GPU_AWARE_TEXT + 96];
    int device = sf_gpu_aware_choose(setting, &answer, mine, sizeof mine);
    if (!all_choose_device(comm, device, mine, declined, sizeof declined)) {
        if (device)
            snprintf(reason, len, "host staging: every rank must take device buffers, and %s",
                     declined);
        else
            snprintf(reason, len, "%s", mine);
        warn_if_staging_hurts(setting, comm);
        return SF_HALO_HOST_STAGED;
    }
    int size;
    MPI_Comm_size(comm, &size);
    /* The probe's message says why device buffers were chosen: the reason
     * after its "device buffers: ". */
    const char *colon = strchr(mine, ':');
    if (size > 1) probe(comm, colon ? colon + 2 : mine);
    snprintf(reason, len, "%s%s", mine,
             size > 1 ? "; checked with the neighbours before the first step"
                      : "; one rank: no halo exchange");
    return SF_HALO_DEVICE_BUFFERS;
}
