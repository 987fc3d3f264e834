//! The station profile: calibration plus the taught stick set, as a readable,
//! versioned TOML file. The empty-mat picture lives beside it as a PNG.
//!
//! Pure: values and their TOML text; `files` reads and writes them.

use crate::calibrate::Calibration;
use crate::features::{ACROSS, N_APPEAR, N_PROFILE, PROFILE, PROFILE_V};
use crate::finer_look::FinerLook;
use serde::{Deserialize, Serialize};

/// Bump when the meaning of a field changes; older files are refused with a
/// message to re-run calibrate and teach. Format 3 may carry a calibrated
/// lens (`geometry::LensModel`) that a reader of format 2 would pass over in
/// silence; format 2 files are still read (they have none).
pub const PROFILE_VERSION: u32 = 3;
/// The oldest format this station reads.
pub const OLDEST_PROFILE_VERSION: u32 = 2;

/// When and how a profile was made, for `yutstation profile show`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Made {
    /// When (UTC, as `yutstation journal show` writes times).
    pub at: String,
    /// By what: `yutstation calibrate`, the `/calibrate` wizard (and by whom).
    pub by: String,
    /// How the lens was found: calibrated on the target (pictures,
    /// reprojection error), or fitted from the mat's outline.
    pub lens: String,
}

