/* The section readers of a job file, each in the file named for what it
 * reads, and what they share; config.c calls them in order. Private to
 * io/. */
#ifndef SF_CONFIG_SECTIONS_H
#define SF_CONFIG_SECTIONS_H

#include "config_keys.h"
#include "config_reader.h"

#include <stddef.h>

/* The sections' key tables (config_keys.h), for the top level's. */
extern const cfg_table CFG_GRID_KEYS, CFG_TIME_KEYS, CFG_BOUNDARY_KEYS, CFG_PHYSICS_KEYS,
    CFG_MODEL_KEYS, CFG_SOURCE_KEYS, CFG_RECEIVER_KEYS, CFG_OUTPUT_KEYS, CFG_RUN_KEYS;

/* config_grid.c */
void cfg_read_grid(cfg_reader *r, sf_yaml_node *root, sf_config *c);
void cfg_read_time(cfg_reader *r, sf_yaml_node *root, sf_config *c);
void cfg_read_boundaries(cfg_reader *r, sf_yaml_node *root, sf_config *c);

/* config_physics.c */
void cfg_read_physics(cfg_reader *r, sf_yaml_node *root, sf_config *c);
/* "a" or "an", for a physics' name in a message. */
const char *cfg_article(const char *word);
/* Does physics p take the key `what` stands for? */
typedef int (*cfg_physics_takes)(sf_physics p, int what);
void cfg_physics_taking(cfg_physics_takes takes, int what, char *out, size_t len);
/* A default each physics decides, as "p (acoustic, vti, tti); vx, vy, vz
 * (elastic)": describe(p) writes physics p's; physics alike share one. */
typedef void (*cfg_physics_default)(sf_physics p, char *out, size_t len);
void cfg_physics_defaults(cfg_physics_default describe, char *out, size_t len);
void cfg_reject_foreign_key(cfg_reader *r, sf_yaml_node *map, const char *path, const char *key,
                            const sf_config *c, cfg_physics_takes takes, int what);

/* config_model.c, config_source.c */
void cfg_read_model(cfg_reader *r, sf_yaml_node *root, sf_config *c);
void cfg_read_source(cfg_reader *r, sf_yaml_node *root, sf_config *c);

/* config_receivers.c; the snapshot fields are read as components too:
 * the listed ones into out, or where the key is absent or holds none,
 * those of the mask fallback; their count in *count. Returns 1 when read,
 * else 0 (absent) or -1 (not a list). */
void cfg_read_receivers(cfg_reader *r, sf_yaml_node *root, sf_config *c);
int cfg_read_components(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                        const sf_config *c, unsigned fallback, sf_component out[SF_COMPONENTS],
                        int *count);

/* config_output.c */
void cfg_read_output(cfg_reader *r, sf_yaml_node *root, sf_config *c);
void cfg_read_run(cfg_reader *r, sf_yaml_node *root, sf_config *c);

/* The sections the geometry checks read, and whether each was read
 * without problems: a check runs when its sections are sound, whatever
 * problems other sections had, so that one run reports them all. */
typedef struct {
    int grid, boundaries, source, receivers, survey;
} cfg_clean_sections;

/* config_geometry.c */
void cfg_check_geometry(cfg_reader *r, const sf_config *c, const cfg_clean_sections *ok);

#endif
