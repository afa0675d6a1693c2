#include "sf_rank_counts.h"
#include "sf_decomp.h"
#include "sf_error.h"
#include "sf_layout.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int sf_ranks_most_per_shot(const sf_config *c) { return sf_slab_max_ranks(c->n[2], SF_HALO); }

int sf_ranks_check_slabs(const sf_config *c, int ranks)
{
    const long thinnest = c->n[2] / ranks;
    if (thinnest >= SF_HALO) return 0;
    sf_config_report(c, c->n_mark[2],
                     "grid.nz: %ld planes over %d ranks gives slabs of %ld plane%s; every slab "
                     "needs at least %d planes (the stencil radius), so run on at most %d ranks%s",
                     c->n[2], ranks, thinnest, thinnest == 1 ? "" : "s", SF_HALO,
                     sf_ranks_most_per_shot(c),
                     c->survey.enabled ? " per shot (survey.ranks_per_shot)" : "");
    return 1;
}

/* Every group of a survey has ranks_per_shot ranks; rank 0 lists the
 * values that would divide the count. */
static int check_groups(const sf_config *c, int ranks)
{
    const int per_shot = c->survey.ranks_per_shot;
    if (per_shot == 0 || ranks % per_shot == 0) return 0;
    char divisors[256] = "";
    for (int d = 1; d <= ranks; ++d)
        if (ranks % d == 0 && strlen(divisors) < sizeof divisors - 16)
            snprintf(divisors + strlen(divisors), sizeof divisors - strlen(divisors), "%s%d",
                     *divisors ? ", " : "", d);
    const sf_mark at = c->survey.ranks_mark;
    sf_config_report(c, at, "survey.ranks_per_shot: %d does not divide the %d rank%s of this run "
                     "into equal groups (allowed: %s)",
                     per_shot, ranks, ranks == 1 ? "" : "s", divisors);
    return 1;
}

static int world_size(void)
{
    int world;
    SF_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world), "counting the ranks");
    return world;
}

/* The ranks a shot is set up on among the world's: a group, or all of
 * them (one, for a check without mpirun). */
static int set_up_ranks(const sf_config *c, int world)
{
    const int per_shot = c->survey.ranks_per_shot;
    return per_shot > 0 && per_shot < world ? per_shot : world;
}

int sf_ranks_check(const sf_config *c, int ranks)
{
    const int per_shot = c->survey.ranks_per_shot;
    int problems = ranks > 0 ? check_groups(c, ranks) : 0;
    const int shot_ranks = per_shot > 0 ? per_shot : ranks;
    if (shot_ranks > set_up_ranks(c, world_size())) problems += sf_ranks_check_slabs(c, shot_ranks);
    return problems;
}

void sf_ranks_print(const sf_config *c, int ranks)
{
    const int per_shot = c->survey.ranks_per_shot;
    char takes[160], checked[96];
    if (per_shot > 0)
        snprintf(takes, sizeof takes, "a multiple of %d (survey.ranks_per_shot)", per_shot);
    else
        snprintf(takes, sizeof takes, "1 to %d%s (slabs of at least %d of the %ld planes of "
                 "grid.nz)", sf_ranks_most_per_shot(c), c->survey.enabled ? " in one group" : "",
                 SF_HALO, c->n[2]);
    if (ranks > 0 && per_shot > 0)
        snprintf(checked, sizeof checked, "checked for %d: %d group%s", ranks, ranks / per_shot,
                 ranks / per_shot == 1 ? "" : "s");
    else if (ranks > 0)
        snprintf(checked, sizeof checked, "checked for %d", ranks);
    else
        snprintf(checked, sizeof checked, "no count checked (check --ranks N)");
    /* A check without mpirun sets a shot up on its one process: the
     * decomposition above is that process's, not the count's. */
    const int world = world_size();
    const int shot_ranks = per_shot > 0 ? per_shot : ranks;
    char set_up[96] = "";
    if (shot_ranks != set_up_ranks(c, world))
        snprintf(set_up, sizeof set_up, "; the decomposition above is this check's %d rank%s",
                 world, world == 1 ? "" : "s");
    sf_info("  ranks             %s; %s%s", takes, checked, set_up);
}
