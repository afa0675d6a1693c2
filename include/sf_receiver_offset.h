/* The offset a gather records for each receiver (HDF5 /receiver_offsets,
 * SEG-Y trace bytes 37-40; README, "The gather file"): the horizontal
 * source-receiver distance, signed for the receivers of receivers.line by
 * the side of the source they lie on: the sign of the horizontal part of
 * (receiver - source) projected on the line's horizontal direction from
 * start to end, so negative behind the source and positive abreast of it
 * or ahead. Receivers given as points or as a grid, and those of a
 * vertical line (a well: no horizontal direction), have no side to be on:
 * their offset is the distance itself. Moving receivers keep their line's
 * direction, so a survey's shots follow the same rule. */
#ifndef SF_RECEIVER_OFFSET_H
#define SF_RECEIVER_OFFSET_H

typedef struct {
    long first, count;      /* its receivers in job order; count 0: every offset unsigned */
    double direction[2];    /* horizontal unit direction, start to end */
} sf_receiver_line;

/* The line from start to end whose receivers are first .. first + count - 1;
 * a vertical line holds none that get a sign. */
sf_receiver_line sf_receiver_line_make(long first, long count, const double start[3],
                                       const double end[3]);

/* The offset of receiver `index` (job order) at `receiver` from the
 * source, metres. */
double sf_receiver_offset(const sf_receiver_line *line, long index, const double source[3],
                          const double receiver[3]);

#endif
