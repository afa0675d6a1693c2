#include "sf_command_line.h"
#include "sf_edit_distance.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char SEISFD_USAGE[] =
    "usage: seisfd COMMAND [ARGUMENTS]\n"
    "\n"
    "commands:\n"
    "  run [--restart resume|fresh] JOB.yaml\n"
    "                     run the job and write its outputs\n"
    "  check [--ranks N] JOB.yaml\n"
    "                     validate the job and print its set-up, without running it\n"
    "  bench [OPTIONS]    measure the copy bandwidth and the time step's throughput\n"
    "  help [COMMAND]     this text, or a command's usage and options\n"
    "  help keys          every job-file key: its type, range, default and meaning\n"
    "  --version          the version, the backends built in with the physics each\n"
    "                     runs, and the GPUs visible\n"
    "\n"
    "Jobs run on the ranks mpirun starts: mpirun -np N seisfd run JOB.yaml.\n"
    "'seisfd help COMMAND' or 'seisfd COMMAND --help' prints a command's usage.\n";

static const char RUN_USAGE[] =
    "usage: seisfd run [--restart resume|fresh] JOB.yaml\n"
    "\n"
    "Runs the job on the ranks mpirun starts (mpirun -np N seisfd run JOB.yaml; one\n"
    "rank without mpirun) and writes its outputs. The job is checked first, as\n"
    "'seisfd check' does, for those N ranks.\n"
    "\n"
    "options:\n"
    "  --restart resume   a survey: skip the shots its manifest records as done\n"
    "                     (the default)\n"
    "  --restart fresh    a survey: discard the manifest and compute every shot\n";

static const char CHECK_USAGE[] =
    "usage: seisfd check [--ranks N] JOB.yaml\n"
    "\n"
    "Validates the job and prints its set-up, without running it or creating any\n"
    "file. Alone, it checks everything that does not depend on the rank count and\n"
    "says which rank counts the job takes; under mpirun -np N it checks the job for\n"
    "those N ranks, as 'seisfd run' would.\n"
    "\n"
    "options:\n"
    "  --ranks N   check the job for N ranks too (the slabs of grid.nz and\n"
    "              survey.ranks_per_shot), without mpirun\n";

static const char HELP_USAGE[] =
    "usage: seisfd help [COMMAND | keys]\n"
    "\n"
    "Prints the usage of seisfd, or of COMMAND (run, check, bench, help).\n"
    "'seisfd help keys' prints the reference of every job-file key as Markdown, from\n"
    "the tables the job reader reads with (docs/job-keys.md is this output).\n";

/* The commands, with their usage (bench prints its own, from its table of
 * options). */
static const struct {
    const char *name, *usage;
} COMMANDS[] = {{"run", RUN_USAGE}, {"check", CHECK_USAGE}, {"bench", NULL}, {"help", HELP_USAGE}};
enum { COMMAND_COUNT = sizeof COMMANDS / sizeof COMMANDS[0] };

