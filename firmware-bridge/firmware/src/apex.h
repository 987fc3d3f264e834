/* Height above the floor from a range reading, and the apex of each pass of the
 * sticks through the beam (pure C, no AVR headers). See ../README.md for the
 * geometry. */
#ifndef YH_APEX_H
#define YH_APEX_H

#include <stdint.h>

typedef struct {
    uint16_t lens_mm;      /* lens height above the floor */
    uint16_t ceil_mm;      /* heights at or above: the ceiling/fixtures; 0 = off */
    uint16_t min_strength; /* weaker returns are "nothing in the beam" */
} yh_geom_t;

/* Height of the target above the floor in mm, or -1 when nothing usable is in
 * the beam (weak or saturated return, zero range, or the ceiling). */
int32_t yh_height_mm(const yh_geom_t *g, uint16_t range_mm, uint16_t strength);

/* A pass ends after this many consecutive empty readings (so one lost reading
 * in the middle of a pass does not split it in two). */
#define YH_PASS_END_MISSES 3
/* Passes shorter than this many readings are noise (a fly, a stray glint). */
#define YH_PASS_MIN_READINGS 2

typedef struct {
    uint8_t in_pass;
    uint8_t misses;
    uint16_t readings;
    uint16_t best_mm;
    uint32_t t_rise;
    uint32_t t_apex;
} yh_apex_t;

typedef struct {
    uint16_t height_mm;
    uint32_t t_rise;
    uint32_t t_apex;
} yh_apex_event_t;

void yh_apex_init(yh_apex_t *a);

/* Take one reading (height or -1) at device time t; returns 1 and fills *ev when
 * a pass has just ended. */
int yh_apex_update(yh_apex_t *a, int32_t height_mm, uint32_t t, yh_apex_event_t *ev);

#endif
