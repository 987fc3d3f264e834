//! Are the sticks fair? From the read throws of a journal: each stick's share of
//! flat-face landings with its confidence interval, the results seen against
//! what those shares predict, per stick set, per mat and per thrower; and a flag
//! on a stick set when a stick differs from its siblings, or from the shares the
//! organiser expects, beyond chance.
//!
//! The camera tells the marked stick from the three plain ones, not the plain
//! ones from each other: "each stick" is the marked stick and the three plain
//! sticks together. A plain stick that differs from the other two plain ones
//! shows only in their shared share.
//!
//! **The flag** is a sequential test, looked at after every throw (ADR 0096).
//! Each test is a score test whose sum `U` (and its variance `V`) grows with the
//! throws:
//! - *marked stick against its siblings*: given that `k` of the four sticks lie
//!   flat face up (1 to 3), were the four alike the marked one would be among them
//!   with chance `k/4`; `U` adds (marked up) − k/4, `V` adds k(4−k)/16. This
//!   needs no share at all, so it holds for any set, whatever its share;
//! - when the organiser gives the set's expected share `p₀`: *the marked stick
//!   against `p₀`* and *the plain sticks against `p₀`*.
//!
//! A review runs over `review_throws` throws of a set (400 by default). Within
//! it, a test flags at throw `n` when `|U| / √V ≥ c · √(N / n)`: the
//! O'Brien–Fleming shape for looking after every throw, with `c` such that a
//! Brownian motion leaves `±c` before time 1 with chance α/(number of tests)
//! (Bonferroni over the tests). False flags stay under α per review however
//! often it is looked at; a review that ends without a flag starts the next one
//! afresh. The rates are measured on simulated journals (`simulate`,
//! `yutstation stats fairness-check`).
//!
//! Pure.

use crate::reads::ThrowRead;
use serde::Serialize;
use statrs::distribution::{Beta, ChiSquared, ContinuousCDF, Normal};
use std::collections::BTreeMap;
use yut_match::FacesUp;
use yut_rules::yut::ThrowResult;

/// How the sticks are judged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FairnessConfig {
    /// The chance of a false flag within one review, all tests together.
    pub alpha: f64,
    /// Throws of a set in one review.
    pub review_throws: u32,
    /// The share of flat-face landings the organiser expects of every stick of
    /// its sets, if it says.
    pub expected_flat_share: Option<f64>,
}

impl Default for FairnessConfig {
    fn default() -> Self {
        FairnessConfig {
            // One in 25 per review, not one in 20: looked at after every throw,
            // the test spends a little more than its nominal α on some sets (5.2 %
            // of 1,000 fair journals at 60 % flat), and the floor is at most one
            // false flag in 20.
            alpha: 0.04,
            review_throws: 400,
            expected_flat_share: None,
        }
    }
}

/// A share of landings with its 95 % confidence interval (Clopper–Pearson).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Share {
    pub up: u64,
    pub of: u64,
    pub share: f64,
    pub low: f64,
    pub high: f64,
}

impl Share {
    pub fn of(up: u64, of: u64) -> Share {
        let (x, n) = (up as f64, of as f64);
        let low = if up == 0 {
            0.0
        } else {
            Beta::new(x, n - x + 1.0)
                .expect("positive parameters")
                .inverse_cdf(0.025)
        };
        let high = if up >= of {
            1.0
        } else {
            Beta::new(x + 1.0, n - x)
                .expect("positive parameters")
                .inverse_cdf(0.975)
        };
        Share {
            up,
            of,
            share: if of == 0 { f64::NAN } else { x / n },
            low,
            high,
        }
    }
}

/// One result: how often it was seen, and how often the measured shares say it
/// should have been.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ResultFit {
    pub result: ThrowResult,
    pub seen: u64,
    pub expected: f64,
}

/// The statistics of one group of throws (a set, a set on a mat, a thrower).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupStats {
    pub set: String,
    /// Set for the by-mat and by-thrower groups.
    pub mat: Option<String>,
    pub thrower: Option<String>,
    pub throws: u64,
    pub marked: Share,
    /// The three plain sticks together (3 landings a throw).
    pub plain: Share,
    pub results: Vec<ResultFit>,
    /// Pearson's χ² of the results against the shares' prediction (3 degrees of
    /// freedom: six results, less one, less the two shares measured), and its
    /// p-value; `None` while some result is expected less than 5 times.
    pub chi_square: Option<f64>,
    pub p_value: Option<f64>,
}

/// Which test raised a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    MarkedVsSiblings,
    MarkedVsExpected,
    PlainVsExpected,
}

