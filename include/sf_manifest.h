/* A survey's manifest: output.directory/manifest.jsonl, one JSON object a
 * line, only ever appended to (each line flushed to the disk):
 *   {"seisfd_manifest": 1, "seisfd_version": ..., "job_hash": ..., "job": ...,
 *    "shots": N, "created": ...}                        the first line
 *   {"shot": n, "status": "done", "group": g, "seconds": s, "finished": ...,
 *    "files": [{"name": ..., "size": bytes, "fnv1a64": "16 hex digits"}, ...]}
 *   {"shot": n, "status": "failed", ..., "reason": ...}
 * The last line about a shot counts. A line torn by a kill is ignored,
 * and cut off before anything more is appended. */
#ifndef SF_MANIFEST_H
#define SF_MANIFEST_H

#include "sf_shot_result.h"

#include <stddef.h>

typedef struct {
    char path[4200];
    char directory[4096];
    int fd;
} sf_manifest;

/* What an existing manifest says. */
typedef struct {
    int exists;
    char job_hash[17];        /* "" when the first line is unreadable */
    char version[32];
    long torn_lines;          /* lines that were not JSON (a kill mid-write) */
    long shot_lines;          /* lines about shots */
} sf_manifest_header;

/* Reads directory's manifest, when there is one: its header, and for
 * each shot 1..shots the last line about it in recorded[shot - 1]
 * (status SF_SHOT_PENDING when none; file names made full paths).
 * 0, or -1 with the reason (an unreadable file). */
int sf_manifest_read(const char *directory, long shots, sf_manifest_header *header,
                     sf_shot_result *recorded, char *reason, size_t len);

/* Opens the manifest for appending: a new one (fresh: any old one is
 * replaced) starts with its header line; an existing one first loses a
 * torn last line. 0, or -1 with the reason. */
int sf_manifest_open(sf_manifest *m, const char *directory, int fresh, const char *job_hash,
                     const char *job_path, long shots, char *reason, size_t len);

/* Appends a shot's line and flushes it to the disk; 0, or -1 with the reason. */
int sf_manifest_append(sf_manifest *m, const sf_shot_result *r, char *reason, size_t len);
void sf_manifest_close(sf_manifest *m);

/* Does shot r's every file still have its recorded size and checksum?
 * 1, or 0 with the first difference in why. */
int sf_manifest_verify(const sf_shot_result *r, char *why, size_t len);

#endif
