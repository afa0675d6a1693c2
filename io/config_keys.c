/* The reader that walks a section's key table: each row read with the
 * typed getter of its type, stored at its offset; the keys an unknown key
 * is told are the table's. */
#include "config_keys.h"

#include "sf_error.h"
#include "sf_physics_registry.h"

#include <stdio.h>
#include <string.h>

static void *at(void *place, long where) { return where ? (char *)place + where - 1 : NULL; }

static int offered(const cfg_key *k, const sf_config *c) { return !k->offered || k->offered(c); }

static int read_choice(cfg_reader *r, sf_yaml_node *map, const char *path, const cfg_key *k,
                       void *place)
{
    char listed[512];
    const char *choices = k->choices;
    if (k->list_choices) {
        k->list_choices(listed, sizeof listed);
        choices = listed;
    }
    int index = 0;
    sf_mark *mark = at(place, k->mark);
    int got = cfg_choice(r, map, k->name, path, choices, k->required, &index, mark);
    if (got > 0 && k->value)
        *(int *)at(place, k->value) = k->values ? k->values[index] : index;
    return got;
}

sf_yaml_node *cfg_read_mapping(cfg_reader *r, sf_yaml_node *map, const char *name,
                               const char *path, int required, const cfg_table *table,
                               void *place, const sf_config *c, int *got)
{
    sf_yaml_node *inner = cfg_section(r, map, name, path, required);
    if (!inner) return NULL;
    cfg_read_keys(r, inner, table, place, c, got);
    cfg_reject_unknown_keys(r, inner, table, c);
    return inner;
}

static int read_mapping(cfg_reader *r, sf_yaml_node *map, const char *path, const cfg_key *k,
                        void *place, const sf_config *c)
{
    return cfg_read_mapping(r, map, k->name, path, k->required, k->keys, place, c, NULL) != NULL;
}

int cfg_read_whole_mapping(cfg_reader *r, sf_yaml_node *map, const char *path, const cfg_key *k,
                           void *place, const sf_config *c)
{
    enum { MOST_ROWS = 32 };
    if (k->keys->count > MOST_ROWS) sf_fatal("internal: %s has more than %d keys", k->name, MOST_ROWS);
    int got[MOST_ROWS];
    if (!cfg_read_mapping(r, map, k->name, path, 0, k->keys, place, c, got)) return 0;
    for (int row = 0; row < k->keys->count; ++row)
        if (got[row] <= 0) return -1;
    return 1;
}

static int read_key(cfg_reader *r, sf_yaml_node *map, const char *path, const cfg_key *k,
                    void *place, const sf_config *c)
{
    void *value = at(place, k->value);
    sf_mark *mark = at(place, k->mark);
    double number;
    long integer;
    int boolean;
    char *text;
    int got;
    switch (k->type) {
    case CFG_KEY_NUMBER:
        got = cfg_number(r, map, k->name, path, k->range, k->required, &number, mark);
        if (got > 0 && value) *(double *)value = number;
        return got;
    case CFG_KEY_INTEGER:
        got = cfg_integer(r, map, k->name, path, k->lo, k->hi, k->required, &integer, mark);
        if (got > 0 && value) *(long *)value = integer;
        return got;
    case CFG_KEY_BOOLEAN:
        got = cfg_boolean(r, map, k->name, path, &boolean);
        if (got > 0 && value) *(int *)value = boolean;
        return got;
    case CFG_KEY_CHOICE:
        return read_choice(r, map, path, k, place);
    case CFG_KEY_TEXT:
        got = cfg_string(r, map, k->name, path, k->required, &text, mark);
        if (got > 0 && value) *(char **)value = text;
        return got;
    case CFG_KEY_VECTOR:
        return cfg_vector_key(r, map, k->name, path, k->count, k->range, k->required, value, mark);
    case CFG_KEY_MAPPING:
        return read_mapping(r, map, path, k, place, c);
    case CFG_KEY_SPECIAL:
    case CFG_KEY_PARAMETERS:
        return k->read(r, map, path, k, place);
    }
    return 0;
}

void cfg_read_keys(cfg_reader *r, sf_yaml_node *map, const cfg_table *table, void *place,
                   const sf_config *c, int *got)
{
    for (int i = 0; i < table->count; ++i) {
        const cfg_key *k = &table->keys[i];
        int result = offered(k, c) ? read_key(r, map, table->path, k, place, c) : 0;
        if (got) got[i] = result;
    }
}

/* "vp, vs, rho" (with suffix after each): the parameters of c's physics. */
static void parameter_names(const sf_config *c, const char *suffix, char *out, size_t len)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    out[0] = '\0';
    for (int n = 0; n < d->nparams; ++n) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s%s", n ? ", " : "", d->param[n]->name, suffix);
    }
}

void cfg_key_names(const cfg_table *table, const sf_config *c, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < table->count; ++i) {
        const cfg_key *k = &table->keys[i];
        if (!offered(k, c)) continue;
        size_t used = strlen(out);
        if (k->group)
            cfg_key_names(k->keys, c, out + used + (used ? 2 : 0), len - used - (used ? 2 : 0));
        else if (k->type == CFG_KEY_PARAMETERS)
            parameter_names(c, k->suffix, out + used + (used ? 2 : 0),
                            len - used - (used ? 2 : 0));
        else
            snprintf(out + used + (used ? 2 : 0), len - used - (used ? 2 : 0), "%s", k->name);
        if (used) memcpy(out + used, ", ", 2);
    }
}

void cfg_reject_unknown_keys(cfg_reader *r, const sf_yaml_node *map, const cfg_table *table,
                             const sf_config *c)
{
    char allowed[1024];
    cfg_key_names(table, c, allowed, sizeof allowed);
    cfg_reject_unknown(r, map, table->path, allowed);
}

int cfg_key_result(const cfg_table *table, const int *got, const char *name)
{
    for (int i = 0; i < table->count; ++i)
        if (!strcmp(table->keys[i].name, name)) return got[i];
    return 0;
}
