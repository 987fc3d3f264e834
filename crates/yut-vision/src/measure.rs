//! Measuring a frame's sticks, pure: find them ([`crate::sticks`]), place each on
//! the mat ([`on_mat`]) and measure it ([`Measured`]: its patch, its features
//! relative to the taught set, and the [`Evidence`] the judge weighs besides).
//! Judging and teaching both measure through here.

use crate::calibrate::{self, Calibration};
use crate::features::{features, meeting_evidence, patch, Patch, MARK_PEAK, N_APPEAR, N_FEATURES};
use crate::mark_place::MarkRead;
use crate::profile::Taught;
use crate::sticks::{
    self, blobs_to_refind, bridge, count_look, dark_foreground, faint_foreground, find_off_mat,
    find_sticks, foreground, foreground_with_bar, others_than, reaches_over, to_lab, work_scale,
    Found, LooksOffMat, OffMatLook, Reference, Split, OFF_MAT_CLEAR_CM, PIECES_COLOUR_BAR,
    THROWN_STICKS,
};
use crate::verdict;
use opencv::core::Mat;
use opencv::prelude::*;

/// The mark score of a stick: how much dark ink its flat face shows.
pub fn mark_score(f: &[f32; N_FEATURES]) -> f32 {
    f[MARK_PEAK]
}

/// One stick found in a frame with its features.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Measured {
    pub found: Found,
    pub center_cm: [f64; 2],
    /// Footprint corners on the mat (cm).
    pub corners_cm: [[f64; 2]; 4],
    /// The stick resampled (kept so features can be recomputed offline).
    pub patch: Patch,
    /// Its taught (length, width) in pixels where it lies.
    pub nominal: (f64, f64),
    /// How wide (pixels, across its axis in the picture) a stick lying flat
    /// shows where and as this one lies: the taught width seen through the
    /// mat's map in the stick's own direction. Under a tilted camera a stick
    /// lying across the line of sight shows narrower than one along it, which
    /// `nominal`, one width for every direction, does not tell. 0 where
    /// unknown (stored before it was kept).
    #[serde(default)]
    pub flat_width_px: f64,
    #[serde(skip, default = "no_features")]
    pub features: [f32; N_FEATURES],
    /// What the judge weighs of its pixels besides the features, measured
    /// with them.
    #[serde(skip)]
    pub evidence: Evidence,
}

/// What the judge weighs of a stick's pixels besides its features, measured
/// once with the other sticks of its frame, so that judging works on values
/// and never goes back to the picture.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    /// Where it shares its blob: the band it shows out to its faint edges
    /// (`features::faint_band_width`, in taught widths), the others painted
    /// over. 0 for a lone stick.
    pub faint_band: f32,
    /// For each stick of the frame, in the frame's order: how unlike itself
    /// this one shows where that one crosses it
    /// (`features::meeting_evidence`); `None` for itself, for a stick
    /// whose footprint does not meet its own, and where too little of either
    /// shows. Which of two crossing sticks lies on top is
    /// told from it (`verdict`).
    pub misfit_under: Vec<Option<f32>>,
    /// Where other sticks reach over it: its taught mark place read on what
    /// shows ([`crate::mark_place::read_marks_where_crossed`], once the station's
    /// mark place is known); `None` where the place's core does not show, or
    /// where it was not read (the judge then takes the mark as hidden).
    pub mark_where_crossed: Option<MarkRead>,
}

impl Evidence {
    /// Stick `i` of a frame's `found` sticks, measured on its `patch`.
    pub fn of(patch: &Patch, nominal: (f64, f64), found: &[Found], i: usize) -> Evidence {
        let s = &found[i];
        let crosses = |j: usize| reaches_over(s, &found[j]) || reaches_over(&found[j], s);
        let (faint_band, misfit_under) = meeting_evidence(patch, nominal, found, i, &crosses);
        Evidence {
            faint_band,
            misfit_under,
            mark_where_crossed: None,
        }
    }

