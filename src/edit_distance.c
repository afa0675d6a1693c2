#include "sf_edit_distance.h"

#include <ctype.h>
#include <string.h>

/* A swap of neighbours counts once: "cmpl" is one edit from "cpml". */
int sf_edit_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > SF_EDIT_WORD_MAX || m > SF_EDIT_WORD_MAX) return SF_EDIT_WORD_MAX + 1;
    int d[SF_EDIT_WORD_MAX + 1][SF_EDIT_WORD_MAX + 1];
    for (size_t i = 0; i <= n; ++i) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            const int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            int best = d[i - 1][j - 1] + (ai != bj);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* Two edits in a long key are a slip of the fingers; one in a two-letter
 * key ("nq") could as well be another key, so none is suggested. */
static int near_enough(int distance, size_t longer)
{
    return distance <= 2 && 3 * (size_t)distance <= longer;
}

int sf_nearest_word(const char *word, const char *list, const char *separators, char *out,
                    size_t len)
{
    int best = -1;
    for (const char *p = list; *p;) {
        p += strspn(p, separators);
        const size_t n = strcspn(p, separators);
        if (n == 0) break;
        char candidate[SF_EDIT_WORD_MAX + 1];
        if (n <= SF_EDIT_WORD_MAX) {
            memcpy(candidate, p, n);
            candidate[n] = '\0';
            const int d = sf_edit_distance(word, candidate);
            const size_t longer = n > strlen(word) ? n : strlen(word);
            if (near_enough(d, longer) && (best < 0 || d < best) && len > 0) {
                best = d;
                strncpy(out, candidate, len - 1);
                out[len - 1] = '\0';
            }
        }
        p += n;
    }
    return best >= 0;
}
