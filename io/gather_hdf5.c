#include "sf_gather.h"
#include "sf_error.h"
#include "sf_hdf5_check.h"
#include "sf_output.h"
#include "sf_version.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hid_t file;
    const char *path;   /* for messages */
} gather_file;

static void attr_double(gather_file *g, hid_t loc, const char *name, double value)
{
    hid_t space = sf_h5(H5Screate(H5S_SCALAR), "creating an attribute space", g->path);
    hid_t a = sf_h5(H5Acreate2(loc, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT),
                    "creating an attribute in", g->path);
    sf_h5(H5Awrite(a, H5T_NATIVE_DOUBLE, &value), "writing an attribute to", g->path);
    H5Aclose(a);
    H5Sclose(space);
}

static void attr_long(gather_file *g, hid_t loc, const char *name, long value)
{
    long long v = value;
    hid_t space = sf_h5(H5Screate(H5S_SCALAR), "creating an attribute space", g->path);
    hid_t a = sf_h5(H5Acreate2(loc, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT),
                    "creating an attribute in", g->path);
    sf_h5(H5Awrite(a, H5T_NATIVE_LLONG, &v), "writing an attribute to", g->path);
    H5Aclose(a);
    H5Sclose(space);
}

/* Variable-length UTF-8, which readers such as h5py return as text and
 * which keeps long texts (the job file) out of the object header. */
static void attr_text(gather_file *g, hid_t loc, const char *name, const char *text)
{
    hid_t type = sf_h5(H5Tcopy(H5T_C_S1), "creating a string type", g->path);
    sf_h5(H5Tset_size(type, H5T_VARIABLE), "sizing a string", g->path);
    sf_h5(H5Tset_cset(type, H5T_CSET_UTF8), "setting a string encoding", g->path);
    hid_t space = sf_h5(H5Screate(H5S_SCALAR), "creating an attribute space", g->path);
    hid_t a = sf_h5(H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
                    "creating an attribute in", g->path);
    sf_h5(H5Awrite(a, type, &text), "writing an attribute to", g->path);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
}

static hid_t create_dataset(gather_file *g, const char *name, hid_t type, int rank,
                            const hsize_t *dims)
{
    hid_t space = sf_h5(H5Screate_simple(rank, dims, NULL), "creating a dataspace", g->path);
    hid_t d = sf_h5(H5Dcreate2(g->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    "creating a dataset in", g->path);
    H5Sclose(space);
    return d;
}

/* Selects the rows global_index[0..n) of a [rows][width] file space,
 * merging consecutive rows into one hyperslab each. */
static void select_rows(gather_file *g, hid_t space, long n, const long *rows, hsize_t width)
{
    sf_h5(H5Sselect_none(space), "clearing a selection", g->path);
    for (long a = 0; a < n;) {
        long b = a + 1;
        while (b < n && rows[b] == rows[b - 1] + 1) ++b;
        hsize_t start[2] = {(hsize_t)rows[a], 0}, count[2] = {(hsize_t)(b - a), width};
        sf_h5(H5Sselect_hyperslab(space, H5S_SELECT_OR, start, NULL, count, NULL),
              "selecting receiver rows in", g->path);
        a = b;
    }
}

static void write_rows(gather_file *g, hid_t dataset, hid_t type, long n, const long *rows,
                       hsize_t width, const void *data, hid_t dxpl)
{
    hid_t fspace = sf_h5(H5Dget_space(dataset), "querying a dataspace", g->path);
    select_rows(g, fspace, n, rows, width);
    hsize_t mdims[2] = {(hsize_t)(n > 0 ? n : 1), width};
    hid_t mspace = sf_h5(H5Screate_simple(2, mdims, NULL), "creating a memory space", g->path);
    if (n == 0) sf_h5(H5Sselect_none(mspace), "clearing a selection", g->path);
    sf_h5(H5Dwrite(dataset, type, mspace, fspace, dxpl, data), "writing traces to", g->path);
    H5Sclose(mspace);
    H5Sclose(fspace);
}

static void write_metadata(gather_file *g, const sf_gather_info *info)
{
    hid_t root = g->file;
    attr_double(g, root, "dt", info->interval);
    attr_double(g, root, "t0", 0.0);
    attr_long(g, root, "nsamples", info->nsamples);
    attr_long(g, root, "nreceivers", info->nrec);
    attr_text(g, root, "time_units", "s");
    attr_text(g, root, "coordinate_units", "m");
    attr_text(g, root, "trace_units",
              "pressure per unit source amplitude per metre: p = s(t - r/v) / (4 pi r) in a "
              "homogeneous medium");
    attr_text(g, root, "component", "p");
    attr_text(g, root, "physics", info->physics);
    attr_long(g, root, "spatial_order", info->order);
    attr_double(g, root, "simulation_dt", info->simulation_dt);
    attr_double(g, root, "source_peak_frequency", info->source_frequency);
    attr_double(g, root, "source_delay", info->source_delay);
    attr_text(g, root, "config", info->config_text);
    attr_text(g, root, "config_path", info->config_path);
    attr_text(g, root, "creator", "seisfd " SEISFD_VERSION);
}

static void check_collective(int failed, MPI_Comm comm, const char *fmt, const char *a,
                             const char *b)
{
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "sharing an output status");
    if (failed) sf_fail_collective(fmt, a, b);
}

