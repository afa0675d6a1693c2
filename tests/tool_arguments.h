/* The key=value arguments of the test drivers (cpml_coefficients.c,
 * tti_steps.c). A driver defines TOOL_NAME and its usage(why), which
 * exits 2, before it includes this; a bad argument ends it the same way. */
#ifndef TOOL_ARGUMENTS_H
#define TOOL_ARGUMENTS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline double number(const char *key, const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v)) {
        fprintf(stderr, "%s: %s=%s is not a number\n", TOOL_NAME, key, text);
        exit(2);
    }
    return v;
}

/* The value of "key=value", and the key's length in *key_length. */
static inline const char *value_of(const char *argument, size_t *key_length)
{
    const char *eq = strchr(argument, '=');
    if (!eq) usage("arguments are key=value");
    *key_length = (size_t)(eq - argument);
    return eq + 1;
}

static inline int key_is(const char *argument, size_t key_length, const char *name)
{
    return key_length == strlen(name) && !strncmp(argument, name, key_length);
}

#endif
