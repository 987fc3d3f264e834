//! The taught reader: a station's own stick set, learned from its teaching
//! pictures (and from the throws its referee confirms), read on what tells its
//! two faces apart there.
//!
//! The appearance models (`classify`) learned their faces from the generator,
//! whose round faces are the flat face's wood a little darker. A stick set whose
//! round face is painted, stained or varnished another colour is plainer to a
//! person and a stranger to them: they read such faces as "neither" or as the
//! other face. The taught reader knows nothing but this station's sticks, and
//! reads each found stick by where it falls between them:
//!
//! - each stick's own look (`features::own_look`): its lightness and colour
//!   against the mat under it, the spread of its lightness and its shading
//!   across, each a median over the middle of its band;
//! - one axis through the two faces' means, each feature weighed by how well it
//!   separates them against their spread (floored: [`SPREAD_FLOOR`],
//!   [`SPREAD_MIN`]), each feature's say on the axis bounded
//!   ([`FEATURE_REACH`]) so that one odd reading (a highlight, a mark) cannot
//!   carry a stick across;
//! - a stick's place on that axis (−1 at the round face, +1 at the flat one)
//!   gives its face; a place near the middle, far off the axis, or a stick
//!   fitted narrow gives "neither": a stick on its edge or leaning shows a
//!   little of both faces, a stick half hidden something else again. Where
//!   the stick reader witnesses sticks on their edge (`Taught::edge_witness`)
//!   and clears a lone stick, neither the middle nor the taught faces' widths
//!   hold it, only a fit no wider than a stick on its edge ([`EDGE_ON`],
//!   [`TaughtReader::read_witnessed`]). A stick beside another must lie
//!   near the axis by the taught sticks alone as well: what the referee's
//!   calls teach may widen the spreads, not loosen that hold.
//!
//! Teaching decides whether a station reads with it (`teach::check_readable`).
//! Pure: features in, probabilities out.

use crate::features::{BAND_WIDTH, N_FEATURES, N_OWN, OWN};
use crate::measure::Measured;
use serde::{Deserialize, Serialize};

/// The least spread a face is credited with on each feature, as a share of the
/// gap between the two faces' means: a handful of taught sticks under one
/// light are no measure of how a face varies over a mat and a day.
pub const SPREAD_FLOOR: f64 = 0.15;

/// The least spread on each feature of `features::own_look`, in its own units
/// (L* and a*, b* steps; a camera's noise and a hall's light move them by
/// about this much).
pub const SPREAD_MIN: [f64; N_OWN] = [2.0, 1.5, 1.5, 1.5, 1.0, 1.0];

/// How far beyond a face's mean, in half-gaps, one feature may place a stick
/// (the axis runs from −1 to +1 between the means).
pub const FEATURE_REACH: f64 = 2.0;

/// Where on the axis a stick reads as "neither": within this of the middle, it
/// shows both faces or neither clearly. It holds lone sticks too, though a
/// lone stick on its edge reads as the round face, not in the middle: on the
/// stored world and leave-one-family-out looks, a middle of 0.25 for lone
/// sticks called 141 more clear throws and made 3 more silent errors (a lone
/// round face placed at +0.61 on plain look 1400718, throw 8). A lone stick
/// the stick reader clears of standing on its edge, where it witnesses
/// those, gets [`CLEARED_MIDDLE`] instead.
pub const MIDDLE: f64 = 0.5;

/// The middle for a lone stick the stick reader, where it witnesses sticks
/// on their edge, clears of standing on one
/// ([`TaughtReader::read_witnessed`]): none but the quarter of the axis over
/// which "neither" fades (a stick there is read under the face bar anyway).
/// A stick on its edge is what the middle was there to hold, and most of
/// those read as the round face at −0.8 to −1.2, not in the middle: the
/// middle held far more sticks lying on a face (on the stored world and
/// leave-one-family-out looks, 390 in clear throws referred, against 52 on
/// their edge). There, 0 called 144 more of the 13,703 clear throws than
/// [`MIDDLE`] (0.25: 115), and 25 more of 1,578 fresh world ones, with the same
/// silent errors and ambiguous throws referred; for every stick, lone or
/// not, 0.25 made two silent errors (flat faces across another stick, placed
/// on the round side, looks 1400105 and 1400250; ADR 0114).
pub const CLEARED_MIDDLE: f64 = 0.0;