void sf_gather_write_hdf5(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                          const long *global_index, const float *traces)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char reason[512] = "", partial[4200];
    sf_output_partial_name(info->path, partial, sizeof partial);
    int failed = rank == 0 && (sf_output_make_parents(info->path, reason, sizeof reason) != 0 ||
                               sf_output_check_writable(info->path, reason, sizeof reason) != 0);
    check_collective(failed, comm, "cannot write gather '%s': %s", info->path, reason);

    sf_h5_quiet();
    gather_file g = {.path = partial};
    hid_t fapl = sf_h5(H5Pcreate(H5P_FILE_ACCESS), "creating file properties for", partial);
    sf_h5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "enabling MPI-IO for", partial);
    sf_h5(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18), "setting the format of",
          partial);
    g.file = sf_h5(H5Fcreate(partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "creating", partial);
    H5Pclose(fapl);

    hid_t dxpl = sf_h5(H5Pcreate(H5P_DATASET_XFER), "creating transfer properties", partial);
    sf_h5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "requesting collective I/O", partial);

    hsize_t tdims[2] = {(hsize_t)info->nrec, (hsize_t)info->nsamples};
    hid_t dtraces = create_dataset(&g, "traces", H5T_IEEE_F32LE, 2, tdims);
    write_rows(&g, dtraces, H5T_NATIVE_FLOAT, nlocal, global_index, (hsize_t)info->nsamples,
               traces, dxpl);
    H5Dclose(dtraces);

    double(*positions)[3] = sf_malloc((size_t)(nlocal ? nlocal : 1) * sizeof *positions,
                                      "receiver positions");
    for (long r = 0; r < nlocal; ++r)
        memcpy(positions[r], info->receiver_position[global_index[r]], sizeof positions[r]);
    hsize_t pdims[2] = {(hsize_t)info->nrec, 3};
    hid_t dpos = create_dataset(&g, "receiver_positions", H5T_IEEE_F64LE, 2, pdims);
    write_rows(&g, dpos, H5T_NATIVE_DOUBLE, nlocal, global_index, 3, positions, dxpl);
    H5Dclose(dpos);
    free(positions);

    hsize_t sdims[1] = {3};
    hid_t dsrc = create_dataset(&g, "source_position", H5T_IEEE_F64LE, 1, sdims);
    hid_t sspace = sf_h5(H5Dget_space(dsrc), "querying a dataspace", partial);
    if (rank != 0) sf_h5(H5Sselect_none(sspace), "clearing a selection", partial);
    hid_t smem = sf_h5(H5Screate_simple(1, sdims, NULL), "creating a memory space", partial);
    if (rank != 0) sf_h5(H5Sselect_none(smem), "clearing a selection", partial);
    sf_h5(H5Dwrite(dsrc, H5T_NATIVE_DOUBLE, smem, sspace, dxpl, info->source_position),
          "writing the source position to", partial);
    H5Sclose(smem);
    H5Sclose(sspace);
    H5Dclose(dsrc);

    write_metadata(&g, info);
    H5Pclose(dxpl);
    sf_h5(H5Fclose(g.file), "closing", partial);

    SF_MPI_CHECK(MPI_Barrier(comm), "waiting for every rank to finish the gather");
    failed = rank == 0 && sf_output_commit(info->path, reason, sizeof reason) != 0;
    check_collective(failed, comm, "cannot finish gather '%s': %s", info->path, reason);
}
