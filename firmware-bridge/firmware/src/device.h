/* The device's logic, free of hardware: sensor frames and station bytes in,
 * protocol lines out through a callback. main.c wires it to the UARTs and the
 * millisecond clock; test/test_host.c drives it directly. */
#ifndef YH_DEVICE_H
#define YH_DEVICE_H

#include <stdint.h>
#include "apex.h"
#include "tfluna.h"
#include "yhproto.h"

#ifndef YH_FIRMWARE
#define YH_FIRMWARE "yh-avr/0.1.0"
#endif
#ifndef YH_SENSOR
#define YH_SENSOR "TF-Luna"
#endif

/* No sensor frame for this long is a sensor fault. */
#define YH_SENSOR_TIMEOUT_MS 500
/* ...reported as ERR SENSOR at most this often. */
#define YH_SENSOR_ERR_EVERY_MS 5000

typedef void (*yh_emit_fn)(const char *line, uint8_t len, void *ctx);

typedef struct {
    yh_geom_t geom;
    uint16_t sensor_hz;  /* frames per second the sensor sends */
    uint16_t decimate;   /* send one sample per this many frames */
    uint16_t phase;
    uint8_t apex_on;
    uint16_t hb_ms;
    uint16_t seq;
    uint32_t samples;
    uint32_t sensor_faults;
    uint32_t next_hb;
    uint32_t last_frame;
    uint32_t next_sensor_err;
    yh_apex_t apex;
    yh_rx_t rx;
    yh_emit_fn emit;
    void *ctx;
} yh_dev_t;

void yh_dev_init(yh_dev_t *d, uint16_t sensor_hz, yh_emit_fn emit, void *ctx);
void yh_dev_hello(yh_dev_t *d, uint32_t t);
/* A valid sensor frame with its range in mm. */
void yh_dev_frame(yh_dev_t *d, const tfl_frame_t *f, uint32_t t);
/* A damaged sensor frame. */
void yh_dev_bad_frame(yh_dev_t *d);
/* Call often: heartbeats and the sensor watchdog. */
void yh_dev_poll(yh_dev_t *d, uint32_t t);
/* A byte from the station. */
void yh_dev_host_byte(yh_dev_t *d, char c, uint32_t t);

#endif
