#include "sf_gather.h"
#include "sf_error.h"
#include "sf_hdf5_check.h"
#include "sf_hdf5_write.h"
#include "sf_version.h"

#include <stdlib.h>
#include <string.h>

enum { CHUNK_BYTES = 1 << 20 };   /* about 1 MiB per chunk of traces */

/* Selects the rows global_index[0..n) of a [rows][width] file space, or
 * of a [components][nrec][width] one (row = component * nrec + receiver),
 * merging consecutive rows of a component into one hyperslab each. */
static void select_rows(const sf_h5_output *o, hid_t space, long n, const long *rows,
                        hsize_t width)
{
    hsize_t dims[3];
    int rank = H5Sget_simple_extent_ndims(space);
    sf_h5(rank, "querying a dataspace of", o->partial);
    sf_h5(H5Sget_simple_extent_dims(space, dims, NULL), "querying a dataspace of", o->partial);
    long nrec = rank == 3 ? (long)dims[1] : (long)dims[0];
    sf_h5(H5Sselect_none(space), "clearing a selection", o->partial);
    for (long a = 0; a < n;) {
        long b = a + 1;
        while (b < n && rows[b] == rows[b - 1] + 1 && rows[b] % nrec != 0) ++b;
        hsize_t start[3] = {(hsize_t)(rows[a] / nrec), (hsize_t)(rows[a] % nrec), 0};
        hsize_t count[3] = {1, (hsize_t)(b - a), width};
        sf_h5(H5Sselect_hyperslab(space, H5S_SELECT_OR, rank == 3 ? start : start + 1, NULL,
                                  rank == 3 ? count : count + 1, NULL),
              "selecting receiver rows in", o->partial);
        a = b;
    }
}

static void write_receiver_rows(const sf_h5_output *o, hid_t dataset, hid_t type, long n,
                                const long *rows, hsize_t width, const void *data)
{
    hid_t fspace = sf_h5(H5Dget_space(dataset), "querying a dataspace", o->partial);
    select_rows(o, fspace, n, rows, width);
    hsize_t mdims[2] = {(hsize_t)(n > 0 ? n : 1), width};
    hid_t mspace = sf_h5(H5Screate_simple(2, mdims, NULL), "creating a memory space", o->partial);
    if (n == 0) sf_h5(H5Sselect_none(mspace), "clearing a selection", o->partial);
    sf_h5(H5Dwrite(dataset, type, mspace, fspace, o->collective, data), "writing traces to",
          o->partial);
    H5Sclose(mspace);
    H5Sclose(fspace);
}

static void write_metadata(const sf_h5_output *o, const sf_gather_info *info)
{
    hid_t root = o->file;
    sf_h5_attr_double(o, root, "dt", info->interval);
    sf_h5_attr_double(o, root, "t0", 0.0);
    sf_h5_attr_long(o, root, "nsamples", info->nsamples);
    sf_h5_attr_long(o, root, "nreceivers", info->nrec);
    sf_h5_attr_text(o, root, "time_units", "s");
    sf_h5_attr_text(o, root, "coordinate_units", "m");
    sf_h5_attr_text(o, root, "trace_units", info->trace_units);
    if (info->component_axis) {
        char names[64] = "";
        for (int q = 0; q < info->ncomponents; ++q)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", q ? "," : "",
                     info->component[q]);
        sf_h5_attr_text(o, root, "components", names);
    } else {
        sf_h5_attr_text(o, root, "component", info->component[0]);
    }
    sf_h5_attr_text(o, root, "physics", info->physics);
    sf_h5_attr_long(o, root, "spatial_order", info->order);
    sf_h5_attr_double(o, root, "simulation_dt", info->simulation_dt);
    sf_h5_attr_double(o, root, "source_peak_frequency", info->source_frequency);
    sf_h5_attr_double(o, root, "source_delay", info->source_delay);
    sf_h5_attr_text(o, root, "config", info->config_text);
    sf_h5_attr_text(o, root, "config_path", info->config_path);
    sf_h5_attr_text(o, root, "creator", "seisfd " SEISFD_VERSION);
}

/* Chunks of whole traces of one component, about CHUNK_BYTES each, so that
 * reading a few traces reads little and the file compresses or extends
 * later. */
static hid_t create_traces(const sf_h5_output *o, const sf_gather_info *info)
{
    hsize_t samples = (hsize_t)info->nsamples, rows = CHUNK_BYTES / (4 * samples);
    hsize_t dims[3] = {(hsize_t)info->ncomponents, (hsize_t)info->nrec, samples};
    hsize_t chunk[3] = {1, rows < 1 ? 1 : rows > (hsize_t)info->nrec ? (hsize_t)info->nrec : rows,
                        samples};
    int axis = info->component_axis ? 0 : 1;
    return sf_h5_dataset(o, o->file, "traces", H5T_IEEE_F32LE, 3 - axis, dims + axis, chunk + axis);
}

void sf_gather_write_hdf5(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                          const long *global_index, const float *traces)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    sf_h5_output o;
    sf_h5_output_create(&o, info->path, comm);

    hid_t dtraces = create_traces(&o, info);
    write_receiver_rows(&o, dtraces, H5T_NATIVE_FLOAT, nlocal, global_index,
                        (hsize_t)info->nsamples, traces);
    H5Dclose(dtraces);

    /* Every rank knows every position; rank 0 writes them all. */
    hsize_t pdims[2] = {(hsize_t)info->nrec, 3};
    hid_t dpos = sf_h5_dataset(&o, o.file, "receiver_positions", H5T_IEEE_F64LE, 2, pdims, NULL);
    sf_h5_write_rows(&o, dpos, H5T_NATIVE_DOUBLE, 0, rank == 0 ? (hsize_t)info->nrec : 0,
                     info->receiver_position);
    H5Dclose(dpos);

    hsize_t sdims[1] = {3};
    hid_t dsrc = sf_h5_dataset(&o, o.file, "source_position", H5T_IEEE_F64LE, 1, sdims, NULL);
    sf_h5_write_rows(&o, dsrc, H5T_NATIVE_DOUBLE, 0, rank == 0 ? 3 : 0, info->source_position);
    H5Dclose(dsrc);

    write_metadata(&o, info);
    sf_h5_output_commit(&o);
}
