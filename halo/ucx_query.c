#include "ucx_query.h"

#include <stdio.h>

#if SF_HAVE_UCX
#include <dlfcn.h>
#include <ucp/api/ucp.h>

/* The entry points used, looked up in the loaded library (ucp_init is an
 * inline wrapper of ucp_init_version). */
typedef struct {
    const char *(*version)(void);
    ucs_status_t (*config_read)(const char *, const char *, ucp_config_t **);
    void (*config_release)(ucp_config_t *);
    ucs_status_t (*init)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *,
                         ucp_context_h *);
    ucs_status_t (*query)(ucp_context_h, ucp_context_attr_t *);
    void (*cleanup)(ucp_context_h);
} ucp_calls;

static int find_calls(void *lib, ucp_calls *c)
{
    *(void **)&c->version = dlsym(lib, "ucp_get_version_string");
    *(void **)&c->config_read = dlsym(lib, "ucp_config_read");
    *(void **)&c->config_release = dlsym(lib, "ucp_config_release");
    *(void **)&c->init = dlsym(lib, "ucp_init_version");
    *(void **)&c->query = dlsym(lib, "ucp_context_query");
    *(void **)&c->cleanup = dlsym(lib, "ucp_cleanup");
    return c->version && c->config_read && c->config_release && c->init && c->query && c->cleanup;
}

/* The memory types of a context made as Open MPI's is (tag matching, the
 * environment's configuration); 0, or -1 with the failing call. */
static int memory_types(const ucp_calls *c, uint64_t *types, const char **failed)
{
    ucp_config_t *config = NULL;
    ucs_status_t status = c->config_read(NULL, NULL, &config);
    if (status != UCS_OK) {
        *failed = "ucp_config_read";
        return -1;
    }
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
    ucp_context_h context = NULL;
    status = c->init(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &context);
    c->config_release(config);
    if (status != UCS_OK) {
        *failed = "ucp_init";
        return -1;
    }
    ucp_context_attr_t attr = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
    status = c->query(context, &attr);
    c->cleanup(context);
    if (status != UCS_OK) {
        *failed = "ucp_context_query";
        return -1;
    }
    *types = attr.memory_types;
    return 0;
}

int sf_ucx_lists_cuda(char *said, size_t len)
{
    void *lib = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) {
        snprintf(said, len, "no UCX is loaded in this process");
        return -1;
    }
    ucp_calls c;
    int answer = -1;
    uint64_t types = 0;
    const char *failed = NULL;
    if (!find_calls(lib, &c))
        snprintf(said, len, "the loaded UCX lacks the calls of a context's query");
    else if (memory_types(&c, &types, &failed) != 0)
        snprintf(said, len, "UCX %s: %s failed", c.version(), failed);
    else {
        snprintf(said, len, "UCX %s", c.version());
        answer = (int)((types >> UCS_MEMORY_TYPE_CUDA) & 1u);
    }
    dlclose(lib);
    return answer;
}

#else

int sf_ucx_lists_cuda(char *said, size_t len)
{
    snprintf(said, len, "seisfd was built without UCX's headers (Debian's libucx-dev)");
    return -1;
}

#endif
