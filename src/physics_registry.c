/* The physics plug-ins of the one list (sf_physics_list.h), by index and
 * by name. */
#include "sf_error.h"
#include "sf_simulation.h"

#include <stdio.h>
#include <string.h>

#define SF_PHYSICS_ENTRY_(tag, getter) [SF_PHYSICS_##tag] = getter,
static const sf_physics_plugin *(*const PLUGINS[SF_PHYSICS_KINDS])(void) = {
    SF_PHYSICS_LIST(SF_PHYSICS_ENTRY_)};
#undef SF_PHYSICS_ENTRY_

const sf_physics_plugin *sf_physics_at(int kind)
{
    return kind >= 0 && kind < SF_PHYSICS_KINDS ? PLUGINS[kind]() : NULL;
}

const sf_physics_plugin *sf_physics_of(sf_physics kind)
{
    const sf_physics_plugin *physics = sf_physics_at((int)kind);
    if (!physics) {
        char names[256];
        sf_physics_names(", ", names, sizeof names);
        sf_fatal("internal: no physics has index %d; seisfd has %d: %s", (int)kind,
                 SF_PHYSICS_KINDS, names);
    }
    return physics;
}

const sf_physics_declaration *sf_physics_declared(sf_physics kind)
{
    return sf_physics_of(kind)->declared;
}

int sf_physics_named(const char *name)
{
    for (int p = 0; name && p < SF_PHYSICS_KINDS; ++p)
        if (!strcmp(name, sf_physics_at(p)->declared->name)) return p;
    return -1;
}

void sf_physics_names(const char *separator, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", p ? separator : "",
                 sf_physics_at(p)->declared->name);
    }
}

int sf_physics_has_backend(const sf_physics_plugin *physics, int cuda)
{
    const sf_backend_ops *(*kernels)(void) = cuda ? physics->cuda : physics->cpu;
    return kernels && kernels();
}

void sf_physics_on_backend(int cuda, const char *separator, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        const sf_physics_plugin *physics = sf_physics_at(p);
        if (!sf_physics_has_backend(physics, cuda)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? separator : "", physics->declared->name);
    }
}
