/* Before a survey's first shot: the output directory, the manifest of an
 * earlier run (same job? which shots are done and still intact?), files
 * that would be replaced, and the room on the disk. Rank 0 decides; the
 * other ranks learn whether the run goes on. */
#include "sf_error.h"
#include "sf_output.h"
#include "sf_shots.h"
#include "sf_survey.h"
#include "sf_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const double METADATA_BYTES = 65536.0;   /* attributes, the job text */

/* The bytes of one shot's files. */
static double shot_bytes(const sf_config *job, const sf_simulation *s)
{
    double nrec = (double)job->receivers.count, ns = (double)s->resampler.nsamples;
    double ncomp = (double)job->receivers.ncomponents;
    double bytes = METADATA_BYTES + nrec * (4.0 * ns * ncomp + 24.0);
    if (job->survey_segy) bytes += ncomp * (3600.0 + nrec * (240.0 + 4.0 * ns));
    return bytes;
}

/* Rank 0: the paths the survey writes, as sf_output_check_path sees
 * them: the manifest, the report, the last shot's files (the longest
 * names). 0 or -1 with the reason. */
static int check_paths(const sf_config *job, const char *manifest, char *reason, size_t len)
{
    char paths[SF_RESULT_FILES][SF_SHOT_PATH];
    int count = sf_shot_outputs(job, job->survey.count, paths, SF_RESULT_FILES);
    if (sf_output_check_path(manifest, reason, len) != 0) return -1;
    if (job->report_path && sf_output_check_path(job->report_path, reason, len) != 0) return -1;
    for (int k = 0; k < count; ++k)
        if (sf_output_check_path(paths[k], reason, len) != 0) return -1;
    return 0;
}

/* Rank 0: the directory exists, takes files and is this run's (locked
 * through its manifest's lock file), and what killed runs left in it is
 * gone. 0 or -1 with the reason. */
static int claim_directory(const sf_config *job, char *reason, size_t len)
{
    const char *dir = job->output_directory;
    char manifest[SF_SHOT_PATH];
    sf_manifest_path(dir, manifest, sizeof manifest);
    if (sf_output_make_parents(manifest, reason, len) != 0 ||
        sf_output_lock(manifest, dir, reason, len) != 0)
        return -1;
    sf_output_remove_stale(dir, 1);
    return sf_output_check_writable(manifest, reason, len);
}

/* Rank 0: the paths are sound and, when the directory exists and
 * claim, it is claimed; else it is only looked at, with the same
 * reasons. 0 or -1 with the reason. */
static int look_or_claim(const sf_config *job, int claim, int *claimed, char *reason, size_t len)
{
    char manifest[SF_SHOT_PATH];
    sf_manifest_path(job->output_directory, manifest, sizeof manifest);
    if (check_paths(job, manifest, reason, len) != 0) return -1;
    *claimed = claim && sf_output_directory_exists(manifest);
    if (*claimed) return claim_directory(job, reason, len);
    return sf_output_lock_probe(manifest, job->output_directory, reason, len);
}

int sf_survey_claim(const sf_config *job, int execute)
{
    int rank, claimed = 0;
    SF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "claiming the output directory");
    char reason[1024] = "";
    int failed = rank == 0 && look_or_claim(job, execute, &claimed, reason, sizeof reason) != 0;
    if (failed) sf_config_report(job, job->output_directory_mark, "output.directory: %s", reason);
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "claiming the output directory");
    if (failed) sf_exit_collective();
    return claimed;
}

/* Are the recorded files those this job writes for the shot now (the
 * SEG-Y files may have been asked for since)? */
static int same_files(const sf_config *job, const sf_shot_result *r)
{
    char paths[SF_RESULT_FILES][SF_SHOT_PATH];
    int n = sf_shot_outputs(job, r->index, paths, SF_RESULT_FILES);
    if (n != r->nfiles) return 0;
    for (int k = 0; k < n; ++k)
        if (strcmp(paths[k], r->files[k])) return 0;
    return 1;
}

/* Rank 0: done shots whose files verify are skipped; all else pending. */
static long mark_verified(const sf_config *job, sf_shot_result *plan)
{
    long skipped = 0;
    for (long n = 0; n < job->survey.count; ++n) {
        sf_shot_result *r = &plan[n];
        char why[1024];
        int keep = r->status == SF_SHOT_DONE && same_files(job, r) &&
                   sf_manifest_verify(r, why, sizeof why);
        if (r->status == SF_SHOT_DONE && !keep && same_files(job, r))
            sf_warn("shot %ld was done, but %s; it is computed again", r->index, why);
        if (!keep) {
            memset(r, 0, sizeof *r);
            r->index = n + 1;
            r->status = SF_SHOT_PENDING;
            continue;
        }
        r->status = SF_SHOT_SKIPPED;
        ++skipped;
    }
    return skipped;
}

/* Rank 0: can the files of the shots to compute be replaced? Never a
 * directory; without a manifest, files of this job's names are someone
 * else's (or a run of unknown job): replacing them needs overwrite. */
static int shot_file_problem(const sf_config *job, const sf_shot_result *plan, int manifest,
                             char *reason, size_t len)
{
    for (long n = 0; n < job->survey.count; ++n) {
        if (plan[n].status != SF_SHOT_PENDING) continue;
        char paths[SF_RESULT_FILES][SF_SHOT_PATH];
        int count = sf_shot_outputs(job, n + 1, paths, SF_RESULT_FILES);
        for (int k = 0; k < count; ++k) {
            struct stat st;
            if (lstat(paths[k], &st) != 0) continue;
            if (S_ISDIR(st.st_mode)) {
                snprintf(reason, len, "'%.600s' is a directory, which an output cannot replace; "
                         "remove it or use another directory", paths[k]);
                return 1;
            }
            if (manifest || job->overwrite) continue;
            snprintf(reason, len, "'%.600s' already exists and no manifest in '%.600s' "
                     "records it; remove it, set output.overwrite: true, or use another "
                     "directory", paths[k], job->output_directory);
            return 1;
        }
    }
    return 0;
}

