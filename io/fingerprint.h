/* Fingerprints: 64-bit FNV-1a over bytes, for a survey's finished files
 * (checked again on a re-run before a shot is skipped) and for the job
 * itself (a re-run must be the same job). */
#ifndef SF_FINGERPRINT_H
#define SF_FINGERPRINT_H

#include <stddef.h>

#define SF_FNV_OFFSET 0xcbf29ce484222325ull

unsigned long long sf_fnv1a(unsigned long long hash, const void *data, size_t bytes);

/* The size and FNV-1a of a file's bytes; with sync, also flushes the file
 * to the disk (a finished shot must survive a crash once the manifest says
 * so; its name is made durable where it is renamed into place). 0, or -1
 * with the reason. */
int sf_file_fingerprint(const char *path, int sync, long long *size, unsigned long long *hash,
                        char *reason, size_t len);

/* The job's fingerprint as "16 hex digits". */
void sf_hash_text(unsigned long long hash, char out[17]);

#endif
