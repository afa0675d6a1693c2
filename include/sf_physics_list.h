/* The one list of the physics seisfd has. A physics is its line here and
 * its folder, src/physics/<folder>/, whose plug-in (sf_physics_plugin)
 * declares the rest: its name, what it takes from a job, its backends, its
 * wave speeds, its memory and its bench defaults. The sf_physics index,
 * the job reader's and bench's choices and the registry
 * (src/physics_registry.c) all come from this list; generic code asks the
 * registry, never a particular physics.
 *
 * X(TAG, getter): the index SF_PHYSICS_<TAG>, and the function that
 * returns the plug-in. The first line is the default physics (a job
 * without physics.type, bench without --physics). */
#ifndef SF_PHYSICS_LIST_H
#define SF_PHYSICS_LIST_H

#define SF_PHYSICS_LIST(X)                                                                       \
    X(ACOUSTIC, sf_physics_acoustic)                                                             \
    X(ELASTIC, sf_physics_elastic)                                                               \
    X(VTI, sf_physics_vti)                                                                       \
    X(TTI, sf_physics_tti)                                                                       \
    X(VISCO_ACOUSTIC, sf_physics_visco_acoustic)                                                 \
    X(VISCO_ELASTIC, sf_physics_visco_elastic)

#define SF_PHYSICS_INDEX_(tag, getter) SF_PHYSICS_##tag,
typedef enum { SF_PHYSICS_LIST(SF_PHYSICS_INDEX_) SF_PHYSICS_KINDS } sf_physics;
#undef SF_PHYSICS_INDEX_

#define SF_PHYSICS_DEFAULT ((sf_physics)0)

#endif
