#include "sf_gather.h"
#include "sf_error.h"
#include "hdf5_check.h"
#include "sf_hdf5_write.h"
#include "sf_version.h"

#include <stdlib.h>
#include <string.h>

enum { CHUNK_BYTES = 1 << 20 };   /* about 1 MiB per chunk of traces */

static const char OFFSET_CONVENTION[] =
    "horizontal source-receiver distance; for the receivers of receivers.line negative "
    "behind the source and positive abreast of it or ahead: the sign of the horizontal "
    "(receiver - source) projected on the line's direction from start to end; receivers "
    "given as points or a grid, and those of a vertical line, the distance itself";

/* Selects the rows global_index[0..n) of a [rows][width] file space, or
 * of a [components][nrec][width] one (row = component * nrec + receiver),
 * merging consecutive rows of a component into one hyperslab each; 0 or -1. */
static int select_rows(sf_h5_output *o, hid_t space, long n, const long *rows, hsize_t width)
{
    hsize_t dims[3];
    int rank = (int)sf_h5_checked(o, H5Sget_simple_extent_ndims(space), "querying a dataspace of");
    if (rank < 0 || sf_h5_checked(o, H5Sget_simple_extent_dims(space, dims, NULL),
                                  "querying a dataspace of") < 0 ||
        sf_h5_checked(o, H5Sselect_none(space), "clearing a selection") < 0)
        return -1;
    long nrec = rank == 3 ? (long)dims[1] : (long)dims[0];
    for (long a = 0; a < n;) {
        long b = a + 1;
        while (b < n && rows[b] == rows[b - 1] + 1 && rows[b] % nrec != 0) ++b;
        hsize_t start[3] = {(hsize_t)(rows[a] / nrec), (hsize_t)(rows[a] % nrec), 0};
        hsize_t count[3] = {1, (hsize_t)(b - a), width};
        if (sf_h5_checked(o, H5Sselect_hyperslab(space, H5S_SELECT_OR, rank == 3 ? start : start + 1,
                                                 NULL, rank == 3 ? count : count + 1, NULL),
                          "selecting receiver rows in") < 0)
            return -1;
        a = b;
    }
    return 0;
}

/* Collective for a parallel output: this rank's rows of the traces. */
static void write_receiver_rows(sf_h5_output *o, hid_t dataset, hid_t type, long n,
                                const long *rows, hsize_t width, const void *data)
{
    if (o->failed) return;
    hid_t fspace = sf_h5_checked(o, H5Dget_space(dataset), "querying a dataspace");
    hsize_t mdims[2] = {(hsize_t)(n > 0 ? n : 1), width};
    hid_t mspace = sf_h5_checked(o, H5Screate_simple(2, mdims, NULL), "creating a memory space");
    if (fspace >= 0 && mspace >= 0 && select_rows(o, fspace, n, rows, width) == 0 &&
        (n > 0 || sf_h5_checked(o, H5Sselect_none(mspace), "clearing a selection") >= 0))
        sf_h5_checked(o, H5Dwrite(dataset, type, mspace, fspace, o->transfer, data),
                      "writing traces to");
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
}

