#include "sf_hdf5_write.h"
#include "sf_error.h"
#include "hdf5_check.h"
#include "sf_output.h"

#include <stdio.h>
#include <string.h>

hid_t sf_h5_checked(sf_h5_output *o, hid_t rc, const char *what)
{
    if (rc >= 0) return rc;
    char message[1024];
    sf_h5_describe(what, o->partial, message, sizeof message);
    if (!o->recoverable) sf_fatal("%s", message);
    if (!o->failed) snprintf(o->error, sizeof o->error, "%s", message);
    o->failed = 1;
    return rc;
}

static void start(sf_h5_output *o, const char *path, MPI_Comm comm, int recoverable)
{
    memset(o, 0, sizeof *o);
    o->file = o->transfer = -1;
    o->comm = comm;
    o->recoverable = recoverable;
    snprintf(o->path, sizeof o->path, "%s", path);
    sf_output_partial_name(path, o->partial, sizeof o->partial);
}

/* No modification times in the root group's header either (see
 * sf_h5_dataset); -1 after a failure. */
static hid_t creation_properties(sf_h5_output *o)
{
    hid_t fcpl = sf_h5_checked(o, H5Pcreate(H5P_FILE_CREATE), "creating file properties for");
    if (fcpl >= 0 && sf_h5_checked(o, H5Pset_obj_track_times(fcpl, 0), "leaving out the times of") < 0) {
        H5Pclose(fcpl);
        fcpl = -1;
    }
    return fcpl;
}

/* The file under its temporary name: MPI-IO for a parallel output, the
 * default (POSIX) driver for a serial one. */
static void create_file(sf_h5_output *o, int parallel)
{
    sf_h5_quiet();
    hid_t fcpl = creation_properties(o);
    hid_t fapl = sf_h5_checked(o, H5Pcreate(H5P_FILE_ACCESS), "creating file properties for");
    if (fapl < 0 || fcpl < 0) {
        if (fapl >= 0) H5Pclose(fapl);
        if (fcpl >= 0) H5Pclose(fcpl);
        return;
    }
    if ((!parallel ||
         sf_h5_checked(o, H5Pset_fapl_mpio(fapl, o->comm, MPI_INFO_NULL), "enabling MPI-IO for") >= 0) &&
        sf_h5_checked(o, H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18),
                      "setting the format of") >= 0)
        o->file = sf_h5_checked(o, H5Fcreate(o->partial, H5F_ACC_TRUNC, fcpl, fapl), "creating");
    H5Pclose(fapl);
    H5Pclose(fcpl);
    if (o->failed) return;
    o->transfer = sf_h5_checked(o, H5Pcreate(H5P_DATASET_XFER), "creating transfer properties");
    if (parallel && o->transfer >= 0)
        sf_h5_checked(o, H5Pset_dxpl_mpio(o->transfer, H5FD_MPIO_COLLECTIVE),
                      "requesting collective I/O");
}

/* Rank 0 of a parallel output checks the directory and the temporary
 * file before HDF5 opens it; a problem ends the run. */
static void check_path_on_root(const sf_h5_output *o)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(o->comm, &rank), "querying the rank");
    char reason[512] = "";
    int failed = rank == 0 && (sf_output_make_parents(o->path, reason, sizeof reason) != 0 ||
                               sf_output_check_writable(o->path, reason, sizeof reason) != 0);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, o->comm), "sharing an output status");
    if (!failed) return;
    SF_MPI_CHECK(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, o->comm), "sharing an output status");
    sf_fail_collective("cannot write '%s': %s", o->path, reason);
}

void sf_h5_output_create(sf_h5_output *o, const char *path, MPI_Comm comm)
{
    start(o, path, comm, 0);
    check_path_on_root(o);
    create_file(o, 1);
}

static void close_file(sf_h5_output *o)
{
    if (o->transfer >= 0) H5Pclose(o->transfer);
    o->transfer = -1;
    if (o->file >= 0) sf_h5_checked(o, H5Fclose(o->file), "closing");
    o->file = -1;
}

void sf_h5_output_close(sf_h5_output *o)
{
    close_file(o);
    /* Every rank's part is in the file before anyone puts it in place. */
    SF_MPI_CHECK(MPI_Barrier(o->comm), "waiting for every rank to close an output");
}

int sf_h5_output_open_serial(sf_h5_output *o, const char *path)
{
    start(o, path, MPI_COMM_SELF, 1);
    char reason[512] = "";
    if (sf_output_make_parents(o->path, reason, sizeof reason) != 0 ||
        sf_output_check_writable(o->path, reason, sizeof reason) != 0) {
        snprintf(o->error, sizeof o->error, "cannot write '%.500s': %.500s", o->path, reason);
        o->failed = 1;
        return -1;
    }
    create_file(o, 0);
    if (!o->failed) return 0;
    close_file(o);
    return -1;
}

int sf_h5_output_finish(sf_h5_output *o)
{
    close_file(o);
    return o->failed ? -1 : 0;
}

static void write_attr(sf_h5_output *o, hid_t loc, const char *name, hid_t type, hid_t space,
                       const void *value)
{
    if (o->failed || space < 0) {
        if (space >= 0) H5Sclose(space);
        return;
    }
    hid_t a = sf_h5_checked(o, H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
                            "creating an attribute in");
    if (a >= 0) {
        sf_h5_checked(o, H5Awrite(a, type, value), "writing an attribute to");
        H5Aclose(a);
    }
    H5Sclose(space);
}