/// How far off the axis a stick may lie (root mean square over the features,
/// in spreads) and still be read: farther, it looks like neither face (a stick
/// half under another, on its end, a shadow across it).
pub const OFF_AXIS: f64 = 4.0;

/// A stick fitted this much narrower than the taught width, or narrower, is on
/// its edge or leaning (as the taught-faces rule takes it), whatever its face.
pub const NARROW: f32 = 0.72;

/// How much narrower than the sticks taught with its face a stick may be
/// fitted (in taught widths) and still lie on that face. A D-section stick on
/// its edge shows about its thickness, half its width, from above; tipped a
/// little from its edge, about three quarters; the finder's width of a stick
/// lying flat varies by a few hundredths.
pub const WIDTH_SLACK: f32 = 0.15;

/// A stick fitted narrower than this, against the width a stick lying flat
/// shows there, shows no more than its thickness and a flank: on its edge
/// or leaning, whatever a reader says (a D-section stick on its edge shows
/// about half its width). The one width hold a lone stick the edge witness
/// clears keeps ([`TaughtReader::read_witnessed`], ADR 0119): a hold that
/// needs no learned model, at a station whose sticks on their edge the stick
/// reader might not know.
pub const EDGE_ON: f32 = 0.6;

/// The least separation ([`TaughtReader::separation`]) at which the taught
/// reader reads a station's faces: the middle of the axis lies this many
/// spreads from either face's mean.
pub const SEPARATES: f64 = 3.0;

/// The most examples of each face a station keeps: the newest are kept.
pub const KEEP: usize = 400;

/// A station's sticks as the taught reader knows them: the own looks of sticks
/// seen flat face up and round face up at teaching, and those its referee's
/// calls have shown it since.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaughtReader {
    pub front: Vec<Example>,
    pub back: Vec<Example>,
    /// Learned from the referee's calls, oldest first (at most [`KEEP`]); kept
    /// apart from the taught sticks so that it can be shown and undone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learned: Vec<Learned>,
}

/// One stick as the taught reader keeps it: its own look and its fitted width
/// (against the taught width where it lay).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub look: [f32; N_OWN],
    pub width: f32,
    /// The band it shows across (`features::BAND_WIDTH`, in taught widths);
    /// 0 where not kept (profiles taught before it was).
    #[serde(default, skip_serializing_if = "is_unknown")]
    pub band: f32,
}

fn is_unknown(band: &f32) -> bool {
    *band == 0.0
}

impl Example {
    /// The example of a measured stick.
    pub fn of(m: &Measured) -> Example {
        Example {
            look: own(&m.features),
            width: m.width_lying_flat(),
            band: m.features[BAND_WIDTH],
        }
    }
}

/// A stick whose face a referee's call settled ([`faces_settled_by`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    #[serde(flatten)]
    pub example: Example,
    /// Flat face up.
    pub front: bool,
    /// Which throw it came from, for people (`game 2 throw 14`).
    pub from: String,
}

/// Why a stick the referee's call settled was not learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotLearned {
    /// It looks like neither face (far off the axis: hidden, on its end).
    LikeNeither,
    /// The reader is all but sure it shows the other face: the call may be
    /// wrong, and one wrong call must not teach a wrong face.
    Contradicts,
}

/// A settled stick the reader reads as the other face at this or more (by its
/// look) is not learned ([`NotLearned::Contradicts`]).
pub const CONTRADICTS: f64 = 0.99;

/// The statistics a reading uses, worked out from the examples.
struct Stats {
    mid: [f64; N_OWN],
    half_gap: [f64; N_OWN],
    spread: [f64; N_OWN],
    /// Each feature's weight on the axis: its gap in spreads, squared.
    weight: [f64; N_OWN],
}

/// The own look of a stick's features.
pub fn own(f: &[f32; N_FEATURES]) -> [f32; N_OWN] {
    std::array::from_fn(|k| f[OWN + k])
}

impl TaughtReader {
    /// Learn from measured sticks: `front` lay flat face up, `back` round face
    /// up.
    pub fn learn(front: &[&Measured], back: &[&Measured]) -> Self {
        TaughtReader {
            front: front.iter().map(|m| Example::of(m)).collect(),
            back: back.iter().map(|m| Example::of(m)).collect(),
            learned: Vec::new(),
        }
    }

    /// Whether it has sticks of both faces to read by.
    pub fn is_ready(&self) -> bool {
        !self.front.is_empty() && !self.back.is_empty()
    }

