/* The device's side of the yut-height/1 line protocol (../../PROTOCOL.md):
 * writing lines, framing and parsing the station's commands. Pure C. */
#ifndef YH_PROTO_H
#define YH_PROTO_H

#include <stdint.h>

#define YH_MAX_LINE 96
#define YH_PROTOCOL "yut-height/1"

uint8_t yh_crc8(const uint8_t *data, uint8_t len);

/* A line being written. Any field that does not fit sets `overflow`, and
 * yh_finish then refuses the line rather than send a truncated one. */
typedef struct {
    char buf[YH_MAX_LINE];
    uint8_t len;
    uint8_t overflow;
} yh_line_t;

void yh_begin(yh_line_t *l, uint16_t seq, uint32_t t_ms, const char *type);
void yh_put_str(yh_line_t *l, const char *s);
void yh_put_u32(yh_line_t *l, uint32_t v);
/* Appends "*XX\r\n"; returns the line's length, or -1 if it did not fit. */
int yh_finish(yh_line_t *l);

enum { YH_KEY_RATE, YH_KEY_LENS, YH_KEY_CEIL, YH_KEY_MINSTR, YH_KEY_APEX, YH_KEY_HB, YH_KEY_COUNT };
extern const char *const yh_key_tokens[YH_KEY_COUNT];
extern const uint32_t yh_key_min[YH_KEY_COUNT];
extern const uint32_t yh_key_max[YH_KEY_COUNT];

typedef enum { YH_CMD_HELLO, YH_CMD_SET, YH_CMD_GET } yh_cmd_kind_t;

typedef struct {
    yh_cmd_kind_t kind;
    uint16_t seq;
    uint8_t key;
    uint32_t value;
} yh_cmd_t;

#define YH_PARSE_OK 0
#define YH_PARSE_BADLINE (-1) /* framing or checksum: seq unknown */
#define YH_PARSE_UNKNOWN (-2) /* a valid line we do not understand: seq known */

/* Parse one line (from '$', without the line end). */
int yh_parse_command(const char *line, uint8_t len, yh_cmd_t *out);

/* Frames the station's bytes into lines. */
typedef struct {
    char buf[YH_MAX_LINE];
    uint8_t len;
    uint8_t state; /* 0 between lines, 1 in a line, 2 skipping an overlong one */
} yh_rx_t;

#define YH_RX_NONE 0
#define YH_RX_LINE 1   /* buf[0..len) holds a line from '$' */
#define YH_RX_BROKEN 2 /* a torn or overlong line was dropped */

void yh_rx_init(yh_rx_t *rx);
int yh_rx_push(yh_rx_t *rx, char c);

#endif
