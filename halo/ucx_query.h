/* What the UCX loaded in this process (by Open MPI's ucx component) says
 * of device memory: a context made from the same environment lists the
 * memory types its transports reach. Asked through the library already
 * loaded, never by loading one, so that the answer is that of the UCX
 * the MPI sends with. Needs UCX's headers at build time (SF_HAVE_UCX). */
#ifndef SF_UCX_QUERY_H
#define SF_UCX_QUERY_H

#include <stddef.h>

/* 1 when the loaded UCX lists CUDA memory, 0 when it does not, with its
 * version in said ("UCX 1.22.0"); -1 with the reason in said when there
 * is no UCX in this process, seisfd was built without UCX's headers, or
 * its context could not be made. */
int sf_ucx_lists_cuda(char *said, size_t len);

#endif
