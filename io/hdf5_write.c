#include "sf_hdf5_write.h"
#include "sf_error.h"
#include "sf_hdf5_check.h"
#include "sf_output.h"

#include <stdio.h>
#include <string.h>

/* Fails every rank with rank 0's reason when rank 0 found a problem. */
static void check_on_root(int failed, const char *reason, const char *action, const char *path,
                          MPI_Comm comm)
{
    char text[512];
    snprintf(text, sizeof text, "%s", reason);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "sharing an output status");
    if (!failed) return;
    SF_MPI_CHECK(MPI_Bcast(text, sizeof text, MPI_CHAR, 0, comm), "sharing an output status");
    sf_fail_collective("cannot %s '%s': %s", action, path, text);
}

void sf_h5_output_create(sf_h5_output *o, const char *path, MPI_Comm comm)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    o->comm = comm;
    snprintf(o->path, sizeof o->path, "%s", path);
    sf_output_partial_name(path, o->partial, sizeof o->partial);
    char reason[512] = "";
    int failed = rank == 0 && (sf_output_make_parents(path, reason, sizeof reason) != 0 ||
                               sf_output_check_writable(path, reason, sizeof reason) != 0);
    check_on_root(failed, reason, "write", path, comm);

    sf_h5_quiet();
    hid_t fapl = sf_h5(H5Pcreate(H5P_FILE_ACCESS), "creating file properties for", o->partial);
    sf_h5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "enabling MPI-IO for", o->partial);
    sf_h5(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18), "setting the format of",
          o->partial);
    o->file = sf_h5(H5Fcreate(o->partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "creating",
                    o->partial);
    H5Pclose(fapl);
    o->collective = sf_h5(H5Pcreate(H5P_DATASET_XFER), "creating transfer properties", o->partial);
    sf_h5(H5Pset_dxpl_mpio(o->collective, H5FD_MPIO_COLLECTIVE), "requesting collective I/O",
          o->partial);
}

void sf_h5_output_commit(sf_h5_output *o)
{
    H5Pclose(o->collective);
    sf_h5(H5Fclose(o->file), "closing", o->partial);
    SF_MPI_CHECK(MPI_Barrier(o->comm), "waiting for every rank to close an output");
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(o->comm, &rank), "querying the rank");
    char reason[512] = "";
    int failed = rank == 0 && sf_output_commit(o->path, reason, sizeof reason) != 0;
    check_on_root(failed, reason, "finish", o->path, o->comm);
}

static void write_attr(const sf_h5_output *o, hid_t loc, const char *name, hid_t type,
                       hid_t space, const void *value)
{
    hid_t a = sf_h5(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
                    "creating an attribute in", o->partial);
    sf_h5(H5Awrite(a, type, value), "writing an attribute to", o->partial);
    H5Aclose(a);
    H5Sclose(space);
}

static hid_t vector_space(const sf_h5_output *o, long count)
{
    hsize_t n = (hsize_t)count;
    return sf_h5(H5Screate_simple(1, &n, NULL), "creating an attribute space", o->partial);
}

static hid_t scalar_space(const sf_h5_output *o)
{
    return sf_h5(H5Screate(H5S_SCALAR), "creating an attribute space", o->partial);
}

void sf_h5_attr_double(const sf_h5_output *o, hid_t loc, const char *name, double value)
{
    write_attr(o, loc, name, H5T_NATIVE_DOUBLE, scalar_space(o), &value);
}

void sf_h5_attr_doubles(const sf_h5_output *o, hid_t loc, const char *name, const double *values,
                        long count)
{
    write_attr(o, loc, name, H5T_NATIVE_DOUBLE, vector_space(o, count), values);
}

void sf_h5_attr_long(const sf_h5_output *o, hid_t loc, const char *name, long value)
{
    write_attr(o, loc, name, H5T_NATIVE_LONG, scalar_space(o), &value);
}

void sf_h5_attr_longs(const sf_h5_output *o, hid_t loc, const char *name, const long *values,
                      long count)
{
    write_attr(o, loc, name, H5T_NATIVE_LONG, vector_space(o, count), values);
}

void sf_h5_attr_text(const sf_h5_output *o, hid_t loc, const char *name, const char *text)
{
    hid_t type = sf_h5(H5Tcopy(H5T_C_S1), "creating a string type", o->partial);
    sf_h5(H5Tset_size(type, H5T_VARIABLE), "sizing a string", o->partial);
    sf_h5(H5Tset_cset(type, H5T_CSET_UTF8), "setting a string encoding", o->partial);
    write_attr(o, loc, name, type, scalar_space(o), &text);
    H5Tclose(type);
}

hid_t sf_h5_dataset(const sf_h5_output *o, hid_t loc, const char *name, hid_t type, int rank,
                    const hsize_t *dims, const hsize_t *chunk)
{
    hid_t space = sf_h5(H5Screate_simple(rank, dims, NULL), "creating a dataspace", o->partial);
    hid_t dcpl = sf_h5(H5Pcreate(H5P_DATASET_CREATE), "creating dataset properties", o->partial);
    if (chunk) sf_h5(H5Pset_chunk(dcpl, rank, chunk), "setting the chunks of", o->partial);
    hid_t d = sf_h5(H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                    "creating a dataset in", o->partial);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

void sf_h5_write_rows(const sf_h5_output *o, hid_t dataset, hid_t memtype, hsize_t row0,
                      hsize_t rows, const void *data)
{
    hid_t fspace = sf_h5(H5Dget_space(dataset), "querying a dataspace", o->partial);
    int rank = H5Sget_simple_extent_ndims(fspace);
    hsize_t dims[4], start[4] = {row0, 0, 0, 0};
    if (rank < 1 || rank > 4) sf_fatal("internal: writing rows of a %d-D dataset", rank);
    sf_h5(H5Sget_simple_extent_dims(fspace, dims, NULL), "querying a dataspace", o->partial);
    dims[0] = rows;
    hsize_t mcount = 1;
    for (int d = 0; d < rank; ++d) mcount *= dims[d];
    hsize_t mdims = mcount > 0 ? mcount : 1;
    hid_t mspace = sf_h5(H5Screate_simple(1, &mdims, NULL), "creating a memory space", o->partial);
    if (rows == 0) {
        sf_h5(H5Sselect_none(fspace), "clearing a selection", o->partial);
        sf_h5(H5Sselect_none(mspace), "clearing a selection", o->partial);
    } else {
        sf_h5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, dims, NULL),
              "selecting rows in", o->partial);
    }
    sf_h5(H5Dwrite(dataset, memtype, mspace, fspace, o->collective, data), "writing to",
          o->partial);
    H5Sclose(mspace);
    H5Sclose(fspace);
}
