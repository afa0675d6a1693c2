#include "sf_snapshot.h"
#include "sf_error.h"
#include "hdf5_check.h"
#include "sf_output.h"
#include "sf_version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long sf_snapshot_samples(long n, long d) { return (n + d - 1) / d; }

void sf_snapshot_xdmf_name(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
    snprintf(out, len, "%.*s.xdmf", (int)stem, path);
}

/* This rank's stored planes: global planes that are multiples of dk. */
static void local_lattice(sf_snapshot_file *f, const sf_slab *slab)
{
    const long *d = f->cfg->snapshot_decimation;
    long first = (slab->z0 + d[2] - 1) / d[2];          /* first stored plane owned here */
    long end = (slab->z0 + slab->nz + d[2] - 1) / d[2]; /* one past the last */
    f->plane0 = first;
    f->planes = end > first ? end - first : 0;
    f->lattice = (sf_sampling_lattice){d[0], d[1], d[2], first * d[2] - slab->z0};
}

void sf_snapshot_open(sf_snapshot_file *f, const sf_config *c, const sf_slab *slab)
{
    memset(f, 0, sizeof *f);
    f->cfg = c;
    for (int a = 0; a < 3; ++a) f->dims[a] = sf_snapshot_samples(c->n[a], c->snapshot_decimation[a]);
    local_lattice(f, slab);
    sf_h5_output_create(&f->out, c->snapshot_path, slab->comm);
    f->group = sf_h5(H5Gcreate2(f->out.file, "snapshots", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     "creating group /snapshots in", f->out.partial);
    f->nfields = c->snapshot_nfields;
    for (int q = 0; q < f->nfields; ++q)
        f->field[q] = sf_h5(H5Gcreate2(f->group, sf_component_name(c->snapshot_field[q]),
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                            "creating a field group under /snapshots in", f->out.partial);
}

size_t sf_snapshot_local_count(const sf_snapshot_file *f)
{
    return (size_t)f->planes * (size_t)f->dims[0] * (size_t)f->dims[1];
}

static void remember(sf_snapshot_file *f, long step, double time)
{
    if (f->count == f->capacity) {
        f->capacity = f->capacity ? 2 * f->capacity : 64;
        f->steps = realloc(f->steps, (size_t)f->capacity * sizeof *f->steps);
        f->times = realloc(f->times, (size_t)f->capacity * sizeof *f->times);
        if (!f->steps || !f->times) sf_fatal("out of memory listing snapshots");
    }
    f->steps[f->count] = step;
    f->times[f->count++] = time;
}

void sf_snapshot_write(sf_snapshot_file *f, long step, double time, float *const *samples)
{
    char name[32];
    snprintf(name, sizeof name, "%08ld", step);
    hsize_t dims[3] = {(hsize_t)f->dims[2], (hsize_t)f->dims[1], (hsize_t)f->dims[0]};
    for (int q = 0; q < f->nfields; ++q) {
        hid_t d = sf_h5_dataset(&f->out, f->field[q], name, H5T_IEEE_F32LE, 3, dims, NULL);
        sf_h5_write_rows(&f->out, d, H5T_NATIVE_FLOAT, (hsize_t)f->plane0, (hsize_t)f->planes,
                         samples[q]);
        sf_h5_attr_long(&f->out, d, "step", step);
        sf_h5_attr_double(&f->out, d, "time", time);
        H5Dclose(d);
    }
    remember(f, step, time);
}

/* The field names joined by commas ("p", "vx,vy,vz,p"). */
static void field_list(const sf_snapshot_file *f, char *out, size_t len)
{
    out[0] = '\0';
    for (int q = 0; q < f->nfields; ++q)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", q ? "," : "",
                 sf_component_name(f->cfg->snapshot_field[q]));
}

static void write_attributes(sf_snapshot_file *f)
{
    const sf_config *c = f->cfg;
    double spacing[3];
    for (int a = 0; a < 3; ++a) spacing[a] = c->spacing[a] * (double)c->snapshot_decimation[a];
    sf_h5_attr_doubles(&f->out, f->group, "origin", c->origin, 3);
    sf_h5_attr_doubles(&f->out, f->group, "spacing", spacing, 3);
    sf_h5_attr_longs(&f->out, f->group, "decimation", c->snapshot_decimation, 3);
    sf_h5_attr_longs(&f->out, f->group, "dims", f->dims, 3);
    sf_h5_attr_longs(&f->out, f->group, "steps", f->steps, f->count);
    sf_h5_attr_doubles(&f->out, f->group, "times", f->times, f->count);
    char fields[64];
    field_list(f, fields, sizeof fields);
    sf_h5_attr_text(&f->out, f->group, "fields", fields);
    sf_h5_attr_text(&f->out, f->group, "coordinate_units", "m");
    sf_h5_attr_text(&f->out, f->group, "time_units", "s");
    const sf_physics_declaration *declared = sf_config_physics(c);
    for (int q = 0; q < f->nfields; ++q) {
        sf_component k = c->snapshot_field[q];
        sf_h5_attr_text(&f->out, f->field[q], "quantity", declared->quantity[k]);
        sf_h5_attr_text(&f->out, f->field[q], "units", declared->units[k]);
    }
    sf_h5_attr_text(&f->out, f->group, "units",
                    sf_config_component_axis(c)
                        ? "coordinates in m (z is depth), time in s, fields as in the gather "
                          "(velocities averaged onto the nodes)"
                        : "coordinates in m (z is depth), time in s, p as in the gather");
    sf_h5_attr_text(&f->out, f->out.file, "config", c->text);
    sf_h5_attr_text(&f->out, f->out.file, "config_path", c->source_path);
    sf_h5_attr_text(&f->out, f->out.file, "creator", "seisfd " SEISFD_VERSION);
}

/* One uniform grid per snapshot, in a temporal collection. XDMF orders
 * the axes z, y, x, like the datasets. */
static void write_xdmf_grids(FILE *x, const sf_snapshot_file *f, const char *h5name)
{
    const sf_config *c = f->cfg;
    for (long s = 0; s < f->count; ++s) {
        fprintf(x, "      <Grid Name=\"step %ld\" GridType=\"Uniform\">\n", f->steps[s]);
        fprintf(x, "        <Time Value=\"%.9g\"/>\n", f->times[s]);
        fprintf(x, "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%ld %ld %ld\"/>\n",
                f->dims[2], f->dims[1], f->dims[0]);
        fprintf(x, "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n");
        fprintf(x, "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                   "Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
                c->origin[2], c->origin[1], c->origin[0]);
        fprintf(x, "          <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
                   "Format=\"XML\">%.17g %.17g %.17g</DataItem>\n",
                c->spacing[2] * (double)c->snapshot_decimation[2],
                c->spacing[1] * (double)c->snapshot_decimation[1],
                c->spacing[0] * (double)c->snapshot_decimation[0]);
        fprintf(x, "        </Geometry>\n");
        for (int q = 0; q < f->nfields; ++q) {
            const char *name = sf_component_name(c->snapshot_field[q]);
            fprintf(x, "        <Attribute Name=\"%s\" AttributeType=\"Scalar\" "
                       "Center=\"Node\">\n", name);
            fprintf(x, "          <DataItem Dimensions=\"%ld %ld %ld\" NumberType=\"Float\" "
                       "Precision=\"4\" Format=\"HDF\">%s:/snapshots/%s/%08ld</DataItem>\n",
                    f->dims[2], f->dims[1], f->dims[0], h5name, name, f->steps[s]);
            fprintf(x, "        </Attribute>\n");
        }
        fprintf(x, "      </Grid>\n");
    }
}

/* Rank 0 writes the sidecar under its temporary name; 0 or -1 with reason. */
static int write_xdmf(const sf_snapshot_file *f, const char *partial, char *reason, size_t len)
{
    const char *slash = strrchr(f->out.path, '/');
    const char *h5name = slash ? slash + 1 : f->out.path;
    FILE *x = fopen(partial, "w");
    if (!x) {
        snprintf(reason, len, "cannot create '%.400s': %s", partial, strerror(errno));
        return -1;
    }
    fprintf(x, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
    fprintf(x, "<Xdmf Version=\"2.0\">\n  <Domain>\n");
    fprintf(x, "    <Grid Name=\"wavefield\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    write_xdmf_grids(x, f, h5name);
    fprintf(x, "    </Grid>\n  </Domain>\n</Xdmf>\n");
    int failed = ferror(x);
    if (fclose(x) != 0 || failed) {
        snprintf(reason, len, "cannot write '%.400s': %s", partial, strerror(errno));
        return -1;
    }
    return 0;
}

static void close_groups(sf_snapshot_file *f)
{
    for (int q = 0; q < f->nfields; ++q) H5Gclose(f->field[q]);
    H5Gclose(f->group);
}

int sf_snapshot_close(sf_snapshot_file *f, char *error, size_t len)
{
    write_attributes(f);
    close_groups(f);
    sf_h5_output_close(&f->out);
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(f->out.comm, &rank), "querying the rank");
    char xdmf[4200], partial[4300], reason[512] = "";
    sf_snapshot_xdmf_name(f->out.path, xdmf, sizeof xdmf);
    sf_output_partial_name(xdmf, partial, sizeof partial);
    int failed = rank == 0 && write_xdmf(f, partial, reason, sizeof reason) != 0;
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, f->out.comm), "sharing an output status");
    if (failed) {
        SF_MPI_CHECK(MPI_Bcast(reason, sizeof reason, MPI_CHAR, 0, f->out.comm),
                     "sharing an output status");
        snprintf(error, len, "cannot write the snapshot index '%s': %s", xdmf, reason);
    }
    free(f->steps);
    free(f->times);
    return failed ? -1 : 0;
}

void sf_snapshot_abandon(sf_snapshot_file *f)
{
    close_groups(f);
    sf_h5_output_close(&f->out);
    free(f->steps);
    free(f->times);
}
