#ifndef SF_VERSION_H
#define SF_VERSION_H
#define SEISFD_VERSION "0.1.0"
#endif
