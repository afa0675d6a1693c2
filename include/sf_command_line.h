/* The command line: which command, with what, read from argv alone, so
 * that help, --version and mistakes are answered without starting MPI. */
#ifndef SF_COMMAND_LINE_H
#define SF_COMMAND_LINE_H

#include "sf_bench.h"

#include <stdio.h>

typedef enum {
    SF_COMMAND_RUN,
    SF_COMMAND_CHECK,
    SF_COMMAND_BENCH,
    SF_COMMAND_HELP,      /* help [COMMAND], --help, -h, COMMAND --help */
    SF_COMMAND_KEYS,      /* help keys: the job-key reference */
    SF_COMMAND_VERSION,
    SF_COMMAND_MISUSED    /* a mistake: why, then the usage of topic */
} sf_command_kind;

/* The most ranks `check --ranks` takes (as survey.ranks_per_shot). */
enum { SF_MAX_CHECK_RANKS = 1 << 20 };

typedef struct {
    sf_command_kind kind;
    const char *job;          /* run, check: the job file */
    int fresh;                /* run --restart fresh */
    int ranks;                /* check --ranks N; 0 when not given */
    sf_bench_options bench;   /* bench */
    const char *topic;        /* help, misused: the command whose usage to print; NULL: all */
    char why[400];            /* misused: what was wrong, one line */
} sf_command;

void sf_command_parse(int argc, char **argv, sf_command *command);

/* The usage of a command (NULL: of seisfd, every command). */
void sf_command_usage(const char *command, FILE *out);

#endif
