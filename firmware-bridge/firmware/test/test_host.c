/* Host unit tests for the firmware's pure C (no AVR headers), plus a conformance
 * mode used by the Rust test firmware-bridge/protocol/tests/firmware_c.rs:
 *
 *   test_host            run the unit tests; exit status 0 when all pass
 *   test_host --emit     feed a synthetic TF-Luna byte stream of one throw to the
 *                        device logic, then the station's command lines from
 *                        stdin, and print every protocol line the device sends
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apex.h"
#include "device.h"
#include "tfluna.h"
#include "yhproto.h"

static int failures, checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

/* ---- a captured output stream ---- */
static char out_buf[65536];
static size_t out_len;

static void capture(const char *line, uint8_t len, void *ctx) {
    (void)ctx;
    if (out_len + len < sizeof out_buf) {
        memcpy(out_buf + out_len, line, len);
        out_len += len;
        out_buf[out_len] = 0;
    }
}

static void print_line(const char *line, uint8_t len, void *ctx) {
    (void)ctx;
    fwrite(line, 1, len, stdout);
}

/* One TF-Luna frame for range `mm` and strength `amp`. */
static void tfl_frame_bytes(uint8_t *f, uint16_t mm, uint16_t amp) {
    f[0] = 0x59;
    f[1] = 0x59;
    f[2] = (uint8_t)(mm & 0xFF);
    f[3] = (uint8_t)(mm >> 8);
    f[4] = (uint8_t)(amp & 0xFF);
    f[5] = (uint8_t)(amp >> 8);
    f[6] = 0x00;
    f[7] = 0x09; /* 2304/8 - 256 = 32 degC */
    uint8_t sum = 0;
    for (int i = 0; i < 8; i++) sum = (uint8_t)(sum + f[i]);
    f[8] = sum;
}

static void test_tfluna(void) {
    tfl_parser_t p;
    tfl_frame_t fr;
    uint8_t f[9];
    int got = 0;
    tfl_init(&p);
    /* Garbage, including a lone header byte, then a good frame. */
    const uint8_t junk[] = {0x00, 0x59, 0x12, 0xFF};
    for (size_t i = 0; i < sizeof junk; i++) got += tfl_push(&p, junk[i], &fr);
    CHECK(got == 0);
    tfl_frame_bytes(f, 1523, 900);
    for (int i = 0; i < 9; i++) got += tfl_push(&p, f[i], &fr);
    CHECK(got == 1);
    CHECK(fr.dist == 1523 && fr.amp == 900 && fr.temp_c100 == 3200);
    CHECK(tfl_reliable(&fr));
    /* A damaged frame is counted and costs only itself. */
    tfl_frame_bytes(f, 1000, 900);
    f[3] ^= 0x01;
    got = 0;
    for (int i = 0; i < 9; i++) got += tfl_push(&p, f[i], &fr);
    CHECK(got == 0 && p.bad_checksums == 1);
    tfl_frame_bytes(f, 1001, 900);
    for (int i = 0; i < 9; i++) got += tfl_push(&p, f[i], &fr);
    CHECK(got == 1 && fr.dist == 1001);
    /* A frame whose start was lost, followed at once by a whole one. */
    tfl_frame_bytes(f, 1002, 900);
    uint8_t stream[14];
    memcpy(stream, f + 4, 5);
    tfl_frame_bytes(stream + 5, 1003, 900);
    got = 0;
    for (int i = 0; i < 14; i++) got += tfl_push(&p, stream[i], &fr);
    CHECK(got == 1 && fr.dist == 1003);
    fr.amp = 50;
    CHECK(!tfl_reliable(&fr));
    fr.amp = 65535;
    CHECK(!tfl_reliable(&fr));

    /* Commands, against the product manual's examples. */
    uint8_t c[8];
    CHECK(tfl_cmd_save(c) == 4 && c[0] == 0x5A && c[1] == 0x04 && c[2] == 0x11 && c[3] == 0x6F);
    CHECK(tfl_cmd_output_mm(c) == 5 && c[2] == 0x05 && c[3] == 0x06 && c[4] == 0x6A);
    CHECK(tfl_cmd_frame_rate(c, 100) == 6 && c[3] == 0x64 && c[4] == 0x00 && c[5] == 0xC7);
    CHECK(tfl_cmd_baud(c, 19200) == 8 && c[3] == 0x00 && c[4] == 0x4B && c[5] == 0 && c[6] == 0 && c[7] == 0xB3);
}

