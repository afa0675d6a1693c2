#include "sf_output.h"
#include "sf_error.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum { HOST_CHARS = 40 };
static const char PARTIAL[] = ".partial";

/* "<host>-<pid>" of world rank 0, of letters, digits, '_' and '-' only,
 * so that a temporary name splits at its dots. */
static char run_tag[HOST_CHARS + 24];

static const char *tag(void)
{
    if (run_tag[0]) return run_tag;
    char host[256];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    size_t n = 0;
    for (; host[n] && n < HOST_CHARS; ++n)
        run_tag[n] = isalnum((unsigned char)host[n]) || host[n] == '_' ? host[n] : '-';
    snprintf(run_tag + n, sizeof run_tag - n, "-%ld", (long)getpid());
    return run_tag;
}

void sf_output_init(MPI_Comm world)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(world, &rank), "naming the run's temporary files");
    if (rank == 0) tag();
    SF_MPI_CHECK(MPI_Bcast(run_tag, sizeof run_tag, MPI_CHAR, 0, world),
                 "naming the run's temporary files");
    sf_error_set_cleanup(sf_output_cleanup);
}

void sf_output_partial_name(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s.%s%s", path, tag(), PARTIAL);
}

const char *sf_output_split(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}

/* Is name "<stem>.<tag>.partial", a tag being free of dots (and stem
 * the given one, when given)? */
static int stale_name(const char *name, const char *stem)
{
    size_t n = strlen(name), suffix = sizeof PARTIAL - 1;
    if (n <= suffix || strcmp(name + n - suffix, PARTIAL)) return 0;
    const char *end = name + n - suffix, *start = end;
    while (start > name && start[-1] != '.') --start;
    if (start == name || start == end) return 0;
    size_t stem_length = (size_t)(start - 1 - name);
    return !stem || (strlen(stem) == stem_length && !strncmp(name, stem, stem_length));
}

void sf_output_remove_stale(const char *path, int every_output)
{
    char dir[4096];
    const char *stem = NULL;
    if (every_output)
        snprintf(dir, sizeof dir, "%s", path);
    else
        stem = sf_output_split(path, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;   /* no directory yet: nothing was left in it */
    for (struct dirent *e; (e = readdir(d));) {
        if (!stale_name(e->d_name, stem)) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
            sf_warn("cannot remove '%s/%s', left by an earlier run: %s", dir, e->d_name,
                    strerror(errno));
    }
    closedir(d);
}

int sf_output_sync_directory(const char *path)
{
    char dir[4096];
    sf_output_split(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int make_directory(const char *dir, char *reason, size_t len)
{
    struct stat st;
    if (mkdir(dir, 0777) == 0) return 0;
    if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
    snprintf(reason, len, "cannot create directory '%s': %s", dir,
             errno == EEXIST ? "a file of that name exists" : strerror(errno));
    return -1;
}

int sf_output_make_parents(const char *path, char *reason, size_t len)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
        snprintf(reason, len, "path too long");
        return -1;
    }
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1;; ++p) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (make_directory(dir, reason, len) != 0) return -1;
        if (saved == '\0') return 0;
        *p = saved;
    }
}

int sf_output_check_writable(const char *path, char *reason, size_t len)
{
    char partial[4200];
    sf_output_partial_name(path, partial, sizeof partial);
    int fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        snprintf(reason, len, "cannot create '%s': %s", partial, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(partial);
    return 0;
}

int sf_output_directory_exists(const char *path)
{
    char dir[4096];
    struct stat st;
    sf_output_split(path, dir, sizeof dir);
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int sf_output_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int sf_output_same_file(int fd, const char *path)
{
    struct stat mine, now;
    if (fstat(fd, &mine) != 0) return -1;
    if (stat(path, &now) != 0) return errno == ENOENT ? 0 : -1;
    return mine.st_dev == now.st_dev && mine.st_ino == now.st_ino;
}

int sf_output_commit(const char *path, char *reason, size_t len)
{
    char partial[4200];
    sf_output_partial_name(path, partial, sizeof partial);
    if (rename(partial, path) != 0) {
        snprintf(reason, len, "cannot rename '%s' to '%s': %s", partial, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* path's nearest ancestor that exists (a directory, or a file where one
 * would be made), in dir. */
static void nearest_existing(const char *path, char *dir, size_t len)
{
    struct stat st;
    sf_output_split(path, dir, len);
    while (stat(dir, &st) != 0 && strcmp(dir, ".") && strcmp(dir, "/")) {
        char up[4096];
        sf_output_split(dir, up, sizeof up);
        snprintf(dir, len, "%s", up);
    }
}

int sf_output_free_space(const char *path, double *bytes, unsigned long *device)
{
    char dir[4096];
    nearest_existing(path, dir, sizeof dir);
    struct statvfs fs;
    struct stat st;
    if (statvfs(dir, &fs) != 0 || stat(dir, &st) != 0) return -1;
    *bytes = (double)fs.f_bavail * (double)fs.f_frsize;
    *device = (unsigned long)st.st_dev;
    return 0;
}

/* Would sf_output_make_parents succeed? The same words for the first
 * directory it would fail on; creates nothing. */
static int check_parents(const char *path, long name_max, char *reason, size_t len)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    char existing[4096];
    snprintf(existing, sizeof existing, "%s", dir[0] == '/' ? "/" : ".");
    int missing = 0;
    for (char *p = dir + 1;; ++p) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        struct stat st;
        if (!missing && stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(reason, len, "cannot create directory '%s': a file of that name exists",
                         dir);
                return -1;
            }
            snprintf(existing, sizeof existing, "%s", dir);
        } else if (!missing && errno != ENOENT) {
            snprintf(reason, len, "cannot create directory '%s': %s", dir, strerror(errno));
            return -1;
        } else {
            const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
            int cannot = (long)strlen(name) > name_max ? ENAMETOOLONG
                         : !missing && access(existing, W_OK | X_OK) != 0 ? errno
                                                                           : 0;
            missing = 1;
            if (cannot) {
                snprintf(reason, len, "cannot create directory '%s': %s", dir, strerror(cannot));
                return -1;
            }
        }
        if (saved == '\0') return 0;
        *p = saved;
    }
}

int sf_output_check_path(const char *path, char *reason, size_t len)
{
    size_t n = strlen(path);
    if (n > SF_OUTPUT_PATH_MAX) {
        snprintf(reason, len, "the path has %zu characters; seisfd takes at most %d", n,
                 SF_OUTPUT_PATH_MAX);
        return -1;
    }
    char dir[4096];
    nearest_existing(path, dir, sizeof dir);
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max <= 0) name_max = 255;
    const char *name = sf_output_split(path, dir, sizeof dir);
    if ((long)strlen(name) + SF_OUTPUT_SUFFIX_MAX > name_max) {
        snprintf(reason, len, "the file name '%s' has %zu characters, but at most %ld fit: its "
                 "file system allows %ld and seisfd's temporary names add up to %d", name,
                 strlen(name), name_max - SF_OUTPUT_SUFFIX_MAX, name_max, SF_OUTPUT_SUFFIX_MAX);
        return -1;
    }
    if (check_parents(path, name_max, reason, len) != 0) return -1;
    struct stat st;
    if (stat(dir, &st) == 0 && access(dir, W_OK | X_OK) != 0) {
        snprintf(reason, len, "cannot create files in directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(reason, len, "'%s' is a directory, which an output cannot replace; remove it or "
                 "choose another path", path);
        return -1;
    }
    return 0;
}
