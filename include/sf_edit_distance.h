/* How far apart two words are, for "did you mean" suggestions of
 * misspelt keys, values and commands. */
#ifndef SF_EDIT_DISTANCE_H
#define SF_EDIT_DISTANCE_H

#include <stddef.h>

/* The Damerau-Levenshtein distance (optimal string alignment: inserts,
 * deletions, substitutions and swaps of neighbours, each 1), ignoring
 * ASCII case; words longer than SF_EDIT_WORD_MAX count as far from all. */
enum { SF_EDIT_WORD_MAX = 64 };
int sf_edit_distance(const char *a, const char *b);

/* The word of `list` (words between any of the characters of
 * `separators`) nearest `word`, copied to out: 1 when one is near enough
 * to be a misspelling (at most 2 edits, and at most a third of the
 * longer word's letters), else 0. Of words equally near, the first. */
int sf_nearest_word(const char *word, const char *list, const char *separators, char *out,
                    size_t len);

#endif