    /// The evidence of the sticks `kept` (by index) of a frame, as if those
    /// were all the sticks found: the rest were stray pieces far from every
    /// stick, which reach no kept stick's patch.
    pub fn of_kept(&self, kept: &[bool]) -> Evidence {
        Evidence {
            faint_band: self.faint_band,
            misfit_under: self
                .misfit_under
                .iter()
                .zip(kept)
                .filter(|(_, k)| **k)
                .map(|(m, _)| *m)
                .collect(),
            mark_where_crossed: self.mark_where_crossed,
        }
    }
}

fn no_features() -> [f32; N_FEATURES] {
    [0.0; N_FEATURES]
}

impl Measured {
    /// How far inside the edge of `mat` (cm, negative outside) its centre
    /// and its outermost corner lie: what its placement is judged by.
    pub fn inside_mat(&self, mat: &calibrate::MatSpec) -> (f64, f64) {
        let corner = self
            .corners_cm
            .iter()
            .map(|c| mat.inside_by(*c))
            .fold(f64::MAX, f64::min);
        (mat.inside_by(self.center_cm), corner)
    }

    /// How far inside the edge of `mat` (cm, negative outside) its innermost
    /// corner lies: where a stick off the mat comes nearest it.
    pub fn innermost_corner(&self, mat: &calibrate::MatSpec) -> f64 {
        self.corners_cm
            .iter()
            .map(|c| mat.inside_by(*c))
            .fold(f64::MIN, f64::max)
    }

    /// Its fitted width against the width a stick lying flat shows where and
    /// as it lies (`flat_width_px`; against the nominal width where that is
    /// unknown): about 1 lying on a face, about a half on its edge.
    pub fn width_lying_flat(&self) -> f32 {
        if self.flat_width_px > 0.0 {
            (self.found.width / self.flat_width_px) as f32
        } else {
            self.features[N_APPEAR]
        }
    }

    /// Compute the features and the evidence again from the stored patch
    /// (after a dump is read, or after `features` changed). `found`: the
    /// frame's sticks, this one the `i`th.
    pub fn refresh_features(&mut self, found: &[Found], i: usize) {
        self.features = features(
            &self.patch,
            &self.found,
            self.nominal,
            &others_than(found, i),
        );
        self.evidence = Evidence::of(&self.patch, self.nominal, found, i);
    }
}

/// Where a found stick lies on the mat (cm): its middle and its footprint's
/// corners, each the point of the mat under it
/// ([`Calibration::under_stick`]; `camera` from [`Calibration::camera`]).
pub fn on_mat(
    cal: &Calibration,
    s: &Found,
    width_cm: f64,
    camera: Option<[f64; 3]>,
) -> ([f64; 2], [[f64; 2]; 4]) {
    let under = |px: [f64; 2]| cal.under_stick(px, width_cm, camera);
    (under(s.center), s.corners().map(under))
}

/// How wide a stick lying flat at `center_cm` shows in the picture across the
/// axis of `s` (see `Measured::flat_width_px`): the mat's strip of the taught
/// width about the stick's axis on the mat, measured across its axis in the
/// picture.
pub fn flat_width_px(cal: &Calibration, s: &Found, center_cm: [f64; 2], width_cm: f64) -> f64 {
    let map = &cal.map;
    let step = s.length.max(1.0) / 4.0;
    let ahead = map.to_cm([s.center[0] + s.dir[0] * step, s.center[1] + s.dir[1] * step]);
    let here = map.to_cm(s.center);
    let (ux, uy) = (ahead[0] - here[0], ahead[1] - here[1]);
    let norm = ux.hypot(uy);
    if norm <= 1e-9 {
        return 0.0;
    }
    // The mat's direction across the stick, and its edges' pictures.
    let n = [-uy / norm * width_cm / 2.0, ux / norm * width_cm / 2.0];
    let a = map.to_px([center_cm[0] + n[0], center_cm[1] + n[1]]);
    let b = map.to_px([center_cm[0] - n[0], center_cm[1] - n[1]]);
    let across = [-s.dir[1], s.dir[0]];
    ((a[0] - b[0]) * across[0] + (a[1] - b[1]) * across[1]).abs()
}

