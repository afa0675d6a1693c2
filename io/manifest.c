#include "sf_manifest.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "fingerprint.h"
#include "sf_json.h"
#include "sf_output.h"
#include "sf_version.h"
#include "yaml_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MANIFEST_NAME[] = "manifest.jsonl";

const char *sf_shot_status_name(int status)
{
    switch (status) {
    case SF_SHOT_DONE: return "done";
    case SF_SHOT_FAILED: return "failed";
    case SF_SHOT_SKIPPED: return "skipped";
    case SF_SHOT_INTERRUPTED: return "interrupted";
    case SF_SHOT_RUNNING: return "running";
    default: return "pending";
    }
}

void sf_manifest_path(const char *directory, char *out, size_t len)
{
    snprintf(out, len, "%.4000s/%s", directory, MANIFEST_NAME);
}

/* ---- reading -------------------------------------------------------------- */

/* A manifest grows by a line of about 300 bytes per shot and run. */
enum { MAX_MANIFEST_BYTES = 1 << 30 };

static const char *text_of(const sf_yaml_node *map, const char *key)
{
    const sf_yaml_node *n = sf_yaml_peek(map, key);
    return n && n->kind == SF_YAML_SCALAR ? n->value : NULL;
}

static double number_of(const sf_yaml_node *map, const char *key)
{
    const char *t = text_of(map, key);
    double v = t ? strtod(t, NULL) : 0.0;
    return isfinite(v) ? v : 0.0;
}

/* A whole number in [lo, hi], else `otherwise`: a garbled value must not
 * reach a conversion it overflows. */
static long long whole_of(const sf_yaml_node *map, const char *key, long long lo, long long hi,
                          long long otherwise)
{
    double v = number_of(map, key);
    return v >= (double)lo && v <= (double)hi && v == floor(v) ? (long long)v : otherwise;
}

/* Above any file's size; a size recorded beyond it never verifies. */
static const long long LARGEST_SIZE = 1ll << 60;

static int status_of(const char *name)
{
    if (name && !strcmp(name, "done")) return SF_SHOT_DONE;
    if (name && !strcmp(name, "failed")) return SF_SHOT_FAILED;
    return SF_SHOT_PENDING;
}

static void read_files(const sf_yaml_node *list, const char *directory, sf_shot_result *r)
{
    r->nfiles = 0;
    for (size_t i = 0; list && list->kind == SF_YAML_SEQUENCE && i < list->count; ++i) {
        const sf_yaml_node *f = list->items[i];
        const char *name = text_of(f, "name"), *fnv = text_of(f, "fnv1a64");
        if (!name || !fnv || r->nfiles == SF_RESULT_FILES) continue;
        int k = r->nfiles++;
        snprintf(r->files[k], sizeof r->files[k], "%.900s/%.100s", directory, name);
        r->sizes[k] = whole_of(f, "size", 0, LARGEST_SIZE, -1);
        r->checksums[k] = strtoull(fnv, NULL, 16);
    }
}

static void read_shot_line(const sf_yaml_node *line, const char *directory, long shots,
                           sf_shot_result *recorded)
{
    long shot = (long)whole_of(line, "shot", 1, shots, 0);
    if (shot == 0) return;
    sf_shot_result *r = &recorded[shot - 1];
    memset(r, 0, sizeof *r);
    r->index = shot;
    r->status = status_of(text_of(line, "status"));
    r->group = (int)whole_of(line, "group", 0, INT_MAX, 0);
    r->seconds = number_of(line, "seconds");
    const char *finished = text_of(line, "finished"), *reason = text_of(line, "reason");
    snprintf(r->finished, sizeof r->finished, "%s", finished ? finished : "");
    snprintf(r->reason, sizeof r->reason, "%s", reason ? reason : "");
    read_files(sf_yaml_peek(line, "files"), directory, r);
}

