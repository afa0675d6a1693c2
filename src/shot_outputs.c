/* A shot's outputs: the gather (HDF5, and SEG-Y with one file per
 * component), the model as sampled on the grid, the energy series. */
#include "simulation_internal.h"
#include "sf_energy.h"
#include "sf_error.h"
#include "sf_output.h"
#include "sf_segy.h"
#include "sf_volume.h"

#include <stdlib.h>
#include <string.h>

/* What the gather writers need to know about shot c. */
static sf_gather_info gather_info_of(const sf_simulation *s, const sf_config *c)
{
    sf_gather_info info = {
        .path = c->gather_path,
        .nrec = c->receivers.count,
        .nsamples = s->resampler.nsamples,
        .interval = s->interval,
        .simulation_dt = s->dt,
        .receiver_position = (const double(*)[3])c->receivers.position,
        .receiver_line = c->receivers.line,
        .source_position = c->source.position,
        .wavelet = &c->source.wavelet,
        .source_delay = c->source.delay,
        .source_amplitude = c->source.amplitude,
        .wavelet_at_dt = s->source.at_dt,
        .wavelet_levels = s->source.count / 2,
        .wavelet_record = s->source.record,
        .wavelet_injected = s->source.warped ? s->source.at : NULL,
        .time_dispersion = c->dispersion_correction
                               ? "corrected: time-dispersion transforms (source warped before "
                                 "the run, traces after it)"
                               : "not corrected (time.dispersion_correction: false)",
        .config_text = c->text,
        .config_path = c->source_path,
        .physics = s->physics->declared->name,
        .order = c->order,
        .component_axis = s->physics->component_axis,
        .ncomponents = c->receivers.ncomponents,
        .trace_units = s->physics->trace_units,
        .shot_number = c->shot_number > 0 ? c->shot_number : 1,
        .survey_shots = c->survey.enabled ? c->survey.count : 0,
    };
    const sf_physics_declaration *declared = sf_config_physics(c);
    for (int q = 0; q < c->receivers.ncomponents; ++q) {
        sf_component k = c->receivers.component[q];
        info.component[q] = sf_component_name(k);
        info.quantity[q] = declared->quantity[k];
        info.units[q] = declared->units[k];
    }
    memcpy(info.grid_n, c->n, sizeof info.grid_n);
    memcpy(info.grid_spacing, c->spacing, sizeof info.grid_spacing);
    memcpy(info.grid_origin, c->origin, sizeof info.grid_origin);
    return info;
}

sf_gather_info sim_gather_info(const sf_simulation *s) { return gather_info_of(s, s->cfg); }

int sf_simulation_segy_plan(const sf_simulation *s, const sf_config *shot, sf_segy_plan *plan,
                            char *reason, size_t len)
{
    sf_gather_info info = gather_info_of(s, shot);
    return sf_segy_plan_headers(&info, plan, reason, len);
}

/* output.model: the parameters as sampled on the grid. */
void sim_write_model(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    const sf_physics_declaration *d = sf_config_physics(c);
    const float *planes[SF_MAX_PARAMS];
    const char *names[SF_MAX_PARAMS], *units[SF_MAX_PARAMS];
    for (int p = 0; p < d->nparams; ++p) {
        planes[p] = s->model.param[p];
        names[p] = d->param[p]->name;
        units[p] = d->param[p]->unit;
    }
    sf_timer_start(&s->timers);
    sf_output_set_add(&s->outputs, c->model_output_path);
    sf_hdf5_volumes_write(c->model_output_path, s->slab.comm, c->n, c->origin, c->spacing,
                          s->slab.z0, s->slab.nz, d->nparams, names, units, planes, c->text);
    sf_timer_stop(&s->timers, SF_PHASE_IO);
}

/* An elastic gather goes to one SEG-Y file per component; the channels of
 * a component are consecutive, their rows component * nrec + receiver. */