    /// Learn a stick whose face a referee's call settled (`front`: flat face
    /// up), unless it looks like neither face or the reader is all but sure
    /// of the other; the oldest learned stick is dropped beyond [`KEEP`].
    pub fn learn_from_call(
        &mut self,
        m: &Measured,
        front: bool,
        from: String,
    ) -> Result<(), NotLearned> {
        self.learn_example(&m.features, Example::of(m), front, from)
    }

    /// [`TaughtReader::learn_from_call`] of a stick's features and example.
    pub fn learn_example(
        &mut self,
        f: &[f32; N_FEATURES],
        example: Example,
        front: bool,
        from: String,
    ) -> Result<(), NotLearned> {
        let (_, off) = self.place(f);
        if off > OFF_AXIS {
            return Err(NotLearned::LikeNeither);
        }
        let p_front = self.front_by_look(f);
        let p_other = if front { 1.0 - p_front } else { p_front };
        if p_other >= CONTRADICTS {
            return Err(NotLearned::Contradicts);
        }
        self.learned.push(Learned {
            example,
            front,
            from,
        });
        if self.learned.len() > KEEP {
            self.learned.remove(0);
        }
        Ok(())
    }

    /// Forget what the referee's calls taught: back to the taught sticks.
    pub fn forget_learned(&mut self) -> usize {
        std::mem::take(&mut self.learned).len()
    }

    /// Every example of each face: the taught sticks and the learned ones.
    fn examples(&self) -> (Vec<Example>, Vec<Example>) {
        let mut front = self.front.clone();
        let mut back = self.back.clone();
        for l in &self.learned {
            if l.front {
                front.push(l.example);
            } else {
                back.push(l.example);
            }
        }
        (front, back)
    }

    /// The least width a stick reading as this face may be fitted at, and
    /// the least band across it may show, and still lie on it: the face's
    /// examples' mean of each less [`WIDTH_SLACK`] (or three of their
    /// spreads, if more); the width no lower than [`NARROW`] (that, where
    /// there are no examples), the band `None` where no example kept it.
    fn least_width_and_band(&self, front: bool) -> (f32, Option<f32>) {
        let (f, b) = self.examples();
        let v = if front { f } else { b };
        let width = lower_bar(v.iter().map(|e| e.width)).map_or(NARROW, |w| w.max(NARROW));
        let band = lower_bar(v.iter().map(|e| e.band).filter(|b| *b > 0.0));
        (width, band)
    }

    fn stats(&self) -> Stats {
        let (front, back) = self.examples();
        stats_of(&front, &back)
    }

    /// Where a stick lies against the taught sticks alone
    /// ([`TaughtReader::place`] without what the referee's calls taught).
    fn place_as_taught(&self, f: &[f32; N_FEATURES]) -> (f64, f64) {
        place_in(&stats_of(&self.front, &self.back), f)
    }

    /// How far apart the two faces lie: from either face's mean to the middle
    /// between them, in spreads along the axis. At [`SEPARATES`] or more the
    /// taught reader can read the station's faces.
    pub fn separation(&self) -> f64 {
        self.stats().weight.iter().sum::<f64>().sqrt() / 2.0
    }

    /// Where a stick lies: on the axis (−1 round face, +1 flat face) and off
    /// it (root mean square, in spreads).
    pub fn place(&self, f: &[f32; N_FEATURES]) -> (f64, f64) {
        place_in(&self.stats(), f)
    }

    /// The flat face's probability from the stick's look alone, where it
    /// lies on the axis (no "neither": see [`TaughtReader::read`]).
    pub fn front_by_look(&self, f: &[f32; N_FEATURES]) -> f64 {
        let (along, _) = self.place(f);
        let s = self.separation();
        1.0 / (1.0 + (-(2.0 * along * s * s).clamp(-50.0, 50.0)).exp())
    }

    /// Front, back and neither for a measured stick. The face is a logistic
    /// of its place on the axis, as sharp as the faces' spread along it
    /// allows; "neither" rises near the middle, far off the axis and for a
    /// stick fitted narrower than a stick lying on that face shows there, or
    /// showing a narrower band across than the taught sticks of that face (a
    /// stick on its edge, fitted wide with its shadow beside it).
    pub fn read(&self, m: &Measured) -> [f64; 3] {
        self.read_look_within(&m.features, m.width_lying_flat(), false, m.found.shared)
    }

