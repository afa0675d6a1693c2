/* In-process driver of the input fuzz tests (tests/test_fuzz.py): reads
 * many inputs in one process, where launching seisfd for each would allow
 * only a few dozen in the time.
 *
 *   fuzz_driver config FILE...           sf_config_parse on each job file
 *   fuzz_driver manifest SHOTS DIR...    sf_manifest_read of each DIR/manifest.jsonl
 *
 * Before each input it prints "@@ begin PATH" to stderr and after it
 * "@@ end N PATH", N the problems found (config) or -1/0 (manifest), so
 * the test can tell which input a crash or a message belongs to. */
#include "sf_config.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "sf_manifest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INPUT_BYTES = 1 << 28 };

/* The input's markers on stderr, after whatever it printed. */
static void mark(const char *text, const char *path)
{
    fflush(stdout);
    fprintf(stderr, "@@ %s %s\n", text, path);
    fflush(stderr);
}

static long parse_job(const char *path)
{
    char reason[256];
    size_t length = 0;
    char *text = sf_file_read_text(path, MAX_INPUT_BYTES, &length, reason, sizeof reason);
    if (!text) {
        fprintf(stderr, "%s: %s\n", path, reason);
        return -1;
    }
    sf_config cfg;
    int problems = sf_config_parse(text, length, path, &cfg);
    sf_config_free(&cfg);
    free(text);
    return problems;
}

static long read_manifest(const char *directory, long shots)
{
    sf_manifest_header header;
    sf_shot_result *recorded = sf_calloc((size_t)shots, sizeof *recorded, "recorded shots");
    char reason[1024];
    int rc = sf_manifest_read(directory, shots, &header, recorded, reason, sizeof reason);
    if (rc != 0) fprintf(stderr, "%s\n", reason);
    free(recorded);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int manifest = argc > 2 && !strcmp(argv[1], "manifest");
    if (argc < 3 || (!manifest && strcmp(argv[1], "config"))) {
        fprintf(stderr, "usage: fuzz_driver config FILE... | manifest SHOTS DIR...\n");
        MPI_Finalize();
        return 2;
    }
    long shots = manifest ? strtol(argv[2], NULL, 10) : 0;
    for (int i = manifest ? 3 : 2; i < argc; ++i) {
        mark("begin", argv[i]);
        long n = manifest ? read_manifest(argv[i], shots) : parse_job(argv[i]);
        char end[32];
        snprintf(end, sizeof end, "end %ld", n);
        mark(end, argv[i]);
    }
    MPI_Finalize();
    return 0;
}
