/* Outputs appear only when complete: they are written under a temporary
 * name of this run's own next to the final one and renamed once complete.
 * Leftover temporary names end in ".partial". */
#ifndef SF_OUTPUT_H
#define SF_OUTPUT_H

#include <mpi.h>
#include <stddef.h>

/* The most a temporary name adds to an output's file name; the outputs
 * of one shot (gather, SEG-Y files, energy, snapshots and their index,
 * model); the room for a path. */
enum { SF_OUTPUT_SUFFIX_MAX = 64, SF_OUTPUT_SET_MAX = 10, SF_OUTPUT_PATH = 4200,
       SF_OUTPUT_PATH_MAX = 4000 };   /* the longest output path taken */

/* Collective over world, once after MPI_Init: every rank takes world
 * rank 0's host name and process id as the run's tag, so that the
 * temporary names of two runs never meet. */
void sf_output_init(MPI_Comm world);

/* The temporary name used while path is being written:
 * <path>.<host>-<pid>.partial. */
void sf_output_partial_name(const char *path, char *out, size_t len);

/* Copies path's directory ("." when it has none) into dir and returns
 * its last component. */
const char *sf_output_split(const char *path, char *dir, size_t len);

/* Removes what earlier runs, killed or failed, left under temporary
 * names: those of path, or with path a directory and every_output, of
 * every file in it. Only for a run holding the lock on those outputs
 * (sf_output_lock), so that no live run's file goes. */
void sf_output_remove_stale(const char *path, int every_output);

/* Flushes a rename in path's directory to the disk; 0 or -1 (errno). */
int sf_output_sync_directory(const char *path);

/* Creates the parent directories of path; 0 or -1 with reason. */
int sf_output_make_parents(const char *path, char *reason, size_t len);

/* Could path be written and replaced, as far as can be told without
 * creating anything (seisfd check does no more; run then makes the
 * directories and tries)? Its length and its file name's with the
 * temporary suffix, the directories sf_output_make_parents would make
 * (the same words when one cannot be), writing in its directory, and no
 * directory at path. 0, or -1 with the reason. */
int sf_output_check_path(const char *path, char *reason, size_t len);

/* Can the temporary file for path be created? 0 or -1 with reason. */
int sf_output_check_writable(const char *path, char *reason, size_t len);

/* Does path's directory exist (so that a lock file can go beside it)? */
int sf_output_directory_exists(const char *path);

/* Does a file exist at path? */
int sf_output_exists(const char *path);

/* 1 when the open fd is the file at path; 0 when that file was removed or
 * replaced since fd was opened; -1 (errno set) when either cannot be
 * examined. */
int sf_output_same_file(int fd, const char *path);

/* Renames the finished temporary file to path; 0 or -1 with reason. */
int sf_output_commit(const char *path, char *reason, size_t len);

/* Bytes in a MiB: the unit of the free-space messages, as of the memory
 * summaries. */
#define SF_MIB 1048576.0

/* Free bytes for unprivileged writers on the file system that will hold
 * path (that of its nearest existing directory), and that file system's
 * device number; 0, or -1 if unknown. */
int sf_output_free_space(const char *path, double *bytes, unsigned long *device);

/* ---- the outputs of a shot, replaced together (output_set.c) --------- */

typedef struct {
    int count;
    char path[SF_OUTPUT_SET_MAX][SF_OUTPUT_PATH];   /* final names, in the order added */
    long long size[SF_OUTPUT_SET_MAX];              /* rank 0, after a verified finish */
    unsigned long long checksum[SF_OUTPUT_SET_MAX]; /* FNV-1a of the bytes, likewise */
} sf_output_set;

void sf_output_set_clear(sf_output_set *set);

/* path is about to be written under its temporary name, on every rank of
 * the writers: an error exit until sf_output_set_finish removes it. */
void sf_output_set_add(sf_output_set *set, const char *path);

/* Collective over the writers once they are done. keep: rank 0 puts every
 * temporary file in place of its output (with verify first reading each
 * back for its size and checksum and flushing it and, after the renames,
 * its directory to the disk); an earlier file stays reachable as a hard
 * link until the last rename has succeeded, so that a failure puts every
 * earlier output back. Not keep, or any failure: the temporary files are
 * removed. 0, or -1 with the reason on every rank (and an empty set). */
int sf_output_set_finish(sf_output_set *set, int keep, int verify, MPI_Comm comm, char *reason,
                         size_t len);

/* What an error exit must not leave: the temporary files of the set
 * being written, and this process's locks. */
void sf_output_cleanup(void);

/* ---- locks (output_lock.c) --------------------------------------------- */

/* Takes the POSIX record lock (fcntl) of the lock file ".<name>.lock"
 * beside path for this process until sf_output_unlock_all, or the
 * process's end: the kernel drops it when the holder dies. 0, or -1 with
 * the reason, naming `what` and, when another run holds it, that run's
 * host and process id. */
int sf_output_lock(const char *path, const char *what, char *reason, size_t len);

/* As sf_output_lock but creates and takes nothing (seisfd check): -1
 * with the same reason when another run holds the lock. */
int sf_output_lock_probe(const char *path, const char *what, char *reason, size_t len);

/* Does this process hold path's lock (sf_output_lock)? */
int sf_output_holds_lock(const char *path);

/* Removes this process's lock files and drops their locks. */
void sf_output_unlock_all(void);

#endif
