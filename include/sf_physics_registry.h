/* The registry of the physics of the one list (sf_physics_list.h): their
 * plug-ins by index and by name (src/physics_registry.c). Generic code
 * asks it, never a particular physics. */
#ifndef SF_PHYSICS_REGISTRY_H
#define SF_PHYSICS_REGISTRY_H

#include "sf_config.h"
#include "sf_physics_list.h"

#include <stddef.h>

typedef struct sf_physics_plugin sf_physics_plugin;   /* sf_simulation.h */

/* The plug-in of index kind, or NULL when no physics has that index. */
const sf_physics_plugin *sf_physics_at(int kind);
/* The same, ending the run with an internal error naming the index and
 * the physics there are when no physics has it. */
const sf_physics_plugin *sf_physics_of(sf_physics kind);
/* Its declaration (what it takes from a job), likewise. */
const sf_physics_declaration *sf_physics_declared(sf_physics kind);
/* The index of the physics of that name, or -1. */
int sf_physics_named(const char *name);
/* Every physics' name in the list's order, joined by separator
 * ("acoustic|elastic|vti|tti"). */
void sf_physics_names(const char *separator, char *out, size_t len);
/* 1 when the physics has kernels on the CUDA backend (cuda 1) or the CPU
 * backend (cuda 0) of this build. */
int sf_physics_has_backend(const sf_physics_plugin *physics, int cuda);
/* The names of the physics with kernels on that backend (none on CUDA in
 * builds without it). */
void sf_physics_on_backend(int cuda, const char *separator, char *out, size_t len);

#define SF_PHYSICS_GETTER_(tag, getter) const sf_physics_plugin *getter(void);
SF_PHYSICS_LIST(SF_PHYSICS_GETTER_)
#undef SF_PHYSICS_GETTER_

#endif
