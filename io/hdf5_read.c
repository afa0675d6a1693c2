/* Opening HDF5 files and datasets for reading, with the reason a file
 * does not open told in the terms of the other readers (missing, not a
 * regular file, empty, not HDF5, truncated). */
#include "hdf5_read.h"
#include "sf_file_read.h"
#include "hdf5_check.h"

#include <stdio.h>
#include <string.h>

/* The innermost message of HDF5's error stack. */
static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    if (err->desc && *err->desc) snprintf((char *)data, 256, "%s", err->desc);
    return 0;
}

int sf_h5_failed(char *reason, size_t len, const char *what, const char *name)
{
    char detail[256] = "no detail";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, detail);
    snprintf(reason, len, "%s '%s': %s", what, name, detail);
    return -1;
}

static const unsigned char SIGNATURE[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* Reads len bytes at offset; 0, or -1 when the file is shorter. */
static int read_at(FILE *f, long long offset, unsigned char *out, size_t len)
{
    return fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(out, 1, len, f) == len ? 0 : -1;
}

/* An address of `size` bytes, little-endian. */
static unsigned long long address(const unsigned char *p, int size)
{
    unsigned long long a = 0;
    for (int i = size - 1; i >= 0; --i) a = a << 8 | p[i];
    return a;
}

/* Beyond this, an end-of-file address is damage, not a size. */
static const unsigned long long LARGEST_FILE = 1ull << 50;

/* The bytes the superblock at offset says the file holds (its base address
 * plus its end-of-file address), or 0 when it cannot tell. Superblock
 * versions 0 and 1 keep the addresses after 24 or 28 bytes, versions 2 and
 * 3 after 12; the end of file is the third address in both. */
static unsigned long long stored_end(FILE *f, long long offset)
{
    unsigned char head[48];
    if (read_at(f, offset, head, 16) != 0) return 0;
    int version = head[8], size = version < 2 ? head[13] : head[9];
    int first = version == 0 ? 24 : version == 1 ? 28 : 12;
    if (version > 3 || size < 2 || size > 8 ||
        read_at(f, offset, head, (size_t)(first + 3 * size)) != 0)
        return 0;
    unsigned long long base = address(head + first, size);
    unsigned long long end = address(head + first + 2 * size, size);
    return base < LARGEST_FILE && end < LARGEST_FILE ? base + end : 0;
}

/* Why an HDF5 file does not open, in the terms of the other readers:
 * missing, not a regular file, empty, not HDF5, truncated; else HDF5's
 * own innermost reason. 0 when none of those is found. */
static int diagnose_open(const char *path, char *reason, size_t len)
{
    char why[256];
    long long size = sf_file_size(path, why, sizeof why);
    if (size < 0) {
        snprintf(reason, len, "cannot open HDF5 file '%s': %s", path, why);
        return -1;
    }
    if (size == 0) {
        snprintf(reason, len, "'%s' is empty (0 bytes), not an HDF5 file", path);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    /* The superblock sits at 0, 512, 1024, 2048, ... bytes. */
    long long at = -1;
    unsigned char sig[8];
    for (long long o = 0; o + 8 <= size && at < 0; o = o ? 2 * o : 512)
        if (read_at(f, o, sig, 8) == 0 && memcmp(sig, SIGNATURE, 8) == 0) at = o;
    unsigned long long needed = at >= 0 ? stored_end(f, at) : 0;
    fclose(f);
    if (at < 0)
        snprintf(reason, len, "'%s' is not an HDF5 file (no HDF5 signature in its %lld bytes)",
                 path, size);
    else if (needed > (unsigned long long)size)
        snprintf(reason, len, "'%s' is truncated: %lld bytes where the file says it needs %llu",
                 path, size, needed);
    return at < 0 || needed > (unsigned long long)size ? -1 : 0;
}

hid_t sf_h5_open_read(const char *path, char *reason, size_t len)
{
    sf_h5_quiet();
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0 && diagnose_open(path, reason, len) == 0)
        sf_h5_failed(reason, len, "cannot open HDF5 file", path);
    return file;
}

/* The names of the root's objects, for the missing-dataset message. */
static void list_root(hid_t file, char *buf, size_t len)
{
    H5G_info_t info;
    buf[0] = '\0';
    if (H5Gget_info(file, &info) < 0) return;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        char name[128];
        size_t used = strlen(buf);
        if (H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                               H5P_DEFAULT) < 0 ||
            used + strlen(name) + 3 >= len)
            return;
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
    }
}

hid_t sf_h5_open_dataset(hid_t file, const char *path, const char *dataset, char *reason,
                          size_t len)
{
    if (H5Lexists(file, dataset, H5P_DEFAULT) <= 0) {
        char names[256];
        list_root(file, names, sizeof names);
        snprintf(reason, len, "'%s' has no dataset '%s' (it holds: %s)", path, dataset,
                 *names ? names : "nothing");
        return -1;
    }
    hid_t d = H5Dopen2(file, dataset, H5P_DEFAULT);
    if (d < 0) sf_h5_failed(reason, len, "cannot open dataset in", path);
    return d;
}
