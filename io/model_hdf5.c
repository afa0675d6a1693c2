/* HDF5 velocity volumes: a float dataset [nz][ny][nx] (or a 2D section
 * [nz][nx]) with optional `origin` and `spacing` attributes (x, y, z in
 * metres) on the dataset or the file's root. Read collectively, each rank
 * selecting only its own planes. */
#include "sf_error.h"
#include "sf_file_read.h"
#include "sf_hdf5_check.h"
#include "sf_hdf5_write.h"
#include "sf_version.h"
#include "sf_volume.h"

#include <hdf5.h>
#include <stdio.h>
#include <string.h>

/* The innermost message of HDF5's error stack. */
static herr_t innermost(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)n;
    if (err->desc && *err->desc) snprintf((char *)data, 256, "%s", err->desc);
    return 0;
}

static int h5_failed(char *reason, size_t len, const char *what, const char *name)
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

/* comm: open collectively with MPI-IO; MPI_COMM_NULL: alone, with POSIX
 * reads. The metadata is read alone first: MPI-IO prints its own line to
 * stderr when a damaged file sends HDF5 to an impossible offset. */
static hid_t open_file(const char *path, MPI_Comm comm, char *reason, size_t len)
{
    sf_h5_quiet();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || (comm != MPI_COMM_NULL && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0)) {
        h5_failed(reason, len, "setting up MPI-IO for", path);
        return -1;
    }
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    /* Before H5Pclose, which clears HDF5's error stack. */
    if (file < 0 && diagnose_open(path, reason, len) == 0)
        h5_failed(reason, len, "cannot open HDF5 file", path);
    H5Pclose(fapl);
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

static hid_t open_dataset(hid_t file, const char *path, const char *dataset, char *reason,
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
    if (d < 0) h5_failed(reason, len, "cannot open dataset in", path);
    return d;
}

/* Reads a float64[3] attribute from the dataset, else from the root;
 * returns 1 when found. */
static int read_triple(hid_t dataset, hid_t file, const char *name, double out[3])
{
    hid_t owners[2] = {dataset, file};
    for (int o = 0; o < 2; ++o) {
        if (H5Aexists(owners[o], name) <= 0) continue;
        hid_t a = H5Aopen(owners[o], name, H5P_DEFAULT);
        hid_t space = a >= 0 ? H5Aget_space(a) : -1;
        int ok = space >= 0 && H5Sget_simple_extent_npoints(space) == 3 &&
                 H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0;
        if (space >= 0) H5Sclose(space);
        if (a >= 0) H5Aclose(a);
        if (ok) return 1;
    }
    return 0;
}

static int dataset_shape(hid_t d, const char *name, sf_volume_grid *g, char *reason, size_t len)
{
    hid_t space = H5Dget_space(d);
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t dims[3] = {0, 0, 0};
    if (rank == 2 || rank == 3) H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0) H5Sclose(space);
    hid_t type = H5Dget_type(d);
    H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    if (type >= 0) H5Tclose(type);
    if (rank != 2 && rank != 3) {
        snprintf(reason, len, "'%s' has %d dimensions; a model is [nz][ny][nx] or a 2D section "
                 "[nz][nx]", name, rank);
        return -1;
    }
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
        snprintf(reason, len, "'%s' does not hold numbers", name);
        return -1;
    }
    g->n[0] = (long)dims[rank - 1];
    g->n[1] = rank == 3 ? (long)dims[1] : 1;
    g->n[2] = (long)dims[0];
    return 0;
}

int sf_hdf5_volume_shape(const char *path, const char *dataset, sf_volume_grid *g, char *reason,
                         size_t len)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s:/%s", path, dataset);
    hid_t file = open_file(path, MPI_COMM_NULL, reason, len);
    if (file < 0) return -1;
    hid_t d = open_dataset(file, path, dataset, reason, len);
    int rc = d < 0 ? -1 : dataset_shape(d, g->name, g, reason, len);
    if (rc == 0) {
        g->has_origin = read_triple(d, file, "origin", g->origin);
        g->has_spacing = read_triple(d, file, "spacing", g->spacing);
    }
    if (d >= 0) H5Dclose(d);
    H5Fclose(file);
    return rc;
}

/* Selects planes [k0, k0 + nk) of a [nz][ny][nx] or [nz][nx] space. */
static herr_t select_planes(hid_t space, const sf_volume_grid *g, long k0, long nk)
{
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t start[3] = {(hsize_t)k0, 0, 0};
    hsize_t count[3] = {(hsize_t)nk, (hsize_t)g->n[rank == 3 ? 1 : 0], (hsize_t)g->n[0]};
    if (nk == 0) return H5Sselect_none(space);
    return H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
}

int sf_hdf5_volume_read(const char *path, const char *dataset, MPI_Comm comm,
                        const sf_volume_grid *g, long k0, long nk, float *out, char *reason,
                        size_t len)
{
    hid_t file = open_file(path, comm, reason, len);
    if (file < 0) return -1;
    hid_t d = open_dataset(file, path, dataset, reason, len);
    if (d < 0) {
        H5Fclose(file);
        return -1;
    }
    hid_t fspace = H5Dget_space(d);
    hsize_t mcount = (hsize_t)(nk > 0 ? nk : 1) * (hsize_t)g->n[0] * (hsize_t)g->n[1];
    hid_t mspace = H5Screate_simple(1, &mcount, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    int rc = 0;
    if (fspace < 0 || mspace < 0 || dxpl < 0 || select_planes(fspace, g, k0, nk) < 0 ||
        (nk == 0 && H5Sselect_none(mspace) < 0) ||
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0 ||
        H5Dread(d, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, out) < 0)
        rc = h5_failed(reason, len, "cannot read planes of", g->name);
    if (dxpl >= 0) H5Pclose(dxpl);
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    H5Dclose(d);
    H5Fclose(file);
    return rc;
}

void sf_hdf5_volumes_write(const char *path, MPI_Comm comm, const long n[3],
                           const double origin[3], const double spacing[3], long z0, long nz,
                           int count, const char *const *names, const float *const *planes,
                           const char *config_text)
{
    sf_h5_output o;
    sf_h5_output_create(&o, path, comm);
    hsize_t dims[3] = {(hsize_t)n[2], (hsize_t)n[1], (hsize_t)n[0]};
    for (int q = 0; q < count; ++q) {
        hid_t d = sf_h5_dataset(&o, o.file, names[q], H5T_IEEE_F32LE, 3, dims, NULL);
        sf_h5_write_rows(&o, d, H5T_NATIVE_FLOAT, (hsize_t)z0, (hsize_t)nz, planes[q]);
        sf_h5_attr_doubles(&o, d, "origin", origin, 3);
        sf_h5_attr_doubles(&o, d, "spacing", spacing, 3);
        sf_h5_attr_text(&o, d, "units", strcmp(names[q], "rho")
                                            ? "m/s; origin and spacing in m, x y z, z is depth"
                                            : "kg/m^3; origin and spacing in m, x y z, z is depth");
        H5Dclose(d);
    }
    sf_h5_attr_text(&o, o.file, "config", config_text);
    sf_h5_attr_text(&o, o.file, "creator", "seisfd " SEISFD_VERSION);
    sf_h5_output_close(&o);
}
