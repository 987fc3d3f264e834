#include "apex.h"

int32_t yh_height_mm(const yh_geom_t *g, uint16_t range_mm, uint16_t strength) {
    if (range_mm == 0 || strength < g->min_strength || strength == 65535u) {
        return -1;
    }
    int32_t h = (int32_t)g->lens_mm + (int32_t)range_mm;
    if (g->ceil_mm != 0 && h >= (int32_t)g->ceil_mm) {
        return -1;
    }
    if (h > 65535) {
        return -1;
    }
    return h;
}

void yh_apex_init(yh_apex_t *a) {
    a->in_pass = 0;
    a->misses = 0;
    a->readings = 0;
    a->best_mm = 0;
    a->t_rise = 0;
    a->t_apex = 0;
}

int yh_apex_update(yh_apex_t *a, int32_t height_mm, uint32_t t, yh_apex_event_t *ev) {
    if (height_mm >= 0) {
        if (!a->in_pass) {
            a->in_pass = 1;
            a->readings = 0;
            a->best_mm = 0;
            a->t_rise = t;
            a->t_apex = t;
        }
        a->misses = 0;
        if (a->readings < 0xFFFF) {
            a->readings++;
        }
        if ((uint16_t)height_mm > a->best_mm) {
            a->best_mm = (uint16_t)height_mm;
            a->t_apex = t;
        }
        return 0;
    }
    if (!a->in_pass) {
        return 0;
    }
    if (++a->misses < YH_PASS_END_MISSES) {
        return 0;
    }
    a->in_pass = 0;
    a->misses = 0;
    if (a->readings < YH_PASS_MIN_READINGS) {
        return 0;
    }
    ev->height_mm = a->best_mm;
    ev->t_rise = a->t_rise;
    ev->t_apex = a->t_apex;
    return 1;
}
