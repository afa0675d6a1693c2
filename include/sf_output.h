/* Outputs appear only when complete: they are written under a temporary
 * name next to the final one and renamed once closed. */
#ifndef SF_OUTPUT_H
#define SF_OUTPUT_H

#include <stddef.h>

/* The temporary name used while path is being written. */
void sf_output_partial_name(const char *path, char *out, size_t len);

/* Creates the parent directories of path; 0 or -1 with reason. */
int sf_output_make_parents(const char *path, char *reason, size_t len);

/* Can the temporary file for path be created? 0 or -1 with reason. */
int sf_output_check_writable(const char *path, char *reason, size_t len);

/* Does a file exist at path? */
int sf_output_exists(const char *path);

/* Renames the finished temporary file to path; 0 or -1 with reason. */
int sf_output_commit(const char *path, char *reason, size_t len);

/* Free bytes for unprivileged writers on the file system that will hold
 * path, and that file system's device number; 0, or -1 if unknown. */
int sf_output_free_space(const char *path, double *bytes, unsigned long *device);

#endif
