/* yut-height/1 reference firmware for an ATmega328P (Arduino Nano, 16 MHz) and a
 * Benewake TF-Luna UART LiDAR. Wiring and geometry: ../README.md.
 *
 *   USART0 (D0/D1, the Nano's USB serial) .. the station, 115200 8N1
 *   D2 (INT0) <- TF-Luna TX ................. software UART RX, 19200 8N1
 *   D3 -> TF-Luna RX ........................ software UART TX (configuration only)
 *
 * The Nano has one hardware UART and it belongs to USB, so the LiDAR is read with
 * an interrupt-driven software UART. 115200 baud is too fast for that to be
 * reliable, so at boot the firmware switches the TF-Luna to 19200 baud, mm output
 * and 100 frames/s (9 bytes * 100/s = 9000 baud of payload) and saves it.
 *
 * Everything that is not a register lives in device.c, tfluna.c, apex.c and
 * yhproto.c, which the host test (../test/test_host.c) covers.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "device.h"

#define HOST_BAUD 115200UL
#define SENSOR_BAUD 19200UL
#define SENSOR_HZ 100

/* ---- millisecond clock: Timer0 CTC, 16 MHz / 64 / 250 = 1 kHz ---- */
static volatile uint32_t ms_now;

ISR(TIMER0_COMPA_vect) { ms_now++; }

static uint32_t millis(void) {
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { t = ms_now; }
    return t;
}

/* ---- byte rings (single producer, single consumer; size a power of two) ---- */
typedef struct {
    volatile uint8_t head, tail;
    uint8_t data[256];
} ring_t;

static ring_t host_rx, host_tx, sensor_rx;

static uint8_t ring_free(const ring_t *r) { return (uint8_t)(r->tail - r->head - 1); }
static int ring_get(ring_t *r, uint8_t *b) {
    if (r->head == r->tail) return 0;
    *b = r->data[r->tail];
    r->tail++;
    return 1;
}
static void ring_put(ring_t *r, uint8_t b) {
    if (ring_free(r) == 0) return; /* full: drop (counted by the caller where it matters) */
    r->data[r->head] = b;
    r->head++;
}

/* ---- USART0: the station ---- */
ISR(USART_RX_vect) { ring_put(&host_rx, UDR0); }

ISR(USART_UDRE_vect) {
    uint8_t b;
    if (ring_get(&host_tx, &b)) {
        UDR0 = b;
    } else {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
    }
}

