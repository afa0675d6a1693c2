#include "sf_gpu_aware_mpi.h"
#include "ucx_query.h"

#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <dlfcn.h>
#include <mpi-ext.h>
#endif

static const char *const MODE_NAMES[] = {"auto", "on", "off"};

int sf_gpu_aware_parse(const char *word)
{
    for (int m = 0; word && m < 3; ++m)
        if (!strcmp(word, MODE_NAMES[m])) return m;
    return -1;
}

const char *sf_gpu_aware_name(sf_gpu_aware_mode mode)
{
    return (unsigned)mode < 3 ? MODE_NAMES[mode] : "?";
}

int sf_gpu_aware_resolve(sf_gpu_aware_mode given, const char *origin, int environment_wins,
                         sf_gpu_aware_setting *out, char *why, size_t len)
{
    const char *value = getenv(SF_GPU_AWARE_ENV);
    /* An empty value is how scripts leave a variable unset. */
    if (environment_wins && value && *value) {
        int mode = sf_gpu_aware_parse(value);
        if (mode < 0) {
            snprintf(why, len, "%s: expected auto, on or off, got '%.64s'", SF_GPU_AWARE_ENV,
                     value);
            return -1;
        }
        out->mode = (sf_gpu_aware_mode)mode;
        snprintf(out->origin, sizeof out->origin, "%s", SF_GPU_AWARE_ENV);
        return 0;
    }
    out->mode = given;
    snprintf(out->origin, sizeof out->origin, "%s", origin);
    return 0;
}

/* The version's first line up to its first comma, blanks squeezed:
 * "Open MPI v4.1.6", "MPICH Version: 4.1.2". */
static void library_name(const char *version, char *out, size_t len)
{
    size_t n = 0;
    for (const char *c = version; *c && *c != '\n' && *c != ',' && n + 1 < len; ++c) {
        if (isspace((unsigned char)*c) && (n == 0 || out[n - 1] == ' ')) continue;
        out[n++] = isspace((unsigned char)*c) ? ' ' : *c;
    }
    while (n > 0 && out[n - 1] == ' ') --n;
    out[n] = '\0';
    if (n == 0) snprintf(out, len, "an unnamed MPI library");
}

static int contains(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *c = text; *c; ++c)
        if (!strncasecmp(c, word, n)) return 1;
    return 0;
}

/* Cray MPICH and MVAPICH2 are switched on by a documented variable. */
static void by_switch(const char *name, sf_env_lookup env, sf_mpi_gpu_answer *out)
{
    const char *value = env(name);
    out->takes_device = value && !strcmp(value, "1");
    if (value)
        snprintf(out->evidence, sizeof out->evidence, "%s: %s=%.32s", out->library, name, value);
    else
        snprintf(out->evidence, sizeof out->evidence, "%s: %s is not set", out->library, name);
}

/* A query's answer, or a note that the build did not offer it. */
static void by_query(const char *query, int answer, sf_mpi_gpu_answer *out)
{
    out->takes_device = answer == 1;
    if (answer < 0)
        snprintf(out->evidence, sizeof out->evidence,
                 "%s: its headers offered no %s when seisfd was built", out->library, query);
    else
        snprintf(out->evidence, sizeof out->evidence, "%s: %s = %d", out->library, query, answer);
}

/* UCX reads y/yes/on/1 and n/no/off/0 for its switches. */
static int ucx_switch_off(const char *value)
{
    static const char *const OFF[] = {"n", "no", "off", "0"};
    for (size_t w = 0; value && w < sizeof OFF / sizeof OFF[0]; ++w)
        if (!strcasecmp(value, OFF[w])) return 1;
    return 0;
}

static void append(sf_mpi_gpu_answer *out, const char *text)
{
    size_t n = strlen(out->evidence);
    snprintf(out->evidence + n, sizeof out->evidence - n, "%s", text);
}

/* Open MPI: its own query, else its ucx pml with a UCX that lists CUDA
 * memory (an Open MPI built without CUDA answers 0 there, yet UCX moves
 * device buffers) and the memory-type cache off. */
static void by_open_mpi(const sf_mpi_gpu_queries *q, sf_env_lookup env, sf_mpi_gpu_answer *out)
{
    by_query("MPIX_Query_cuda_support()", q->open_mpi_cuda, out);
    if (out->takes_device) return;
    char more[SF_GPU_AWARE_TEXT];
    const char *cache = env(SF_UCX_MEMTYPE_CACHE);
    if (!q->open_mpi_pml)
        snprintf(more, sizeof more, "; its point-to-point component could not be read");
    else if (strcmp(q->open_mpi_pml, "ucx"))
        snprintf(more, sizeof more, "; pml %.32s (device buffers need pml ucx)", q->open_mpi_pml);
    else if (q->ucx_cuda < 0)
        snprintf(more, sizeof more, "; pml ucx, but %s", q->ucx_said);
    else if (q->ucx_cuda == 0)
        snprintf(more, sizeof more, "; pml ucx, whose %s lists no CUDA memory", q->ucx_said);
    else if (!ucx_switch_off(cache))
        snprintf(more, sizeof more, "; pml ucx, whose %s lists CUDA memory, but %s=%.16s (its "
                 "cache may take device buffers for host memory: set n)", q->ucx_said,
                 SF_UCX_MEMTYPE_CACHE, cache ? cache : "(unset)");
    else {
        out->takes_device = 1;
        snprintf(more, sizeof more, "; pml ucx, whose %s lists CUDA memory; %s=%.16s", q->ucx_said,
                 SF_UCX_MEMTYPE_CACHE, cache);
    }
    append(out, more);
}

