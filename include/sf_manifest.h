/* A survey's manifest: output.directory/manifest.jsonl, one JSON object a
 * line, appended to (each line flushed to the disk):
 *   {"seisfd_manifest": 1, "seisfd_version": ..., "job_hash": ..., "job": ...,
 *    "shots": N, "created": ...}                        the first line
 *   {"shot": n, "status": "done", "group": g, "seconds": s, "finished": ...,
 *    "files": [{"name": ..., "size": bytes, "fnv1a64": "16 hex digits"}, ...]}
 *   {"shot": n, "status": "failed", ..., "reason": ...}
 * The last line about a shot counts. A line torn by a kill is ignored,
 * and cut off before anything more is appended. A manifest removed or
 * replaced during the run is written again whole. */
#ifndef SF_MANIFEST_H
#define SF_MANIFEST_H

#include "sf_shot_result.h"

#include <stddef.h>

typedef struct {
    char path[4200];
    char directory[4096];
    int fd;
    char job_hash[17], job_path[4200];   /* for the header of a manifest written again */
    long shots;
    int stale;                /* a write failed: it must be written whole again */
    long long size;           /* the bytes the file holds as this run last left it */
} sf_manifest;

/* What an existing manifest says. */
typedef struct {
    int exists;
    char job_hash[17];        /* "" when the first line is unreadable */
    char version[32];
    long torn_lines;          /* lines that were not JSON (a kill mid-write) */
    long shot_lines;          /* lines about shots */
} sf_manifest_header;

/* directory/manifest.jsonl. */
void sf_manifest_path(const char *directory, char *out, size_t len);

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

/* Appends a shot's line and flushes it to the disk; 0, or -1 with the
 * reason (the file then keeps whole lines, and sf_manifest_keep writes
 * it whole again before anything more is appended). */
int sf_manifest_append(sf_manifest *m, const sf_shot_result *r, char *reason, size_t len);

/* Why sf_manifest_keep wrote the manifest again. */
typedef enum { SF_MANIFEST_AS_IT_WAS, SF_MANIFEST_WAS_GONE, SF_MANIFEST_WRITE_FAILED } sf_manifest_rewrite;

/* Before an append: when the file at the manifest's path is no longer the
 * one open (removed or replaced during the run) or a write failed, the
 * manifest is written whole again from known[shots], every shot's latest
 * state (done, skipped, failed: a line each; skipped ones as done), under
 * a temporary name renamed over the path; *why says whether and why. 0,
 * or -1 with the reason. */
int sf_manifest_keep(sf_manifest *m, const sf_shot_result *known, sf_manifest_rewrite *why,
                     char *reason, size_t len);
void sf_manifest_close(sf_manifest *m);

/* The last look before the run ends: is the file at the manifest's path
 * still the one open, of the size this run left it? 0, or -1 with the
 * reason (removed, replaced or cut after its last line). */
int sf_manifest_intact(const sf_manifest *m, char *reason, size_t len);

/* Does shot r's every file still have its recorded size and checksum?
 * 1, or 0 with the first difference in why. */
int sf_manifest_verify(const sf_shot_result *r, char *why, size_t len);

#endif