static void read_header_line(const sf_yaml_node *line, sf_manifest_header *h)
{
    const char *hash = text_of(line, "job_hash"), *version = text_of(line, "seisfd_version");
    snprintf(h->job_hash, sizeof h->job_hash, "%s", hash ? hash : "");
    snprintf(h->version, sizeof h->version, "%s", version ? version : "");
}

/* One line: the header, a shot, or (torn, not JSON) ignored. */
static void read_line(char *line, size_t length, const char *directory, long shots,
                      sf_manifest_header *h, sf_shot_result *recorded, int *first)
{
    if (length == 0) return;
    char err[256];
    sf_yaml_node *root = sf_yaml_parse(line, length, err, sizeof err);
    if (!root || root->kind != SF_YAML_MAPPING) {
        ++h->torn_lines;
    } else if (*first && sf_yaml_peek(root, "seisfd_manifest")) {
        read_header_line(root, h);
    } else if (sf_yaml_peek(root, "shot")) {
        ++h->shot_lines;
        read_shot_line(root, directory, shots, recorded);
    }
    *first = 0;
    sf_yaml_free(root);
}

int sf_manifest_read(const char *directory, long shots, sf_manifest_header *header,
                     sf_shot_result *recorded, char *reason, size_t len)
{
    char path[4200];
    sf_manifest_path(directory, path, sizeof path);
    memset(header, 0, sizeof *header);
    for (long n = 0; n < shots; ++n) {
        memset(&recorded[n], 0, sizeof recorded[n]);
        recorded[n].index = n + 1;
    }
    size_t length = 0;
    char why[256];
    char *text = sf_file_read_text(path, MAX_MANIFEST_BYTES, &length, why, sizeof why);
    if (!text) {
        if (errno == ENOENT) return 0;
        snprintf(reason, len, "cannot read the manifest '%.600s': %s", path, why);
        return -1;
    }
    header->exists = 1;
    int first = 1;
    for (char *line = text; line < text + length;) {
        char *end = memchr(line, '\n', (size_t)(text + length - line));
        size_t n = end ? (size_t)(end - line) : (size_t)(text + length - line);
        read_line(line, n, directory, shots, header, recorded, &first);
        line += n + 1;
    }
    free(text);
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

/* Writes whole lines with one write() and flushes them to the disk. A
 * write that fails is cut off again, so that the file keeps whole lines
 * and the next one does not join a torn one; the manifest then has to be
 * written whole again (sf_manifest_keep) before more lines go in. */
static int append_text(sf_manifest *m, const char *text, size_t length, char *reason, size_t len)
{
    off_t end = lseek(m->fd, 0, SEEK_END);
    ssize_t wrote = write(m->fd, text, length);
    if (wrote == (ssize_t)length && fsync(m->fd) == 0) {
        m->size += (long long)length;   /* counted, not read back: a cut file must show */
        return 0;
    }
    snprintf(reason, len, "cannot append to the manifest '%.600s': %s", m->path,
             wrote < 0 || wrote == (ssize_t)length ? strerror(errno) : "short write");
    if (end >= 0 && ftruncate(m->fd, end) != 0)
        snprintf(reason + strlen(reason), len - strlen(reason), " (and cannot cut it back: %s)",
                 strerror(errno));
    m->stale = 1;
    return -1;
}

/* A last line without its newline was cut short by a kill, unless it is
 * whole JSON: it is cut off (or finished with its newline). */
static int repair_tail(sf_manifest *m, char *reason, size_t len)
{
    size_t length = 0;
    char why[256];
    char *text = sf_file_read_text(m->path, MAX_MANIFEST_BYTES, &length, why, sizeof why);
    if (!text) {
        snprintf(reason, len, "cannot read the manifest '%.600s': %s", m->path, why);
        return -1;
    }
    int rc = 0;
    if (length > 0 && text[length - 1] != '\n') {
        char *last = strrchr(text, '\n');
        size_t keep = last ? (size_t)(last - text) + 1 : 0;
        char err[256];
        sf_yaml_node *tail = sf_yaml_parse(text + keep, length - keep, err, sizeof err);
        if (tail && tail->kind == SF_YAML_MAPPING)
            rc = append_text(m, "\n", 1, reason, len);
        else if (ftruncate(m->fd, (off_t)keep) != 0)
            rc = -1, snprintf(reason, len, "cannot cut the torn last line of '%.600s': %s",
                              m->path, strerror(errno));
        sf_yaml_free(tail);
    }
    free(text);
    return rc;
}

static void put_header(FILE *f, const sf_manifest *m)
{
    char created[32];
    sf_utc_time(created);
    fputs("{\"seisfd_manifest\": 1, ", f);
    sf_json_key(f, "seisfd_version");
    sf_json_string(f, SEISFD_VERSION);
    fputs(", ", f);
    sf_json_key(f, "job_hash");
    sf_json_string(f, m->job_hash);
    fputs(", ", f);
    sf_json_key(f, "job");
    sf_json_string(f, m->job_path);
    fprintf(f, ", \"shots\": %ld, ", m->shots);
    sf_json_key(f, "created");
    sf_json_string(f, created);
    fputs("}\n", f);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void put_files(FILE *f, const sf_shot_result *r)
{
    sf_json_key(f, "files");
    fputc('[', f);
    for (int k = 0; k < r->nfiles; ++k) {
        char fnv[17];
        sf_hash_text(r->checksums[k], fnv);
        fputs(k ? ", {" : "{", f);
        sf_json_key(f, "name");
        sf_json_string(f, base_name(r->files[k]));
        fprintf(f, ", \"size\": %lld, ", r->sizes[k]);
        sf_json_key(f, "fnv1a64");
        sf_json_string(f, fnv);
        fputc('}', f);
    }
    fputc(']', f);
}

/* A shot's line; one skipped in this run (done in an earlier one) is
 * recorded as done, as it was. */
static void put_shot(FILE *f, const sf_shot_result *r)
{
    int done = r->status == SF_SHOT_DONE || r->status == SF_SHOT_SKIPPED;
    fprintf(f, "{\"shot\": %ld, ", r->index);
    sf_json_key(f, "status");
    sf_json_string(f, sf_shot_status_name(done ? SF_SHOT_DONE : r->status));
    fprintf(f, ", \"group\": %d, \"seconds\": ", r->group);
    sf_json_number(f, r->seconds);
    fputs(", ", f);
    sf_json_key(f, "finished");
    sf_json_string(f, r->finished);
    fputs(", ", f);
    if (done) {
        put_files(f, r);
    } else {
        sf_json_key(f, "reason");
        sf_json_string(f, r->reason);
    }
    fputs("}\n", f);
}

/* The header (known NULL) or, with it, the whole manifest: the header and
 * a line for every shot known to be done, skipped or failed. */
static char *manifest_text(const sf_manifest *m, const sf_shot_result *known, size_t *length)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, length);
    if (!f) sf_fatal("out of memory writing the manifest");
    put_header(f, m);
    for (long n = 0; known && n < m->shots; ++n)
        if (known[n].status == SF_SHOT_DONE || known[n].status == SF_SHOT_SKIPPED ||
            known[n].status == SF_SHOT_FAILED)
            put_shot(f, &known[n]);
    if (fclose(f) != 0) sf_fatal("out of memory writing the manifest");
    return text;
}

