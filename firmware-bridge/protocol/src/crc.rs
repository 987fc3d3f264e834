//! CRC-8/SMBUS: polynomial 0x07, initial value 0, no reflection, no final xor.
//!
//! Chosen over NMEA's xor because it also catches a pair of dropped identical
//! bytes (`"11"` → `""` leaves an xor unchanged) and swapped bytes, which are the
//! usual damage on a noisy or overrun UART; it costs the firmware eight shifts a byte.

/// CRC-8/SMBUS of `data`. `crc8(b"123456789") == 0xF4` (the catalogue check value).
pub fn crc8(data: &[u8]) -> u8 {
    let mut crc = 0u8;
    for &byte in data {
        crc ^= byte;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x07
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_check_value() {
        assert_eq!(crc8(b"123456789"), 0xF4);
        assert_eq!(crc8(b""), 0);
    }

    #[test]
    fn detects_a_dropped_pair_that_xor_misses() {
        assert_ne!(crc8(b"YH,11,5"), crc8(b"YH,,5"));
    }
}
