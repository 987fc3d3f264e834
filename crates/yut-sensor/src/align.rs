//! Device time → station time.
//!
//! The device stamps every line with its own millisecond clock (`millis()` on the
//! reference firmware: a ceramic resonator, off by up to ±0.5 %, wrapping after 49
//! days). The station stamps each line when it arrives. Arrival = send time +
//! latency, and latency is never negative, so the *least* `station − device` offset
//! seen is the best estimate of the true offset. To follow the resonator's drift, the
//! least offset is kept per second of device time and a line is fitted through the
//! last [`BUCKETS`] of them.
//!
//! Pure: times in, times out.

use std::collections::VecDeque;

/// Seconds of history kept for the drift fit.
pub const BUCKETS: usize = 30;

/// Milliseconds on the station's monotonic clock (see `link::StationClock`).
pub type StationMs = i64;

/// Tracks the device clock against the station clock.
#[derive(Debug, Clone, Default)]
pub struct ClockAlign {
    last_raw: Option<u32>,
    wraps: u64,
    /// (device second, device ms, least offset seen in that second)
    buckets: VecDeque<(u64, u64, i64)>,
}

impl ClockAlign {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget everything (the device rebooted: its clock restarted).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Turn the wire's wrapping 32-bit time into a monotonic 64-bit one. A step back
    /// of more than half the range is a wrap; a small step back (a reordered or
    /// damaged stamp) is left as it is.
    pub fn unwrap(&mut self, raw: u32) -> u64 {
        if let Some(last) = self.last_raw {
            if raw < last && last - raw > u32::MAX / 2 {
                self.wraps += 1;
            }
        }
        self.last_raw = Some(raw);
        (self.wraps << 32) + raw as u64
    }

    /// A line stamped `device_ms` (already unwrapped) arrived at `station_ms`.
    pub fn observe(&mut self, device_ms: u64, station_ms: StationMs) {
        let offset = station_ms - device_ms as i64;
        let second = device_ms / 1000;
        match self.buckets.back_mut() {
            Some((s, d, o)) if *s == second => {
                if offset < *o {
                    *o = offset;
                    *d = device_ms;
                }
            }
            Some((s, ..)) if *s > second => {} // out of order: ignore
            _ => {
                self.buckets.push_back((second, device_ms, offset));
                if self.buckets.len() > BUCKETS {
                    self.buckets.pop_front();
                }
            }
        }
    }

    /// Whether anything has been observed since the last reset.
    pub fn is_ready(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// The station time at which the device's clock read `device_ms`.
    pub fn to_station(&self, device_ms: u64) -> Option<StationMs> {
        let n = self.buckets.len();
        if n == 0 {
            return None;
        }
        if n < 3 {
            // Too short a history for a slope: the least offset so far.
            let offset = self.buckets.iter().map(|b| b.2).min()?;
            return Some(device_ms as i64 + offset);
        }
        // Least-squares line through the per-second least offsets, then lowered so
        // that no bucket's minimum lies below it (latency is never negative).
        let x0 = self.buckets[0].1 as f64;
        let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
        for &(_, d, o) in &self.buckets {
            let x = d as f64 - x0;
            let y = o as f64;
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        let nf = n as f64;
        let denom = nf * sxx - sx * sx;
        let slope = if denom.abs() < 1e-9 {
            0.0
        } else {
            ((nf * sxy - sx * sy) / denom).clamp(-0.01, 0.01)
        };
        let intercept = (sy - slope * sx) / nf;
        let lowest = self
            .buckets
            .iter()
            .map(|&(_, d, o)| o as f64 - (intercept + slope * (d as f64 - x0)))
            .fold(f64::INFINITY, f64::min);
        let offset = intercept + lowest + slope * (device_ms as f64 - x0);
        Some((device_ms as f64 + offset).round() as StationMs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn unwraps_the_32_bit_clock() {
        let mut a = ClockAlign::new();
        assert_eq!(a.unwrap(u32::MAX - 5), u32::MAX as u64 - 5);
        assert_eq!(a.unwrap(4), (1u64 << 32) + 4);
        assert_eq!(
            a.unwrap(2),
            (1u64 << 32) + 2,
            "a small step back is not a wrap"
        );
    }

    #[test]
    fn least_offset_wins_within_a_second() {
        let mut a = ClockAlign::new();
        a.observe(100, 5_120); // 20 ms latency
        a.observe(200, 5_201); // 1 ms latency
        a.observe(300, 5_340);
        assert_eq!(a.to_station(250), Some(5_251));
    }

    proptest! {
        /// With a drifting device clock (±0.5 %) and latencies of 0..20 ms, the
        /// mapping is within 25 ms of the truth over a minute, and never later than
        /// the truth by more than the resonator's drift over one bucket.
        #[test]
        fn tracks_offset_and_drift(
            offset in -1_000_000i64..1_000_000,
            skew_ppm in -5_000i64..5_000,
            latencies in proptest::collection::vec(0i64..20, 600),
        ) {
            let mut a = ClockAlign::new();
            let truth = |d: u64| offset + d as i64 + (d as i64 * skew_ppm) / 1_000_000;
            for (i, lat) in latencies.iter().enumerate() {
                let d = i as u64 * 100; // a line every 100 ms for 60 s
                a.observe(d, truth(d) + lat);
            }
            for d in [30_000u64, 55_000, 59_900] {
                let est = a.to_station(d).unwrap();
                prop_assert!((est - truth(d)).abs() <= 25, "d={d} est={est} truth={}", truth(d));
            }
        }
    }
}
