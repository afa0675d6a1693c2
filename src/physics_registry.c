/* The physics plug-ins by the kind a job names. */
#include "sf_simulation.h"

#include <stdio.h>
#include <string.h>

const sf_physics_plugin *sf_physics_of(sf_physics kind)
{
    switch (kind) {
    case SF_PHYSICS_ELASTIC: return sf_physics_elastic();
    case SF_PHYSICS_VTI: return sf_physics_vti();
    case SF_PHYSICS_TTI: return sf_physics_tti();
    default: return sf_physics_acoustic();
    }
}

int sf_physics_named(const char *name)
{
    for (int p = 0; name && p < SF_PHYSICS_KINDS; ++p)
        if (!strcmp(name, sf_physics_of((sf_physics)p)->name)) return p;
    return -1;
}

void sf_physics_names(const char *separator, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", p ? separator : "",
                 sf_physics_of((sf_physics)p)->name);
    }
}

void sf_physics_on_backend(int cuda, const char *separator, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        const sf_physics_plugin *physics = sf_physics_of((sf_physics)p);
        const sf_backend_ops *(*kernels)(void) = cuda ? physics->cuda : physics->cpu;
        if (!kernels || !kernels()) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? separator : "", physics->name);
    }
}