/// What teaching learned about one stick set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Taught {
    /// Stick size on the mat.
    pub length_cm: f64,
    pub width_cm: f64,
    /// Mean appearance features of the flat faces and of the round faces.
    pub front_mean: Vec<f32>,
    pub back_mean: Vec<f32>,
    /// Their within-face spread.
    pub front_std: Vec<f32>,
    pub back_std: Vec<f32>,
    /// Mark score above which a flat face counts as the marked stick, and the
    /// half-gap between the marked stick and the most mark-like other one.
    pub mark_threshold: f32,
    pub mark_margin: f32,
    /// Where along the stick the taught mark lies: its nearest and farthest
    /// reach from the stick's middle, as a share of the length (0 at the
    /// middle, 0.5 at an end; either end, as a stick lands either way round).
    /// A stick lying across the marked one away from there does not hide
    /// its mark. Profiles taught before this was learned read the whole
    /// stick.
    #[serde(default = "whole_stick")]
    pub mark_span: [f32; 2],
    /// The flat face's brightness against the mat under it (it is even: its
    /// normal points up, like the mat's).
    pub front_level: f32,
    /// The round face's shading across, as fitted on the taught round faces:
    /// `a + b·cos θ + (cx·nx + cy·ny)·sin θ` at the point θ around the half
    /// cylinder, for a stick whose across direction is (nx, ny) in the image.
    /// It carries this station's light (from above: b; from the side: c), so
    /// a round face can be predicted at any angle it lands at.
    pub back_shading: [f32; 4],
    /// How much of the mat a lone taught stick covers, flat face up and round
    /// face up: its blob's area over one stick's taught area where it lies
    /// (a round face's dark flanks cover less). Two sticks lying side by side
    /// cover about the sum (`yut_vision::verdict`). Profiles taught before this
    /// was learned have 0 here and skip that check.
    #[serde(default)]
    pub front_area: f32,
    #[serde(default)]
    pub back_area: f32,
    /// Whether the stick reader's mark head told the taught marked stick from
    /// the three other flat faces at teaching, each read beside taught faces
    /// made without it (`yut_vision::check_readable`). Where it did not, the
    /// marked stick is told by the taught mark score instead (its head read a
    /// station's faint mark as no mark, at 0.01: a silent 도 for 뒷도; ADR
    /// 0052). Profiles taught before this was checked trust it.
    #[serde(default = "trusted")]
    pub reader_reads_mark: bool,
    /// At a station that reads its faces with its own taught reader: whether
    /// the stick reader tells its sticks lying on a face from sticks on their
    /// edge, so that its "neither" may hold a stick (`verdict::EDGE_WITNESS`).
    /// Checked at teaching: in no teach picture did it give half or more of
    /// the sticks, each lying on a face, that much
    /// (`yut_vision::check_readable`). Profiles taught
    /// before this was checked go without it.
    #[serde(default)]
    pub edge_witness: bool,
    /// The colour change over which a pixel is not the mat at this station
    /// (`sticks::station_colour_bar`, lowered at teaching where the round
    /// faces, or the flat faces, barely differ from the mat). Profiles taught
    /// before it was learned use the usual `sticks::COLOUR_BAR`.
    #[serde(default = "usual_colour_bar")]
    pub colour_bar: f64,
    /// The share of the mat's lightness under which a pixel is darker than
    /// a shadow at this station (`sticks::station_dark_share`, raised at
    /// teaching where a dark face barely shows against a dark mat). Profiles
    /// taught before it was learned use the usual `sticks::DARK_SHARE`.
    #[serde(default = "usual_dark_share")]
    pub dark_share: f64,
    /// The station leaves its sticks' shadows out when it looks for them
    /// (`sticks::SHADOW_RATIO`): teaching found them coloured, widening the
    /// sticks, and trimmed cleanly (`teach::trims_cleanly`). Profiles taught
    /// before it was learned keep their shadows.
    #[serde(default)]
    pub shadows_trimmed: bool,
    /// Whether the station takes its faint second look off the mat for a
    /// missing stick (`sticks::faint_foreground`). Teaching tries it on the
    /// teach pictures, whose floor off the mat is empty: where it finds a
    /// stick there, the camera's noise shows at its bars and it would find
    /// sticks that are not there (`teach::looks_off_mat_kept`). Profiles
    /// taught before it was tried keep it.
    #[serde(default = "trusted")]
    pub faint_look: bool,
    /// The same for the dark third look (`sticks::dark_foreground`).
    #[serde(default = "trusted")]
    pub dark_look: bool,
    /// How clearly the station told the taught faces apart at teaching: the
    /// worst taught stick's probability of its own face
    /// (`yut_vision::readability`, kept by `yut_vision::check_readable`). Where it is
    /// high, a lone stick the stick reader is sure of needs the forest less
    /// (`verdict::forest_doubts`, ADR 0058). Profiles taught before it was
    /// kept have none, and are judged as the least readable station.
    #[serde(default)]
    pub readability: Option<f64>,
    /// The taught sticks as the camera saw them, for the stick reader
    /// (`yut_vision::reader`). Not in the TOML: kept beside it as a picture
    /// (`Profile::taught_image`). Profiles taught before the reader have
    /// none, and are read by the forest and the net alone.
    #[serde(skip)]
    pub seen: Option<super::reader::TaughtSticks>,
    /// The reader learned from this station's own taught sticks, where the
    /// station reads its faces with it: teaching sets it where the appearance
    /// models could not read the taught sticks and it could
    /// (`yut_vision::check_readable`). Profiles without it read with the models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taught_reader: Option<super::taught_reader::TaughtReader>,
    /// The disc (pixels across) the station's foreground masks are opened
    /// with: `sticks::SPECK_DISC`, or the finer one where only it showed the
    /// teach pictures' sticks whole (`yut_vision::teach`, ADR 0129).
    /// Profiles taught before it was chosen use the usual one.
    #[serde(default = "usual_speck_disc")]
    pub speck_disc: i32,
    /// The finer look's record against this station's referee's calls
    /// (`yut_vision::finer_look`): where it has shown itself right, the
    /// station takes it at throws whose sticks it found in pieces. Learned
    /// from the calls, like the taught reader's learned sticks, and
    /// forgotten with them.
    #[serde(default, skip_serializing_if = "FinerLook::is_untried")]
    pub finer_look: FinerLook,
}

fn trusted() -> bool {
    true
}

fn usual_colour_bar() -> f64 {
    super::sticks::COLOUR_BAR
}

fn usual_dark_share() -> f64 {
    super::sticks::DARK_SHARE
}

fn usual_speck_disc() -> i32 {
    super::sticks::SPECK_DISC
}