static int is_help_flag(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

/* The command named word, or -1. */
static int command_index(const char *word)
{
    for (int k = 0; k < COMMAND_COUNT; ++k)
        if (!strcmp(word, COMMANDS[k].name)) return k;
    return -1;
}

void sf_command_usage(const char *command, FILE *out)
{
    const int k = command ? command_index(command) : -1;
    if (!command)
        fputs(SEISFD_USAGE, out);
    else if (k >= 0 && COMMANDS[k].usage)
        fputs(COMMANDS[k].usage, out);
    else if (k >= 0)
        sf_bench_usage(out);
    else
        fputs(HELP_USAGE, out);
}

/* A mistake in the arguments of topic (NULL: of seisfd); -1. */
static int misused(sf_command *c, const char *topic, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int misused(sf_command *c, const char *topic, const char *fmt, ...)
{
    c->kind = SF_COMMAND_MISUSED;
    c->topic = topic;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* "'chek'; did you mean 'check'?" for a word that is not one of words
 * (NULL: of the commands). */
static void name_unknown(const char *word, const char *words, char *out, size_t len)
{
    char commands[64] = "";
    for (int k = 0; !words && k < COMMAND_COUNT; ++k)
        snprintf(commands + strlen(commands), sizeof commands - strlen(commands), "%s ",
                 COMMANDS[k].name);
    char near[SF_EDIT_WORD_MAX + 1];
    if (sf_nearest_word(word, words ? words : commands, " ", near, sizeof near))
        snprintf(out, len, "'%.100s'; did you mean '%s'?", word, near);
    else
        snprintf(out, len, "'%.100s'", word);
}

static int read_ranks(sf_command *c, const char *value)
{
    char *end = NULL;
    errno = 0;
    long n = value ? strtol(value, &end, 10) : 0;
    if (!value)
        return misused(c, "check", "--ranks expects a whole number in 1..%d", SF_MAX_CHECK_RANKS);
    if (end == value || *end || errno || n < 1 || n > SF_MAX_CHECK_RANKS)
        return misused(c, "check", "--ranks expects a whole number in 1..%d, got '%.100s'",
                       SF_MAX_CHECK_RANKS, value);
    c->ranks = (int)n;
    return 0;
}

static int read_restart(sf_command *c, const char *value)
{
    if (value && (!strcmp(value, "resume") || !strcmp(value, "fresh"))) {
        c->fresh = !strcmp(value, "fresh");
        return 0;
    }
    if (!value) return misused(c, "run", "--restart expects resume or fresh");
    return misused(c, "run", "--restart expects resume or fresh, got '%.100s'", value);
}

/* `run` and `check`: one job file and the command's option. */
static void parse_job_command(int argc, char **argv, sf_command *c)
{
    const char *command = argv[1];
    const int run = c->kind == SF_COMMAND_RUN;
    const char *option = run ? "--restart" : "--ranks";
    for (int i = 2; i < argc; ++i) {
        const char *arg = argv[i];
        if (!strcmp(arg, option)) {
            const char *value = i + 1 < argc ? argv[++i] : NULL;
            if ((run ? read_restart(c, value) : read_ranks(c, value)) != 0) return;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            char name[200];
            name_unknown(arg, option, name, sizeof name);
            misused(c, command, "unknown option %s", name);
            return;
        } else if (c->job) {
            misused(c, command, "one job file expected, got '%.100s' and '%.100s'", c->job, arg);
            return;
        } else {
            c->job = arg;
        }
    }
    if (!c->job) misused(c, command, "no job file given");
}

static void parse_help(int argc, char **argv, sf_command *c)
{
    c->kind = SF_COMMAND_HELP;
    if (argc == 2) return;
    if (argc > 3) {
        misused(c, "help", "help takes one command, got '%.100s' and '%.100s'", argv[2], argv[3]);
        return;
    }
    if (!strcmp(argv[2], "keys")) {
        c->kind = SF_COMMAND_KEYS;
        return;
    }
    if (command_index(argv[2]) >= 0) {
        c->topic = argv[2];
        return;
    }
    char name[200];
    name_unknown(argv[2], NULL, name, sizeof name);
    misused(c, NULL, "help: unknown command %s", name);
}

void sf_command_parse(int argc, char **argv, sf_command *c)
{
    memset(c, 0, sizeof *c);
    if (argc < 2) {
        misused(c, NULL, "no command given");
        return;
    }
    const char *command = argv[1];
    if (is_help_flag(command)) {
        c->kind = SF_COMMAND_HELP;
        return;
    }
    if (!strcmp(command, "--version")) {
        c->kind = SF_COMMAND_VERSION;
        if (argc > 2) misused(c, NULL, "--version takes no arguments, got '%.100s'", argv[2]);
        return;
    }
    if (!strcmp(command, "help")) {
        parse_help(argc, argv, c);
        return;
    }
    if (command_index(command) < 0) {
        char name[200];
        name_unknown(command, NULL, name, sizeof name);
        misused(c, NULL, "unknown command %s", name);
        return;
    }
    /* COMMAND --help anywhere asks for its usage, whatever else is given. */
    for (int i = 2; i < argc; ++i)
        if (is_help_flag(argv[i])) {
            c->kind = SF_COMMAND_HELP;
            c->topic = command;
            return;
        }
    if (!strcmp(command, "bench")) {
        c->kind = SF_COMMAND_BENCH;
        char why[300];
        if (sf_bench_parse(argc - 2, argv + 2, &c->bench, why, sizeof why) != 0)
            misused(c, "bench", "%s", why);
        return;
    }
    c->kind = !strcmp(command, "run") ? SF_COMMAND_RUN : SF_COMMAND_CHECK;
    parse_job_command(argc, argv, c);
}