impl Test {
    pub fn describe(self) -> &'static str {
        match self {
            Test::MarkedVsSiblings => "the marked stick differs from its three siblings",
            Test::MarkedVsExpected => "the marked stick differs from the expected share",
            Test::PlainVsExpected => "the plain sticks differ from the expected share",
        }
    }
}

/// A flag on a stick set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Flag {
    pub test: Test,
    /// The review (1-based) and the throw of the set (1-based, all reviews
    /// counted) at which it was raised.
    pub review: u32,
    pub at_throw: u64,
    /// The test's z (`U/√V`) then, and the boundary it crossed.
    pub z: f64,
    pub boundary: f64,
}

/// Where a set's current review stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewState {
    pub review: u32,
    pub throws: u32,
    pub of: u32,
    /// Each test's z now and the boundary it would have to cross now.
    pub tests: Vec<(Test, f64, f64)>,
}

/// One stick set: its statistics, its flag if any, and its review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetFairness {
    pub stats: GroupStats,
    pub flag: Option<Flag>,
    pub review: ReviewState,
}

/// Everything the `/stats` page and `yutstation stats` show of the sticks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FairnessReport {
    pub config: FairnessConfig,
    pub sets: Vec<SetFairness>,
    pub by_mat: Vec<GroupStats>,
    pub by_thrower: Vec<GroupStats>,
}

/// The report for `reads` (in journal order).
pub fn report(reads: &[ThrowRead], config: &FairnessConfig) -> FairnessReport {
    let mut sets: BTreeMap<&str, Vec<&ThrowRead>> = BTreeMap::new();
    let mut mats: BTreeMap<(&str, &str), Vec<&ThrowRead>> = BTreeMap::new();
    let mut throwers: BTreeMap<(&str, &str), Vec<&ThrowRead>> = BTreeMap::new();
    for r in reads {
        sets.entry(&r.set).or_default().push(r);
        mats.entry((&r.set, &r.mat)).or_default().push(r);
        if let Some(t) = &r.thrower {
            throwers.entry((&r.set, t)).or_default().push(r);
        }
    }
    let sets = sets
        .into_iter()
        .map(|(set, group)| {
            let mut monitor = Monitor::new(config);
            let flag = group.iter().find_map(|r| monitor.observe(r.faces));
            SetFairness {
                stats: stats(set, None, None, &group),
                flag,
                review: monitor.state(),
            }
        })
        .collect();
    FairnessReport {
        config: *config,
        sets,
        by_mat: mats
            .into_iter()
            .map(|((set, mat), g)| stats(set, Some(mat), None, &g))
            .collect(),
        by_thrower: throwers
            .into_iter()
            .map(|((set, t), g)| stats(set, None, Some(t), &g))
            .collect(),
    }
}

/// The results a throw can read as on the mat (낙 is never read).
const ON_MAT: [ThrowResult; 6] = [
    ThrowResult::Do,
    ThrowResult::Gae,
    ThrowResult::Geol,
    ThrowResult::Yut,
    ThrowResult::Mo,
    ThrowResult::Backdo,
];

fn stats(set: &str, mat: Option<&str>, thrower: Option<&str>, group: &[&ThrowRead]) -> GroupStats {
    let n = group.len() as u64;
    let marked_up = group.iter().filter(|r| r.faces.marked).count() as u64;
    let plain_up = group.iter().map(|r| u64::from(r.faces.plain)).sum::<u64>();
    let marked = Share::of(marked_up, n);
    let plain = Share::of(plain_up, 3 * n);
    let odds = crate::shares::StickShares {
        marked: marked.share,
        plain: plain.share,
        nak: 0.0,
    }
    .result_odds();
    let results: Vec<ResultFit> = ON_MAT
        .iter()
        .map(|&result| ResultFit {
            result,
            seen: group.iter().filter(|r| r.faces.result() == result).count() as u64,
            expected: if n == 0 {
                0.0
            } else {
                n as f64 * odds[result as usize]
            },
        })
        .collect();
    let chi_square = (n > 0 && results.iter().all(|r| r.expected >= 5.0)).then(|| {
        results
            .iter()
            .map(|r| (r.seen as f64 - r.expected).powi(2) / r.expected)
            .sum::<f64>()
    });
    let p_value = chi_square.map(|x| {
        1.0 - ChiSquared::new(3.0)
            .expect("three degrees of freedom")
            .cdf(x)
    });
    GroupStats {
        set: set.to_string(),
        mat: mat.map(String::from),
        thrower: thrower.map(String::from),
        throws: n,
        marked,
        plain,
        results,
        chi_square,
        p_value,
    }
}