static hid_t vector_space(sf_h5_output *o, long count)
{
    hsize_t n = (hsize_t)count;
    return o->failed ? -1 : sf_h5_checked(o, H5Screate_simple(1, &n, NULL), "creating an attribute space");
}

static hid_t scalar_space(sf_h5_output *o)
{
    return o->failed ? -1 : sf_h5_checked(o, H5Screate(H5S_SCALAR), "creating an attribute space");
}

void sf_h5_attr_double(sf_h5_output *o, hid_t loc, const char *name, double value)
{
    write_attr(o, loc, name, H5T_NATIVE_DOUBLE, scalar_space(o), &value);
}

void sf_h5_attr_doubles(sf_h5_output *o, hid_t loc, const char *name, const double *values,
                        long count)
{
    write_attr(o, loc, name, H5T_NATIVE_DOUBLE, vector_space(o, count), values);
}

void sf_h5_attr_long(sf_h5_output *o, hid_t loc, const char *name, long value)
{
    write_attr(o, loc, name, H5T_NATIVE_LONG, scalar_space(o), &value);
}

void sf_h5_attr_longs(sf_h5_output *o, hid_t loc, const char *name, const long *values,
                      long count)
{
    write_attr(o, loc, name, H5T_NATIVE_LONG, vector_space(o, count), values);
}

static void write_text_attr(sf_h5_output *o, hid_t loc, const char *name, hid_t space,
                            const char *const *texts)
{
    hid_t type = o->failed ? -1 : sf_h5_checked(o, H5Tcopy(H5T_C_S1), "creating a string type");
    if (type >= 0 && sf_h5_checked(o, H5Tset_size(type, H5T_VARIABLE), "sizing a string") >= 0 &&
        sf_h5_checked(o, H5Tset_cset(type, H5T_CSET_UTF8), "setting a string encoding") >= 0) {
        write_attr(o, loc, name, type, space, texts);
        space = -1;   /* write_attr closed it */
    }
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
}

void sf_h5_attr_text(sf_h5_output *o, hid_t loc, const char *name, const char *text)
{
    write_text_attr(o, loc, name, scalar_space(o), &text);
}

void sf_h5_attr_texts(sf_h5_output *o, hid_t loc, const char *name, const char *const *texts,
                      long count)
{
    write_text_attr(o, loc, name, vector_space(o, count), texts);
}

hid_t sf_h5_dataset(sf_h5_output *o, hid_t loc, const char *name, hid_t type, int rank,
                    const hsize_t *dims, const hsize_t *chunk)
{
    if (o->failed) return -1;
    hid_t space = sf_h5_checked(o, H5Screate_simple(rank, dims, NULL), "creating a dataspace");
    hid_t dcpl = sf_h5_checked(o, H5Pcreate(H5P_DATASET_CREATE), "creating dataset properties");
    hid_t d = -1;
    /* No modification times in the object headers: the same data gives
     * the same bytes, so a re-run's files can be compared with an earlier
     * run's. */
    if (space >= 0 && dcpl >= 0 &&
        sf_h5_checked(o, H5Pset_obj_track_times(dcpl, 0), "leaving out the times of") >= 0 &&
        (!chunk || sf_h5_checked(o, H5Pset_chunk(dcpl, rank, chunk), "setting the chunks of") >= 0))
        d = sf_h5_checked(o, H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                          "creating a dataset in");
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return d;
}

/* The file and memory selections of rows [row0, row0 + rows); 0 or -1. */
static int select_rows(sf_h5_output *o, hid_t fspace, hid_t mspace, hsize_t row0, hsize_t rows,
                       const hsize_t *dims)
{
    hsize_t start[4] = {row0, 0, 0, 0};
    if (rows > 0)
        return sf_h5_checked(o, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, dims, NULL),
                             "selecting rows in") < 0 ? -1 : 0;
    if (sf_h5_checked(o, H5Sselect_none(fspace), "clearing a selection") < 0) return -1;
    return sf_h5_checked(o, H5Sselect_none(mspace), "clearing a selection") < 0 ? -1 : 0;
}

void sf_h5_write_rows(sf_h5_output *o, hid_t dataset, hid_t memtype, hsize_t row0,
                      hsize_t rows, const void *data)
{
    if (o->failed) return;
    hid_t fspace = sf_h5_checked(o, H5Dget_space(dataset), "querying a dataspace");
    if (fspace < 0) return;
    int rank = H5Sget_simple_extent_ndims(fspace);
    hsize_t dims[4];
    if (rank < 1 || rank > 4) sf_fatal("internal: writing rows of a %d-D dataset", rank);
    sf_h5_checked(o, H5Sget_simple_extent_dims(fspace, dims, NULL), "querying a dataspace");
    dims[0] = rows;
    hsize_t mcount = 1;
    for (int d = 0; d < rank; ++d) mcount *= dims[d];
    hsize_t mdims = mcount > 0 ? mcount : 1;
    hid_t mspace = sf_h5_checked(o, H5Screate_simple(1, &mdims, NULL), "creating a memory space");
    if (mspace >= 0 && select_rows(o, fspace, mspace, row0, rows, dims) == 0)
        sf_h5_checked(o, H5Dwrite(dataset, memtype, mspace, fspace, o->transfer, data), "writing to");
    if (mspace >= 0) H5Sclose(mspace);
    H5Sclose(fspace);
}