int sf_manifest_open(sf_manifest *m, const char *directory, int fresh, const char *job_hash,
                     const char *job_path, long shots, char *reason, size_t len)
{
    snprintf(m->directory, sizeof m->directory, "%s", directory);
    sf_manifest_path(directory, m->path, sizeof m->path);
    snprintf(m->job_hash, sizeof m->job_hash, "%s", job_hash);
    snprintf(m->job_path, sizeof m->job_path, "%s", job_path);
    m->shots = shots;
    m->stale = 0;
    m->size = 0;
    struct stat st;
    int exists = stat(m->path, &st) == 0 && st.st_size > 0;
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0);
    m->fd = open(m->path, flags, 0666);
    if (m->fd < 0) {
        snprintf(reason, len, "cannot open the manifest '%.600s': %s", m->path, strerror(errno));
        return -1;
    }
    if (exists && !fresh) {
        int rc = repair_tail(m, reason, len);
        m->size = (long long)lseek(m->fd, 0, SEEK_END);
        return rc;
    }
    size_t length = 0;
    char *header = manifest_text(m, NULL, &length);
    int rc = append_text(m, header, length, reason, len);
    free(header);
    return rc;
}

int sf_manifest_append(sf_manifest *m, const sf_shot_result *r, char *reason, size_t len)
{
    char *line = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&line, &length);
    if (!f) sf_fatal("out of memory writing the manifest");
    put_shot(f, r);
    if (fclose(f) != 0) sf_fatal("out of memory writing the manifest");
    int rc = append_text(m, line, length, reason, len);
    free(line);
    return rc;
}

