/* TF-Luna / TFmini UART frame parser (pure C, no AVR headers).
 *
 * Standard 9-byte output frame:
 *   0x59 0x59 Dist_L Dist_H Amp_L Amp_H Temp_L Temp_H Checksum
 * Checksum = low byte of the sum of the first eight bytes. Dist is in cm by
 * default, in mm once the sensor is switched to the "9-byte/mm" output format
 * (the firmware does that at boot, see main.c).
 */
#ifndef YH_TFLUNA_H
#define YH_TFLUNA_H

#include <stdint.h>

typedef struct {
    uint16_t dist;  /* range, cm or mm per the sensor's output format */
    uint16_t amp;   /* signal strength */
    int16_t temp_c100; /* chip temperature in 0.01 degC */
} tfl_frame_t;

typedef struct {
    uint8_t buf[9];
    uint8_t len;
    uint32_t bad_checksums;
    uint32_t frames;
} tfl_parser_t;

void tfl_init(tfl_parser_t *p);

/* Feed one byte. Returns 1 and fills *out when it completes a valid frame,
 * 0 otherwise. Resynchronises on the 0x59 0x59 header after any damage. */
int tfl_push(tfl_parser_t *p, uint8_t byte, tfl_frame_t *out);

/* TF-Luna datasheet: with Amp < 100 or Amp == 65535 (overexposed) the distance
 * is unreliable. */
int tfl_reliable(const tfl_frame_t *f);

/* Configuration commands (TF-Luna product manual, "Custom parameter
 * configuration"): 0x5A, length, id, payload, checksum = low byte of the sum of
 * all bytes before it. Each writes into out[] (8 bytes or more) and returns the
 * command's length. */
uint8_t tfl_cmd_output_mm(uint8_t *out);            /* 9-byte frame, distance in mm */
uint8_t tfl_cmd_frame_rate(uint8_t *out, uint16_t hz);
uint8_t tfl_cmd_baud(uint8_t *out, uint32_t baud);
uint8_t tfl_cmd_save(uint8_t *out);
#endif
