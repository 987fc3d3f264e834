#include "device.h"

static void send(yh_dev_t *d, yh_line_t *l) {
    int n = yh_finish(l);
    if (n > 0) {
        d->emit(l->buf, (uint8_t)n, d->ctx);
        d->seq++;
    }
}

void yh_dev_init(yh_dev_t *d, uint16_t sensor_hz, yh_emit_fn emit, void *ctx) {
    d->geom.lens_mm = 40;
    d->geom.ceil_mm = 0;
    d->geom.min_strength = 100;
    d->sensor_hz = sensor_hz;
    d->decimate = 1;
    d->phase = 0;
    d->apex_on = 1;
    d->hb_ms = 1000;
    d->seq = 0;
    d->samples = 0;
    d->sensor_faults = 0;
    d->next_hb = 1000;
    d->last_frame = 0;
    d->next_sensor_err = 0;
    yh_apex_init(&d->apex);
    yh_rx_init(&d->rx);
    d->emit = emit;
    d->ctx = ctx;
}

void yh_dev_hello(yh_dev_t *d, uint32_t t) {
    yh_line_t l;
    yh_begin(&l, d->seq, t, "HELLO");
    yh_put_str(&l, YH_PROTOCOL);
    yh_put_str(&l, YH_FIRMWARE);
    yh_put_str(&l, YH_SENSOR);
    yh_put_u32(&l, d->sensor_hz / d->decimate);
    send(d, &l);
}

void yh_dev_frame(yh_dev_t *d, const tfl_frame_t *f, uint32_t t) {
    d->last_frame = t;
    int32_t h = yh_height_mm(&d->geom, f->dist, f->amp);
    yh_apex_event_t ev;
    /* The apex detector sees every frame, even those not sent. */
    int ended = yh_apex_update(&d->apex, h, t, &ev);
    if (++d->phase >= d->decimate) {
        d->phase = 0;
        yh_line_t l;
        yh_begin(&l, d->seq, t, "H");
        if (h >= 0) {
            yh_put_u32(&l, (uint32_t)h);
        } else {
            yh_put_str(&l, "-");
        }
        yh_put_u32(&l, f->amp);
        d->samples++;
        send(d, &l);
    }
    if (ended && d->apex_on) {
        yh_line_t l;
        yh_begin(&l, d->seq, t, "APEX");
        yh_put_u32(&l, ev.height_mm);
        yh_put_u32(&l, ev.t_rise);
        yh_put_u32(&l, ev.t_apex);
        send(d, &l);
    }
}

void yh_dev_bad_frame(yh_dev_t *d) {
    d->sensor_faults++;
}

void yh_dev_poll(yh_dev_t *d, uint32_t t) {
    if ((int32_t)(t - d->next_hb) >= 0) {
        d->next_hb = t + d->hb_ms;
        yh_line_t l;
        yh_begin(&l, d->seq, t, "HB");
        yh_put_u32(&l, d->samples);
        yh_put_u32(&l, d->sensor_faults);
        send(d, &l);
    }
    if ((uint32_t)(t - d->last_frame) > YH_SENSOR_TIMEOUT_MS && (int32_t)(t - d->next_sensor_err) >= 0) {
        d->next_sensor_err = t + YH_SENSOR_ERR_EVERY_MS;
        d->sensor_faults++;
        yh_line_t l;
        yh_begin(&l, d->seq, t, "ERR");
        yh_put_str(&l, "SENSOR");
        yh_put_str(&l, "-");
        yh_put_str(&l, "no frames from the LiDAR: check its wiring");
        send(d, &l);
    }
}

static uint32_t get_key(const yh_dev_t *d, uint8_t key) {
    switch (key) {
    case YH_KEY_RATE: return d->sensor_hz / d->decimate;
    case YH_KEY_LENS: return d->geom.lens_mm;
    case YH_KEY_CEIL: return d->geom.ceil_mm;
    case YH_KEY_MINSTR: return d->geom.min_strength;
    case YH_KEY_APEX: return d->apex_on;
    default: return d->hb_ms;
    }
}

static void error(yh_dev_t *d, uint32_t t, const char *code, int32_t ref, const char *detail) {
    yh_line_t l;
    yh_begin(&l, d->seq, t, "ERR");
    yh_put_str(&l, code);
    if (ref >= 0) {
        yh_put_u32(&l, (uint32_t)ref);
    } else {
        yh_put_str(&l, "-");
    }
    yh_put_str(&l, detail);
    send(d, &l);
}

void yh_dev_host_byte(yh_dev_t *d, char c, uint32_t t) {
    int r = yh_rx_push(&d->rx, c);
    if (r == YH_RX_BROKEN) {
        error(d, t, "BADLINE", -1, "torn or overlong line");
        return;
    }
    if (r != YH_RX_LINE) {
        return;
    }
    yh_cmd_t cmd;
    int p = yh_parse_command(d->rx.buf, d->rx.len, &cmd);
    if (p == YH_PARSE_BADLINE) {
        error(d, t, "BADLINE", -1, "checksum or framing");
        return;
    }
    if (p == YH_PARSE_UNKNOWN) {
        error(d, t, "UNKNOWN", cmd.seq, "unknown command or key");
        return;
    }
    if (cmd.kind == YH_CMD_HELLO) {
        yh_dev_hello(d, t);
        return;
    }
    if (cmd.kind == YH_CMD_SET) {
        uint32_t v = cmd.value;
        uint32_t max = yh_key_max[cmd.key];
        if (cmd.key == YH_KEY_RATE) {
            max = d->sensor_hz; /* this device cannot sample faster than its sensor */
        }
        if (v < yh_key_min[cmd.key] || v > max) {
            error(d, t, "RANGE", cmd.seq, "value out of range");
            return;
        }
        switch (cmd.key) {
        case YH_KEY_RATE: d->decimate = (uint16_t)(d->sensor_hz / v); d->phase = 0; break;
        case YH_KEY_LENS: d->geom.lens_mm = (uint16_t)v; break;
        case YH_KEY_CEIL: d->geom.ceil_mm = (uint16_t)v; break;
        case YH_KEY_MINSTR: d->geom.min_strength = (uint16_t)v; break;
        case YH_KEY_APEX: d->apex_on = (uint8_t)v; break;
        default: d->hb_ms = (uint16_t)v; break;
        }
    }
    yh_line_t l;
    yh_begin(&l, d->seq, t, "ACK");
    yh_put_u32(&l, cmd.seq);
    yh_put_str(&l, yh_key_tokens[cmd.key]);
    yh_put_u32(&l, get_key(d, cmd.key));
    send(d, &l);
}
