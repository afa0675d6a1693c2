/* HDF5 velocity volumes: a float dataset [nz][ny][nx] (or a 2D section
 * [nz][nx]) with optional `origin` and `spacing` attributes (x, y, z in
 * metres) on the dataset or the file's root. Each rank reads only its own
 * planes, alone. */
#include "sf_error.h"
#include "sf_file_read.h"
#include "hdf5_check.h"
#include "hdf5_read.h"
#include "sf_hdf5_write.h"
#include "sf_raw_io.h"
#include "sf_version.h"
#include "sf_volume.h"

#include <hdf5.h>
#include <stdio.h>
#include <string.h>

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
        snprintf(reason, len, "'%s' has %d dimension%s; a model is [nz][ny][nx] or a 2D section "
                 "[nz][nx]", name, rank, rank == 1 ? "" : "s");
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
    hid_t file = sf_h5_open_read(path, reason, len);
    if (file < 0) return -1;
    hid_t d = sf_h5_open_dataset(file, path, dataset, reason, len);
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

/* Where a dataset's samples lie in its file as one run of 4-byte floats,
 * and their byte order; -1 where they do not (chunked or compressed, not
 * yet written, another type), and HDF5 then reads them. */
static long long contiguous_floats(hid_t d, sf_endian *endian)
{
    const hid_t create = H5Dget_create_plist(d);
    const H5D_layout_t layout = create < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(create);
    if (create >= 0) H5Pclose(create);
    /* A dataset never written has no storage (HDF5 gives its fill value);
     * its offset is meaningless then. */
    H5D_space_status_t space = H5D_SPACE_STATUS_ERROR;
    if (layout != H5D_CONTIGUOUS || H5Dget_space_status(d, &space) < 0 ||
        space != H5D_SPACE_STATUS_ALLOCATED)
        return -1;
    const haddr_t at = H5Dget_offset(d);
    if (at == HADDR_UNDEF) return -1;
    const hid_t type = H5Dget_type(d);
    const int little = type >= 0 && H5Tequal(type, H5T_IEEE_F32LE) > 0;
    const int big = type >= 0 && H5Tequal(type, H5T_IEEE_F32BE) > 0;
    if (type >= 0) H5Tclose(type);
    *endian = big ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE;
    return little || big ? (long long)at : -1;
}

int sf_hdf5_volume_read(const char *path, const char *dataset, const sf_volume_grid *g, long k0,
                        long nk, float *out, char *reason, size_t len)
{
    hid_t file = sf_h5_open_read(path, reason, len);
    if (file < 0) return -1;
    hid_t d = sf_h5_open_dataset(file, path, dataset, reason, len);
    if (d < 0) {
        H5Fclose(file);
        return -1;
    }
    /* Plain floats in one run are read as a raw volume, on every thread. */
    sf_endian endian;
    const long long start = contiguous_floats(d, &endian);
    if (start >= 0) {
        H5Dclose(d);
        H5Fclose(file);
        char why[400];
        if (sf_raw_read_planes(path, start, g->n[0], g->n[1], k0, nk, endian, out, why, sizeof why) == 0)
            return 0;
        snprintf(reason, len, "cannot read planes of '%s' (dataset %s): %s", path, dataset, why);
        return -1;
    }
    hid_t fspace = H5Dget_space(d);
    hsize_t mcount = (hsize_t)(nk > 0 ? nk : 1) * (hsize_t)g->n[0] * (hsize_t)g->n[1];
    hid_t mspace = H5Screate_simple(1, &mcount, NULL);
    int rc = 0;
    if (fspace < 0 || mspace < 0 || select_planes(fspace, g, k0, nk) < 0 ||
        (nk == 0 && H5Sselect_none(mspace) < 0) ||
        H5Dread(d, H5T_NATIVE_FLOAT, mspace, fspace, H5P_DEFAULT, out) < 0)
        rc = sf_h5_failed(reason, len, "cannot read planes of", g->name);
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    H5Dclose(d);
    H5Fclose(file);
    return rc;
}

void sf_hdf5_volumes_write(const char *path, MPI_Comm comm, const long n[3],
                           const double origin[3], const double spacing[3], long z0, long nz,
                           int count, const char *const *names, const char *const *units,
                           const float *const *planes, const char *config_text)
{
    sf_h5_output o;
    sf_h5_output_create(&o, path, comm);
    hsize_t dims[3] = {(hsize_t)n[2], (hsize_t)n[1], (hsize_t)n[0]};
    for (int q = 0; q < count; ++q) {
        hid_t d = sf_h5_dataset(&o, o.file, names[q], H5T_IEEE_F32LE, 3, dims, NULL);
        sf_h5_write_rows(&o, d, H5T_NATIVE_FLOAT, (hsize_t)z0, (hsize_t)nz, planes[q]);
        sf_h5_attr_doubles(&o, d, "origin", origin, 3);
        sf_h5_attr_doubles(&o, d, "spacing", spacing, 3);
        char label[128];
        snprintf(label, sizeof label, "%s; origin and spacing in m, x y z, z is depth",
                 *units[q] ? units[q] : "dimensionless");
        sf_h5_attr_text(&o, d, "units", label);
        H5Dclose(d);
    }
    sf_h5_attr_text(&o, o.file, "config", config_text);
    sf_h5_attr_text(&o, o.file, "creator", "seisfd " SEISFD_VERSION);
    sf_h5_output_close(&o);
}
