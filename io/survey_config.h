/* The survey section of a job file, for the job reader (config.c).
 * Private to io/. */
#ifndef SF_SURVEY_CONFIG_H
#define SF_SURVEY_CONFIG_H

#include "config_keys.h"
#include "config_reader.h"

/* The survey section, and its checks against the grid once the whole job
 * is read (moving receivers only when the receivers section was read
 * without problems). */
void cfg_read_survey(cfg_reader *r, sf_yaml_node *root, sf_config *c);
/* Its keys, for the top level's table and the reference. */
extern const cfg_table CFG_SURVEY_KEYS;
void cfg_check_survey_geometry(cfg_reader *r, const sf_config *c, int receivers_ok);

#endif