/* The signature's kind and parameters, as the job gave them. */
static void write_wavelet_metadata(sf_h5_output *o, const sf_gather_info *info)
{
    const sf_wavelet_spec *w = info->wavelet;
    hid_t root = o->file;
    char text[1200];
    sf_wavelet_describe(w, text, sizeof text);
    sf_h5_attr_text(o, root, "source_wavelet", text);
    sf_h5_attr_text(o, root, "source_wavelet_kind", sf_wavelet_kind_name(w->kind));
    sf_h5_attr_double(o, root, "source_delay", info->source_delay);
    sf_h5_attr_double(o, root, "source_amplitude", info->source_amplitude);
    sf_h5_attr_double(o, root, "source_dominant_frequency", w->built->dominant_frequency);
    sf_h5_attr_double(o, root, "source_upper_frequency", w->built->upper_frequency);
    switch (w->kind) {
    case SF_WAVELET_RICKER:
        sf_h5_attr_double(o, root, "source_peak_frequency", w->frequency);
        break;
    case SF_WAVELET_GAUSSIAN:
    case SF_WAVELET_GAUSSIAN_DERIVATIVE:
        sf_h5_attr_double(o, root, "source_frequency", w->frequency);
        break;
    case SF_WAVELET_ORMSBY:
    case SF_WAVELET_KLAUDER:
        sf_h5_attr_doubles(o, root, "source_frequencies", w->band,
                           w->kind == SF_WAVELET_ORMSBY ? 4 : 2);
        sf_h5_attr_double(o, root, "source_wavelet_length", w->built->length);
        if (w->kind == SF_WAVELET_KLAUDER) {
            sf_h5_attr_double(o, root, "source_sweep_length", w->sweep_length);
            sf_h5_attr_double(o, root, "source_sweep_taper", w->built->sweep_taper);
        }
        break;
    default:
        sf_h5_attr_text(o, root, "source_file", w->file);
        if (w->dataset) sf_h5_attr_text(o, root, "source_dataset", w->dataset);
        if (w->format == SF_SIGNATURE_SEGY) sf_h5_attr_long(o, root, "source_trace", w->trace);
    }
}

/* One signature series, with its sampling as a signature file gives it:
 * the gather can feed a later job's `wavelet: file`. */
static void write_series(sf_h5_output *o, int rank, const char *name, const double *values,
                         long count, double interval, const char *what)
{
    hsize_t dims[1] = {(hsize_t)count};
    hid_t d = sf_h5_dataset(o, o->file, name, H5T_IEEE_F64LE, 1, dims, NULL);
    sf_h5_write_rows(o, d, H5T_NATIVE_DOUBLE, 0, rank == 0 ? (hsize_t)count : 0, values);
    if (d >= 0) {
        sf_h5_attr_double(o, d, "sample_interval", interval);
        sf_h5_attr_double(o, d, "start_time", 0.0);
        sf_h5_attr_text(o, d, "description", what);
        H5Dclose(d);
    }
}

static void write_wavelet_series(sf_h5_output *o, const sf_gather_info *info, int rank)
{
    write_series(o, rank, "source_wavelet", info->wavelet_at_dt, info->wavelet_levels,
                 info->simulation_dt, "the source signature the traces answer to (delay and "
                 "amplitude applied), at the simulation's time step");
    double *record = sf_malloc((size_t)(info->nsamples ? info->nsamples : 1) * sizeof(double),
                               "the source signature's record");
    for (long k = 0; k < info->nsamples; ++k) record[k] = info->wavelet_record[k];
    write_series(o, rank, "source_wavelet_record", record, info->nsamples, info->interval,
                 "the source signature resampled as the traces are, at the record interval");
    free(record);
    if (!info->wavelet_injected) return;
    double *injected = sf_malloc((size_t)info->wavelet_levels * sizeof(double),
                                 "the injected source");
    for (long k = 0; k < info->wavelet_levels; ++k) injected[k] = info->wavelet_injected[2 * k];
    write_series(o, rank, "source_wavelet_injected", injected, info->wavelet_levels,
                 info->simulation_dt, "what the grid received at each step: the signature "
                 "warped by the time-dispersion transform, which the traces' correction undoes");
    free(injected);
}

static void write_metadata(sf_h5_output *o, const sf_gather_info *info)
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
    write_wavelet_metadata(o, info);
    sf_h5_attr_text(o, root, "time_dispersion", info->time_dispersion);
    sf_h5_attr_text(o, root, "config", info->config_text);
    sf_h5_attr_text(o, root, "config_path", info->config_path);
    sf_h5_attr_text(o, root, "creator", "seisfd " SEISFD_VERSION);
    if (info->survey_shots > 0) {
        sf_h5_attr_long(o, root, "shot", info->shot_number);
        sf_h5_attr_long(o, root, "survey_shots", info->survey_shots);
    }
}

