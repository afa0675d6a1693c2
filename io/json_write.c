#include "sf_json.h"

#include <math.h>
#include <time.h>

void sf_json_string(FILE *f, const char *text)
{
    if (!text) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

void sf_json_number(FILE *f, double value)
{
    if (isfinite(value)) fprintf(f, "%.10g", value);
    else fputs("null", f);
}

void sf_json_key(FILE *f, const char *key)
{
    sf_json_string(f, key);
    fputs(": ", f);
}

void sf_utc_time(char out[32])
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &utc);
}