/// How many times the most mark-like unmarked flat face's mark score the
/// marked stick's must be for the station to tell 도 from 뒷도 itself. Every
/// stored generated look is at 2.9 or more, but one (a 6-pixel X on a small
/// stick) at 1.2: its threshold had been learned on the sticks' dark ends,
/// and it made a silent 도 for 뒷도.
pub const MARK_DISTINCT: f32 = 2.0;

impl Taught {
    /// Whether the taught mark stands out from the other flat faces clearly
    /// enough to tell the marked stick (see [`MARK_DISTINCT`]). When it does
    /// not, every 도 and 뒷도 goes to the referee.
    pub fn mark_distinct(&self) -> bool {
        let marked = self.mark_threshold + self.mark_margin;
        let other = self.mark_threshold - self.mark_margin;
        self.mark_margin > 0.0 && marked >= MARK_DISTINCT * other
    }

    /// Appearance features mapped so the taught flat face sits at +1 and the
    /// taught round face at −1 (per feature, where it tells them apart).
    pub fn normalise(&self, f: &[f32]) -> Vec<f32> {
        (0..N_APPEAR)
            .map(|i| {
                let (a, b) = (self.front_mean[i], self.back_mean[i]);
                let mid = (a + b) / 2.0;
                let eps = 0.05 * (a.abs() + b.abs()) / 2.0 + 0.005;
                let half = ((a - b) / 2.0).abs().max(eps);
                let sign = if a >= b { 1.0 } else { -1.0 };
                ((f[i] - mid) / half * sign).clamp(-8.0, 8.0)
            })
            .collect()
    }

    /// How sure this stick set alone is that a stick shows its flat face
    /// (0..1), from its appearance features: each mapped by `normalise`
    /// (flat +1, round −1), clamped to ±2, weighted by how well it told the
    /// taught faces apart (the gap between their means over their spread,
    /// squared), averaged, and put through a logistic of slope 6. It knows
    /// only this station's eight taught faces, under this station's light,
    /// and nothing of sticks on their edge: no judge alone
    /// (`classify::Classifier::taught_rule`), but a witness for the readers
    /// (`verdict::NET_SURE`).
    pub fn taught_front(&self, f: &[f32]) -> f64 {
        let z = self.normalise(f);
        let (mut sum, mut weights) = (0f64, 0f64);
        for (i, zi) in z.iter().enumerate() {
            let gap = (self.front_mean[i] - self.back_mean[i]).abs() as f64;
            let spread = (self.front_std[i] + self.back_std[i]) as f64 / 2.0 + 1e-3;
            let w = (gap / spread).powi(2);
            sum += w * (*zi as f64).clamp(-2.0, 2.0);
            weights += w;
        }
        let score = sum / weights.max(1e-9);
        1.0 / (1.0 + (-6.0 * score).exp())
    }
}

/// A mark span that covers the whole stick (nothing is known of where the
/// mark lies).
pub const WHOLE_STICK: [f32; 2] = [0.0, 0.5];

fn whole_stick() -> [f32; 2] {
    WHOLE_STICK
}

/// The shading model's terms at one profile sample.
pub fn shading_terms(v: f32, across: [f32; 2]) -> [f32; 4] {
    let c = (1.0 - v * v).max(0.0).sqrt();
    [1.0, c, across[0] * v, across[1] * v]
}

