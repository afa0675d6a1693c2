#include "sf_receiver_offset.h"

#include <math.h>

/* The plotting tool's test for a vertical receiver line, so that a
 * gather's offsets are signed exactly where its picture calls the line
 * horizontal. */
static const double VERTICAL_TOLERANCE = 1e-9;

sf_receiver_line sf_receiver_line_make(long first, long count, const double start[3],
                                       const double end[3])
{
    double dx = end[0] - start[0], dy = end[1] - start[1], dz = end[2] - start[2];
    double across = hypot(dx, dy), length = sqrt(dx * dx + dy * dy + dz * dz);
    sf_receiver_line line = {.first = first};
    if (across > VERTICAL_TOLERANCE * length) {
        line.count = count;
        line.direction[0] = dx / across;
        line.direction[1] = dy / across;
    }
    return line;
}

double sf_receiver_offset(const sf_receiver_line *line, long index, const double source[3],
                          const double receiver[3])
{
    double dx = receiver[0] - source[0], dy = receiver[1] - source[1];
    double distance = hypot(dx, dy);
    int on_line = index >= line->first && index - line->first < line->count;
    int behind = on_line && dx * line->direction[0] + dy * line->direction[1] < 0;
    return behind ? -distance : distance;
}
