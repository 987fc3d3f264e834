//! Whether the camera still sees the mat as it was set up: the mat's outline
//! where the profile puts it (a bumped tripod or a changed zoom moves it off)
//! and the empty mat as its picture shows it (a light switched on or off, the
//! camera's exposure changed). A station that no longer fits its profile must
//! stop calling by itself: its map and its empty-mat picture are wrong, and
//! every call it made would be a guess.
//!
//! Pure: the frames arrive reduced ([`crate::settle::Small`]), as the settle tracker
//! has them already.

use crate::calibrate::Calibration;
use crate::settle::Small;
use opencv::prelude::*;
use std::fmt;

/// Out from the outline, and in, where each check samples (small pixels).
const REACH_PX: f64 = 3.0;
/// An outline sample counts where the empty picture steps at least this much
/// across it (grey levels).
const MIN_STEP: f64 = 8.0;
/// A sample still fits where the frame steps the same way across it, at
/// least this share of the empty picture's step.
const STEP_KEPT: f64 = 0.5;
/// Under this share of the outline's samples still fitting, the outline has
/// moved. Sticks, hands and a kneeling crew hide a tenth to a third of it.
pub const OUTLINE_KEPT_MIN: f64 = 0.6;
/// A pixel of the mat differs from the empty picture by more than this
/// (grey levels, smoothed).
const CHANGED_LEVELS: i32 = 30;
/// Over this share of the mat differing, the empty picture no longer fits
/// (four sticks and their shadows are a few percent of it).
pub const CHANGED_MAX: f64 = 0.3;
/// Checks in a row that must find the profile unfit before the station says
/// so: a person walking across the mat passes, a moved camera stays.
pub const STRIKES: u32 = 3;

/// The profile's outline and empty mat, as each frame is checked against them.
#[derive(Debug, Clone)]
pub struct SetUp {
    /// Per outline point: where inside and outside it is sampled (small
    /// pixels) and the empty picture's step there (inside minus outside).
    samples: Vec<([f64; 2], [f64; 2], f64)>,
    /// The mat's pixels (well inside the outline) in the small picture.
    mat: Vec<usize>,
    empty: Vec<u8>,
    width: i32,
    height: i32,
}

/// How well a frame fits the profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The share of the outline's samples that still show the mat's edge.
    pub outline: f64,
    /// The share of the mat that differs from the empty picture.
    pub changed: f64,
}

/// Why the profile no longer fits, in the crew's words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unfit {
    /// The mat's outline moved (the share of it still in place).
    Outline(f64),
    /// The empty mat looks different (the share of it changed).
    Picture(f64),
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unfit::Outline(kept) => write!(
                f,
                "the camera moved: the mat's edge is no longer where it was set up ({:.0} % of it still in place); a bumped tripod or a changed zoom?",
                kept * 100.0
            ),
            Unfit::Picture(changed) => write!(
                f,
                "the picture of the mat changed ({:.0} % of the mat looks different from the set-up); a light switched on or off, or the camera's exposure changed?",
                changed * 100.0
            ),
        }
    }
}

impl Fit {
    pub fn unfit(&self) -> Option<Unfit> {
        if self.outline < OUTLINE_KEPT_MIN {
            Some(Unfit::Outline(self.outline))
        } else if self.changed > CHANGED_MAX {
            Some(Unfit::Picture(self.changed))
        } else {
            None
        }
    }
}

fn grey_bytes(small: &Small) -> opencv::Result<(Vec<u8>, i32, i32)> {
    // A clone is continuous, whatever the frame's matrix was.
    let g = small.grey.try_clone()?;
    Ok((g.data_bytes()?.to_vec(), g.cols(), g.rows()))
}

fn at(data: &[u8], w: i32, h: i32, p: [f64; 2]) -> Option<f64> {
    let (x, y) = (p[0].round() as i32, p[1].round() as i32);
    (x >= 0 && y >= 0 && x < w && y < h).then(|| data[(y * w + x) as usize] as f64)
}