static void test_apex(void) {
    yh_geom_t g = {40, 2600, 100};
    CHECK(yh_height_mm(&g, 1500, 900) == 1540);
    CHECK(yh_height_mm(&g, 1500, 99) == -1);
    CHECK(yh_height_mm(&g, 0, 900) == -1);
    CHECK(yh_height_mm(&g, 2560, 900) == -1); /* the ceiling */
    g.ceil_mm = 0;
    CHECK(yh_height_mm(&g, 2560, 900) == 2600);

    yh_apex_t a;
    yh_apex_event_t ev;
    yh_apex_init(&a);
    int ended = 0;
    const int32_t pass[] = {-1, 1200, 1400, -1, 1500, 1450, 1300, -1, -1, -1, -1};
    for (uint32_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
        ended += yh_apex_update(&a, pass[i], 100 + 10 * i, &ev);
    }
    CHECK(ended == 1); /* one dropped reading does not split the pass */
    CHECK(ev.height_mm == 1500 && ev.t_rise == 110 && ev.t_apex == 140);
    /* A single stray reading is not a pass. */
    ended = 0;
    const int32_t stray[] = {1800, -1, -1, -1, -1};
    for (uint32_t i = 0; i < 5; i++) ended += yh_apex_update(&a, stray[i], 500 + 10 * i, &ev);
    CHECK(ended == 0);
}

static void test_proto(void) {
    CHECK(yh_crc8((const uint8_t *)"123456789", 9) == 0xF4);
    yh_line_t l;
    yh_begin(&l, 7, 1234, "H");
    yh_put_u32(&l, 1520);
    yh_put_u32(&l, 880);
    int n = yh_finish(&l);
    CHECK(n > 0 && strncmp(l.buf, "$YH,7,1234,H,1520,880*83\r\n", (size_t)n) == 0);
    /* Too long for a line: refused, not truncated. */
    yh_begin(&l, 1, 1, "ERR");
    for (int i = 0; i < 20; i++) yh_put_str(&l, "xxxxx");
    CHECK(yh_finish(&l) == -1);

    yh_cmd_t cmd;
    const char *set = "$YH,12,0,SET,lens,55";
    yh_begin(&l, 12, 0, "SET");
    yh_put_str(&l, "lens");
    yh_put_u32(&l, 55);
    n = yh_finish(&l);
    CHECK(strncmp(l.buf, set, strlen(set)) == 0);
    CHECK(yh_parse_command(l.buf, (uint8_t)(n - 1), &cmd) == YH_PARSE_OK); /* with '\r' */
    CHECK(cmd.kind == YH_CMD_SET && cmd.seq == 12 && cmd.key == YH_KEY_LENS && cmd.value == 55);
    l.buf[10] = '9';
    CHECK(yh_parse_command(l.buf, (uint8_t)(n - 2), &cmd) == YH_PARSE_BADLINE);
    yh_begin(&l, 13, 0, "SET");
    yh_put_str(&l, "colour");
    yh_put_u32(&l, 1);
    n = yh_finish(&l);
    CHECK(yh_parse_command(l.buf, (uint8_t)(n - 2), &cmd) == YH_PARSE_UNKNOWN && cmd.seq == 13);
    yh_begin(&l, 14, 0, "HELLO");
    n = yh_finish(&l);
    CHECK(yh_parse_command(l.buf, (uint8_t)(n - 2), &cmd) == YH_PARSE_OK && cmd.kind == YH_CMD_HELLO);
    CHECK(yh_parse_command("$YH", 3, &cmd) == YH_PARSE_BADLINE);

    yh_rx_t rx;
    yh_rx_init(&rx);
    const char *bytes = "noise$YH,1$YH,2\r\n";
    int lines = 0, broken = 0;
    for (const char *c = bytes; *c; c++) {
        int r = yh_rx_push(&rx, *c);
        lines += r == YH_RX_LINE;
        broken += r == YH_RX_BROKEN;
    }
    CHECK(lines == 1 && broken == 1 && rx.len == 6 && strncmp(rx.buf, "$YH,2\r", 6) == 0);
}

/* One throw: a ballistic arc from 1000 mm up to `apex_mm`, seen at 100 Hz by a
 * sensor with its lens 40 mm above the floor. Returns the highest height sent. */
