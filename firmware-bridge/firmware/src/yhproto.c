#include "yhproto.h"

const char *const yh_key_tokens[YH_KEY_COUNT] = {"rate", "lens", "ceil", "minstr", "apex", "hb"};
const uint32_t yh_key_min[YH_KEY_COUNT] = {1, 0, 0, 0, 0, 100};
const uint32_t yh_key_max[YH_KEY_COUNT] = {250, 2000, 8000, 65535, 1, 10000};

uint8_t yh_crc8(const uint8_t *data, uint8_t len) {
    uint8_t crc = 0;
    while (len--) {
        crc ^= *data++;
        for (uint8_t i = 0; i < 8; i++) {
            if (crc & 0x80) {
                crc = (uint8_t)((crc << 1) ^ 0x07);
            } else {
                crc = (uint8_t)(crc << 1);
            }
        }
    }
    return crc;
}

static void put_char(yh_line_t *l, char c) {
    /* Keep room for "*XX\r\n". */
    if (l->len + 5 >= YH_MAX_LINE) {
        l->overflow = 1;
        return;
    }
    l->buf[l->len++] = c;
}

static void put_raw_str(yh_line_t *l, const char *s) {
    while (*s) {
        put_char(l, *s++);
    }
}

static void put_raw_u32(yh_line_t *l, uint32_t v) {
    char tmp[10];
    uint8_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) {
        put_char(l, tmp[--n]);
    }
}

void yh_begin(yh_line_t *l, uint16_t seq, uint32_t t_ms, const char *type) {
    l->len = 0;
    l->overflow = 0;
    put_raw_str(l, "$YH,");
    put_raw_u32(l, seq);
    put_char(l, ',');
    put_raw_u32(l, t_ms);
    put_char(l, ',');
    put_raw_str(l, type);
}

void yh_put_str(yh_line_t *l, const char *s) {
    put_char(l, ',');
    put_raw_str(l, s);
}

void yh_put_u32(yh_line_t *l, uint32_t v) {
    put_char(l, ',');
    put_raw_u32(l, v);
}

int yh_finish(yh_line_t *l) {
    static const char hex[] = "0123456789ABCDEF";
    if (l->overflow) {
        return -1;
    }
    uint8_t crc = yh_crc8((const uint8_t *)l->buf + 1, (uint8_t)(l->len - 1));
    l->buf[l->len++] = '*';
    l->buf[l->len++] = hex[crc >> 4];
    l->buf[l->len++] = hex[crc & 15];
    l->buf[l->len++] = '\r';
    l->buf[l->len++] = '\n';
    return l->len;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Next comma-separated field of line[*pos..end): start and length. */
static uint8_t field(const char *line, uint8_t end, uint8_t *pos, const char **start) {
    *start = line + *pos;
    uint8_t n = 0;
    while (*pos < end && line[*pos] != ',') {
        (*pos)++;
        n++;
    }
    return n;
}

static int field_is(const char *f, uint8_t n, const char *word) {
    uint8_t i = 0;
    for (; i < n; i++) {
        if (word[i] != f[i]) return 0;
    }
    return word[i] == '\0';
}

static int field_u32(const char *f, uint8_t n, uint32_t *out) {
    if (n == 0 || n > 10) return 0;
    uint64_t v = 0;
    for (uint8_t i = 0; i < n; i++) {
        if (f[i] < '0' || f[i] > '9') return 0;
        v = v * 10 + (uint64_t)(f[i] - '0');
    }
    if (v > 0xFFFFFFFFull) return 0;
    *out = (uint32_t)v;
    return 1;
}

int yh_parse_command(const char *line, uint8_t len, yh_cmd_t *out) {
    if (len && line[len - 1] == '\r') len--;
    if (len < 8 || line[0] != '$' || line[len - 3] != '*') return YH_PARSE_BADLINE;
    int hi = hexval(line[len - 2]), lo = hexval(line[len - 1]);
    if (hi < 0 || lo < 0) return YH_PARSE_BADLINE;
    for (uint8_t i = 1; i < len; i++) {
        if (line[i] < 0x20 || line[i] > 0x7e || line[i] == '$') return YH_PARSE_BADLINE;
        if (line[i] == '*' && i != len - 3) return YH_PARSE_BADLINE;
    }
    uint8_t end = (uint8_t)(len - 3);
    if (yh_crc8((const uint8_t *)line + 1, (uint8_t)(end - 1)) != (uint8_t)(hi << 4 | lo)) {
        return YH_PARSE_BADLINE;
    }
    uint8_t pos = 1;
    const char *f;
    uint8_t n = field(line, end, &pos, &f);
    if (!field_is(f, n, "YH") || pos >= end) return YH_PARSE_BADLINE;
    pos++;
    uint32_t seq, t;
    n = field(line, end, &pos, &f);
    if (!field_u32(f, n, &seq) || seq > 0xFFFF || pos >= end) return YH_PARSE_BADLINE;
    out->seq = (uint16_t)seq;
    pos++;
    n = field(line, end, &pos, &f);
    if (!field_u32(f, n, &t) || pos >= end) return YH_PARSE_BADLINE;
    pos++;
    const char *type;
    uint8_t tn = field(line, end, &pos, &type);
    if (field_is(type, tn, "HELLO")) {
        out->kind = YH_CMD_HELLO;
        return YH_PARSE_OK;
    }
    int set = field_is(type, tn, "SET");
    if (!set && !field_is(type, tn, "GET")) return YH_PARSE_UNKNOWN;
    if (pos >= end) return YH_PARSE_UNKNOWN;
    pos++;
    n = field(line, end, &pos, &f);
    uint8_t key = 0;
    while (key < YH_KEY_COUNT && !field_is(f, n, yh_key_tokens[key])) key++;
    if (key == YH_KEY_COUNT) return YH_PARSE_UNKNOWN;
    out->key = key;
    if (!set) {
        out->kind = YH_CMD_GET;
        return YH_PARSE_OK;
    }
    if (pos >= end) return YH_PARSE_UNKNOWN;
    pos++;
    n = field(line, end, &pos, &f);
    if (!field_u32(f, n, &out->value)) return YH_PARSE_UNKNOWN;
    out->kind = YH_CMD_SET;
    return YH_PARSE_OK;
}

void yh_rx_init(yh_rx_t *rx) {
    rx->len = 0;
    rx->state = 0;
}

int yh_rx_push(yh_rx_t *rx, char c) {
    if (c == '$') {
        int torn = rx->state == 1;
        rx->buf[0] = '$';
        rx->len = 1;
        rx->state = 1;
        return torn ? YH_RX_BROKEN : YH_RX_NONE;
    }
    if (c == '\n') {
        uint8_t was = rx->state;
        rx->state = 0;
        return was == 1 ? YH_RX_LINE : YH_RX_NONE;
    }
    if (rx->state == 1) {
        if (rx->len + 1 >= YH_MAX_LINE) {
            rx->state = 2;
            return YH_RX_BROKEN;
        }
        rx->buf[rx->len++] = c;
    }
    return YH_RX_NONE;
}
