/* Whether a point lies inside a job's grid, for the position checks of
 * the job reader (config_geometry.c) and of a survey's shots (survey_config.c).
 * Private to io/. */
#ifndef SF_GRID_BOUNDS_H
#define SF_GRID_BOUNDS_H

#include "sf_config.h"

#include <stddef.h>

/* 1, and why ("x = 450 m lies outside the grid (allowed: ...)"), when p
 * lies outside the grid of c; else 0. */
int cfg_outside_grid(const sf_config *c, const double p[3], char *why, size_t len);

#endif
