/* A stand-in for libucp.so.0 with the calls halo/ucx_query.c makes: its
 * context lists CUDA memory when STUB_UCX_CUDA=1, and counts the contexts
 * made and cleaned up so the test can see none is left behind. */
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

static int made, cleaned;
static int context_token;

int stub_ucx_contexts_left(void) { return made - cleaned; }

const char *ucp_get_version_string(void) { return "1.99.0-stub"; }

ucs_status_t ucp_config_read(const char *env_prefix, const char *filename, ucp_config_t **config)
{
    (void)env_prefix, (void)filename;
    *config = (ucp_config_t *)&context_token;
    return UCS_OK;
}

void ucp_config_release(ucp_config_t *config) { (void)config; }

ucs_status_t ucp_init_version(unsigned api_major_version, unsigned api_minor_version,
                              const ucp_params_t *params, const ucp_config_t *config,
                              ucp_context_h *context_p)
{
    (void)api_major_version, (void)api_minor_version, (void)config;
    if (!(params->field_mask & UCP_PARAM_FIELD_FEATURES) || !(params->features & UCP_FEATURE_TAG))
        return UCS_ERR_INVALID_PARAM;
    ++made;
    *context_p = (ucp_context_h)&context_token;
    return UCS_OK;
}

ucs_status_t ucp_context_query(ucp_context_h context, ucp_context_attr_t *attr)
{
    (void)context;
    const char *cuda = getenv("STUB_UCX_CUDA");
    if (attr->field_mask & UCP_ATTR_FIELD_MEMORY_TYPES)
        attr->memory_types = UCS_BIT(UCS_MEMORY_TYPE_HOST) |
                             (cuda && !strcmp(cuda, "1") ? UCS_BIT(UCS_MEMORY_TYPE_CUDA) : 0);
    return UCS_OK;
}

void ucp_cleanup(ucp_context_h context)
{
    (void)context;
    ++cleaned;
}
