//! The apex of a throw, and the height rule.
//!
//! The throw window comes from the camera: from its first motion to the sticks
//! coming to rest. Inside it, the sensor's readings trace the sticks' ballistic arc
//! while they are in its beam. Taking the highest reading is biased upward by the
//! noise (the maximum of noisy values) and downward by sampling (the peak falls
//! between samples), so the apex is refined by fitting the arc: in free flight
//! `h(t) = h* − g/2·(t − t*)²` with `g` known, so `h(t) + g/2·t²` is a straight line
//! in `t` and an ordinary least-squares fit of two numbers gives `h*` and `t*`.
//!
//! Pure: readings and a window in, a check out.

use super::align::StationMs;
use yut_rules::yut::ThrowResult;

/// Gravity, mm per ms².
pub const G_MM_PER_MS2: f64 = 9.806_65e-3;
/// Readings this close in time (either side) to the highest one are used for the fit.
pub const FIT_HALF_WIDTH_MS: i64 = 150;
/// Fewest readings for a fit; below it the highest reading stands.
pub const FIT_MIN_SAMPLES: usize = 5;
/// A fit that moves the apex further than this from the highest reading is not
/// trusted (the sticks were not in free flight, or left the beam).
pub const FIT_MAX_SHIFT_MM: f64 = 30.0;

/// One reading on the station's clock; `None`: nothing in the beam.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedHeight {
    pub station_ms: StationMs,
    pub height_mm: Option<u16>,
}

/// The highest point of the sticks in a throw window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Apex {
    pub height_mm: f64,
    pub station_ms: StationMs,
    /// Readings of a target in the window.
    pub samples: usize,
    /// Whether the arc fit refined the highest reading.
    pub fitted: bool,
}

/// The apex of the readings within `[start, end]` (station times, inclusive), or
/// `None` when nothing was in the beam.
pub fn apex_in_window(readings: &[TimedHeight], start: StationMs, end: StationMs) -> Option<Apex> {
    let hits: Vec<(StationMs, f64)> = readings
        .iter()
        .filter(|r| (start..=end).contains(&r.station_ms))
        .filter_map(|r| r.height_mm.map(|h| (r.station_ms, h as f64)))
        .collect();
    let &(t_max, h_max) = hits
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    let raw = Apex {
        height_mm: h_max,
        station_ms: t_max,
        samples: hits.len(),
        fitted: false,
    };
    let near: Vec<(f64, f64)> = hits
        .iter()
        .filter(|(t, _)| (t - t_max).abs() <= FIT_HALF_WIDTH_MS)
        .map(|&(t, h)| ((t - t_max) as f64, h))
        .collect();
    if near.len() < FIT_MIN_SAMPLES {
        return Some(raw);
    }
    let (t_first, t_last) = (near[0].0, near[near.len() - 1].0);
    // y = h + g/2·t² = (h* − g/2·t*²) + g·t*·t  ⇒  slope = g·t*, intercept = h* − g/2·t*².
    let n = near.len() as f64;
    let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
    for &(t, h) in &near {
        let y = h + 0.5 * G_MM_PER_MS2 * t * t;
        sx += t;
        sy += y;
        sxx += t * t;
        sxy += t * y;
    }
    let denom = n * sxx - sx * sx;
    if denom.abs() < 1e-9 {
        return Some(raw);
    }
    let slope = (n * sxy - sx * sy) / denom;
    let intercept = (sy - slope * sx) / n;
    let t_star = slope / G_MM_PER_MS2;
    let h_star = intercept + 0.5 * G_MM_PER_MS2 * t_star * t_star;
    let believable = (t_first..=t_last).contains(&t_star)
        && (h_star - h_max).abs() <= FIT_MAX_SHIFT_MM
        && h_star.is_finite();
    Some(if believable {
        Apex {
            height_mm: h_star,
            station_ms: t_max + t_star.round() as StationMs,
            samples: hits.len(),
            fitted: true,
        }
    } else {
        raw
    })
}

/// How strictly the height is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeightRule {
    /// A throw is a violation only if its apex is below the required height by more
    /// than this, mm. It absorbs the sensor's error and the stick's thickness so that
    /// the station proposes 낙 only when sure; the referee can still rule it.
    pub tolerance_mm: u16,
}

impl Default for HeightRule {
    /// 30 mm: well above the simulator-verified apex error (see the tests) and about
    /// a stick's width; the TF-Luna's absolute error is absorbed by calibrating its
    /// `lens` height against a known target at set-up.
    fn default() -> Self {
        HeightRule { tolerance_mm: 30 }
    }
}

/// Why a throw's height could not be judged. None of these is a violation: the
/// station does not guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmeasured {
    /// No sensor is configured for this station.
    NoSensor,
    /// The sensor's link was down during the window.
    LinkDown,
    /// The link was up but nothing crossed the beam in the window.
    NothingInBeam,
}