/* Rank 0: 0 when the shots to compute fit the free space; else -1. */
static int check_space(const sf_config *job, const sf_simulation *s, long shots, char *reason,
                       size_t len)
{
    char probe[SF_SHOT_PATH];
    sf_manifest_path(job->output_directory, probe, sizeof probe);
    double free_bytes, needed = shot_bytes(job, s) * (double)shots;
    unsigned long device;
    if (sf_output_free_space(probe, &free_bytes, &device) != 0 || needed <= free_bytes) return 0;
    snprintf(reason, len, "the %ld shots to compute need %.3g MiB in '%.600s', but its file "
             "system has %.3g MiB free", shots, needed / SF_MIB, job->output_directory,
             free_bytes / SF_MIB);
    return -1;
}

typedef struct {
    sf_manifest_header header;
    long skipped, pending;
} plan_summary;

/* The refusal of a manifest written for another job. */
static void describe_other_job(const sf_config *job, const sf_manifest_header *h, char *reason,
                               size_t len)
{
    snprintf(reason, len, "the manifest '%.600s/manifest.jsonl' was written for another job "
             "(job hash %s, this job %s: the grid, time, physics, model, boundaries, source, "
             "receivers or survey differ); use another output.directory, or start over with "
             "seisfd run --restart fresh (every shot is computed again)",
             job->output_directory, h->job_hash[0] ? h->job_hash : "unreadable", job->hash);
}

static void plan_every_shot(const sf_config *job, sf_shot_result *plan)
{
    for (long n = 0; n < job->survey.count; ++n) {
        memset(&plan[n], 0, sizeof plan[n]);
        plan[n].index = n + 1;
    }
}

/* Rank 0: reads the manifest and decides; 0 or -1 with the reason. */
static int decide(const sf_config *job, const sf_simulation *s, int fresh,
                  sf_shot_result *plan, plan_summary *sum, char *reason, size_t len)
{
    if (sf_manifest_read(job->output_directory, job->survey.count, &sum->header, plan, reason,
                         len) != 0)
        return -1;
    sf_manifest_header *h = &sum->header;
    /* A run killed while creating the manifest left nothing to resume. */
    if (h->exists && !h->job_hash[0] && h->shot_lines == 0) h->exists = 0;
    if (h->exists && strcmp(h->job_hash, job->hash) && !fresh) {
        describe_other_job(job, h, reason, len);
        return -1;
    }
    if (h->exists && !fresh)
        sum->skipped = mark_verified(job, plan);
    else
        plan_every_shot(job, plan);
    sum->pending = job->survey.count - sum->skipped;
    if (shot_file_problem(job, plan, h->exists, reason, len)) return -1;
    return check_space(job, s, sum->pending, reason, len);
}

static void print_plan(const sf_config *job, const plan_summary *sum, int fresh)
{
    const sf_manifest_header *h = &sum->header;
    if (h->exists && h->version[0] && strcmp(h->version, SEISFD_VERSION))
        sf_warn("the manifest in '%s' was written by seisfd %s; this is seisfd %s",
                job->output_directory, h->version, SEISFD_VERSION);
    if (h->torn_lines)
        sf_warn("%ld unreadable line%s of the manifest in '%s' ignored (a run killed while "
                "writing it)", h->torn_lines, h->torn_lines == 1 ? "" : "s", job->output_directory);
    if (!h->exists)
        sf_info("  restart           no manifest yet: all %ld shots to compute", sum->pending);
    else if (fresh)
        sf_info("  restart           --restart fresh: the manifest is started over, all %ld shots "
                "to compute", sum->pending);
    else
        sf_info("  restart           manifest found: %ld shot%s done and verified (skipped), %ld to "
                "compute", sum->skipped, sum->skipped == 1 ? "" : "s", sum->pending);
}

/* Rank 0, with execute: the plan once the run holds the directory. One
 * made only now had nothing to read before, unless another run made it
 * meanwhile: what is in it is decided again. 0 or -1 with the reason. */
static int decide_holding(const sf_config *job, const sf_simulation *s, int fresh, int claimed,
                          sf_shot_result *plan, plan_summary *sum, char *reason, size_t len)
{
    if (decide(job, s, fresh, plan, sum, reason, len) != 0) return -1;
    if (claimed) return 0;
    if (claim_directory(job, reason, len) != 0) return -1;
    memset(sum, 0, sizeof *sum);
    return decide(job, s, fresh, plan, sum, reason, len);
}

void sf_survey_plan(const sf_config *job, const sf_simulation *s, int execute, int fresh,
                    int claimed, sf_shot_result *plan, sf_manifest *m)
{
    int rank;
    SF_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "planning the survey");
    char reason[2048] = "";
    int failed = 0;
    if (rank == 0) {
        plan_summary sum;
        memset(&sum, 0, sizeof sum);
        failed = (execute ? decide_holding(job, s, fresh, claimed, plan, &sum, reason, sizeof reason)
                          : decide(job, s, fresh, plan, &sum, reason, sizeof reason)) != 0;
        if (!failed) print_plan(job, &sum, fresh);
        if (!failed && execute &&
            sf_manifest_open(m, job->output_directory, fresh || !sum.header.exists, job->hash,
                             job->source_path, job->survey.count, reason, sizeof reason) != 0)
            failed = 1;
        if (failed)
            sf_config_report(job, job->output_directory_mark, "output.directory: %s", reason);
    }
    SF_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "planning the survey");
    if (failed) sf_exit_collective();
}
