/* OpenMP threads per rank, fitted to the host's cores (sf_thread_count.h).
 * OpenMP's own default, one thread per CPU the rank may use, starts every
 * rank of an unbound launch on all of the host's cores: 4 ranks on 2 cores
 * then run 8 threads that spin waiting for each other. */
#include "sf_thread_count.h"
#include "sf_cpu_cores.h"
#include "sf_error.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROBLEM_TEXT = 1024 };

static struct {
    int threads;
    char origin[SF_THREAD_ORIGIN_TEXT]; /* where that number came from */
} chosen;

/* What a rank learns of its host and of how its cores are shared out. */
typedef struct {
    char host[MPI_MAX_PROCESSOR_NAME];
    int host_cores, ranks; /* the host's cores and the ranks on it */
    int cores, sharers;    /* the cores this rank may use; the host's ranks
                              allowed the very same CPUs, itself included */
    int fair;              /* its share: host_cores / ranks, at least 1 */
    int bound_share;       /* cores / sharers, at least 1 */
    int from_env;          /* OMP_NUM_THREADS is set */
    int pinned;            /* OpenMP places pin the threads (OMP_PROC_BIND, OMP_PLACES) */
    int threads, host_threads; /* this rank's, and those of all the host's ranks */
} sharing;

static int at_least_1(int n) { return n > 0 ? n : 1; }
static const char *plural(int n) { return n == 1 ? "" : "s"; }

static int ranks_bound_alike(MPI_Comm node, const unsigned char *cpus, int id_count, int ranks)
{
    unsigned char *all = sf_malloc((size_t)id_count * (size_t)ranks, "the host's ranks' CPUs");
    SF_MPI_CHECK(MPI_Allgather(cpus, id_count, MPI_UNSIGNED_CHAR, all, id_count,
                               MPI_UNSIGNED_CHAR, node),
                 "comparing the CPUs of the host's ranks");
    int alike = 0;
    for (int r = 0; r < ranks; ++r)
        alike += !memcmp(all + (size_t)r * (size_t)id_count, cpus, (size_t)id_count);
    free(all);
    return alike;
}

/* The cores of this rank and of its host, and who else runs on them. */
static void count_cores(MPI_Comm node, sharing *s)
{
    const int id_count = sf_cpu_id_count();
    unsigned char *cpus = sf_malloc((size_t)id_count, "this rank's CPUs");
    sf_cpu_allowed(cpus, id_count);
    sf_cpu_count_cores(cpus, id_count, &s->host_cores, &s->cores);
    s->sharers = ranks_bound_alike(node, cpus, id_count, s->ranks);
    free(cpus);
    s->host_cores = at_least_1(s->host_cores);
    s->cores = at_least_1(s->cores); /* CPUs outside the cores hwloc shows count as one */
}

static void survey_host(MPI_Comm comm, sharing *s)
{
    memset(s, 0, sizeof *s);
    int rank, length;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "finding the ranks of this host");
    MPI_Comm node;
    SF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
                 "finding the ranks of this host");
    SF_MPI_CHECK(MPI_Comm_size(node, &s->ranks), "finding the ranks of this host");
    count_cores(node, s);
    s->fair = at_least_1(s->host_cores / s->ranks);
    s->bound_share = at_least_1(s->cores / s->sharers);
    const char *env = getenv("OMP_NUM_THREADS");
    s->from_env = env && *env;
    s->pinned = omp_get_proc_bind() != omp_proc_bind_false;
    s->threads = s->from_env ? omp_get_max_threads()
                             : (s->bound_share < s->fair ? s->bound_share : s->fair);
    SF_MPI_CHECK(MPI_Allreduce(&s->threads, &s->host_threads, 1, MPI_INT, MPI_SUM, node),
                 "adding up the threads of the host's ranks");
    SF_MPI_CHECK(MPI_Comm_free(&node), "finding the ranks of this host");
    if (MPI_Get_processor_name(s->host, &length) != MPI_SUCCESS) strcpy(s->host, "unknown");
}

static void apply(const sharing *s, const char *binding)
{
    if (!s->from_env) omp_set_num_threads(s->threads);
    chosen.threads = s->threads;
    if (s->from_env)
        snprintf(chosen.origin, sizeof chosen.origin, "OMP_NUM_THREADS");
    else if (s->fair <= s->bound_share && s->ranks == 1)
        snprintf(chosen.origin, sizeof chosen.origin, "its host's %d core%s", s->host_cores,
                 plural(s->host_cores));
    else if (s->fair <= s->bound_share)
        snprintf(chosen.origin, sizeof chosen.origin, "its share of its host's %d cores among %d "
                 "ranks%s", s->host_cores, s->ranks, s->host_cores < s->ranks ? ", at least 1" : "");
    else if (s->sharers == 1)
        snprintf(chosen.origin, sizeof chosen.origin, "%s: %d core%s", binding, s->cores,
                 plural(s->cores));
    else
        snprintf(chosen.origin, sizeof chosen.origin, "%s: %d cores shared by %d ranks", binding,
                 s->cores, s->sharers);
}