static void host_init(void) {
    UCSR0A = _BV(U2X0);
    uint16_t ubrr = (uint16_t)((F_CPU / (8UL * HOST_BAUD)) - 1); /* 16: 2.1 % like Arduino */
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

static uint8_t tx_overflowed;

/* Whole lines or nothing: a half-sent line would only be a checksum error. */
static void emit(const char *line, uint8_t len, void *ctx) {
    (void)ctx;
    if (ring_free(&host_tx) < len) {
        tx_overflowed = 1;
        return;
    }
    for (uint8_t i = 0; i < len; i++) {
        ring_put(&host_tx, (uint8_t)line[i]);
    }
    UCSR0B |= _BV(UDRIE0);
}

/* ---- software UART RX on INT0 + Timer2 ---- */
#define BIT_TICKS ((uint8_t)(F_CPU / 8 / SENSOR_BAUD))  /* 104 ticks of 0.5 us */
static volatile uint8_t srx_bit, srx_byte;

static void sensor_rx_init(void) {
    DDRD &= (uint8_t)~_BV(PD2);
    PORTD |= _BV(PD2);             /* idle high */
    EICRA = _BV(ISC01);            /* falling edge: a start bit */
    EIFR = _BV(INTF0);
    EIMSK = _BV(INT0);
    TCCR2A = _BV(WGM21);           /* CTC */
    TCCR2B = 0;                    /* stopped until a start bit */
}

ISR(INT0_vect) {
    EIMSK &= (uint8_t)~_BV(INT0);
    srx_bit = 0;
    srx_byte = 0;
    TCNT2 = 0;
    OCR2A = (uint8_t)(BIT_TICKS + BIT_TICKS / 2 - 1); /* to the middle of bit 0 */
    TIFR2 = _BV(OCF2A);
    TIMSK2 = _BV(OCIE2A);
    TCCR2B = _BV(CS21);            /* clk/8 */
}

ISR(TIMER2_COMPA_vect) {
    OCR2A = (uint8_t)(BIT_TICKS - 1);
    if (srx_bit < 8) {
        srx_byte >>= 1;
        if (PIND & _BV(PD2)) srx_byte |= 0x80;
        srx_bit++;
        return;
    }
    /* Stop bit: keep the byte only if the line is high (else a framing error). */
    if (PIND & _BV(PD2)) ring_put(&sensor_rx, srx_byte);
    TCCR2B = 0;
    TIMSK2 = 0;
    EIFR = _BV(INTF0);
    EIMSK |= _BV(INT0);
}

/* ---- software UART TX on D3, for the TF-Luna's configuration at boot ---- */
static void soft_tx_byte_115200(uint8_t b) {
    /* 138.9 cycles a bit; the loop body costs about 6. */
    uint16_t frame = (uint16_t)((b << 1) | 0x200); /* start 0, 8 data, stop 1 */
    for (uint8_t i = 0; i < 10; i++) {
        if (frame & 1) PORTD |= _BV(PD3); else PORTD &= (uint8_t)~_BV(PD3);
        frame >>= 1;
        __builtin_avr_delay_cycles(133);
    }
}

static void soft_tx_byte_19200(uint8_t b) {
    uint16_t frame = (uint16_t)((b << 1) | 0x200);
    for (uint8_t i = 0; i < 10; i++) {
        if (frame & 1) PORTD |= _BV(PD3); else PORTD &= (uint8_t)~_BV(PD3);
        frame >>= 1;
        __builtin_avr_delay_cycles(827);
    }
}

static void sensor_command(const uint8_t *cmd, uint8_t len, int fast) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        for (uint8_t i = 0; i < len; i++) {
            if (fast) soft_tx_byte_115200(cmd[i]); else soft_tx_byte_19200(cmd[i]);
        }
    }
    _delay_ms(20);
}

/* Put the TF-Luna in mm output at 100 Hz on 19200 baud, whichever of its
 * factory 115200 or our 19200 it is listening on now. */
static void sensor_configure(void) {
    uint8_t cmd[8];
    DDRD |= _BV(PD3);
    PORTD |= _BV(PD3);
    _delay_ms(100); /* the TF-Luna boots in about 100 ms after power-up */
    for (int fast = 1; fast >= 0; fast--) {
        sensor_command(cmd, tfl_cmd_output_mm(cmd), fast);
        sensor_command(cmd, tfl_cmd_frame_rate(cmd, SENSOR_HZ), fast);
        sensor_command(cmd, tfl_cmd_baud(cmd, SENSOR_BAUD), fast);
    }
    sensor_command(cmd, tfl_cmd_save(cmd), 0);
}

static yh_dev_t dev;
static tfl_parser_t parser;

int main(void) {
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    host_init();
    sensor_configure();
    sensor_rx_init();
    tfl_init(&parser);
    yh_dev_init(&dev, SENSOR_HZ, emit, 0);
    sei();
    yh_dev_hello(&dev, millis());
    uint32_t bad_seen = 0;
    for (;;) {
        uint8_t b;
        tfl_frame_t frame;
        while (ring_get(&sensor_rx, &b)) {
            if (tfl_push(&parser, b, &frame)) {
                yh_dev_frame(&dev, &frame, millis());
            }
            while (bad_seen != parser.bad_checksums) {
                bad_seen++;
                yh_dev_bad_frame(&dev);
            }
        }
        while (ring_get(&host_rx, &b)) {
            yh_dev_host_byte(&dev, (char)b, millis());
        }
        uint32_t now = millis();
        yh_dev_poll(&dev, now);
        if (tx_overflowed) {
            tx_overflowed = 0;
            yh_line_t l;
            yh_begin(&l, dev.seq, now, "ERR");
            yh_put_str(&l, "OVERFLOW");
            yh_put_str(&l, "-");
            yh_put_str(&l, "lines dropped: host not reading");
            int n = yh_finish(&l);
            if (n > 0 && ring_free(&host_tx) >= n) {
                dev.seq++;
                emit(l.buf, (uint8_t)n, 0);
            } else {
                tx_overflowed = 1;
            }
        }
    }
}
