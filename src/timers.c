#include "sf_timers.h"

const char *sf_phase_name(sf_phase phase)
{
    static const char *names[SF_PHASE_COUNT] = {
        "stencil + CPML", "halo pack", "halo D2H", "halo exchange", "halo H2D", "halo unpack",
        "source/receivers", "I/O", "instability guard",
    };
    return (unsigned)phase < SF_PHASE_COUNT ? names[phase] : "?";
}

int sf_phase_is_halo(sf_phase phase)
{
    return phase >= SF_PHASE_HALO_PACK && phase <= SF_PHASE_HALO_UNPACK;
}