/* More threads than cores on the host: fewer ranks, or fewer threads. */
static void crowded_host(const sharing *s, char *text, size_t size)
{
    int at = snprintf(text, size, "host %s: its %d rank%s run%s %d OpenMP threads in all on its "
                      "%d core%s, so they take turns and wait for each other; ",
                      s->host, s->ranks, plural(s->ranks), s->ranks == 1 ? "s" : "",
                      s->host_threads, s->host_cores, plural(s->host_cores));
    if (at < 0 || (size_t)at >= size) return;
    if (s->ranks > s->host_cores)
        snprintf(text + at, size - (size_t)at, "run at most %d rank%s on it (e.g. mpirun -np %d)%s",
                 s->host_cores, plural(s->host_cores), s->host_cores,
                 s->from_env && s->threads > 1 ? " with OMP_NUM_THREADS=1" : "");
    else
        snprintf(text + at, size - (size_t)at, "set OMP_NUM_THREADS=%d (%d cores / %d rank%s) or "
                 "leave it unset, and seisfd gives each rank its share", s->fair, s->host_cores,
                 s->ranks, plural(s->ranks));
}

/* The ranks bound to one set of cores run more threads than it has. */
static void crowded_binding(const sharing *s, int rank, char *text, size_t size)
{
    if (s->pinned && s->sharers > 1)
        snprintf(text, size, "rank %d on host %s and %d other rank%s may use the same %d core%s, "
                 "and OMP_PROC_BIND (or OMP_PLACES) pins each one's threads from the first of "
                 "them on, so they pile up there; bind each rank to cores of its own (mpirun "
                 "--map-by slot:PE=%d) or unset OMP_PROC_BIND and OMP_PLACES",
                 rank, s->host, s->sharers - 1, plural(s->sharers - 1), s->cores,
                 plural(s->cores), s->fair);
    else if (s->sharers == 1)
        snprintf(text, size, "rank %d on host %s runs %d OpenMP threads (OMP_NUM_THREADS) on the "
                 "%d core%s it is bound to; bind it to %d cores (mpirun --map-by slot:PE=%d), or "
                 "not at all (--bind-to none), or set OMP_NUM_THREADS=%d",
                 rank, s->host, s->threads, s->cores, plural(s->cores),
                 s->threads < s->fair ? s->threads : s->fair,
                 s->threads < s->fair ? s->threads : s->fair, s->bound_share);
    else
        snprintf(text, size, "rank %d on host %s and %d other rank%s are bound to the same %d "
                 "core%s and run %d OpenMP thread%s each on them; bind each rank to cores of its "
                 "own (mpirun --map-by slot:PE=%d) or not at all (--bind-to none)%s",
                 rank, s->host, s->sharers - 1, plural(s->sharers - 1), s->cores,
                 plural(s->cores), s->threads, plural(s->threads), s->fair,
                 s->from_env ? ", or lower OMP_NUM_THREADS" : "");
}

/* The binding gives a rank fewer cores than its share: cores stay idle. */
static void narrow_binding(const sharing *s, int rank, char *text, size_t size)
{
    char others[64] = "";
    if (s->sharers > 1)
        snprintf(others, sizeof others, " together with %d other rank%s", s->sharers - 1,
                 plural(s->sharers - 1));
    snprintf(text, size, "rank %d on host %s is bound to %d of its %d cores%s, fewer than its "
             "share (%d cores / %d rank%s = %d), so it runs %d OpenMP thread%s and cores stay "
             "idle; let mpirun bind each rank to its share (--map-by slot:PE=%d) or not at all "
             "(--bind-to none)",
             rank, s->host, s->cores, s->host_cores, others, s->host_cores, s->ranks,
             plural(s->ranks), s->fair, s->threads, plural(s->threads), s->fair);
}

/* This rank's problem with how its host's cores are shared out, with
 * what fixes it; 0 when its threads fit. */
static int describe_problem(const sharing *s, int rank, char *text, size_t size)
{
    if (s->host_threads > s->host_cores)
        crowded_host(s, text, size);
    else if (s->threads * s->sharers > s->cores || (s->pinned && s->sharers > 1))
        crowded_binding(s, rank, text, size);
    else if (!s->from_env && s->bound_share < s->fair)
        narrow_binding(s, rank, text, size);
    else
        return 0;
    return 1;
}

/* One warning for all ranks: the lowest affected rank's problem. */
static void warn_once(MPI_Comm comm, const sharing *s)
{
    int rank, nranks;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "sharing out the cores");
    SF_MPI_CHECK(MPI_Comm_size(comm, &nranks), "sharing out the cores");
    char text[PROBLEM_TEXT] = "";
    const int mine = describe_problem(s, rank, text, sizeof text);
    int affected = 0;
    SF_MPI_CHECK(MPI_Allreduce(&mine, &affected, 1, MPI_INT, MPI_SUM, comm),
                 "counting the ranks whose threads do not fit");
    if (sf_first_flagged_rank(comm, mine, text, (int)sizeof text, "sharing out the cores") < 0)
        return;
    if (affected == 1)
        sf_warn("%s", text);
    else if (affected == nranks)
        sf_warn("%s (all %d ranks are affected)", text, nranks);
    else
        sf_warn("%s (%d of the %d ranks are affected)", text, affected, nranks);
}

void sf_thread_count_init(MPI_Comm comm)
{
    sharing s;
    survey_host(comm, &s);
    apply(&s, "its binding");
    warn_once(comm, &s);
}

void sf_thread_count_rebind(MPI_Comm comm, int moved)
{
    sharing s;
    survey_host(comm, &s);
    apply(&s, moved ? "its binding nearest its GPU" : "its binding");
}

int sf_thread_count_chosen(const char **origin)
{
    *origin = chosen.origin;
    return chosen.threads;
}

void sf_thread_count_describe(char *text, size_t size)
{
    snprintf(text, size, "%d (%s)", chosen.threads, chosen.origin);
}