/// Recompute the features of all the sticks of one frame.
pub fn refresh_all(sticks: &mut [Measured]) {
    let found: Vec<Found> = sticks.iter().map(|s| s.found).collect();
    for (i, s) in sticks.iter_mut().enumerate() {
        s.refresh_features(&found, i);
    }
}

/// Expected stick (length, width) in pixels at an image point.
pub fn nominal_px(cal: &Calibration, length_cm: f64, width_cm: f64, at: [f64; 2]) -> (f64, f64) {
    let s = cal.map.px_per_cm(at);
    (length_cm * s, width_cm * s)
}

/// Find sticks and measure them, as teaching does: every stick lies on the
/// mat, so there is no second look off it ([`sticks::find_off_mat`]), and
/// apart from the others, so each blob is one stick (`Split::Never`, as
/// teaching's first pass; ADR 0078). `size_cm` is the taught (length, width).
pub fn measure(
    cal: &Calibration,
    reference: &Reference,
    empty: &Mat,
    frame: &Mat,
    size_cm: (f64, f64),
) -> opencv::Result<Vec<Measured>> {
    measure_placed(
        cal,
        reference,
        empty,
        frame,
        size_cm,
        Split::Never,
        &|_, _| {},
        false,
    )
}

/// [`measure`], with each found stick's placement (full-frame pixels) passed
/// through `place` before it is measured: `eval --true-placement` moves it to
/// the true pose, to tell the finder's errors from the face reader's. It is
/// given the taught (length, width) in pixels where the stick was found.
/// With `look_off_mat` (judging a throw, not teaching), a throw whose sticks
/// show in pieces or too few gets a look at the lowest colour bar
/// ([`sticks::PIECES_COLOUR_BAR`], taken when it finds four whole sticks),
/// and one still short of sticks the faint second look off the mat
/// ([`sticks::find_off_mat`]). `split`: how a blob bigger than
/// one stick is taken (the station's lone-stick area, [`Split::Blobs`]).
#[allow(clippy::too_many_arguments)]
pub fn measure_placed(
    cal: &Calibration,
    reference: &Reference,
    empty: &Mat,
    frame: &Mat,
    size_cm: (f64, f64),
    split: Split,
    place: &dyn Fn(&mut Found, (f64, f64)),
    look_off_mat: bool,
) -> opencv::Result<Vec<Measured>> {
    let size_at = |p: [f64; 2]| nominal_px(cal, size_cm.0, size_cm.1, p);
    let sc = work_scale(frame.cols());
    let small_size = working_size(cal, size_cm, sc);
    let lab = to_lab(frame)?;
    let bridged = |m: Mat| bridge(&m, bridge_width(cal, size_cm, sc));
    let mut mask = bridged(foreground(&lab, reference)?)?;
    let mut small_found = find_sticks(&mask, &small_size, split)?;
    let mut colour_bar = reference.colour_bar;
    // Sticks in pieces, or too few: a second look at the lowest bar, taken
    // only when it finds four whole sticks (ADR 0074).
    let is_piece =
        |s: &Found| !s.shared && s.length < verdict::FRAGMENT_LENGTH * small_size(s.center).0;
    let in_pieces = |found: &[Found]| found.len() < THROWN_STICKS || found.iter().any(is_piece);
    if look_off_mat && colour_bar > PIECES_COLOUR_BAR && in_pieces(&small_found) {
        let low = bridged(foreground_with_bar(&lab, reference, PIECES_COLOUR_BAR)?)?;
        let (pieces, whole): (Vec<Found>, Vec<Found>) =
            small_found.iter().partition(|s| is_piece(s));
        let short = small_found.len() < THROWN_STICKS;
        // First with the blobs of single whole sticks fitted again where
        // sticks are missing (two the first look took for one); then, where
        // that does not give four, with every whole stick kept as it was.
        let tries: &[bool] = if short { &[true, false] } else { &[false] };
        for &refit_whole in tries {
            let (refind, mut again) = blobs_to_refind(&low, &whole, &pieces, refit_whole)?;
            again.extend(find_sticks(&refind, &small_size, split)?);
            let again = without_pieces_beside(again, &is_piece, &small_size);
            if again.len() == THROWN_STICKS && !in_pieces(&again) && !sticks::found_twice(&again) {
                small_found = again;
                mask = low;
                colour_bar = PIECES_COLOUR_BAR;
                break;
            }
        }
    }
    if look_off_mat {
        let off_mat = |p: [f64; 2]| clearly_off_mat(cal, sc, p);
        // While sticks are missing: the faint second look (ADR 0064), then
        // the dark third, for a stick only darker than the floor (ADR 0073).
        // A station whose teach pictures showed a look finding sticks on
        // the empty floor goes without it (ADR 0124).
        let looks: [(OffMatLook, bool); 2] = [
            (faint_foreground, reference.looks_off_mat.faint),
            (dark_foreground, reference.looks_off_mat.dark),
        ];
        for (look, taken) in looks {
            if small_found.len() >= THROWN_STICKS {
                break;
            }
            if !taken {
                continue;
            }
            let mask = bridged(look(&lab, reference)?)?;
            let missing = THROWN_STICKS - small_found.len();
            let more = find_off_mat(&mask, &small_size, &small_found, &off_mat, missing)?;
            small_found.extend(more);
        }
        // Still more or fewer than four: one blob fitted again with the
        // sticks the count leaves it (ADR 0076).
        if let Some(again) = count_look(&mask, &small_found, &small_size, split, &is_piece)? {
            small_found = again;
        }
    }
    let mut found: Vec<Found> = small_found
        .into_iter()
        .map(|mut s| {
            s.center = [
                (s.center[0] + 0.5) / sc - 0.5,
                (s.center[1] + 0.5) / sc - 0.5,
            ];
            s.length /= sc;
            s.width /= sc;
            s
        })
        .collect();
    if sc < 1.0 {
        refit_split(
            frame,
            empty,
            (
                colour_bar,
                reference.dark_share,
                reference.trimming_shadows(),
            ),
            &mut found,
            &size_at,
        )?;
    }
    found.iter_mut().for_each(|s| place(s, size_at(s.center)));
    let camera = cal.camera();
    found
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let nominal = size_at(s.center);
            let shadows = reference.trimming_shadows().then_some(sticks::SHADOW_RATIO);
            let p = patch(frame, empty, &mask, sc, &s, nominal, shadows)?;
            let f = features(&p, &s, nominal, &others_than(&found, i));
            let evidence = Evidence::of(&p, nominal, &found, i);
            let (center_cm, corners_cm) = on_mat(cal, &s, size_cm.1, camera);
            Ok(Measured {
                center_cm,
                corners_cm,
                flat_width_px: flat_width_px(cal, &s, center_cm, size_cm.1),
                found: s,
                patch: p,
                nominal,
                features: f,
                evidence,
            })
        })
        .collect()
}