/* Chunks of whole traces of one component, about CHUNK_BYTES each, so that
 * reading a few traces reads little and the file compresses or extends
 * later. */
static hid_t create_traces(sf_h5_output *o, const sf_gather_info *info)
{
    hsize_t samples = (hsize_t)info->nsamples, rows = CHUNK_BYTES / (4 * samples);
    hsize_t dims[3] = {(hsize_t)info->ncomponents, (hsize_t)info->nrec, samples};
    hsize_t chunk[3] = {1, rows < 1 ? 1 : rows > (hsize_t)info->nrec ? (hsize_t)info->nrec : rows,
                        samples};
    int axis = info->component_axis ? 0 : 1;
    return sf_h5_dataset(o, o->file, "traces", H5T_IEEE_F32LE, 3 - axis, dims + axis, chunk + axis);
}

static void close_dataset(hid_t d)
{
    if (d >= 0) H5Dclose(d);
}

/* The offsets the SEG-Y copy stores in whole metres, exact, so that a
 * reader of either file (and the plotting tool) finds the same signs. */
static void write_offsets(sf_h5_output *o, const sf_gather_info *info, int rank)
{
    long n = rank == 0 ? info->nrec : 0;
    double *offset = sf_malloc((size_t)(n ? n : 1) * sizeof *offset, "the receivers' offsets");
    for (long r = 0; r < n; ++r)
        offset[r] = sf_receiver_offset(&info->receiver_line, r, info->source_position,
                                       info->receiver_position[r]);
    hsize_t dims[1] = {(hsize_t)info->nrec};
    hid_t d = sf_h5_dataset(o, o->file, "receiver_offsets", H5T_IEEE_F64LE, 1, dims, NULL);
    sf_h5_write_rows(o, d, H5T_NATIVE_DOUBLE, 0, (hsize_t)n, offset);
    if (d >= 0) {
        sf_h5_attr_text(o, d, "units", "m");
        sf_h5_attr_text(o, d, "description", OFFSET_CONVENTION);
        H5Dclose(d);
    }
    free(offset);
}

/* The datasets and attributes of an open output: every writer passes its
 * rows of the traces (all of them for a serial output); the positions
 * come from its rank 0. */
static void fill_file(sf_h5_output *o, const sf_gather_info *info, int rank, long nlocal,
                      const long *global_index, const float *traces)
{
    hid_t dtraces = create_traces(o, info);
    write_receiver_rows(o, dtraces, H5T_NATIVE_FLOAT, nlocal, global_index,
                        (hsize_t)info->nsamples, traces);
    if (dtraces >= 0) {
        sf_h5_attr_texts(o, dtraces, "quantity", info->quantity, info->ncomponents);
        sf_h5_attr_texts(o, dtraces, "units", info->units, info->ncomponents);
    }
    close_dataset(dtraces);

    /* Every rank knows every position; rank 0 writes them all. */
    hsize_t pdims[2] = {(hsize_t)info->nrec, 3};
    hid_t dpos = sf_h5_dataset(o, o->file, "receiver_positions", H5T_IEEE_F64LE, 2, pdims, NULL);
    sf_h5_write_rows(o, dpos, H5T_NATIVE_DOUBLE, 0, rank == 0 ? (hsize_t)info->nrec : 0,
                     info->receiver_position);
    close_dataset(dpos);

    write_offsets(o, info, rank);

    hsize_t sdims[1] = {3};
    hid_t dsrc = sf_h5_dataset(o, o->file, "source_position", H5T_IEEE_F64LE, 1, sdims, NULL);
    sf_h5_write_rows(o, dsrc, H5T_NATIVE_DOUBLE, 0, rank == 0 ? 3 : 0, info->source_position);
    close_dataset(dsrc);

    write_wavelet_series(o, info, rank);
    write_metadata(o, info);
}

static void write_parallel(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                           const long *global_index, const float *traces)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    sf_h5_output o;
    sf_h5_output_create(&o, info->path, comm);
    fill_file(&o, info, rank, nlocal, global_index, traces);
    sf_h5_output_close(&o);
}