impl SetUp {
    /// The profile's calibration and its empty picture, reduced.
    pub fn new(cal: &Calibration, empty: &Small) -> opencv::Result<SetUp> {
        let (data, w, h) = grey_bytes(empty)?;
        let scale = w as f64 / cal.width.max(1) as f64;
        let pts: Vec<[f64; 2]> = cal
            .outline_px
            .iter()
            .map(|p| [p[0] * scale, p[1] * scale])
            .collect();
        let n = pts.len();
        let c = [
            pts.iter().map(|p| p[0]).sum::<f64>() / n.max(1) as f64,
            pts.iter().map(|p| p[1]).sum::<f64>() / n.max(1) as f64,
        ];
        let mut samples = Vec::new();
        for i in 0..n {
            let (a, b) = (pts[(i + n - 1) % n], pts[(i + 1) % n]);
            let t = [b[0] - a[0], b[1] - a[1]];
            let l = t[0].hypot(t[1]);
            if l < 1e-6 {
                continue;
            }
            let mut nrm = [-t[1] / l, t[0] / l];
            let p = pts[i];
            if nrm[0] * (p[0] - c[0]) + nrm[1] * (p[1] - c[1]) < 0.0 {
                nrm = [-nrm[0], -nrm[1]];
            }
            let inside = [p[0] - nrm[0] * REACH_PX, p[1] - nrm[1] * REACH_PX];
            let outside = [p[0] + nrm[0] * REACH_PX, p[1] + nrm[1] * REACH_PX];
            if let (Some(i0), Some(o0)) = (at(&data, w, h, inside), at(&data, w, h, outside)) {
                if (i0 - o0).abs() >= MIN_STEP {
                    samples.push((inside, outside, i0 - o0));
                }
            }
        }
        let mut mat = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let cm = cal.map.to_cm([x as f64 / scale, y as f64 / scale]);
                // Well inside: the edge itself is the outline's to judge.
                if cal.mat.inside_by(cm) > 0.08 * cal.mat.size_cm {
                    mat.push((y * w + x) as usize);
                }
            }
        }
        Ok(SetUp {
            samples,
            mat,
            empty: data,
            width: w,
            height: h,
        })
    }

    /// How well a frame (reduced like the empty picture) fits.
    pub fn fit(&self, frame: &Small) -> opencv::Result<Fit> {
        let (data, w, h) = grey_bytes(frame)?;
        if (w, h) != (self.width, self.height) {
            return Ok(Fit {
                outline: 0.0,
                changed: 1.0,
            });
        }
        let kept = self
            .samples
            .iter()
            .filter(
                |(i, o, step)| match (at(&data, w, h, *i), at(&data, w, h, *o)) {
                    (Some(a), Some(b)) => {
                        let now = a - b;
                        now * step > 0.0 && now.abs() >= STEP_KEPT * step.abs()
                    }
                    _ => false,
                },
            )
            .count();
        let changed = self
            .mat
            .iter()
            .filter(|&&k| (data[k] as i32 - self.empty[k] as i32).abs() > CHANGED_LEVELS)
            .count();
        Ok(Fit {
            outline: if self.samples.is_empty() {
                1.0
            } else {
                kept as f64 / self.samples.len() as f64
            },
            changed: changed as f64 / self.mat.len().max(1) as f64,
        })
    }
}

/// Checks in a row: the profile is declared unfit after [`STRIKES`] unfit
/// checks, and fit again only by a new set-up (a re-check).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    strikes: u32,
}

impl Watch {
    /// One more check; `Some` on the check that makes the profile unfit.
    pub fn update(&mut self, fit: &Fit) -> Option<Unfit> {
        match fit.unfit() {
            Some(why) => {
                self.strikes += 1;
                (self.strikes == STRIKES).then_some(why)
            }
            None => {
                if self.strikes < STRIKES {
                    self.strikes = 0;
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::{calibrate, MatSpec};
    use crate::settle::small_grey;
    use yut_sim::{render, Look, HELD_OUT_LOOK_BASE};

    fn small(look: &Look, scene: &yut_sim::Scene) -> Small {
        small_grey(&render(look, scene).to_bgr_mat().unwrap()).unwrap()
    }

    #[test]
    fn a_bumped_camera_and_a_light_switched_off_no_longer_fit_and_throws_do() {
        let look = Look::random(HELD_OUT_LOOK_BASE + 7, 1280, 720);
        let empty = render(&look, &yut_sim::empty_scene(&look))
            .to_bgr_mat()
            .unwrap();
        let spec: MatSpec = look.mat_arg().parse().unwrap();
        let cal = calibrate(&empty, spec).unwrap();
        let setup = SetUp::new(&cal, &small_grey(&empty).unwrap()).unwrap();
        // The empty mat again, and throws: fit.
        let mut again = yut_sim::empty_scene(&look);
        again.noise_seed ^= 99;
        let fit = setup.fit(&small(&look, &again)).unwrap();
        assert!(fit.unfit().is_none(), "{fit:?}");
        for k in 0..4 {
            let (scene, _) = yut_sim::numbered_throw(&look, k);
            let fit = setup.fit(&small(&look, &scene)).unwrap();
            eprintln!("throw {k}: {fit:?}");
            assert!(fit.unfit().is_none(), "throw {k}: {fit:?}");
        }
        // The tripod knocked 12 cm aside.
        let mut bumped = look.clone();
        bumped.camera.pos[0] += 12.0;
        let fit = setup
            .fit(&small(&bumped, &yut_sim::empty_scene(&bumped)))
            .unwrap();
        eprintln!("bumped: {fit:?}");
        assert!(matches!(fit.unfit(), Some(Unfit::Outline(_))), "{fit:?}");
        // Half the light gone.
        let mut dim = look.clone();
        dim.ambient *= 0.5;
        for l in &mut dim.lights {
            l.intensity *= 0.5;
        }
        let fit = setup
            .fit(&small(&dim, &yut_sim::empty_scene(&dim)))
            .unwrap();
        eprintln!("dim: {fit:?}");
        assert!(fit.unfit().is_some(), "{fit:?}");
    }

    #[test]
    fn the_watch_waits_for_three_unfit_checks_in_a_row() {
        let bad = Fit {
            outline: 0.2,
            changed: 0.0,
        };
        let good = Fit {
            outline: 0.95,
            changed: 0.01,
        };
        let mut w = Watch::default();
        assert_eq!(w.update(&bad), None);
        assert_eq!(w.update(&good), None);
        assert_eq!(w.update(&bad), None);
        assert_eq!(w.update(&bad), None);
        assert_eq!(w.update(&bad), Some(Unfit::Outline(0.2)));
        // Said once; it stays unfit until a new set-up.
        assert_eq!(w.update(&bad), None);
        assert_eq!(w.update(&good), None);
        assert_eq!(w.update(&bad), None);
    }
}