/// The sequential tests of one stick set, throw by throw.
#[derive(Debug, Clone)]
pub struct Monitor {
    config: FairnessConfig,
    /// The boundary constant for each test's share of α.
    c: f64,
    tests: Vec<(Test, f64, f64)>,
    review: u32,
    in_review: u32,
    throws: u64,
    flagged: Option<Flag>,
}

impl Monitor {
    pub fn new(config: &FairnessConfig) -> Monitor {
        let mut tests = vec![(Test::MarkedVsSiblings, 0.0, 0.0)];
        if config.expected_flat_share.is_some() {
            tests.push((Test::MarkedVsExpected, 0.0, 0.0));
            tests.push((Test::PlainVsExpected, 0.0, 0.0));
        }
        Monitor {
            c: brownian_boundary(config.alpha / tests.len() as f64),
            config: *config,
            tests,
            review: 1,
            in_review: 0,
            throws: 0,
            flagged: None,
        }
    }

    /// Take one more throw of the set; the flag, if this throw raises it (once
    /// raised, a flag stays and the tests stop).
    pub fn observe(&mut self, faces: FacesUp) -> Option<Flag> {
        if self.flagged.is_some() {
            return None;
        }
        let m = if faces.marked { 1.0 } else { 0.0 };
        let k = f64::from(faces.plain) + m;
        let p0 = self.config.expected_flat_share.unwrap_or(0.5);
        for (test, u, v) in &mut self.tests {
            match test {
                Test::MarkedVsSiblings => {
                    if (1.0..=3.0).contains(&k) {
                        *u += m - k / 4.0;
                        *v += k * (4.0 - k) / 16.0;
                    }
                }
                Test::MarkedVsExpected => {
                    *u += m - p0;
                    *v += p0 * (1.0 - p0);
                }
                Test::PlainVsExpected => {
                    *u += f64::from(faces.plain) - 3.0 * p0;
                    *v += 3.0 * p0 * (1.0 - p0);
                }
            }
        }
        self.throws += 1;
        self.in_review += 1;
        let boundary = self.boundary();
        for &(test, u, v) in &self.tests {
            if v > 0.0 && (u / v.sqrt()).abs() >= boundary {
                self.flagged = Some(Flag {
                    test,
                    review: self.review,
                    at_throw: self.throws,
                    z: u / v.sqrt(),
                    boundary,
                });
                return self.flagged;
            }
        }
        if self.in_review >= self.config.review_throws {
            // The review ends without a flag: the next one starts afresh.
            self.review += 1;
            self.in_review = 0;
            for (_, u, v) in &mut self.tests {
                *u = 0.0;
                *v = 0.0;
            }
        }
        None
    }

    fn boundary(&self) -> f64 {
        let t = f64::from(self.in_review.max(1)) / f64::from(self.config.review_throws.max(1));
        self.c / t.sqrt()
    }

    pub fn state(&self) -> ReviewState {
        let boundary = self.boundary();
        ReviewState {
            review: self.review,
            throws: self.in_review,
            of: self.config.review_throws,
            tests: self
                .tests
                .iter()
                .map(|&(test, u, v)| (test, if v > 0.0 { u / v.sqrt() } else { 0.0 }, boundary))
                .collect(),
        }
    }
}

/// The `c` at which a standard Brownian motion leaves `[-c, c]` before time 1
/// with chance `alpha` (the reflection series, solved by bisection).
pub fn brownian_boundary(alpha: f64) -> f64 {
    let normal = Normal::new(0.0, 1.0).expect("the standard normal");
    let leaves = |c: f64| {
        let stays: f64 = (-20..=20)
            .map(|k: i32| {
                let k = f64::from(k);
                let sign = if k as i64 % 2 == 0 { 1.0 } else { -1.0 };
                sign * (normal.cdf((2.0 * k + 1.0) * c) - normal.cdf((2.0 * k - 1.0) * c))
            })
            .sum();
        1.0 - stays
    };
    let (mut lo, mut hi) = (0.5, 8.0);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if leaves(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_for_five_percent() {
        let c = brownian_boundary(0.05);
        assert!((c - 2.2414).abs() < 0.001, "{c}");
        assert!(brownian_boundary(0.05 / 3.0) > c);
    }

    #[test]
    fn confidence_intervals_hold_the_share() {
        let s = Share::of(60, 100);
        assert!(s.low < 0.6 && 0.6 < s.high);
        assert!(
            (s.low - 0.4972).abs() < 0.001 && (s.high - 0.6967).abs() < 0.001,
            "{s:?}"
        );
        assert_eq!(Share::of(0, 10).low, 0.0);
        assert_eq!(Share::of(10, 10).high, 1.0);
    }
}
