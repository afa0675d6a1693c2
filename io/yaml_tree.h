/* A YAML document as a small tree that remembers where every node came
 * from, so that configuration errors can name file:line:column. */
#ifndef SF_YAML_H
#define SF_YAML_H

#include <stddef.h>

typedef enum { SF_YAML_SCALAR, SF_YAML_SEQUENCE, SF_YAML_MAPPING } sf_yaml_kind;

typedef struct sf_yaml_node {
    sf_yaml_kind kind;
    int line, column;           /* 1-based position of the node */
    char *value;                /* scalar text */
    int plain;                  /* scalar written without quotes */
    size_t count;               /* items (sequence) or pairs (mapping) */
    struct sf_yaml_node **items;/* sequence items, or mapping values */
    char **keys;                /* mapping keys */
    int *key_line, *key_column; /* positions of mapping keys */
    unsigned char *taken;       /* mapping keys consumed by the schema */
} sf_yaml_node;

/* Parses text into a tree. Returns NULL and fills err (with line:column)
 * on a syntax error, an alias, a non-scalar key or a duplicate key. */
sf_yaml_node *sf_yaml_parse(const char *text, size_t length, char *err, size_t errlen);
void sf_yaml_free(sf_yaml_node *node);

/* Mapping lookup; marks the key as taken. Returns NULL if absent. */
sf_yaml_node *sf_yaml_take(sf_yaml_node *map, const char *key);
/* Lookup without marking. */
const sf_yaml_node *sf_yaml_peek(const sf_yaml_node *map, const char *key);

const char *sf_yaml_kind_name(sf_yaml_kind kind);

#endif