static uint16_t run_throw(yh_dev_t *d, double apex_mm, uint32_t *t, int damage_one) {
    const double g = 9.80665e-3;
    double rise = sqrt(2.0 * (apex_mm - 1000.0) / g);
    tfl_parser_t p;
    tfl_init(&p);
    uint16_t best = 0;
    int damaged = 0;
    for (double dt = -100.0; dt <= 2.0 * rise + 100.0; dt += 10.0) {
        uint8_t f[9];
        int in_beam = dt >= 0.0 && dt <= 2.0 * rise;
        double h = apex_mm - 0.5 * g * (dt - rise) * (dt - rise);
        uint16_t range = in_beam ? (uint16_t)lround(h - 40.0) : 0;
        tfl_frame_bytes(f, range, in_beam ? 900 : 20);
        if (damage_one && in_beam && !damaged && dt > rise) {
            f[2] ^= 0x10;
            damaged = 1;
        }
        tfl_frame_t fr;
        uint32_t bad = p.bad_checksums;
        for (int i = 0; i < 9; i++) {
            if (tfl_push(&p, f[i], &fr)) {
                yh_dev_frame(d, &fr, *t);
                int32_t hh = yh_height_mm(&d->geom, fr.dist, fr.amp);
                if (hh > best) best = (uint16_t)hh;
            }
        }
        if (p.bad_checksums != bad) yh_dev_bad_frame(d);
        yh_dev_poll(d, *t);
        *t += 10;
    }
    return best;
}

static void test_device(void) {
    yh_dev_t d;
    uint32_t t = 0;
    out_len = 0;
    yh_dev_init(&d, 100, capture, 0);
    yh_dev_hello(&d, t);
    CHECK(strstr(out_buf, ",HELLO,yut-height/1,yh-avr/0.1.0,TF-Luna,100*") != NULL);
    uint16_t best = run_throw(&d, 1650.0, &t, 0);
    CHECK(best >= 1648 && best <= 1650);
    char want[32];
    snprintf(want, sizeof want, ",APEX,%u,", best);
    CHECK(strstr(out_buf, want) != NULL);
    /* The sensor goes quiet: heartbeats go on, and one ERR SENSOR, not one per poll. */
    out_len = 0;
    for (int i = 0; i < 200; i++) yh_dev_poll(&d, t + 10u * (uint32_t)i);
    CHECK(strstr(out_buf, ",HB,") != NULL);
    CHECK(strstr(out_buf, ",ERR,SENSOR,-,") != NULL);
    CHECK(strstr(strstr(out_buf, ",ERR,SENSOR,") + 1, ",ERR,SENSOR,") == NULL);
    /* Commands: decimate to 25 Hz, refuse 400 Hz (faster than the sensor). */
    out_len = 0;
    const char *cmds[] = {"SET,rate,25", "SET,rate,101", "GET,rate"};
    for (int i = 0; i < 3; i++) {
        yh_line_t l;
        char body[32];
        strcpy(body, cmds[i]);
        char *type = strtok(body, ",");
        yh_begin(&l, (uint16_t)(20 + i), 0, type);
        for (char *f = strtok(NULL, ","); f; f = strtok(NULL, ",")) yh_put_str(&l, f);
        int n = yh_finish(&l);
        for (int k = 0; k < n; k++) yh_dev_host_byte(&d, l.buf[k], t);
    }
    CHECK(strstr(out_buf, ",ACK,20,rate,25*") != NULL);
    CHECK(strstr(out_buf, ",ERR,RANGE,21,") != NULL);
    CHECK(strstr(out_buf, ",ACK,22,rate,25*") != NULL);
    CHECK(d.decimate == 4);
}

static int emit_mode(void) {
    yh_dev_t d;
    uint32_t t = 4294966900u; /* 0.4 s before the 2^32 wrap, as after 49.7 days */
    yh_dev_init(&d, 100, print_line, 0);
    d.next_hb = t + 1000;
    d.last_frame = t;
    yh_dev_hello(&d, t);
    uint16_t best = run_throw(&d, 1712.0, &t, 1);
    fprintf(stderr, "emit: highest height sent %u mm\n", best);
    int c;
    while ((c = getchar()) != EOF) {
        yh_dev_host_byte(&d, (char)c, t);
    }
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--emit") == 0) {
        return emit_mode();
    }
    test_tfluna();
    test_apex();
    test_proto();
    test_device();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