    /// [`TaughtReader::read`] of a stick's features and its width against a
    /// stick lying flat there (`Measured::width_lying_flat`).
    pub fn read_look(&self, f: &[f32; N_FEATURES], width: f32) -> [f64; 3] {
        self.read_look_within(f, width, false, false)
    }

    /// [`TaughtReader::read`] at a station where the stick reader witnesses
    /// sticks on their edge (`Taught::edge_witness`), `witness` its "neither"
    /// for this stick. A lone stick it clears of standing on its edge or
    /// leaning ("neither" under `NEITHER_MAX`) is held neither for lying near
    /// the middle of the axis ([`CLEARED_MIDDLE`], ADR 0114) nor for a fit or
    /// band narrower than the taught sticks of its face, only for a fit no
    /// wider than a stick on its edge ([`EDGE_ON`], ADR 0119): the middle and
    /// the taught widths stand in for a witness the taught reader lacks.
    /// Beside another stick, part of what the taught reader sees is the
    /// other: every hold holds it still.
    pub fn read_witnessed(&self, m: &Measured, witness: f64) -> [f64; 3] {
        let cleared = cleared_by(witness, m.found.shared);
        self.read_look_within(&m.features, m.width_lying_flat(), cleared, m.found.shared)
    }

    /// [`TaughtReader::read_look`], or with `cleared` the holds of a lone
    /// stick the edge witness clears ([`TaughtReader::read_witnessed`]).
    /// A stick `beside_another` must also look like a face against the
    /// taught sticks alone: what the referee's calls taught widens how far a
    /// lying stick's look may stray off the axis, and a stick leaning on
    /// another strays there too (ADR 0121).
    fn read_look_within(
        &self,
        f: &[f32; N_FEATURES],
        width: f32,
        cleared: bool,
        beside_another: bool,
    ) -> [f64; 3] {
        let (along, off) = self.place(f);
        let off = if beside_another && !self.learned.is_empty() {
            off.max(self.place_as_taught(f).1)
        } else {
            off
        };
        // Two equal-spread faces at ±1 with spread 1/separation along the
        // axis: the log odds of the flat face are 2·along·separation².
        let front = self.front_by_look(f);
        // Narrower than a stick lying on the face it shows: on its edge or
        // leaning (a stick on its edge shows the round face's flank, and
        // reads as that face).
        let narrow = if cleared {
            width < EDGE_ON
        } else {
            let (least_width, least_band) = self.least_width_and_band(front >= 0.5);
            width < least_width || least_band.is_some_and(|least| f[BAND_WIDTH] < least)
        };
        let middle = if cleared { CLEARED_MIDDLE } else { MIDDLE };
        let middle = smooth_step(middle + 0.25, middle, along.abs());
        let odd = smooth_step(OFF_AXIS, OFF_AXIS * 1.5, off);
        let neither = if narrow { 0.9 } else { middle.max(odd) };
        [
            front * (1.0 - neither),
            (1.0 - front) * (1.0 - neither),
            neither,
        ]
    }
}

/// The statistics a reading uses, from the examples of each face.
fn stats_of(front: &[Example], back: &[Example]) -> Stats {
    let (front, back): (Vec<[f32; N_OWN]>, Vec<[f32; N_OWN]>) = (
        front.iter().map(|e| e.look).collect(),
        back.iter().map(|e| e.look).collect(),
    );
    let mean = |v: &[[f32; N_OWN]], k: usize| {
        v.iter().map(|f| f64::from(f[k])).sum::<f64>() / v.len().max(1) as f64
    };
    let mut s = Stats {
        mid: [0.0; N_OWN],
        half_gap: [0.0; N_OWN],
        spread: [0.0; N_OWN],
        weight: [0.0; N_OWN],
    };
    let n = (front.len() + back.len()).saturating_sub(2).max(1) as f64;
    for k in 0..N_OWN {
        let (mf, mb) = (mean(&front, k), mean(&back, k));
        let ss = |v: &[[f32; N_OWN]], m: f64| {
            v.iter().map(|f| (f64::from(f[k]) - m).powi(2)).sum::<f64>()
        };
        let pooled = ((ss(&front, mf) + ss(&back, mb)) / n).sqrt();
        let gap = mf - mb;
        s.mid[k] = (mf + mb) / 2.0;
        s.half_gap[k] = gap / 2.0;
        s.spread[k] = pooled.max(SPREAD_FLOOR * gap.abs()).max(SPREAD_MIN[k]);
        s.weight[k] = (gap / s.spread[k]).powi(2);
    }
    s
}

