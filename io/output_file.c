#include "sf_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

void sf_output_partial_name(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s.partial", path);
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

int sf_output_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
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

int sf_output_free_space(const char *path, double *bytes, unsigned long *device)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        slash[1] = '\0';
    else
        *slash = '\0';
    struct statvfs fs;
    struct stat st;
    if (statvfs(dir, &fs) != 0 || stat(dir, &st) != 0) return -1;
    *bytes = (double)fs.f_bavail * (double)fs.f_frsize;
    *device = (unsigned long)st.st_dev;
    return 0;
}