/* Is the open file still the one at the manifest's path? */
static int still_there(const sf_manifest *m) { return sf_output_same_file(m->fd, m->path) == 1; }

/* The whole manifest under a temporary name, flushed, renamed over the
 * path and its directory flushed; the open file is then that one. */
static int rewrite(sf_manifest *m, const sf_shot_result *known, char *reason, size_t len)
{
    char partial[4300];
    sf_output_partial_name(m->path, partial, sizeof partial);
    int fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(reason, len, "cannot write the manifest '%.600s' again: %s", partial,
                 strerror(errno));
        return -1;
    }
    size_t length = 0;
    char *text = manifest_text(m, known, &length);
    ssize_t wrote = write(fd, text, length);
    int failed = wrote != (ssize_t)length || fsync(fd) != 0 || rename(partial, m->path) != 0 ||
                 sf_output_sync_directory(m->path) != 0;
    free(text);
    if (failed) {
        snprintf(reason, len, "cannot write the manifest '%.600s' again: %s", m->path,
                 wrote >= 0 && wrote < (ssize_t)length ? "short write" : strerror(errno));
        close(fd);
        unlink(partial);   /* best effort: the failure is what gets reported */
        return -1;
    }
    close(m->fd);
    m->fd = fd;
    m->stale = 0;
    m->size = (long long)length;
    return 0;
}

int sf_manifest_keep(sf_manifest *m, const sf_shot_result *known, sf_manifest_rewrite *why,
                     char *reason, size_t len)
{
    *why = SF_MANIFEST_AS_IT_WAS;
    int gone = !still_there(m);
    if (!gone && !m->stale) return 0;
    if (rewrite(m, known, reason, len) != 0) {
        m->stale = 1;
        return -1;
    }
    *why = gone ? SF_MANIFEST_WAS_GONE : SF_MANIFEST_WRITE_FAILED;
    return 0;
}

int sf_manifest_intact(const sf_manifest *m, char *reason, size_t len)
{
    struct stat st;
    if (still_there(m) && fstat(m->fd, &st) == 0 && (long long)st.st_size == m->size) return 0;
    snprintf(reason, len, "the manifest '%.600s' no longer holds the lines this run wrote: it was "
             "removed, replaced or cut after the last of them", m->path);
    return -1;
}

void sf_manifest_close(sf_manifest *m)
{
    if (m->fd >= 0) close(m->fd);
    m->fd = -1;
}

int sf_manifest_verify(const sf_shot_result *r, char *why, size_t len)
{
    if (r->nfiles == 0) {
        snprintf(why, len, "no files recorded");
        return 0;
    }
    for (int k = 0; k < r->nfiles; ++k) {
        long long size = 0;
        unsigned long long hash = 0;
        if (sf_file_fingerprint(r->files[k], 0, &size, &hash, why, len) != 0) return 0;
        if (size != r->sizes[k] || hash != r->checksums[k]) {
            snprintf(why, len, "'%.600s' has changed (%lld bytes, checksum %016llx; recorded %lld, "
                     "%016llx)", r->files[k], size, hash, r->sizes[k], r->checksums[k]);
            return 0;
        }
    }
    return 1;
}
