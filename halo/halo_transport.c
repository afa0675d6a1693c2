#include "sf_halo_transport.h"

const char *sf_halo_transport_name(sf_halo_transport transport)
{
    switch (transport) {
    case SF_HALO_HOST_STAGED: return "host staging";
    case SF_HALO_DEVICE_BUFFERS: return "device buffers";
    default: return "host memory";
    }
}

int sf_phase_applies(sf_phase phase, sf_halo_transport transport)
{
    int copy = phase == SF_PHASE_HALO_D2H || phase == SF_PHASE_HALO_H2D;
    return !copy || transport == SF_HALO_HOST_STAGED;
}
