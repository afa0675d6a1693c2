/* Writing JSON: strings escaped as JSON requires, numbers that JSON can
 * hold (non-finite ones become null). Used by the manifest and the run
 * report. */
#ifndef SF_JSON_H
#define SF_JSON_H

#include <stdio.h>

void sf_json_string(FILE *f, const char *text);   /* text NULL: null */
void sf_json_number(FILE *f, double value);
/* "key": the key, quoted, and the colon. */
void sf_json_key(FILE *f, const char *key);

/* The UTC time as "2026-11-22T10:00:00Z". */
void sf_utc_time(char out[32]);

#endif
