#include "tfluna.h"

void tfl_init(tfl_parser_t *p) {
    p->len = 0;
    p->bad_checksums = 0;
    p->frames = 0;
}

int tfl_push(tfl_parser_t *p, uint8_t byte, tfl_frame_t *out) {
    if (p->len < 2) {
        if (byte == 0x59) {
            p->buf[p->len++] = byte;
        } else {
            p->len = 0;
        }
        return 0;
    }
    p->buf[p->len++] = byte;
    if (p->len < 9) {
        return 0;
    }
    p->len = 0;
    uint8_t sum = 0;
    for (uint8_t i = 0; i < 8; i++) {
        sum = (uint8_t)(sum + p->buf[i]);
    }
    if (sum != p->buf[8]) {
        p->bad_checksums++;
        /* The damaged frame may hide the start of the next one: rescan its tail
         * for a header so one bad byte costs one frame, not two. */
        for (uint8_t i = 1; i < 8; i++) {
            if (p->buf[i] == 0x59 && p->buf[i + 1] == 0x59) {
                uint8_t n = (uint8_t)(9 - i);
                for (uint8_t k = 0; k < n; k++) {
                    p->buf[k] = p->buf[i + k];
                }
                p->len = n;
                break;
            }
        }
        return 0;
    }
    /* Casts before shifting: int is 16 bits on AVR. */
    out->dist = (uint16_t)(p->buf[2] | ((uint16_t)p->buf[3] << 8));
    out->amp = (uint16_t)(p->buf[4] | ((uint16_t)p->buf[5] << 8));
    uint16_t raw_temp = (uint16_t)(p->buf[6] | ((uint16_t)p->buf[7] << 8));
    out->temp_c100 = (int16_t)((int32_t)raw_temp * 100 / 8 - 25600);
    p->frames++;
    return 1;
}

int tfl_reliable(const tfl_frame_t *f) {
    return f->amp >= 100 && f->amp != 65535u;
}

static uint8_t finish_cmd(uint8_t *out, uint8_t len) {
    uint8_t sum = 0;
    out[0] = 0x5A;
    out[1] = len;
    for (uint8_t i = 0; i + 1 < len; i++) {
        sum = (uint8_t)(sum + out[i]);
    }
    out[len - 1] = sum;
    return len;
}

uint8_t tfl_cmd_output_mm(uint8_t *out) {
    out[2] = 0x05;
    out[3] = 0x06;
    return finish_cmd(out, 5);
}

uint8_t tfl_cmd_frame_rate(uint8_t *out, uint16_t hz) {
    out[2] = 0x03;
    out[3] = (uint8_t)(hz & 0xFF);
    out[4] = (uint8_t)(hz >> 8);
    return finish_cmd(out, 6);
}

uint8_t tfl_cmd_baud(uint8_t *out, uint32_t baud) {
    out[2] = 0x06;
    for (uint8_t i = 0; i < 4; i++) {
        out[3 + i] = (uint8_t)(baud >> (8 * i));
    }
    return finish_cmd(out, 8);
}

uint8_t tfl_cmd_save(uint8_t *out) {
    out[2] = 0x11;
    return finish_cmd(out, 4);
}
