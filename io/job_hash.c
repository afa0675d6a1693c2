/* The job's fingerprint: 64-bit FNV-1a over the parsed job, leaving out
 * what does not change a shot's result: the output and run sections and
 * survey.ranks_per_shot (results do not depend on the rank count).
 * Comments and layout do not count either; the order of keys does. */
#include "config_reader.h"
#include "fingerprint.h"

#include <string.h>

static unsigned long long add_text(unsigned long long h, const char *text)
{
    size_t n = strlen(text);
    h = sf_fnv1a(h, &n, sizeof n);   /* the length keeps "ab","c" apart from "a","bc" */
    return sf_fnv1a(h, text, n);
}

static int left_out(const char *path, const char *key)
{
    if (!*path) return !strcmp(key, "output") || !strcmp(key, "run");
    return !strcmp(path, "survey") && !strcmp(key, "ranks_per_shot");
}

static unsigned long long add_node(unsigned long long h, const sf_yaml_node *n, const char *path)
{
    unsigned char kind = (unsigned char)n->kind;
    h = sf_fnv1a(h, &kind, 1);
    if (n->kind == SF_YAML_SCALAR) return add_text(h, n->value);
    for (size_t i = 0; i < n->count; ++i) {
        if (n->kind == SF_YAML_MAPPING) {
            if (left_out(path, n->keys[i])) continue;
            h = add_text(h, n->keys[i]);
        }
        /* Only the root and survey paths matter for what is left out. */
        const char *inner = n->kind == SF_YAML_MAPPING && !*path && !strcmp(n->keys[i], "survey")
                                ? "survey"
                                : "-";
        h = add_node(h, n->items[i], inner);
    }
    return h;
}

unsigned long long cfg_job_hash(const sf_yaml_node *root)
{
    return add_node(SF_FNV_OFFSET, root, "");
}