/// The second look's sticks without the pieces that lie beside a whole
/// stick (within one stick width of its outline) when four whole sticks
/// are left: at the lower bar a stick's blurred end or the edge of its
/// shadow can show apart from it, and four sticks are thrown.
fn without_pieces_beside(
    found: Vec<Found>,
    is_piece: &dyn Fn(&Found) -> bool,
    size_at: &dyn Fn([f64; 2]) -> (f64, f64),
) -> Vec<Found> {
    let whole: Vec<Found> = found.iter().filter(|s| !is_piece(s)).copied().collect();
    if whole.len() != THROWN_STICKS {
        return found;
    }
    let beside = |p: &Found| {
        let wd = size_at(p.center).1;
        whole.iter().any(|s| {
            sticks::in_rect(
                p.center,
                s.center,
                s.dir,
                s.length / 2.0 + p.length / 2.0 + wd,
                s.width / 2.0 + wd,
            )
        })
    };
    if found.iter().filter(|s| is_piece(s)).all(beside) {
        whole
    } else {
        found
    }
}

/// The station's reference: the empty picture at the bars teaching set
/// (`Taught`: colour bar, dark share, shadows, looks off the mat, speck
/// disc).
pub fn station_reference(empty: &Mat, taught: &Taught) -> opencv::Result<Reference> {
    Ok(Reference::new(empty)?
        .with_colour_bar(taught.colour_bar)
        .with_dark_share(taught.dark_share)?
        .with_shadows_trimmed(taught.shadows_trimmed)?
        .with_looks_off_mat(LooksOffMat {
            faint: taught.faint_look,
            dark: taught.dark_look,
        })
        .with_speck_disc(taught.speck_disc))
}