/* Rank 0 of comm: every rank's rows of the traces, in row order. */
static float *collect_rows(const sf_gather_info *info, MPI_Comm comm, long nlocal,
                           const long *global_index, const float *traces)
{
    int rank, size;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    SF_MPI_CHECK(MPI_Comm_size(comm, &size), "querying the rank count");
    const long rows = (long)info->ncomponents * info->nrec, ns = info->nsamples;
    int mine = (int)nlocal, *counts = NULL, *first = NULL, *floats = NULL, *offsets = NULL;
    long *index = NULL;
    float *all = NULL, *gathered = NULL;
    if (rank == 0) {
        counts = sf_malloc((size_t)size * sizeof *counts, "the traces' counts");
        first = sf_malloc((size_t)size * sizeof *first, "the traces' counts");
        floats = sf_malloc((size_t)size * sizeof *floats, "the traces' counts");
        offsets = sf_malloc((size_t)size * sizeof *offsets, "the traces' counts");
    }
    SF_MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm), "gathering traces");
    if (rank == 0) {
        for (int r = 0, at = 0; r < size; ++r) first[r] = at, at += counts[r];
        for (int r = 0; r < size; ++r) floats[r] = counts[r] * (int)ns, offsets[r] = first[r] * (int)ns;
        index = sf_malloc((size_t)(rows ? rows : 1) * sizeof *index, "the traces' rows");
        gathered = sf_malloc((size_t)(rows ? rows : 1) * (size_t)ns * sizeof *gathered, "the traces");
    }
    SF_MPI_CHECK(MPI_Gatherv(global_index, mine, MPI_LONG, index, counts, first, MPI_LONG, 0, comm),
                 "gathering the traces' rows");
    SF_MPI_CHECK(MPI_Gatherv(traces, mine * (int)ns, MPI_FLOAT, gathered, floats, offsets, MPI_FLOAT,
                             0, comm),
                 "gathering traces");
    if (rank == 0) {
        all = sf_calloc((size_t)(rows ? rows : 1) * (size_t)ns, sizeof *all, "the traces");
        for (long q = 0; q < rows; ++q)
            memcpy(all + index[q] * ns, gathered + q * ns, (size_t)ns * sizeof *all);
    }
    free(counts), free(first), free(floats), free(offsets), free(index), free(gathered);
    return all;
}

/* Rank 0 alone writes every row; 0 or -1 with the reason. */
static int write_serial(const sf_gather_info *info, const float *all, char *reason, size_t len)
{
    const long rows = (long)info->ncomponents * info->nrec;
    long *every = sf_malloc((size_t)(rows ? rows : 1) * sizeof *every, "the traces' rows");
    for (long q = 0; q < rows; ++q) every[q] = q;
    sf_h5_output o;
    int rc = sf_h5_output_open_serial(&o, info->path);
    if (rc == 0) {
        fill_file(&o, info, 0, rows, every, all);
        rc = sf_h5_output_finish(&o);
    }
    if (rc != 0) snprintf(reason, len, "%s", o.error);
    free(every);
    return rc;
}

int sf_gather_write_hdf5(const sf_gather_info *info, MPI_Comm comm, sf_gather_writer writer,
                         long nlocal, const long *global_index, const float *traces, char *reason,
                         size_t len)
{
    if (writer == SF_GATHER_PARALLEL) {
        write_parallel(info, comm, nlocal, global_index, traces);
        return 0;
    }
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(comm, &rank), "querying the rank");
    float *all = collect_rows(info, comm, nlocal, global_index, traces);
    int failed = rank == 0 && write_serial(info, all, reason, len) != 0;
    free(all);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm), "sharing a gather's status");
    if (failed)
        SF_MPI_CHECK(MPI_Bcast(reason, (int)len, MPI_CHAR, 0, comm), "sharing a gather's error");
    return failed ? -1 : 0;
}
