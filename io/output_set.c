/* A shot's outputs change together: each is written under its temporary
 * name, and only once all are complete are they renamed, one by one.
 * Until the last rename has succeeded each earlier file stays reachable
 * under a second name (a hard link), so that a rename that fails puts
 * every earlier output back and a failed run changes nothing. */
#include "sf_error.h"
#include "fingerprint.h"
#include "sf_output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What stood at an output's name before its commit. */
typedef enum {
    NOTHING,      /* no file: undoing removes the new one */
    KEPT,         /* a file, linked to its keep name: undoing puts it back */
    UNPROTECTED   /* a file on a file system without hard links: replaced for good */
} earlier;

static const char NO_CHANGE[] = "; none of this run's outputs were kept and earlier ones are "
                                "as they were";

/* The set whose temporary files an error exit removes. */
static sf_output_set *in_progress;

void sf_output_set_clear(sf_output_set *set) { set->count = 0; }

void sf_output_set_add(sf_output_set *set, const char *path)
{
    if (set->count == SF_OUTPUT_SET_MAX)
        sf_fatal("internal: more than %d outputs of one shot", SF_OUTPUT_SET_MAX);
    int k = set->count++;
    snprintf(set->path[k], SF_OUTPUT_PATH, "%s", path);
    set->size[k] = 0;
    set->checksum[k] = 0;
    in_progress = set;
}

static void keep_name(const char *path, char *out, size_t len)
{
    char partial[SF_OUTPUT_PATH];
    sf_output_partial_name(path, partial, sizeof partial);
    snprintf(out, len, "%.*s-old.partial", (int)(strlen(partial) - strlen(".partial")), partial);
}

/* Best effort throughout: a file that cannot be removed is left over,
 * and the failure being reported matters more. */
static void remove_file(const char *path) { unlink(path); }

static void remove_temporary(const char *path)
{
    char partial[SF_OUTPUT_PATH];
    sf_output_partial_name(path, partial, sizeof partial);
    remove_file(partial);
}

/* Do the two paths name files of one directory (b NULL: no)? A run's
 * outputs mostly share one, flushed once after the renames. */
static int same_directory(const char *a, const char *b)
{
    if (!b) return 0;
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
    return na == nb && strncmp(a, b, na) == 0;
}

/* Flushes every temporary file, with its size and checksum; 0 or -1. */
static int verify(sf_output_set *set, char *reason, size_t len)
{
    for (int k = 0; k < set->count; ++k) {
        char partial[SF_OUTPUT_PATH];
        sf_output_partial_name(set->path[k], partial, sizeof partial);
        if (sf_file_fingerprint(partial, 1, &set->size[k], &set->checksum[k], reason, len) != 0)
            return -1;
    }
    return 0;
}

/* Gives the file at path a second name, keep; 0 or -1 with the reason. */
static int keep_earlier(const char *path, const char *keep, earlier *was, char *reason,
                        size_t len)
{
    struct stat st;
    *was = NOTHING;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(reason, len, "cannot examine '%.600s': %s%s", path, strerror(errno), NO_CHANGE);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(reason, len, "'%.600s' is a directory, which an output cannot replace%s", path,
                 NO_CHANGE);
        return -1;
    }
    remove_file(keep);
    if (link(path, keep) == 0) {
        *was = KEPT;
        return 0;
    }
    if (errno == EPERM || errno == EOPNOTSUPP) {
        *was = UNPROTECTED;
        return 0;
    }
    snprintf(reason, len, "cannot keep '%.600s' while replacing it: %s%s", path, strerror(errno),
             NO_CHANGE);
    return -1;
}

/* Outputs [0, renamed) are in place, the others' temporary files not:
 * back to the earlier files, and away with the temporary ones. */
static void roll_back(const sf_output_set *set, const earlier *was, int kept, int renamed)
{
    for (int k = 0; k < set->count; ++k) {
        char keep[SF_OUTPUT_PATH];
        keep_name(set->path[k], keep, sizeof keep);
        if (k >= renamed) remove_temporary(set->path[k]);
        if (k < renamed && was[k] == NOTHING) remove_file(set->path[k]);
        if (k < kept && was[k] == KEPT) {
            if (k >= renamed)
                remove_file(keep);
            else if (rename(keep, set->path[k]) != 0)
                sf_warn("cannot put the earlier '%s' back (it is '%s' now): %s", set->path[k],
                        keep, strerror(errno));
        }
    }
}

static int commit(sf_output_set *set, int durable, char *reason, size_t len)
{
    earlier was[SF_OUTPUT_SET_MAX];
    int kept = 0, renamed = 0, failed = durable && verify(set, reason, len) != 0;
    char partial[SF_OUTPUT_PATH], keep[SF_OUTPUT_PATH];
    for (; !failed && kept < set->count; ++kept) {
        keep_name(set->path[kept], keep, sizeof keep);
        failed = keep_earlier(set->path[kept], keep, &was[kept], reason, len) != 0;
    }
    for (; !failed && renamed < set->count; ++renamed) {
        const char *path = set->path[renamed];
        sf_output_partial_name(path, partial, sizeof partial);
        if (rename(partial, path) != 0) {
            snprintf(reason, len, "cannot rename '%.600s' to '%.600s': %s%s", partial, path,
                     strerror(errno), NO_CHANGE);
            failed = 1;
            break;
        }
    }
    for (int k = 0; !failed && durable && k < set->count; ++k)
        if (!same_directory(set->path[k], k > 0 ? set->path[k - 1] : NULL) &&
            sf_output_sync_directory(set->path[k]) != 0) {
            snprintf(reason, len, "cannot flush the directory of '%.600s' to the disk: %s%s",
                     set->path[k], strerror(errno), NO_CHANGE);
            failed = 1;
        }
    if (failed) {
        roll_back(set, was, kept, renamed);
        return -1;
    }
    for (int k = 0; k < set->count; ++k) {
        keep_name(set->path[k], keep, sizeof keep);
        if (was[k] == KEPT) remove_file(keep);
    }
    return 0;
}

int sf_output_set_finish(sf_output_set *set, int keep, int verify, MPI_Comm comm, char *reason,
                         size_t len)
{
    int rank, failed = 0;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "finishing a shot's outputs");
    if (rank == 0 && keep) failed = commit(set, verify, reason, len) != 0;
    if (rank == 0 && !keep)
        for (int k = 0; k < set->count; ++k) remove_temporary(set->path[k]);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "finishing a shot's outputs");
    if (failed)
        SF_MPI_CHECK(MPI_Bcast(reason, (int)len, MPI_CHAR, 0, comm), "sharing why outputs failed");
    if (failed || !keep) set->count = 0;
    if (in_progress == set) in_progress = NULL;
    return failed ? -1 : 0;
}

void sf_output_cleanup(void)
{
    for (int k = 0; in_progress && k < in_progress->count; ++k)
        remove_temporary(in_progress->path[k]);
    in_progress = NULL;
    sf_output_unlock_all();
}