impl Taught {
    /// How well a stick's shading across fits a flat face and a round face
    /// lying where it lies: misfit as flat, as round, and their contrast
    /// (−1..1, positive when it looks flat); then the same for the shape alone
    /// (each fitted at its best brightness: a highlight or a darker wood
    /// changes the level, not the shape).
    pub fn face_fit(&self, f: &[f32]) -> [f32; N_FIT] {
        let level = self.front_level.max(1e-3);
        let across = [f[ACROSS], f[ACROSS + 1]];
        let p: Vec<f32> = (0..N_PROFILE).map(|k| f[PROFILE + k]).collect();
        let pb: Vec<f32> = PROFILE_V
            .iter()
            .map(|v| {
                let t = shading_terms(*v, across);
                t.iter().zip(&self.back_shading).map(|(a, b)| a * b).sum()
            })
            .collect();
        let n = N_PROFILE as f32;
        let rms = |e: f32| (e / n).sqrt();
        let ef: f32 = p.iter().map(|x| (x - self.front_level).powi(2)).sum();
        let eb: f32 = p.iter().zip(&pb).map(|(x, y)| (x - y).powi(2)).sum();
        let (rf, rb) = (rms(ef) / level, rms(eb) / level);
        // Shape only: the best scale of each model.
        let pm = (p.iter().sum::<f32>() / n).max(1e-3);
        let sf: f32 = p.iter().map(|x| (x - pm).powi(2)).sum();
        let k = p.iter().zip(&pb).map(|(x, y)| x * y).sum::<f32>()
            / pb.iter().map(|y| y * y).sum::<f32>().max(1e-6);
        let sb: f32 = p.iter().zip(&pb).map(|(x, y)| (x - k * y).powi(2)).sum();
        let (qf, qb) = (rms(sf) / pm, rms(sb) / pm);
        [
            rf,
            rb,
            (rb - rf) / (rb + rf + 0.01),
            qf,
            qb,
            (qb - qf) / (qb + qf + 0.005),
            pm / level,
        ]
    }
}

/// Number of shading-fit figures ([`Taught::face_fit`]).
pub const N_FIT: usize = 7;
/// Index of the flat-against-round contrast among them (positive: flat).
pub const FIT_CONTRAST: usize = 2;

/// Fit the round face's shading model to the taught round faces (least
/// squares; an undetermined side light, all sticks parallel, gets the
/// smallest terms that fit).
pub fn fit_back_shading(backs: &[&[f32]]) -> [f32; 4] {
    use opencv::core::{solve, Mat, DECOMP_SVD};
    use opencv::prelude::*;
    let mut rows: Vec<[f32; 4]> = Vec::new();
    let mut ys: Vec<f32> = Vec::new();
    for f in backs {
        let across = [f[ACROSS], f[ACROSS + 1]];
        for (k, v) in PROFILE_V.iter().enumerate() {
            rows.push(shading_terms(*v, across));
            ys.push(f[PROFILE + k]);
        }
    }
    let fit = || -> opencv::Result<[f32; 4]> {
        let a = Mat::from_slice_2d(&rows)?;
        let y = Mat::from_slice(&ys)?
            .reshape(1, ys.len() as i32)?
            .try_clone()?;
        let mut x = Mat::default();
        solve(&a, &y, &mut x, DECOMP_SVD)?;
        let mut out = [0f32; 4];
        for (i, o) in out.iter_mut().enumerate() {
            *o = *x.at_2d::<f32>(i as i32, 0)?;
        }
        Ok(out)
    };
    let mean = ys.iter().sum::<f32>() / ys.len().max(1) as f32;
    fit().unwrap_or([mean, 0.0, 0.0, 0.0])
}

/// The profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub version: u32,
    /// The empty-mat picture, relative to the profile file.
    pub empty_image: String,
    /// The taught sticks' picture (`Taught::seen`), relative to the profile
    /// file; absent in profiles taught before the stick reader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taught_image: Option<String>,
    pub calibration: Calibration,
    pub sticks: Option<Taught>,
    /// When and how it was made; profiles from before it was kept have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made: Option<Made>,
}