/// A stick's taught (length, width) in pixels at the working scale `sc`,
/// where it lies (a working-scale point).
fn working_size(
    cal: &Calibration,
    size_cm: (f64, f64),
    sc: f64,
) -> impl Fn([f64; 2]) -> (f64, f64) + '_ {
    move |p: [f64; 2]| {
        let (l, w) = nominal_px(cal, size_cm.0, size_cm.1, [p[0] / sc, p[1] / sc]);
        (l * sc, w * sc)
    }
}

/// How far a mask at the working scale `sc` is bridged: a little over half
/// a taught stick's width at the mat's centre ([`bridge`]).
fn bridge_width(cal: &Calibration, size_cm: (f64, f64), sc: f64) -> f64 {
    nominal_px(cal, size_cm.0, size_cm.1, cal.map.to_px([0.0, 0.0])).1 * sc
}

/// Whether a working-scale point lies clearly off the mat:
/// [`OFF_MAT_CLEAR_CM`] past its edge, where a look off the mat takes a
/// stick only with every corner there.
fn clearly_off_mat(cal: &Calibration, sc: f64, p: [f64; 2]) -> bool {
    let full = [(p[0] + 0.5) / sc - 0.5, (p[1] + 0.5) / sc - 0.5];
    cal.mat.inside_by(cal.map.to_cm(full)) < -OFF_MAT_CLEAR_CM
}

/// How many sticks a look off the mat (`look`: [`faint_foreground`] or
/// [`dark_foreground`], bridged and placed as a throw's) finds on the floor
/// of a picture whose floor holds none, such as a teach picture: each one
/// is the camera's noise or the floor's own pattern showing at the look's
/// bars.
pub fn sticks_on_empty_floor(
    look: OffMatLook,
    cal: &Calibration,
    reference: &Reference,
    picture: &Mat,
    size_cm: (f64, f64),
) -> opencv::Result<usize> {
    let sc = work_scale(picture.cols());
    let mask = bridge(
        &look(&to_lab(picture)?, reference)?,
        bridge_width(cal, size_cm, sc),
    )?;
    let off_mat = |p: [f64; 2]| clearly_off_mat(cal, sc, p);
    // Every one it finds: none are missing here, so none may be taken.
    Ok(find_off_mat(
        &mask,
        &working_size(cal, size_cm, sc),
        &[],
        &off_mat,
        usize::MAX,
    )?
    .len())
}

