/* Typed, range-checked access to YAML job-file values. Each problem is
 * reported with file:line:column and the dotted key; parsing goes on so
 * the user sees every problem at once. Private to io/. */
#ifndef SF_CONFIG_READER_H
#define SF_CONFIG_READER_H

#include "sf_config.h"
#include "yaml_tree.h"

#include <math.h>
#include <stdarg.h>

typedef struct {
    const char *file;
    int problems;
    int print;              /* only rank 0 prints */
} cfg_reader;

void cfg_problem(cfg_reader *r, int line, int column, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "file:line:column: key: message" on stderr (key may be NULL; "file:"
 * alone for line 0), and a line of text, with control characters escaped
 * (any rank may call them). */
void cfg_vprint(const char *file, sf_mark mark, const char *key, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
void cfg_print_line(const char *text);

sf_mark cfg_mark(const sf_yaml_node *node);

/* Range of an accepted number: lo/hi inclusive unless the *_open flag is set. */
typedef struct {
    double lo, hi;
    int lo_open, hi_open;
} cfg_range;

/* "lo <= x <= hi" (or "> lo" without an upper end), as messages tell it. */
void cfg_describe_range(char *buf, size_t len, cfg_range range);

/* Ranges several keys share (the README's key list gives each key's), as
 * initializers for key tables and as objects. */
#define CFG_RANGE_SCALE {-INFINITY, INFINITY, 0, 0}
#define CFG_RANGE_COORDINATE {-1e8, 1e8, 0, 0}
#define CFG_RANGE_SPACING {1e-4, 1e5, 0, 0}
#define CFG_RANGE_FREQUENCY {1e-3, 1e6, 0, 0}
#define CFG_RANGE_DELAY {0, 1e5, 0, 0}
extern const cfg_range CFG_SCALE;       /* amplitude, force, moment: any finite number */
extern const cfg_range CFG_COORDINATE;  /* positions, m: beyond any survey on the Earth */
extern const cfg_range CFG_SPACING;     /* spacings and steps, m: 0.1 mm (a lab) to 100 km */
extern const cfg_range CFG_FREQUENCY;   /* Ricker peak, Hz */
extern const cfg_range CFG_DELAY;       /* source delay, s */

/* A section that must be a mapping; NULL (and a problem if required) when absent. */
sf_yaml_node *cfg_section(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                          int required);

/* Each getter returns 1 when the key was present and valid, 0 when absent
 * (a problem is reported if required) and -1 when present but invalid. */
int cfg_number(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               cfg_range range, int required, double *out, sf_mark *mark);
int cfg_integer(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path, long lo,
                long hi, int required, long *out, sf_mark *mark);
int cfg_integer_node(cfg_reader *r, const sf_yaml_node *node, const char *path, long lo, long hi,
                     long *out);
int cfg_boolean(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                int *out);
int cfg_string(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               int required, char **out, sf_mark *mark);
/* One of the words in choices (separated by '|'); returns its index in *out.
 * A misspelt word is told the nearest choice. */
int cfg_choice(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
               const char *choices, int required, int *out, sf_mark *mark);
/* A list of exactly n numbers, each in range. */
int cfg_vector(cfg_reader *r, const sf_yaml_node *node, const char *path, int n,
               cfg_range range, double *out);
int cfg_vector_key(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                   int n, cfg_range range, int required, double *out, sf_mark *mark);
/* Reports every key of map that no getter took, listing the allowed keys,
 * with the nearest of them when the key looks misspelt (sf_nearest_word). */
void cfg_reject_unknown(cfg_reader *r, const sf_yaml_node *map, const char *path,
                        const char *allowed);
/* Is the scalar node the word "auto"? */
int cfg_is_auto(const sf_yaml_node *node);

/* The wavelet keys of map (wavelet_config.c; CFG_WAVELET_KEYS) at path ("source",
 * "survey.shots[3]") into spec: base is what they change (a shot's wavelet
 * starts as the source's; keys of its kind are kept unless given), NULL
 * for the source. Returns 1 when map gave any wavelet key. */
int cfg_read_wavelet(cfg_reader *r, sf_yaml_node *map, const char *path,
                     const sf_wavelet_spec *base, sf_wavelet_spec *spec);
/* Reads the signature files of a parsed job (rank 0, broadcast), builds
 * every wavelet and resolves the source's auto delay; returns the
 * problems reported. */
int cfg_load_wavelets(sf_config *c);

/* The fingerprint of a parsed job (job_hash.c): sections that change no
 * shot's result (output, run, survey.ranks_per_shot) left out. */
unsigned long long cfg_job_hash(const sf_yaml_node *root);

#endif
