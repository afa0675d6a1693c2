/* Set-up checks of a job's sources and receivers that need its physics
 * and its absorbing layers: a source amplitude whose injected values
 * float32 fields cannot carry is an error; a source or receiver inside a
 * layer, which damps what it injects or records, is warned of. A survey's
 * every shot is checked. */
#ifndef SF_ACQUISITION_CHECKS_H
#define SF_ACQUISITION_CHECKS_H

#include "sf_acquisition.h"
#include "sf_config.h"
#include "sf_cpml.h"

/* The source density src injects at its peak, per cubic metre:
 * |amplitude| x the wavelet's peak x the largest of the physics' source
 * coefficients (sf_field_lattice) / the cell volume. Outside the fields'
 * window (0 aside) it is refused: float32's 1e-30 .. 1e30 keeps about
 * eight decades from overflow and from its denormals; the 16-bit blocks of
 * run.precision: mixed hold 2^-110 .. 2^126 (sf_block16.h), and the same
 * margins leave 1e-25 .. 1e29. */
void sf_source_density_window(sf_precision precision, double *least, double *most);
double sf_source_density(const sf_config *job, const sf_source_config *src,
                         const sf_field_lattice *fields);

/* Rank 0 reports every source of job (each shot of a survey) whose
 * density is out of range, at its amplitude key; returns how many. */
int sf_check_source_amplitudes(const sf_config *job, const sf_field_lattice *fields);

/* Rank 0 warns of the sources and receivers of job inside a layer of
 * cpml (the three axes), the first few by name, then a count. */
void sf_warn_inside_layers(const sf_config *job, const sf_cpml_axis cpml[3]);

#endif
