/* The key tables of a job file: each section (and each mapping inside
 * one) declares its keys once, with type, range, default, unit and
 * meaning. The same table gives the list of keys an unknown key is told
 * (cfg_reject_unknown_keys) and the reference `seisfd help keys` prints
 * (job_keys.c), and reads the keys: grid, time, boundaries, physics,
 * source, receivers, output and run by cfg_read_keys, which walks the
 * table; model, survey and the wavelet keys by readers of their own that
 * take each key's name, range and choices from its row, since which keys
 * apply depends on the model type, the wavelet kind or the shot. Private
 * to io/. */
#ifndef SF_CONFIG_KEYS_H
#define SF_CONFIG_KEYS_H

#include "config_reader.h"

#include <stddef.h>

typedef enum {
    CFG_KEY_NUMBER,     /* double */
    CFG_KEY_INTEGER,    /* long */
    CFG_KEY_BOOLEAN,    /* int, 0 or 1 */
    CFG_KEY_CHOICE,     /* int: the chosen word's index, or values[index] */
    CFG_KEY_TEXT,       /* char *, a copy */
    CFG_KEY_VECTOR,     /* double[count] */
    CFG_KEY_MAPPING,    /* a mapping of the keys of table, read into the same place */
    CFG_KEY_SPECIAL,    /* read by read: a key whose form varies */
    CFG_KEY_PARAMETERS  /* a key per parameter of the job's physics, named with suffix;
                           read by read when walked */
} cfg_key_type;

typedef struct cfg_key cfg_key;
typedef struct cfg_table cfg_table;

/* Reads key (taking it from map, a problem per mistake) into the record
 * at place; returns as the getters do (1 read, 0 absent, -1 invalid). */
typedef int (*cfg_key_reader)(cfg_reader *r, sf_yaml_node *map, const char *path,
                              const cfg_key *key, void *place);

/* Where a key's value (or mark) goes in the record read into; a row
 * that leaves it out (0) stores nothing there. */
#define CFG_AT(record, field) ((long)offsetof(record, field) + 1)

struct cfg_key {
    const char *name;
    cfg_key_type type;
    cfg_range range;              /* number; each number of a vector */
    long lo, hi;                  /* integer */
    const char *choices;          /* choice: the words, separated by '|' */
    void (*list_choices)(char *out, size_t len); /* choice: when known only at run time */
    const int *values;            /* choice: stored instead of the index; NULL: the index */
    int count;                    /* vector: how many numbers */
    int required;
    const char *fallback;         /* the default, a value or a sentence (required: NULL) */
    void (*list_fallback)(char *out, size_t len); /* the default, when the physics decide it */
    const char *unit;             /* "" when none */
    const char *help;             /* one line */
    long value, mark;             /* CFG_AT(...), or 0 */
    const cfg_table *keys;        /* mapping, group: its keys */
    /* The keys of table keys are this mapping's own, read together by read
     * (source's wavelet keys): they are listed in its place. */
    int group;
    cfg_key_reader read;          /* special */
    const char *form;             /* special: what it takes, for the reference */
    const char *suffix;           /* parameters: after each parameter's name ("_range") */
    /* Does the job being read take this key? NULL: every job. The record
     * read into is the job (sf_config) when this is set. */
    int (*offered)(const sf_config *c);
    /* For the reference: the physics that take a key not every job takes. */
    void (*offered_to)(char *out, size_t len);
};

struct cfg_table {
    const char *path;             /* "grid", "boundaries.cpml" */
    const char *title;            /* the reference's heading; NULL: the path */
    const char *about;            /* a sentence for the reference, or NULL */
    const cfg_key *keys;
    int count;
    const cfg_table *alternative; /* the same mapping's other form (output in a survey) */
};

#define CFG_TABLE(path, title, about, rows) \
    {path, title, about, rows, (int)(sizeof rows / sizeof rows[0]), NULL}

/* Reads every key of table the job c offers from map into place; got,
 * when not NULL, receives each row's getter result (table->count of them). */
void cfg_read_keys(cfg_reader *r, sf_yaml_node *map, const cfg_table *table, void *place,
                   const sf_config *c, int *got);
/* Reads the mapping map[name] (a problem when required and absent) with
 * table into place, got as cfg_read_keys, and rejects its unknown keys;
 * returns it, or NULL when absent. */
sf_yaml_node *cfg_read_mapping(cfg_reader *r, sf_yaml_node *map, const char *name,
                               const char *path, int required, const cfg_table *table,
                               void *place, const sf_config *c, int *got);
/* Reads the mapping of key k (a mapping row of the table map belongs
 * to) into place with its table, rejecting unknown keys: 0 when absent,
 * -1 when any of its keys is missing or invalid, 1 when all were read. */
int cfg_read_whole_mapping(cfg_reader *r, sf_yaml_node *map, const char *path, const cfg_key *k,
                           void *place, const sf_config *c);
/* Reports every key of map no reader took, telling the keys of table the
 * job c offers. */
void cfg_reject_unknown_keys(cfg_reader *r, const sf_yaml_node *map, const cfg_table *table,
                             const sf_config *c);
/* The names of the keys of table the job c offers, joined by ", ". */
void cfg_key_names(const cfg_table *table, const sf_config *c, char *out, size_t len);
/* The result in got of the row named name. */
int cfg_key_result(const cfg_table *table, const int *got, const char *name);

/* The top level: its rows' tables and theirs are the whole reference. */
extern const cfg_table CFG_ROOT_KEYS;
/* The wavelet keys of the source and of a survey's shots (wavelet_config.c). */
extern const cfg_table CFG_WAVELET_KEYS;

#endif