static int write_segy(sf_simulation *s, sf_gather_info *info)
{
    const sf_config *c = s->cfg;
    if (!info->component_axis) {
        info->path = c->segy_path;
        sf_output_set_add(&s->outputs, c->segy_path);
        if (sf_gather_write_segy(info, s->slab.comm, s->channel_count, s->channel_global,
                                 s->traces, s->failure, sizeof s->failure) != 0)
            return -1;
        if (!s->quiet) sf_info("seisfd: SEG-Y gather written to %s", c->segy_path);
        return 0;
    }
    long *rows = sf_malloc((size_t)(s->channel_count ? s->channel_count : 1) * sizeof(long),
                           "SEG-Y rows");
    sf_gather_info one = *info;
    one.ncomponents = 1;
    one.component_axis = 0;
    char path[SF_OUTPUT_PATH];
    int failed = 0;
    for (long q = 0, first = 0; q < info->ncomponents && !failed; ++q) {
        long count = 0;
        while (first + count < s->channel_count &&
               s->channel_global[first + count] / info->nrec == q) {
            rows[count] = s->channel_global[first + count] - q * info->nrec;
            ++count;
        }
        sf_segy_component_path(c->segy_path, info->component[q], path, sizeof path);
        one.path = path;
        one.component[0] = info->component[q];
        one.quantity[0] = info->quantity[q];
        one.units[0] = info->units[q];
        sf_output_set_add(&s->outputs, path);
        failed = sf_gather_write_segy(&one, s->slab.comm, count, rows,
                                      s->traces + (size_t)first * (size_t)info->nsamples,
                                      s->failure, sizeof s->failure) != 0;
        if (failed) break;
        if (!s->quiet) sf_info("seisfd: SEG-Y gather of %s written to %s", info->component[q], path);
        first += count;
    }
    free(rows);
    return failed ? -1 : 0;
}

static void print_gather_written(const sf_simulation *s, const sf_gather_info *info)
{
    if (s->quiet) return;
    if (info->component_axis)
        sf_info("seisfd: gather written to %s (%d components x %ld traces x %ld samples at "
                "%.6g s)", info->path, info->ncomponents, info->nrec, info->nsamples,
                info->interval);
    else
        sf_info("seisfd: gather written to %s (%ld traces x %ld samples at %.6g s)", info->path,
                info->nrec, info->nsamples, info->interval);
}

/* output.energy: the slabs' energy summed over the ranks, under its
 * temporary name; 0, or -1 with s->failure. */
static int write_energy(sf_simulation *s)
{
    long count = s->steps;
    double *sum = s->slab.rank == 0 ? sf_malloc((size_t)(count ? count : 1) * 2 * sizeof(double),
                                                "the energy series")
                                    : NULL;
    if (count > 0)
        SF_MPI_CHECK(MPI_Reduce(s->energy, sum, (int)(2 * count), MPI_DOUBLE, MPI_SUM, 0,
                                s->slab.comm),
                     "summing the energy over ranks");
    int rc = sf_energy_write(s->cfg->energy_path, s->slab.comm, count, s->dt, sum, s->failure,
                             sizeof s->failure);
    free(sum);
    if (rc == 0)
        sf_info("seisfd: energy series written to %s (%ld steps)", s->cfg->energy_path, count);
    return rc;
}

int sf_simulation_write(sf_simulation *s)
{
    const sf_config *c = s->cfg;
    sf_gather_info info = sim_gather_info(s);
    sf_timer_start(&s->timers);
    /* A survey's leader writes alone, so a failure fails the shot only. */
    sf_gather_writer writer = c->survey.enabled ? SF_GATHER_BY_LEADER : SF_GATHER_PARALLEL;
    sf_output_set_add(&s->outputs, c->gather_path);
    int failed = sf_gather_write_hdf5(&info, s->slab.comm, writer, s->channel_count,
                                      s->channel_global, s->traces, s->failure,
                                      sizeof s->failure) != 0;
    if (!failed) print_gather_written(s, &info);
    failed = failed || (c->segy_path && write_segy(s, &info) != 0);
    if (!failed && s->energy) {
        sf_output_set_add(&s->outputs, c->energy_path);
        failed = write_energy(s) != 0;
    }
    sf_timer_stop(&s->timers, SF_PHASE_IO);
    return failed ? -1 : 0;
}
