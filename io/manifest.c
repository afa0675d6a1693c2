#include "sf_manifest.h"
#include "sf_error.h"
#include "sf_fingerprint.h"
#include "sf_json.h"
#include "sf_version.h"
#include "sf_yaml.h"

#include <errno.h>
#include <fcntl.h>
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
    case SF_SHOT_RUNNING: return "running";
    default: return "pending";
    }
}

static void manifest_path(const char *directory, char *out, size_t len)
{
    snprintf(out, len, "%.4000s/%s", directory, MANIFEST_NAME);
}

/* ---- reading -------------------------------------------------------------- */

/* The whole file, NUL-terminated; NULL with errno when unreadable. */
static char *read_all(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        text = sf_malloc((size_t)size + 1, "the manifest");
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
            free(text);
            text = NULL;
        } else {
            text[size] = '\0';
            *length = (size_t)size;
        }
    }
    int saved = errno;
    fclose(f);
    errno = saved;
    return text;
}

static const char *text_of(const sf_yaml_node *map, const char *key)
{
    const sf_yaml_node *n = sf_yaml_peek(map, key);
    return n && n->kind == SF_YAML_SCALAR ? n->value : NULL;
}

static double number_of(const sf_yaml_node *map, const char *key)
{
    const char *t = text_of(map, key);
    return t ? strtod(t, NULL) : 0.0;
}

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
        r->sizes[k] = (long long)number_of(f, "size");
        r->checksums[k] = strtoull(fnv, NULL, 16);
    }
}

static void read_shot_line(const sf_yaml_node *line, const char *directory, long shots,
                           sf_shot_result *recorded)
{
    long shot = (long)number_of(line, "shot");
    if (shot < 1 || shot > shots) return;
    sf_shot_result *r = &recorded[shot - 1];
    memset(r, 0, sizeof *r);
    r->index = shot;
    r->status = status_of(text_of(line, "status"));
    r->group = (int)number_of(line, "group");
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
    manifest_path(directory, path, sizeof path);
    memset(header, 0, sizeof *header);
    for (long n = 0; n < shots; ++n) {
        memset(&recorded[n], 0, sizeof recorded[n]);
        recorded[n].index = n + 1;
    }
    size_t length = 0;
    char *text = read_all(path, &length);
    if (!text) {
        if (errno == ENOENT) return 0;
        snprintf(reason, len, "cannot read the manifest '%.600s': %s", path, strerror(errno));
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

/* Writes a whole line with one write() and flushes it to the disk. */
static int append_line(sf_manifest *m, const char *line, size_t length, char *reason, size_t len)
{
    ssize_t wrote = write(m->fd, line, length);
    if (wrote != (ssize_t)length || fsync(m->fd) != 0) {
        snprintf(reason, len, "cannot append to the manifest '%.600s': %s", m->path,
                 wrote < 0 || wrote == (ssize_t)length ? strerror(errno) : "short write");
        return -1;
    }
    return 0;
}

/* A last line without its newline was cut short by a kill, unless it is
 * whole JSON: it is cut off (or finished with its newline). */
static int repair_tail(sf_manifest *m, char *reason, size_t len)
{
    size_t length = 0;
    char *text = read_all(m->path, &length);
    if (!text) {
        snprintf(reason, len, "cannot read the manifest '%.600s': %s", m->path, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (length > 0 && text[length - 1] != '\n') {
        char *last = strrchr(text, '\n');
        size_t keep = last ? (size_t)(last - text) + 1 : 0;
        char err[256];
        sf_yaml_node *tail = sf_yaml_parse(text + keep, length - keep, err, sizeof err);
        if (tail && tail->kind == SF_YAML_MAPPING)
            rc = append_line(m, "\n", 1, reason, len);
        else if (ftruncate(m->fd, (off_t)keep) != 0)
            rc = -1, snprintf(reason, len, "cannot cut the torn last line of '%.600s': %s",
                              m->path, strerror(errno));
        sf_yaml_free(tail);
    }
    free(text);
    return rc;
}

static int write_header(sf_manifest *m, const char *job_hash, const char *job_path, long shots,
                        char *reason, size_t len)
{
    char *line = NULL, created[32];
    size_t length = 0;
    FILE *f = open_memstream(&line, &length);
    if (!f) sf_fatal("out of memory writing the manifest");
    sf_utc_time(created);
    fputs("{\"seisfd_manifest\": 1, ", f);
    sf_json_key(f, "seisfd_version");
    sf_json_string(f, SEISFD_VERSION);
    fputs(", ", f);
    sf_json_key(f, "job_hash");
    sf_json_string(f, job_hash);
    fputs(", ", f);
    sf_json_key(f, "job");
    sf_json_string(f, job_path);
    fprintf(f, ", \"shots\": %ld, ", shots);
    sf_json_key(f, "created");
    sf_json_string(f, created);
    fputs("}\n", f);
    fclose(f);
    int rc = append_line(m, line, length, reason, len);
    free(line);
    return rc;
}

int sf_manifest_open(sf_manifest *m, const char *directory, int fresh, const char *job_hash,
                     const char *job_path, long shots, char *reason, size_t len)
{
    snprintf(m->directory, sizeof m->directory, "%s", directory);
    manifest_path(directory, m->path, sizeof m->path);
    struct stat st;
    int exists = stat(m->path, &st) == 0 && st.st_size > 0;
    int flags = O_WRONLY | O_CREAT | O_APPEND | (fresh ? O_TRUNC : 0);
    m->fd = open(m->path, flags, 0666);
    if (m->fd < 0) {
        snprintf(reason, len, "cannot open the manifest '%.600s': %s", m->path, strerror(errno));
        return -1;
    }
    if (exists && !fresh) return repair_tail(m, reason, len);
    return write_header(m, job_hash, job_path, shots, reason, len);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void write_files(FILE *f, const sf_shot_result *r)
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

int sf_manifest_append(sf_manifest *m, const sf_shot_result *r, char *reason, size_t len)
{
    char *line = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&line, &length);
    if (!f) sf_fatal("out of memory writing the manifest");
    fprintf(f, "{\"shot\": %ld, ", r->index);
    sf_json_key(f, "status");
    sf_json_string(f, sf_shot_status_name(r->status));
    fprintf(f, ", \"group\": %d, \"seconds\": ", r->group);
    sf_json_number(f, r->seconds);
    fputs(", ", f);
    sf_json_key(f, "finished");
    sf_json_string(f, r->finished);
    fputs(", ", f);
    if (r->status == SF_SHOT_DONE) {
        write_files(f, r);
    } else {
        sf_json_key(f, "reason");
        sf_json_string(f, r->reason);
    }
    fputs("}\n", f);
    fclose(f);
    int rc = append_line(m, line, length, reason, len);
    free(line);
    return rc;
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