/// Place the sticks split out of each blob again on the full-resolution
/// foreground around them ([`sticks::refit_full`]). Sticks of one blob share
/// its area ratio and lie within two stick lengths of one another. The
/// foreground there is made at the station's colour bar and dark share, its shadows left out
/// where it leaves them out.
fn refit_split(
    frame: &Mat,
    empty: &Mat,
    (colour_bar, dark_share, trim_shadows): (f64, f64, bool),
    found: &mut [Found],
    size_at: &dyn Fn([f64; 2]) -> (f64, f64),
) -> opencv::Result<()> {
    let mut done = vec![false; found.len()];
    for i in 0..found.len() {
        if done[i] || !found[i].shared {
            continue;
        }
        let (l, wd) = size_at(found[i].center);
        let members: Vec<usize> = (i..found.len())
            .filter(|&j| {
                found[j].same_blob(&found[i])
                    && (found[j].center[0] - found[i].center[0])
                        .hypot(found[j].center[1] - found[i].center[1])
                        < 2.0 * l
            })
            .collect();
        members.iter().for_each(|&j| done[j] = true);
        // The group's box with a stick width of margin, in frame pixels.
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &j in &members {
            for c in found[j].corners() {
                x0 = x0.min(c[0]);
                y0 = y0.min(c[1]);
                x1 = x1.max(c[0]);
                y1 = y1.max(c[1]);
            }
        }
        let x0 = ((x0 - wd).floor() as i32).max(0);
        let y0 = ((y0 - wd).floor() as i32).max(0);
        let x1 = ((x1 + wd).ceil() as i32).min(frame.cols());
        let y1 = ((y1 + wd).ceil() as i32).min(frame.rows());
        // A crop `to_lab` would halve (over 900 wide) is no group of sticks;
        // narrower ones keep their full resolution.
        if x1 - x0 < 8 || y1 - y0 < 8 || x1 - x0 > 900 {
            continue;
        }
        let roi = opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0);
        let empty_crop = Mat::roi(empty, roi)?.try_clone()?;
        let frame_crop = Mat::roi(frame, roi)?.try_clone()?;
        let crop = bridge(
            &foreground(
                &to_lab(&frame_crop)?,
                &Reference::new(&empty_crop)?
                    .with_colour_bar(colour_bar)
                    .with_dark_share(dark_share)?
                    .with_shadows_trimmed(trim_shadows)?,
            )?,
            wd,
        )?;
        let mut group: Vec<Found> = members.iter().map(|&j| found[j]).collect();
        sticks::refit_full(&crop, [x0 as f64, y0 as f64], &mut group, l, wd)?;
        for (&j, s) in members.iter().zip(group) {
            found[j] = s;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stick(center: [f64; 2], dir: [f64; 2], shared: bool) -> Found {
        Found {
            center,
            dir,
            length: 60.0,
            width: 12.0,
            shared,
            blob_ratio: 1.0,
        }
    }

    /// A lone stick that meets no other has nothing to measure beyond its
    /// features: its patch is not even looked at.
    #[test]
    fn a_lone_stick_meeting_no_other_has_no_evidence_to_weigh() {
        let found = [
            stick([100.0, 100.0], [1.0, 0.0], false),
            stick([300.0, 100.0], [0.0, 1.0], false),
        ];
        let unread = Patch {
            bgr: vec![],
            empty_bgr: vec![],
            mask: vec![],
        };
        let e = Evidence::of(&unread, (60.0, 12.0), &found, 0);
        assert_eq!(
            e,
            Evidence {
                misfit_under: vec![None, None],
                ..Evidence::default()
            }
        );
    }

    /// Judging four sticks beside a stray piece judges them as if the piece
    /// had not been found: each one's misfit under another is looked up by
    /// the kept sticks' order.
    #[test]
    fn the_evidence_of_kept_sticks_drops_the_stray_pieces_places() {
        let mark = MarkRead {
            score: 0.4,
            partial: true,
        };
        let e = Evidence {
            faint_band: 0.7,
            misfit_under: vec![None, Some(0.1), Some(0.5)],
            mark_where_crossed: Some(mark),
        };
        let kept = e.of_kept(&[true, false, true]);
        assert_eq!(
            kept,
            Evidence {
                faint_band: 0.7,
                misfit_under: vec![None, Some(0.5)],
                mark_where_crossed: Some(mark),
            }
        );
    }
}