void sf_mpi_gpu_interpret(const char *version, sf_mpi_gpu_queries q, sf_env_lookup env,
                          sf_mpi_gpu_answer *out)
{
    memset(out, 0, sizeof *out);
    library_name(version, out->library, sizeof out->library);
    /* Cray's and MVAPICH's version texts name MPICH too: they go first. */
    if (contains(version, "CRAY MPICH"))
        by_switch("MPICH_GPU_SUPPORT_ENABLED", env, out);
    else if (contains(version, "MVAPICH"))
        by_switch("MV2_USE_CUDA", env, out);
    else if (contains(version, "Open MPI"))
        by_open_mpi(&q, env, out);
    else if (contains(version, "MPICH"))
        by_query("MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA)", q.mpich_gpu_cuda, out);
    else
        snprintf(out->evidence, sizeof out->evidence,
                 "%s: no known way to ask it about device memory", out->library);
}

static const char *process_environment(const char *name) { return getenv(name); }

void sf_gpu_aware_prepare_ucx(void) { setenv(SF_UCX_MEMTYPE_CACHE, "n", 0); }

#if defined(OPEN_MPI) && OPEN_MPI
/* The head of an Open MPI component's description (MCA base component
 * 2.1.0, unchanged since Open MPI 2.0): what the exported
 * mca_pml_base_selected_component holds once MPI_Init has chosen. Its
 * version, project and type are checked before its name is believed. */
typedef struct {
    int mca_version[3];
    char project[16];
    int project_version[3];
    char type[32];
    int type_version[3];
    char name[64];
} open_mpi_component_head;

static const char *open_mpi_selected_pml(void)
{
    const open_mpi_component_head *c = dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component");
    if (!c || c->mca_version[0] != 2 || strcmp(c->project, "ompi") || strcmp(c->type, "pml") ||
        !memchr(c->name, '\0', sizeof c->name) || !c->name[0])
        return NULL;
    return c->name;
}
#endif

void sf_mpi_gpu_ask(sf_mpi_gpu_answer *out)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int length = 0;
    if (MPI_Get_library_version(version, &length) != MPI_SUCCESS)
        snprintf(version, sizeof version, "an MPI library that did not give its version");
    sf_mpi_gpu_queries q = SF_MPI_GPU_QUERIES_NONE;
#if defined(MPIX_GPU_SUPPORT_CUDA)
    /* MPICH (and MPICH-based libraries): its own query, since its
     * MPIX_Query_cuda_support asserts in debug builds before 4.0. */
    int supported = 0;
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS)
        q.mpich_gpu_cuda = supported != 0;
#elif defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    /* Declared even where the build-time answer (MPIX_CUDA_AWARE_SUPPORT)
     * is 0: the library loaded at run time may differ from the one built
     * against. */
    q.open_mpi_cuda = MPIX_Query_cuda_support();
#endif
#if defined(OPEN_MPI) && OPEN_MPI
    q.open_mpi_pml = open_mpi_selected_pml();
    if (q.open_mpi_pml && !strcmp(q.open_mpi_pml, "ucx"))
        q.ucx_cuda = sf_ucx_lists_cuda(q.ucx_said, sizeof q.ucx_said);
#endif
    sf_mpi_gpu_interpret(version, q, process_environment, out);
}

int sf_gpu_aware_choose(const sf_gpu_aware_setting *s, const sf_mpi_gpu_answer *a, char *reason,
                        size_t len)
{
    int device = s->mode == SF_GPU_AWARE_ON ||
                 (s->mode == SF_GPU_AWARE_AUTO && a->takes_device);
    snprintf(reason, len, "%s: gpu_aware_mpi %s (%s); %s",
             device ? "device buffers" : "host staging", sf_gpu_aware_name(s->mode), s->origin,
             a->evidence);
    return device;
}

int sf_gpu_staging_warning(const sf_gpu_aware_setting *setting, int device_buffers,
                           int gpu_ranks_per_node, char *text, size_t len)
{
    if (device_buffers || setting->mode != SF_GPU_AWARE_AUTO || gpu_ranks_per_node < 2) return 0;
    snprintf(text, len,
             "halos are staged through host memory with %d GPU ranks on a node: on four H100s "
             "of one host a 1000^3 acoustic step (no CPML) ran at 112 Gpoints/s staged through "
             "Open MPI's shared memory and 149 through UCX's, against 159 on one GPU and 597 on "
             "the four with device buffers (docs/performance.md, \"Several GPUs\"; MPI moves "
             "host memory between the ranks at 3 to 5 GB/s there). Launch with a GPU-aware "
             "MPI, which auto then finds (docs/clusters-and-gpus.md, "
             "\"GPU-aware MPI\": Open MPI with --mca pml ucx and a UCX built with CUDA, as "
             "jobs/ucx-cuda.sh provides), or set gpu_aware_mpi to off to keep staging without "
             "this warning",
             gpu_ranks_per_node);
    return 1;
}
