/* The Open MPI branch of sf_mpi_gpu_ask, built against tests/ompi_stub and
 * asking tests/ucx_stub's libucp: `auto` takes device buffers exactly when
 * Open MPI's selected pml is ucx, the UCX it loaded lists CUDA memory and
 * UCX_MEMTYPE_CACHE is off (or when Open MPI itself says it is CUDA-aware).
 * Prints "PASS name" or "FAIL name: why", as tests/unit_tests.c does. */
#include "sf_gpu_aware_mpi.h"

#include <dlfcn.h>
#include <mpi-ext.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cuda_aware;

int MPI_Get_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "Open MPI v4.1.6, package: Open MPI stub, ident: 4.1.6, repo rev: v4.1.6");
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int MPIX_Query_cuda_support(void) { return cuda_aware; }

/* Open MPI's record of the component MPI_Init selected, as libmpi exports
 * it (-rdynamic makes the test's visible to dlsym, as libmpi's is). */
struct {
    int mca_version[3];
    char project[16];
    int project_version[3];
    char type[32];
    int type_version[3];
    char name[64];
} mca_pml_base_selected_component = {{2, 1, 0}, "ompi", {4, 1, 6}, "pml", {2, 0, 0}, "ob1"};

typedef struct {
    int cuda_aware;          /* MPIX_Query_cuda_support() */
    const char *pml;         /* the selected component */
    int ucx_loaded;          /* libucp.so.0 in the process */
    const char *ucx_cuda;    /* STUB_UCX_CUDA */
    const char *cache;       /* UCX_MEMTYPE_CACHE, NULL: unset */
    int device;              /* the answer wanted */
    const char *evidence;
} query_case;

static void *ucx;

static int answers(const query_case *c, char *why, size_t len)
{
    cuda_aware = c->cuda_aware;
    snprintf(mca_pml_base_selected_component.name, sizeof mca_pml_base_selected_component.name,
             "%s", c->pml);
    if (c->ucx_loaded && !ucx) {
        const char *dir = getenv("SEISFD_UCX_STUB");
        char path[512];
        snprintf(path, sizeof path, "%s/libucp.so.0", dir ? dir : "bin/ucx_stub");
        ucx = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!ucx) {
            snprintf(why, len, "cannot load the UCX stub: %s", dlerror());
            return 0;
        }
    }
    setenv("STUB_UCX_CUDA", c->ucx_cuda, 1);
    if (c->cache) setenv(SF_UCX_MEMTYPE_CACHE, c->cache, 1);
    else unsetenv(SF_UCX_MEMTYPE_CACHE);
    sf_mpi_gpu_answer a;
    sf_mpi_gpu_ask(&a);
    int (*left)(void) = NULL;
    if (ucx) *(void **)&left = dlsym(ucx, "stub_ucx_contexts_left");
    snprintf(why, len, "device %d, want %d; evidence '%s', want '%s'; contexts left %d",
             a.takes_device, c->device, a.evidence, c->evidence, left ? left() : 0);
    return a.takes_device == c->device && strstr(a.evidence, c->evidence) &&
           strstr(a.evidence, "Open MPI v4.1.6") && (!left || left() == 0);
}

int main(void)
{
    /* Loaded-or-not cases first: once loaded the stub stays. */
    static const query_case cases[] = {
        {0, "ucx", 0, "1", "n", 0, "pml ucx, but no UCX is loaded in this process"},
        {1, "ob1", 0, "0", NULL, 1, "MPIX_Query_cuda_support() = 1"},
        {0, "ucx", 1, "1", "n", 1, "pml ucx, whose UCX 1.99.0-stub lists CUDA memory; "
                                   "UCX_MEMTYPE_CACHE=n"},
        {0, "ucx", 1, "1", "no", 1, "UCX_MEMTYPE_CACHE=no"},
        {0, "ucx", 1, "0", "n", 0, "pml ucx, whose UCX 1.99.0-stub lists no CUDA memory"},
        {0, "ob1", 1, "1", "n", 0, "pml ob1 (device buffers need pml ucx)"},
        {0, "ucx", 1, "1", "y", 0, "UCX_MEMTYPE_CACHE=y (its cache may take device buffers"},
        {0, "ucx", 1, "1", NULL, 0, "UCX_MEMTYPE_CACHE=(unset)"},
        {0, "", 1, "1", "n", 0, "its point-to-point component could not be read"},
        {1, "ucx", 1, "0", "n", 1, "MPIX_Query_cuda_support() = 1"},
    };
    int ok = 1;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; ++n) {
        char why[1200];
        if (answers(&cases[n], why, sizeof why)) continue;
        printf("FAIL unit.open_mpi_ucx_query_decides_auto: case %zu: %s\n", n, why);
        ok = 0;
    }
    /* UCX_MEMTYPE_CACHE is set to n before MPI_Init, unless given. */
    unsetenv(SF_UCX_MEMTYPE_CACHE);
    sf_gpu_aware_prepare_ucx();
    const char *set = getenv(SF_UCX_MEMTYPE_CACHE);
    setenv(SF_UCX_MEMTYPE_CACHE, "y", 1);
    sf_gpu_aware_prepare_ucx();
    const char *kept = getenv(SF_UCX_MEMTYPE_CACHE);
    if (!set || strcmp(set, "n") || strcmp(kept, "y")) {
        printf("FAIL unit.open_mpi_ucx_query_decides_auto: prepare set '%s', kept '%s'\n",
               set ? set : "(unset)", kept);
        ok = 0;
    }
    if (ok) printf("PASS unit.open_mpi_ucx_query_decides_auto\n");
    return ok ? 0 : 1;
}
