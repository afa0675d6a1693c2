#include "sf_timers.h"

const char *sf_phase_name(sf_phase phase)
{
    static const char *names[SF_PHASE_COUNT] = {
        "stencil + CPML", "halo pack", "halo exchange", "halo unpack",
        "source/receivers", "I/O",
    };
    return (unsigned)phase < SF_PHASE_COUNT ? names[phase] : "?";
}