/// Where a stick lies under statistics `s` ([`TaughtReader::place`]).
fn place_in(s: &Stats, f: &[f32; N_FEATURES]) -> (f64, f64) {
    let x = own(f);
    let total: f64 = s.weight.iter().sum::<f64>().max(1e-12);
    // Each feature's place between the two means, bounded, weighed by how
    // well it separates them.
    let along = (0..N_OWN)
        .filter(|&k| s.half_gap[k] != 0.0)
        .map(|k| {
            let t = (f64::from(x[k]) - s.mid[k]) / s.half_gap[k];
            s.weight[k] * t.clamp(-FEATURE_REACH, FEATURE_REACH)
        })
        .sum::<f64>()
        / total;
    let off2: f64 = (0..N_OWN)
        .map(|k| {
            let expected = s.mid[k] + along * s.half_gap[k];
            ((f64::from(x[k]) - expected) / s.spread[k]).powi(2)
        })
        .sum();
    (along, (off2 / N_OWN as f64).sqrt())
}

/// Whether a stick the stick reader gives `witness` of "neither", at a
/// station where it witnesses sticks on their edge, is cleared of standing on
/// one ([`TaughtReader::read_witnessed`]): a lone stick, under `NEITHER_MAX`.
fn cleared_by(witness: f64, shared: bool) -> bool {
    witness < crate::verdict::NEITHER_MAX && !shared
}

/// The faces a referee's call settles, for the sticks of a throw the station
/// read (`faces`, in the order of its reading; `placements_on_mat`: whether
/// each lay on the mat): `(stick, flat face up)` for each stick whose face the
/// call and the station's own sure readings decide together. Nothing where the
/// call could be wrong in a way that would teach the station a wrong face:
///
/// - a 낙 (the sticks' faces do not decide it), a throw with a stick not on the
///   mat, or not exactly four sticks;
/// - a call that contradicts the station's sure readings (more flat faces than
///   it read flat or unsure, or fewer than it read flat): a correction of a
///   reading the station was sure of settles no stick (which one was wrong?);
/// - unsure sticks the count does not settle (two unsure sticks, one of them
///   flat).
///
/// A confirmed call teaches every stick as read; a referred one its unsure
/// sticks where the count settles them (all flat, or all round).
pub fn faces_settled_by(
    faces: &[crate::verdict::Face],
    placements_on_mat: &[bool],
    called: yut_rules::yut::ThrowResult,
) -> Vec<(usize, bool)> {
    use crate::verdict::Face;
    use yut_rules::yut::ThrowResult as R;
    let flat_up = match called {
        R::Mo => 0,
        R::Do | R::Backdo => 1,
        R::Gae => 2,
        R::Geol => 3,
        R::Yut => 4,
        R::Nak => return Vec::new(),
    };
    if faces.len() != 4 || placements_on_mat.iter().any(|on| !on) {
        return Vec::new();
    }
    let sure_flat = faces.iter().filter(|f| **f == Face::Front).count();
    let unsure: Vec<usize> = (0..4).filter(|&i| faces[i] == Face::Unsure).collect();
    let unsure_flat = if flat_up == sure_flat {
        false
    } else if flat_up == sure_flat + unsure.len() {
        true
    } else {
        return Vec::new();
    };
    (0..4)
        .map(|i| match faces[i] {
            Face::Front => (i, true),
            Face::Back => (i, false),
            Face::Unsure => (i, unsure_flat),
        })
        .collect()
}

/// Learn from a referee's call on a throw the station read: `sticks` as
/// measured, `reading` the station's reading of them. Each stick the call
/// settles ([`faces_settled_by`]) is offered to the reader
/// ([`TaughtReader::learn_from_call`]); how many it learned.
pub fn learn_call(
    reader: &mut TaughtReader,
    sticks: &[crate::measure::Measured],
    reading: &crate::verdict::ThrowReading,
    called: yut_rules::yut::ThrowResult,
    from: &str,
) -> usize {
    use crate::verdict::Placement;
    let faces: Vec<_> = reading.sticks.iter().map(|s| s.face).collect();
    let on_mat: Vec<bool> = reading
        .sticks
        .iter()
        .map(|s| s.placement == Placement::OnMat)
        .collect();
    faces_settled_by(&faces, &on_mat, called)
        .into_iter()
        .filter(|&(i, front)| {
            // The reading's sticks are the measured ones, less any stray
            // piece set aside: matched by where they lie.
            let at = reading.sticks[i].center_px;
            sticks
                .iter()
                .find(|m| m.found.center == at)
                .is_some_and(|m| reader.learn_from_call(m, front, from.to_string()).is_ok())
        })
        .count()
}