/// The verdict on a throw's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HeightCheck {
    /// High enough; `margin_cm` above the required height (0.1 cm steps).
    Pass {
        apex_mm: f64,
        margin_cm: f64,
    },
    /// Too low: `margin_cm` below the required height (0.1 cm steps). Proposed to the
    /// referee as 낙.
    Violation {
        apex_mm: f64,
        margin_cm: f64,
    },
    Unmeasured(Unmeasured),
}

impl HeightCheck {
    /// What the station proposes to the referee: 낙 for a violation, nothing else.
    pub fn proposal(&self) -> Option<ThrowResult> {
        matches!(self, HeightCheck::Violation { .. }).then_some(ThrowResult::Nak)
    }
}

fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Compare a throw's apex with the thrower's registered height (cm: shoulder height
/// for a seated thrower, waist height for a standing one).
pub fn check_height(apex: Option<&Apex>, required_cm: u16, rule: HeightRule) -> HeightCheck {
    let Some(apex) = apex else {
        return HeightCheck::Unmeasured(Unmeasured::NothingInBeam);
    };
    let required_mm = required_cm as f64 * 10.0;
    let diff_mm = apex.height_mm - required_mm;
    if diff_mm < -(rule.tolerance_mm as f64) {
        HeightCheck::Violation {
            apex_mm: apex.height_mm,
            margin_cm: tenth(-diff_mm / 10.0),
        }
    } else {
        HeightCheck::Pass {
            apex_mm: apex.height_mm,
            margin_cm: tenth(diff_mm / 10.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arc(
        apex: f64,
        t_apex: f64,
        period: i64,
        from: i64,
        to: i64,
        noise: impl Fn(i64) -> f64,
    ) -> Vec<TimedHeight> {
        (from..to)
            .step_by(period as usize)
            .map(|t| {
                let dt = t as f64 - t_apex;
                let h = apex - 0.5 * G_MM_PER_MS2 * dt * dt;
                TimedHeight {
                    station_ms: t,
                    height_mm: (h > 900.0).then(|| (h + noise(t)).round() as u16),
                }
            })
            .collect()
    }

    #[test]
    fn window_bounds_are_inclusive_and_exclusive_of_outside_readings() {
        let mut r = arc(1500.0, 1000.0, 10, 700, 1300, |_| 0.0);
        r.push(TimedHeight {
            station_ms: 5_000,
            height_mm: Some(2_500),
        });
        let apex = apex_in_window(&r, 0, 4_999).unwrap();
        assert!((apex.height_mm - 1500.0).abs() < 1.0, "{apex:?}");
        assert!(apex.fitted);
        assert_eq!(apex_in_window(&r, 5_000, 5_000).unwrap().height_mm, 2500.0);
        assert_eq!(apex_in_window(&r, 6_000, 7_000), None);
    }

    #[test]
    fn few_readings_give_the_highest_one() {
        let r = [
            TimedHeight {
                station_ms: 10,
                height_mm: Some(1200),
            },
            TimedHeight {
                station_ms: 20,
                height_mm: None,
            },
            TimedHeight {
                station_ms: 30,
                height_mm: Some(1300),
            },
        ];
        let apex = apex_in_window(&r, 0, 100).unwrap();
        assert_eq!(
            (apex.height_mm, apex.station_ms, apex.fitted),
            (1300.0, 30, false)
        );
    }

    proptest! {
        /// Sampled at 100 Hz with ±4 mm of bounded noise, the fitted apex is within
        /// 5 mm of the true one wherever the peak falls between samples.
        #[test]
        fn fit_recovers_the_apex(apex in 1000.0f64..2200.0, phase in 0.0f64..10.0, seed in any::<u64>()) {
            let noise = move |t: i64| {
                let x = (t as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                ((x >> 40) as f64 / (1u64 << 24) as f64 - 0.5) * 8.0
            };
            let r = arc(apex, 1000.0 + phase, 10, 500, 1500, noise);
            let got = apex_in_window(&r, 0, 2000).unwrap();
            prop_assert!((got.height_mm - apex).abs() <= 5.0, "{got:?} vs {apex}");
        }
    }

    #[test]
    fn height_rule_passes_fails_and_abstains() {
        let at = |h: f64| Apex {
            height_mm: h,
            station_ms: 0,
            samples: 9,
            fitted: true,
        };
        let rule = HeightRule { tolerance_mm: 30 };
        assert_eq!(
            check_height(Some(&at(1523.0)), 140, rule),
            HeightCheck::Pass {
                apex_mm: 1523.0,
                margin_cm: 12.3
            }
        );
        // Within tolerance: the thrower gets the benefit of the doubt.
        assert!(
            matches!(check_height(Some(&at(1375.0)), 140, rule), HeightCheck::Pass { margin_cm, .. } if margin_cm == -2.5)
        );
        let v = check_height(Some(&at(1288.0)), 140, rule);
        assert_eq!(
            v,
            HeightCheck::Violation {
                apex_mm: 1288.0,
                margin_cm: 11.2
            }
        );
        assert_eq!(v.proposal(), Some(ThrowResult::Nak));
        let none = check_height(None, 140, rule);
        assert_eq!(none, HeightCheck::Unmeasured(Unmeasured::NothingInBeam));
        assert_eq!(none.proposal(), None);
    }
}