impl Profile {
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a profile always serialises");
        format!(
            "# yutstation station profile: written by `yutstation calibrate` and `yutstation teach`.\n\
             # Distances in cm on the mat (origin at its centre, y up), pixels in the camera image.\n{body}"
        )
    }

    pub fn from_toml(text: &str) -> Result<Profile, String> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let v: Version =
            toml::from_str(text).map_err(|e| format!("not a station profile: {}", e.message()))?;
        if v.version > PROFILE_VERSION {
            return Err(format!(
                "profile format {} is newer than this yutstation reads (formats {OLDEST_PROFILE_VERSION} to {PROFILE_VERSION}): update yutstation, or run calibrate and teach again with this one",
                v.version
            ));
        }
        if v.version < OLDEST_PROFILE_VERSION {
            return Err(format!(
                "profile format {} is too old for this yutstation (it reads formats {OLDEST_PROFILE_VERSION} to {PROFILE_VERSION}): run calibrate and teach again",
                v.version
            ));
        }
        toml::from_str(text).map_err(|e| format!("corrupt station profile: {}", e.message()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::N_FEATURES;

    /// A feature vector holding only a shading profile across and a direction.
    fn stick(profile: impl Fn(f32) -> f32, across: [f32; 2]) -> [f32; N_FEATURES] {
        let mut f = [0f32; N_FEATURES];
        for (k, v) in PROFILE_V.iter().enumerate() {
            f[PROFILE + k] = profile(*v);
        }
        f[ACROSS] = across[0];
        f[ACROSS + 1] = across[1];
        f
    }

    /// Round faces under an overhead light plus one from image +x.
    fn round_face(v: f32, across: [f32; 2]) -> f32 {
        0.4 + 1.6 * (1.0 - v * v).sqrt() + 0.5 * across[0] * v
    }

    fn taught(backs: &[[f32; N_FEATURES]]) -> Taught {
        Taught {
            length_cm: 20.0,
            width_cm: 4.0,
            front_mean: vec![0.0; N_APPEAR],
            back_mean: vec![0.0; N_APPEAR],
            front_std: vec![0.0; N_APPEAR],
            back_std: vec![0.0; N_APPEAR],
            mark_threshold: 0.0,
            mark_margin: 0.0,
            mark_span: WHOLE_STICK,
            front_level: 2.0,
            back_shading: fit_back_shading(&backs.iter().map(|f| &f[..]).collect::<Vec<_>>()),
            front_area: 1.0,
            back_area: 1.0,
            reader_reads_mark: true,
            edge_witness: false,
            colour_bar: crate::sticks::COLOUR_BAR,
            dark_share: crate::sticks::DARK_SHARE,
            shadows_trimmed: false,
            faint_look: true,
            dark_look: true,
            readability: None,
            seen: None,
            taught_reader: None,
            finer_look: Default::default(),
            speck_disc: crate::sticks::SPECK_DISC,
        }
    }

    /// A profile taught before the looks off the mat were tried keeps both;
    /// one taught since keeps what teaching found.
    #[test]
    fn a_profile_taught_before_the_looks_off_the_mat_were_tried_keeps_them() {
        let mut t = taught(&[]);
        t.faint_look = false;
        let text = toml::to_string(&t).unwrap();
        let back: Taught = toml::from_str(&text).unwrap();
        assert!(!back.faint_look && back.dark_look);
        let older: String = text
            .lines()
            .filter(|l| !l.starts_with("faint_look") && !l.starts_with("dark_look"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(older, text);
        let back: Taught = toml::from_str(&older).unwrap();
        assert!(back.faint_look && back.dark_look);
    }

    const DIRS: [[f32; 2]; 4] = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [-0.8, 0.6]];

    #[test]
    fn the_round_face_shading_is_recovered_from_the_taught_sticks() {
        let backs: Vec<_> = DIRS
            .iter()
            .map(|d| stick(|v| round_face(v, *d), *d))
            .collect();
        let t = taught(&backs);
        let want = [0.4, 1.6, 0.5, 0.0];
        for (got, want) in t.back_shading.iter().zip(want) {
            assert!((got - want).abs() < 1e-3, "{:?}", t.back_shading);
        }
    }

    #[test]
    fn a_flat_face_fits_flat_and_a_round_face_fits_round_at_any_angle() {
        let backs: Vec<_> = DIRS
            .iter()
            .map(|d| stick(|v| round_face(v, *d), *d))
            .collect();
        let t = taught(&backs);
        // A direction the teaching never showed, lit from the side.
        let d = [-0.96, -0.28];
        let round = t.face_fit(&stick(|v| round_face(v, d), d));
        let flat = t.face_fit(&stick(|_| 2.0, d));
        assert!(round[2] < -0.9, "round face read {round:?}");
        assert!(flat[2] > 0.9, "flat face read {flat:?}");
        // Shape alone: a darker flat face is still flat.
        let dark_flat = t.face_fit(&stick(|_| 1.4, d));
        assert!(dark_flat[5] > 0.9, "{dark_flat:?}");
    }
}