/// The mean of `values` less [`WIDTH_SLACK`] or three of their spreads
/// (standard deviations), whichever is more; `None` where there are none.
fn lower_bar(values: impl Iterator<Item = f32>) -> Option<f32> {
    let v: Vec<f32> = values.collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len() as f32;
    let mean = v.iter().sum::<f32>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n).sqrt();
    Some(mean - WIDTH_SLACK.max(3.0 * sd))
}

/// 0 at or before `from`, 1 at or beyond `to`, smooth between (either order).
fn smooth_step(from: f64, to: f64, x: f64) -> f64 {
    let t = ((x - from) / (to - from)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stick of lightness `l` against the mat and colour `a`.
    fn stick(l: f32, a: f32) -> [f32; N_FEATURES] {
        let mut f = [0.0f32; N_FEATURES];
        f[OWN] = l;
        f[OWN + 1] = a;
        f[OWN + 4] = 5.0;
        f
    }

    /// A reader taught these sticks, each lying flat at the taught width.
    fn taught(front: &[[f32; N_FEATURES]], back: &[[f32; N_FEATURES]]) -> TaughtReader {
        let ex = |f: &[f32; N_FEATURES]| Example {
            look: own(f),
            width: 1.0,
            band: 0.0,
        };
        TaughtReader {
            front: front.iter().map(ex).collect(),
            back: back.iter().map(ex).collect(),
            learned: Vec::new(),
        }
    }

    /// How `r` reads a stick lying flat.
    fn read(r: &TaughtReader, f: &[f32; N_FEATURES]) -> [f64; 3] {
        r.read_look(f, 1.0)
    }

    /// `r` learning a stick lying flat.
    fn learn(
        r: &mut TaughtReader,
        f: &[f32; N_FEATURES],
        front: bool,
        from: &str,
    ) -> Result<(), NotLearned> {
        let example = Example {
            look: own(f),
            width: 1.0,
            band: 0.0,
        };
        r.learn_example(f, example, front, from.to_string())
    }

    /// Cream flat faces, dark round ones.
    fn dark_round_set() -> TaughtReader {
        let front: Vec<_> = [30.0, 31.0, 29.0, 30.5].map(|l| stick(l, 2.0)).to_vec();
        let back: Vec<_> = [-20.0, -22.0, -19.0, -21.0].map(|l| stick(l, 1.0)).to_vec();
        taught(&front, &back)
    }

    #[test]
    fn a_lone_stick_the_edge_witness_clears_is_not_held_for_lying_near_the_middle() {
        let r = dark_round_set();
        // A flat face in a dimmer corner: just inside the middle.
        let dim_flat = stick(17.0, 1.6);
        let (along, _) = r.place(&dim_flat);
        assert!(along > 0.25 && along < MIDDLE, "{along}");
        let [_, _, n] = read(&r, &dim_flat);
        assert!(n > 0.5, "held: {n}");
        // The stick reader gives it no "neither": read flat.
        let [f, _, n] = r.read_look_within(&dim_flat, 1.0, cleared_by(0.01, false), false);
        assert!(f > 0.99 && n < 0.01, "{f} {n}");
        // The stick reader doubts, or the stick lies beside another: the
        // middle holds it.
        assert!(!cleared_by(0.5, false));
        assert!(!cleared_by(0.01, true));
        // The very middle holds a cleared stick too (and its face is unsure).
        let between = stick(5.0, 1.5);
        let [f, b, n] = r.read_look_within(&between, 1.0, cleared_by(0.01, false), false);
        assert!(n > 0.5 && f.max(b) < 0.5, "{f} {b} {n}");
    }

    #[test]
    fn a_lone_stick_the_edge_witness_clears_is_held_only_as_narrow_as_a_stick_on_its_edge() {
        let r = dark_round_set();
        let round = stick(-20.0, 1.0);
        // Fitted at 0.8 of a lying stick's width (a dark round face whose
        // flanks the finder took for mat): held where the witness does not
        // clear it, under the taught sticks' width less their slack.
        let (least, _) = r.least_width_and_band(false);
        assert!(0.8 < least, "{least}");
        let [_, _, n] = r.read_look_within(&round, 0.8, false, false);
        assert!(n > 0.5, "held: {n}");
        // Cleared: read round.
        let [_, b, n] = r.read_look_within(&round, 0.8, true, false);
        assert!(b > 0.99 && n < 0.01, "{b} {n}");
        // No wider than a stick on its edge: held, cleared or not.
        let [_, _, n] = r.read_look_within(&round, EDGE_ON - 0.05, true, false);
        assert!(n > 0.5, "held: {n}");
    }

    #[test]
    fn a_stick_beside_another_must_look_like_a_face_by_the_taught_sticks_alone() {
        let mut r = dark_round_set();
        // A round face leaning on another: its colour strays off the axis
        // (part of what is seen is the other stick).
        let mut leaning = stick(-20.0, 1.0);
        leaning[OWN + 2] = 25.0;
        let (_, off) = r.place(&leaning);
        assert!(off > OFF_AXIS * 1.5, "{off}");
        // Round faces learned from the referee's calls whose colour varied
        // widely across the mat widen the spread it is measured in.
        for (i, b) in [-6.0, 6.0, -5.0, 5.0, -6.5, 6.5, -4.0, 4.0]
            .iter()
            .enumerate()
        {
            let mut f = stick(-20.0, 1.0);
            f[OWN + 2] = *b;
            learn(&mut r, &f, false, &format!("throw {i}")).unwrap();
        }
        let (_, off) = r.place(&leaning);
        assert!(off < OFF_AXIS, "{off}");
        // Lone, it reads round as what was learned allows.
        let [_, b, n] = r.read_look_within(&leaning, 1.0, false, false);
        assert!(b > 0.99 && n < 0.01, "{b} {n}");
        // Beside another, the taught sticks alone still find it like
        // neither face.
        let [_, _, n] = r.read_look_within(&leaning, 1.0, false, true);
        assert!(n > 0.9, "{n}");
        // With nothing learned, beside another or not, the same reading.
        r.forget_learned();
        assert_eq!(
            r.read_look_within(&leaning, 1.0, false, true),
            r.read_look_within(&leaning, 1.0, false, false)
        );
    }

    #[test]
    fn faces_far_apart_are_read_surely() {
        let r = dark_round_set();
        assert!(r.separation() > SEPARATES, "{}", r.separation());
        let [f, b, n] = read(&r, &stick(28.0, 2.2));
        assert!(f > 0.99 && b < 0.01 && n < 0.01, "{f} {b} {n}");
        let [f, b, n] = read(&r, &stick(-18.0, 0.5));
        assert!(b > 0.99 && f < 0.01 && n < 0.01, "{f} {b} {n}");
    }

    #[test]
    fn a_stick_half_way_between_the_faces_is_neither() {
        let r = dark_round_set();
        let [_, _, n] = read(&r, &stick(5.0, 1.5));
        assert!(n > 0.9, "{n}");
    }

    #[test]
    fn a_stick_like_neither_face_is_neither() {
        let r = dark_round_set();
        let mut f = stick(30.0, 2.0);
        f[OWN + 2] = 40.0;
        let [_, _, n] = read(&r, &f);
        assert!(n > 0.9, "{n}");
    }

    #[test]
    fn a_stick_fitted_narrow_is_neither() {
        let r = dark_round_set();
        assert!(r.read_look(&stick(30.0, 2.0), 0.6)[2] >= 0.9);
    }

    #[test]
    fn a_stick_showing_a_band_narrower_than_its_face_shows_lying_flat_is_neither() {
        // World test look 1 300 024: round faces that showed a band of 0.97
        // of a width lying flat; one on its edge, fitted at 0.95 of the
        // width (its shadow beside it), showed 0.62 and was read round.
        let mut r = dark_round_set();
        for e in &mut r.front {
            e.band = 0.65;
        }
        for (e, band) in r.back.iter_mut().zip([0.97, 1.0, 0.95, 0.98]) {
            e.band = band;
        }
        let mut on_edge = stick(-20.0, 1.0);
        on_edge[BAND_WIDTH] = 0.62;
        assert!(r.read_look(&on_edge, 0.95)[2] >= 0.9);
        // Lying flat it shows its face's band, and reads.
        let mut flat = on_edge;
        flat[BAND_WIDTH] = 0.96;
        assert!(r.read_look(&flat, 0.95)[1] > 0.99);
        // A flat face shows a narrower band than a round one: the bar is the
        // face's own.
        let mut front = stick(30.0, 2.0);
        front[BAND_WIDTH] = 0.62;
        assert!(r.read_look(&front, 1.0)[0] > 0.99);
    }

    #[test]
    fn one_odd_feature_does_not_carry_a_stick_across() {
        // Faces told apart by lightness, colour and grain alike.
        let with_grain = |l: f32, a: f32, g: f32| {
            let mut f = stick(l, a);
            f[OWN + 4] = g;
            f
        };
        let front: Vec<_> = [30.0, 31.0, 29.0]
            .map(|l| with_grain(l, 10.0, 3.0))
            .to_vec();
        let back: Vec<_> = [-20.0, -22.0, -19.0]
            .map(|l| with_grain(l, -10.0, 12.0))
            .to_vec();
        let r = taught(&front, &back);
        // A round face whose grain reads far beyond the flat face's (a
        // smooth patch of varnish): it may read as neither, never as flat.
        let [front, _, _] = read(&r, &with_grain(-20.0, -10.0, -40.0));
        assert!(front < 0.1, "{front}");
    }

    #[test]
    fn faces_alike_do_not_separate() {
        let front: Vec<_> = [1.0, 2.0, 0.0].map(|l| stick(l, 0.0)).to_vec();
        let back: Vec<_> = [0.5, 1.5, -0.5].map(|l| stick(l, 0.0)).to_vec();
        let r = taught(&front, &back);
        assert!(r.separation() < 1.0, "{}", r.separation());
    }

    #[test]
    fn a_call_settles_only_what_it_can() {
        use crate::verdict::Face::{Back, Front, Unsure};
        use yut_rules::yut::ThrowResult as R;
        let on = [true; 4];
        // Confirmed as read: every stick.
        assert_eq!(
            faces_settled_by(&[Front, Back, Front, Back], &on, R::Gae),
            vec![(0, true), (1, false), (2, true), (3, false)]
        );
        // One unsure stick: the count settles it either way.
        assert_eq!(
            faces_settled_by(&[Front, Unsure, Back, Back], &on, R::Gae)[1],
            (1, true)
        );
        assert_eq!(
            faces_settled_by(&[Front, Unsure, Back, Back], &on, R::Do)[1],
            (1, false)
        );
        // Two unsure, one of them flat: nothing.
        assert!(faces_settled_by(&[Front, Unsure, Unsure, Back], &on, R::Gae).is_empty());
        // A call against a sure reading: nothing.
        assert!(faces_settled_by(&[Front, Front, Back, Back], &on, R::Geol).is_empty());
        assert!(faces_settled_by(&[Front, Front, Back, Back], &on, R::Do).is_empty());
        // 낙, a stick off the mat, three sticks: nothing.
        assert!(faces_settled_by(&[Front, Back, Back, Back], &on, R::Nak).is_empty());
        assert!(faces_settled_by(
            &[Front, Back, Back, Back],
            &[true, true, false, true],
            R::Do
        )
        .is_empty());
        assert!(faces_settled_by(&[Front, Back, Back], &on[..3], R::Do).is_empty());
    }

    #[test]
    fn it_learns_from_calls_keeps_the_newest_and_can_forget() {
        let mut r = dark_round_set();
        for i in 0..KEEP + 10 {
            learn(&mut r, &stick(26.0, 2.0), true, &format!("throw {i}")).unwrap();
        }
        assert_eq!(r.learned.len(), KEEP);
        assert_eq!(r.learned[0].from, "throw 10");
        assert_eq!(r.front.len(), 4, "the taught sticks stay");
        assert_eq!(r.forget_learned(), KEEP);
        assert_eq!(r, dark_round_set());
    }

    #[test]
    fn a_call_against_a_sure_look_or_a_stick_like_neither_face_is_not_learned() {
        let mut r = dark_round_set();
        assert_eq!(
            learn(&mut r, &stick(30.0, 2.0), false, "throw 1"),
            Err(NotLearned::Contradicts)
        );
        let mut odd = stick(30.0, 2.0);
        odd[OWN + 2] = 40.0;
        assert_eq!(
            learn(&mut r, &odd, true, "throw 2"),
            Err(NotLearned::LikeNeither)
        );
        assert!(r.learned.is_empty());
    }
}
