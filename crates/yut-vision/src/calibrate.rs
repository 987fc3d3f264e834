//! Calibration: find the mat in a picture of the empty mat and map the image to
//! mat centimetres. Lens (one radial term) and tilt come from the outline alone:
//! the lens term that makes a square's sides straightest (or a circle's outline
//! most elliptical), then the homography from the corners (or the ellipse).

use crate::geometry::{principal_axis, Homography, Lens, LensModel, MatMap};
use opencv::core::{Mat, Point, Scalar, Size, Vector, BORDER_DEFAULT};
use opencv::imgproc;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    Circle,
    Square,
}

/// The mat as the referee describes it: `circle:160` or `square:180` (cm).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatSpec {
    pub shape: Shape,
    pub size_cm: f64,
}

/// The largest mat a spec may name (10 m): past it the number is a typo, and the
/// geometry would run on nonsense.
pub const MAX_MAT_CM: f64 = 1000.0;

impl FromStr for MatSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (shape, size) = s
            .split_once(':')
            .ok_or_else(|| format!("mat `{s}`: expected circle:SIZE_CM or square:SIZE_CM"))?;
        let shape = match shape {
            "circle" => Shape::Circle,
            "square" => Shape::Square,
            _ => return Err(format!("mat shape `{shape}`: expected circle or square")),
        };
        let size_cm: f64 = size
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= MAX_MAT_CM)
            .ok_or_else(|| {
                format!("mat size `{size}`: expected a number of centimetres, above 0 and at most {MAX_MAT_CM}")
            })?;
        Ok(MatSpec { shape, size_cm })
    }
}

impl fmt::Display for MatSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.shape {
            Shape::Circle => "circle",
            Shape::Square => "square",
        };
        write!(f, "{s}:{}", self.size_cm)
    }
}

impl MatSpec {
    /// Signed distance (cm) from the mat edge, positive inside.
    pub fn inside_by(&self, p: [f64; 2]) -> f64 {
        let h = self.size_cm / 2.0;
        match self.shape {
            Shape::Circle => h - p[0].hypot(p[1]),
            Shape::Square => (h - p[0].abs()).min(h - p[1].abs()),
        }
    }
}

/// Why calibration refused, each with what to do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CalibrateError {
    #[error("the mat is {0} cm: the rules need at least 150 cm (use a bigger mat)")]
    MatTooSmall(f64),
    #[error("the image is too dark (mean grey {0:.0} of 255): add light or open the aperture")]
    TooDark(f64),
    #[error("the mat is not wholly in view (it touches the {0} image edge): raise or move the camera so all of the mat shows with floor around it")]
    NotInView(&'static str),
    #[error(
        "the image is blurred (mat edge spread over {0:.1} px): focus the camera and hold it still"
    )]
    Blurred(f64),
    #[error("no mat found near the image centre: point the camera at the middle of an empty mat that differs from the floor")]
    NoMat,
    #[error(
        "the mat outline does not look like a {0}: check the --mat shape, or give the four corners"
    )]
    WrongShape(&'static str),
    #[error("the mat's edge does not show against the floor on the {0} side ({1:.0} % of the outline fitted where there is no edge): lay a floor of another colour or brightness under the mat there, or give the corners with --corners")]
    EdgeUnclear(&'static str, f64),
    #[error("image processing failed: {0}")]
    OpenCv(String),
}

impl From<opencv::Error> for CalibrateError {
    fn from(e: opencv::Error) -> Self {
        CalibrateError::OpenCv(e.message)
    }
}

/// What calibration finds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub mat: MatSpec,
    pub width: u32,
    pub height: u32,
    pub map: MatMap,
    /// The mat outline in image pixels (a few dozen points).
    pub outline_px: Vec<[f64; 2]>,
    /// A round mat's outline as an ellipse, from which the maps of either
    /// tilt are made ([`Calibration::round_maps`]); teaching picks one
    /// (ADR 0084). `None` for a square mat, or a profile from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<RoundOutline>,
}

/// The focal length, as a share of the picture's width, taken where the mat's
/// outline shows too little perspective to read it ([`MatMap::camera_centre`]):
/// a lens seeing about 80° across. The generated cameras span 0.41–0.9 of
/// the width.
pub const USUAL_FOCAL_SHARE: f64 = 0.6;

/// How high above the mat a stick's middle stands, as a share of its width:
/// half its thickness, a D-shaped stick being about half as thick as it is
/// wide. The camera sees the stick's outline there, not on the mat, so the
/// map alone puts it further from the camera: at the edge of a 190 cm mat
/// seen from 2.6 m, by 0.36 cm on average over 96 generated looks.
pub const STICK_MIDDLE_HEIGHT: f64 = 0.26;

impl Calibration {
    /// Where the camera stands over the mat (cm: x, y, height), as far as
    /// the map tells ([`MatMap::camera_centre`]).
    pub fn camera(&self) -> Option<[f64; 3]> {
        self.map
            .camera_centre(USUAL_FOCAL_SHARE * self.width as f64)
    }

    /// The point of the mat under the middle of a stick `width_cm` wide
    /// that shows at `px`: [`MatMap::to_cm`] less the parallax of its
    /// height ([`STICK_MIDDLE_HEIGHT`]) from a camera at `camera`
    /// ([`Calibration::camera`], found once per frame).
    pub fn under_stick(&self, px: [f64; 2], width_cm: f64, camera: Option<[f64; 3]>) -> [f64; 2] {
        self.map.under(px, STICK_MIDDLE_HEIGHT * width_cm, camera)
    }

    /// How high above the mat the camera stands (cm), where a calibrated
    /// lens tells its focal length: with the mat's size, the map then fixes
    /// the height, and a mat entered at the wrong size puts the camera at
    /// the wrong height by the same share. `None` without a lens model.
    pub fn camera_height(&self) -> Option<f64> {
        let f = self.map.lens.model?.fx;
        self.map.camera_centre_with_focal(f).map(|c| c[2])
    }

    /// Image pixels per centimetre at the mat's centre.
    pub fn px_per_cm_at_centre(&self) -> f64 {
        self.map.px_per_cm(self.map.to_px([0.0, 0.0]))
    }

    /// The maps a round mat's outline allows: the mat's centre at the
    /// ellipse's centre (no perspective), and on either side of it along the
    /// minor axis, as far as a mat seen at [`MOUNT_RATIO`] puts it (the
    /// outline alone cannot tell which side is nearer the camera). Empty for
    /// a square mat, whose corners fix the perspective.
    pub fn round_maps(&self) -> Vec<MatMap> {
        let Some(r) = &self.round else {
            return Vec::new();
        };
        [0.0, 1.0, -1.0]
            .into_iter()
            .filter_map(|side| r.map(self.map.lens, self.mat.size_cm, side))
            .collect()
    }
}

/// A round mat's outline, undistorted, as the ellipse fitted to it (pixels).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoundOutline {
    pub center: [f64; 2],
    /// Half its extent along its own axes: along `angle_deg`, then across.
    pub semi_axes: [f64; 2],
    pub angle_deg: f64,
}

/// A round mat's radius over the camera's distance, for the mounts the station
/// is set up on: mats of 150–200 cm seen from 2.2–3 m above (0.25–0.45).
/// Tilted by t, a circle's outline is an ellipse whose centre lies off the
/// picture of the mat's centre, along its minor axis, by about
/// semi-major × this × sin t × cos t (near and far halves seen at different
/// scales). On 21 generated round mats the maps made with it put sticks a
/// median 0.3–1.2 cm off (where teaching picked the side), against up to
/// 4 cm with the mat's centre at the ellipse's (ADR 0084).
pub const MOUNT_RATIO: f64 = 0.34;

impl RoundOutline {
    /// The map with the mat's centre moved `side` (−1, 0 or 1) times the
    /// perspective offset along the ellipse's minor axis (see
    /// [`MOUNT_RATIO`]). The diameter along the minor axis keeps its ends;
    /// the one across, through the moved centre, meets the ellipse nearer
    /// its middle.
    fn map(&self, lens: Lens, size_cm: f64, side: f64) -> Option<MatMap> {
        let [a, b] = self.semi_axes;
        let th = self.angle_deg.to_radians();
        let u1 = [th.cos(), th.sin()];
        let u2 = [-th.sin(), th.cos()];
        let c = self.center;
        let (major, minor) = (a.max(b), a.min(b));
        let cos_t = minor / major;
        let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
        let shift = side * major * MOUNT_RATIO * sin_t * cos_t;
        let moved = |u: [f64; 2]| [c[0] + shift * u[0], c[1] + shift * u[1]];
        let shortened =
            |half: f64, across: f64| half * (1.0 - (shift / across).powi(2)).max(0.0).sqrt();
        // (centre, half-length) of the diameter along u1, then along u2. The
        // mat's x is kept roughly along image x: the axis nearer image x maps
        // to x.
        let ((c1, h1), (c2, h2)) = if a >= b {
            ((moved(u2), shortened(a, b)), (c, b))
        } else {
            ((c, a), (moved(u1), shortened(b, a)))
        };
        let src = [
            [c1[0] + h1 * u1[0], c1[1] + h1 * u1[1]],
            [c2[0] + h2 * u2[0], c2[1] + h2 * u2[1]],
            [c1[0] - h1 * u1[0], c1[1] - h1 * u1[1]],
            [c2[0] - h2 * u2[0], c2[1] - h2 * u2[1]],
        ];
        // Image y points down, mat y up: image direction (cos, sin) is mat (cos, −sin).
        let r = size_cm / 2.0;
        let (ct, st) = (th.cos(), th.sin());
        let dst = [
            [r * ct, -r * st],
            [-r * st, -r * ct],
            [-r * ct, r * st],
            [r * st, r * ct],
        ];
        Homography::from_points(&src, &dst).map(|h| MatMap { lens, h })
    }
}

/// Under this many pixels a centimetre at the mat's centre the station calls
/// fewer throws: on the 154 held-out looks of round 23 whose mats were
/// measured, 91.1 % of clear throws were called right at under 2.5 px/cm (21
/// looks), 94.1 % at 2.5–3 (78) and 95.9 % at 3–3.5 (47).
pub const SMALL_IN_PICTURE_PX_PER_CM: f64 = 2.5;

/// A pixel is over-exposed where a colour channel reaches this (8-bit).
const CLIPPED: u8 = 254;
/// The share of the mat, or of the floor around it, over-exposed before
/// calibration notes it. On the held-out looks, the pale sticks that landed
/// off the mat and went unseen lay on floors clipped to pure white: only
/// their shadow showed (looks 1005696, 1006063, 1006067, 1006109).
pub const OVEREXPOSED_NOTE: f64 = 0.1;
/// How far beyond the mat's edge (cm) the floor is checked: where a stick
/// thrown off the mat lands.
pub const FLOOR_BAND_CM: f64 = 30.0;

/// The shares of the mat and of the floor within [`FLOOR_BAND_CM`] of it
/// that the empty picture (BGR, 8-bit) shows over-exposed (every other
/// pixel each way).
pub fn overexposed_shares(cal: &Calibration, empty: &Mat) -> opencv::Result<(f64, f64)> {
    let mut planes = Vector::<Mat>::new();
    opencv::core::split(empty, &mut planes)?;
    let mut brightest = planes.get(0)?;
    for plane in planes.iter().skip(1) {
        let mut both = Mat::default();
        opencv::core::max(&brightest, &plane, &mut both)?;
        brightest = both;
    }
    let (mut mat, mut floor) = ([0usize; 2], [0usize; 2]);
    for y in (0..brightest.rows()).step_by(2) {
        let row = brightest.at_row::<u8>(y)?;
        for x in (0..brightest.cols()).step_by(2) {
            let inside = cal.mat.inside_by(cal.map.to_cm([x as f64, y as f64]));
            let tally = if inside >= 0.0 {
                &mut mat
            } else if inside > -FLOOR_BAND_CM {
                &mut floor
            } else {
                continue;
            };
            tally[0] += 1;
            tally[1] += usize::from(row[x as usize] >= CLIPPED);
        }
    }
    let share = |[n, clipped]: [usize; 2]| {
        if n == 0 {
            0.0
        } else {
            clipped as f64 / n as f64
        }
    };
    Ok((share(mat), share(floor)))
}

/// What the crew should know about a calibration that was accepted: a mat
/// that shows small in the picture, and a mat or floor the camera shows
/// over-exposed. Empty when all is well.
pub fn calibration_notes(cal: &Calibration, empty: &Mat) -> opencv::Result<Vec<String>> {
    let mut notes = Vec::new();
    let px = cal.px_per_cm_at_centre();
    if px < SMALL_IN_PICTURE_PX_PER_CM {
        notes.push(format!(
            "the mat shows small in the picture ({px:.1} px/cm at its centre, under {SMALL_IN_PICTURE_PX_PER_CM}): expect more throws to go to the referee; bring the camera closer, zoom in, or use a higher resolution"
        ));
    }
    let (mat, floor) = overexposed_shares(cal, empty)?;
    if mat >= OVEREXPOSED_NOTE {
        notes.push(format!(
            "{:.0} % of the mat is over-exposed (pure white in the picture): a pale stick there loses its grain and shading; lower the camera's exposure or gain, or dim the light on the mat",
            mat * 100.0
        ));
    }
    if floor >= OVEREXPOSED_NOTE {
        notes.push(format!(
            "{:.0} % of the floor within {FLOOR_BAND_CM:.0} cm of the mat is over-exposed (pure white in the picture): a pale stick that lands there shows only by its shadow and the throw goes to the referee; lower the camera's exposure or gain",
            floor * 100.0
        ));
    }
    Ok(notes)
}

fn err_small(spec: &MatSpec) -> Result<(), CalibrateError> {
    if spec.size_cm < 150.0 {
        Err(CalibrateError::MatTooSmall(spec.size_cm))
    } else {
        Ok(())
    }
}

/// Calibrate from a BGR picture of the empty mat.
pub fn calibrate(empty: &Mat, spec: MatSpec) -> Result<Calibration, CalibrateError> {
    calibrate_with_lens(empty, spec, None)
}

/// [`calibrate`] through a lens calibrated on a target (`crate::lens`): the
/// lens is applied before the outline is fitted, and the outline's own lens
/// term is not fitted.
pub fn calibrate_with_lens(
    empty: &Mat,
    spec: MatSpec,
    lens: Option<LensModel>,
) -> Result<Calibration, CalibrateError> {
    err_small(&spec)?;
    let (w, h) = (empty.cols(), empty.rows());
    let mut grey = Mat::default();
    imgproc::cvt_color_def(empty, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let mean = opencv::core::mean_def(&grey)?[0];
    if mean < 30.0 {
        return Err(CalibrateError::TooDark(mean));
    }
    // Work small: the outline needs no more.
    let scale = (640.0 / w.max(h) as f64).min(1.0);
    let mut small = Mat::default();
    imgproc::resize(
        empty,
        &mut small,
        Size::new(0, 0),
        scale,
        scale,
        imgproc::INTER_AREA,
    )?;
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(
        &small,
        &mut blurred,
        Size::new(0, 0),
        2.0,
        0.0,
        BORDER_DEFAULT,
    )?;
    let mut lab = Mat::default();
    imgproc::cvt_color_def(&blurred, &mut lab, imgproc::COLOR_BGR2Lab)?;
    // The mat's outline: first the colour split, the mat against the floor;
    // where that finds no mat clear of the image's edges (a floor of the mat's
    // own colour on one side), the mat cut out as the picture's foreground.
    // Either outline is taken to the full picture's pixels.
    let to_full = |c: &Vector<Point>, s: f64| -> Vec<[f64; 2]> {
        c.iter()
            .map(|p| [(p.x as f64 + 0.5) / s - 0.5, (p.y as f64 + 0.5) / s - 0.5])
            .collect()
    };
    // With half a pixel of the picture the outline was found on, in full-size
    // pixels (see `refine_outline`).
    let (pts, half_px) = match mat_outline_two_means(&lab) {
        Ok(c) => (to_full(&c, scale), 0.5 / scale),
        Err(e @ (CalibrateError::NotInView(_) | CalibrateError::NoMat)) => {
            match mat_outline_grab_cut(&small)? {
                Some((c, s)) => (to_full(&c, scale * s), 0.5 / (scale * s)),
                None => return Err(e),
            }
        }
        Err(e) => return Err(e),
    };
    let pts = refine_outline(empty, &pts, half_px)?;
    let spread = edge_spread(empty, &pts)?;
    if spread > 4.5 {
        return Err(CalibrateError::Blurred(spread));
    }
    let lens0 = match lens {
        Some(model) => Lens::calibrated(w as u32, h as u32, model),
        None => Lens::none(w as u32, h as u32),
    };
    let (map, outline, round) = match spec.shape {
        Shape::Square => {
            let (map, outline) = fit_square(&pts, lens0, spec.size_cm)?;
            (map, outline, None)
        }
        Shape::Circle => {
            let (map, outline, round) = fit_circle(&pts, lens0, spec.size_cm)?;
            (map, outline, Some(round))
        }
    };
    if std::env::var("YUT_DBG").is_ok() {
        eprintln!("DBG outline {:?}", outline);
    }
    if let Some(side) = outline_leaves_picture(&outline, w, h) {
        return Err(CalibrateError::NotInView(side));
    }
    if let Some((side, share)) = unsupported_side(empty, &outline)? {
        return Err(CalibrateError::EdgeUnclear(side, share * 100.0));
    }
    Ok(Calibration {
        mat: spec,
        width: w as u32,
        height: h as u32,
        map,
        outline_px: outline,
        round,
    })
}

/// The mat's outline on the small blurred picture (`lab`, Lab) by a two-means
/// colour split: the mat seeded from the picture's centre, the floor from its
/// border. From lenient to strict, the first split whose centre blob stays
/// clear of the picture's edges is the mat.
fn mat_outline_two_means(lab: &Mat) -> Result<Vector<Point>, CalibrateError> {
    let (sw, sh) = (lab.cols() as usize, lab.rows() as usize);
    // Lightness counts half: light falls off across a hall, colours stay.
    let px: Vec<[f64; 3]> = lab
        .data_bytes()?
        .chunks_exact(3)
        .map(|c| [c[0] as f64 * 0.5, c[1] as f64, c[2] as f64])
        .collect();
    // Two-means: mat (seeded from the centre) against floor (seeded from the border).
    let mut mat_ref = [0.0; 3];
    let mut floor_ref = [0.0; 3];
    let (mut nm, mut nf) = (0.0, 0.0);
    let rad = 0.12 * sw.min(sh) as f64;
    let ring = (0.03 * sw.min(sh) as f64).max(2.0) as usize;
    for y in 0..sh {
        for x in 0..sw {
            let p = px[y * sw + x];
            let dx = x as f64 - sw as f64 / 2.0;
            let dy = y as f64 - sh as f64 / 2.0;
            if dx.hypot(dy) < rad {
                (0..3).for_each(|i| mat_ref[i] += p[i]);
                nm += 1.0;
            }
            if x < ring || y < ring || x >= sw - ring || y >= sh - ring {
                (0..3).for_each(|i| floor_ref[i] += p[i]);
                nf += 1.0;
            }
        }
    }
    mat_ref = mat_ref.map(|v| v / nm);
    floor_ref = floor_ref.map(|v| v / nf);
    let d2 = |a: [f64; 3], b: [f64; 3]| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>();
    if d2(mat_ref, floor_ref).sqrt() < 6.0 {
        return Err(CalibrateError::NoMat);
    }
    for _ in 0..3 {
        let (mut sm, mut sf) = ([0.0; 3], [0.0; 3]);
        let (mut cm, mut cf) = (0.0, 0.0);
        for p in &px {
            if d2(*p, mat_ref) < d2(*p, floor_ref) {
                (0..3).for_each(|k| sm[k] += p[k]);
                cm += 1.0;
            } else {
                (0..3).for_each(|k| sf[k] += p[k]);
                cf += 1.0;
            }
        }
        if cm < 1.0 || cf < 1.0 {
            return Err(CalibrateError::NoMat);
        }
        mat_ref = sm.map(|v| v / cm);
        floor_ref = sf.map(|v| v / cf);
    }
    // From lenient to strict: the first split whose centre blob stays clear of
    // the image border is the mat. A mat truly cut off touches at every level.
    let mut touching = None;
    let mut found = None;
    for ratio in [1.0, 0.75, 0.55, 0.4, 0.28] {
        let mask: Vec<u8> = px
            .iter()
            .map(|p| {
                if d2(*p, mat_ref) < ratio * ratio * d2(*p, floor_ref) {
                    255
                } else {
                    0
                }
            })
            .collect();
        let contour = match centre_blob(&mask, sw, sh)? {
            Some(c) => c,
            None => continue,
        };
        let area = imgproc::contour_area_def(&contour)?;
        if area < 0.05 * (sw * sh) as f64 {
            break;
        }
        let r = imgproc::bounding_rect(&contour)?;
        let edge = if r.x <= 1 {
            Some("left")
        } else if r.y <= 1 {
            Some("top")
        } else if r.x + r.width >= sw as i32 - 1 {
            Some("right")
        } else if r.y + r.height >= sh as i32 - 1 {
            Some("bottom")
        } else {
            None
        };
        match edge {
            Some(e) => {
                touching.get_or_insert(e);
            }
            None => {
                found = Some(contour);
                break;
            }
        }
    }
    match (found, touching) {
        (Some(c), _) => Ok(c),
        (None, Some(e)) => Err(CalibrateError::NotInView(e)),
        (None, None) => Err(CalibrateError::NoMat),
    }
}

/// The longer side of the picture [`mat_outline_grab_cut`] works at: the cut
/// takes about a second there on one core, and the outline is refined on the
/// full picture afterwards.
const GRAB_CUT_PX: f64 = 320.0;

/// The mat's outline by OpenCV's GrabCut, seeded as the colour split is (the
/// centre is mat, the border floor), for a floor whose colour the mat shares
/// on one side: the cut models each as a mixture of colours and keeps the mat's
/// region joined by its edges. With the scale of the picture it worked on
/// (relative to the full picture); `None` where it finds no mat clear of the
/// picture's edges.
fn mat_outline_grab_cut(small: &Mat) -> Result<Option<(Vector<Point>, f64)>, CalibrateError> {
    let s = (GRAB_CUT_PX / small.cols().max(small.rows()) as f64).min(1.0);
    let mut img = Mat::default();
    imgproc::resize(small, &mut img, Size::new(0, 0), s, s, imgproc::INTER_AREA)?;
    let (sw, sh) = (img.cols() as usize, img.rows() as usize);
    let rad = 0.12 * sw.min(sh) as f64;
    let ring = (0.03 * sw.min(sh) as f64).max(2.0) as usize;
    let seeds: Vec<u8> = (0..sh)
        .flat_map(|y| (0..sw).map(move |x| (x, y)))
        .map(|(x, y)| {
            let dx = x as f64 - sw as f64 / 2.0;
            let dy = y as f64 - sh as f64 / 2.0;
            if x < ring || y < ring || x >= sw - ring || y >= sh - ring {
                imgproc::GC_BGD as u8
            } else if dx.hypot(dy) < rad {
                imgproc::GC_FGD as u8
            } else {
                imgproc::GC_PR_BGD as u8
            }
        })
        .collect();
    let mask = grab_cut_seeded(&img, &seeds, sh, 5)?;
    // A mat's binding (a band of another colour round its edge) is neither
    // the centre's colour nor the floor's, and the first cut leaves it out.
    // The second is seeded with the first: its region surely mat, a band
    // about it perhaps, the rest floor; the band joins the mat where the
    // floor's colours do not explain it.
    let first = is_cut(&mask)?;
    let k = ((0.08 * sw.min(sh) as f64) as i32).max(3) | 1;
    let disc = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(k, k))?;
    let (mut grown, mut core) = (Mat::default(), Mat::default());
    imgproc::dilate_def(&first, &mut grown, &disc)?;
    imgproc::erode_def(&first, &mut core, &disc)?;
    let (grown, core) = (grown.data_bytes()?, core.data_bytes()?);
    let again: Vec<u8> = (0..sw * sh)
        .map(|i| {
            let (x, y) = (i % sw, i / sw);
            if x < ring || y < ring || x >= sw - ring || y >= sh - ring || grown[i] == 0 {
                imgproc::GC_BGD as u8
            } else if core[i] > 0 {
                imgproc::GC_FGD as u8
            } else {
                imgproc::GC_PR_FGD as u8
            }
        })
        .collect();
    let mask = grab_cut_seeded(&img, &again, sh, 3)?;
    let cut = is_cut(&mask)?.data_bytes()?.to_vec();
    let Some(contour) = centre_blob(&cut, sw, sh)? else {
        return Ok(None);
    };
    let r = imgproc::bounding_rect(&contour)?;
    let clear =
        r.x > 1 && r.y > 1 && r.x + r.width < sw as i32 - 1 && r.y + r.height < sh as i32 - 1;
    let big = imgproc::contour_area_def(&contour)? >= 0.05 * (sw * sh) as f64;
    Ok((clear && big).then_some((contour, s)))
}

/// OpenCV's GrabCut of `img` from `seeds` (one `GC_*` label a pixel, rows
/// of `img`'s width, `rows` of them), run `iterations` times: the labels it
/// ends with.
fn grab_cut_seeded(
    img: &Mat,
    seeds: &[u8],
    rows: usize,
    iterations: i32,
) -> Result<Mat, CalibrateError> {
    let mut mask = Mat::from_slice(seeds)?
        .reshape(1, rows as i32)?
        .try_clone()?;
    let (mut bg, mut fg) = (Mat::default(), Mat::default());
    imgproc::grab_cut(
        img,
        &mut mask,
        opencv::core::Rect::default(),
        &mut bg,
        &mut fg,
        iterations,
        imgproc::GC_INIT_WITH_MASK,
    )?;
    Ok(mask)
}

/// The pixels a GrabCut mask holds for the foreground, 255, else 0.
fn is_cut(mask: &Mat) -> opencv::Result<Mat> {
    let bytes: Vec<u8> = mask
        .data_bytes()?
        .iter()
        .map(|&v| {
            if v == imgproc::GC_FGD as u8 || v == imgproc::GC_PR_FGD as u8 {
                255
            } else {
                0
            }
        })
        .collect();
    Mat::from_slice(&bytes)?
        .reshape(1, mask.rows())?
        .try_clone()
}

/// Share of the fitted outline that may lie where the picture shows no edge
/// (a stick or a shadow on the rim, a corner rounded off) before calibration
/// refuses.
const UNSUPPORTED_MAX: f64 = 0.1;

/// Whether the fitted outline lies on the mat's edge all the way round: at
/// each outline point the colour a few pixels inside must differ from the
/// colour a few pixels outside by at least a third of the median such step.
/// Where a light floor merges with the mat on one side, the mat's blob stops
/// short there and the fit lays that side across the mat (a held-out look
/// whose mat was then found a third too small judged 21 of its 87 throws
/// 낙, confidently).
/// `Some((side, share))` when more than `UNSUPPORTED_MAX` of it has no edge.
fn unsupported_side(
    bgr: &Mat,
    outline: &[[f64; 2]],
) -> Result<Option<(&'static str, f64)>, CalibrateError> {
    let (w, h) = (bgr.cols() as i64, bgr.rows() as i64);
    let data = bgr.data_bytes()?;
    // The mean colour of a 3 × 3 neighbourhood.
    let at = |x: f64, y: f64| -> Option<[f64; 3]> {
        let (xi, yi) = (x.round() as i64, y.round() as i64);
        if xi < 1 || yi < 1 || xi >= w - 1 || yi >= h - 1 {
            return None;
        }
        let mut m = [0.0; 3];
        for (dx, dy) in (-1..=1).flat_map(|a| (-1..=1).map(move |b| (a, b))) {
            let o = (((yi + dy) * w + xi + dx) * 3) as usize;
            (0..3).for_each(|k| m[k] += data[o + k] as f64 / 9.0);
        }
        Some(m)
    };
    let n = outline.len();
    if n < 8 {
        return Ok(None);
    }
    let c = centroid(outline);
    // A few pixels either side, scaled with the picture.
    let d = (w.max(h) as f64 / 200.0).max(3.0);
    let mut steps: Vec<(f64, [f64; 2])> = Vec::new();
    for i in 0..n {
        let Some(nrm) = outward_normal(outline, i, 1, c) else {
            continue;
        };
        let p = outline[i];
        let (Some(inside), Some(outside)) = (
            at(p[0] - nrm[0] * d, p[1] - nrm[1] * d),
            at(p[0] + nrm[0] * d, p[1] + nrm[1] * d),
        ) else {
            continue;
        };
        let step = (0..3)
            .map(|k| (inside[k] - outside[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        steps.push((step, [p[0] - c[0], p[1] - c[1]]));
    }
    if steps.len() < 8 {
        return Ok(None);
    }
    let mut sorted: Vec<f64> = steps.iter().map(|s| s.0).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let weak: Vec<[f64; 2]> = steps
        .iter()
        .filter(|s| s.0 < median / 3.0)
        .map(|s| s.1)
        .collect();
    let share = weak.len() as f64 / steps.len() as f64;
    if share <= UNSUPPORTED_MAX {
        return Ok(None);
    }
    let m = weak
        .iter()
        .fold([0.0, 0.0], |a, v| [a[0] + v[0], a[1] + v[1]]);
    let side = if m[0].abs() > m[1].abs() {
        if m[0] < 0.0 {
            "left"
        } else {
            "right"
        }
    } else if m[1] < 0.0 {
        "top"
    } else {
        "bottom"
    };
    Ok(Some((side, share)))
}

/// The picture's edge the fitted outline crosses, if it does: a mat cut off
/// by the picture's edge can still leave a blob clear of it (its lit middle,
/// a strict colour split), and the shape fitted to that blob runs on past the
/// picture (a round mat seen from too low was taken whole, its outline
/// guessed beyond the top and the bottom of the picture).
fn outline_leaves_picture(outline: &[[f64; 2]], w: i32, h: i32) -> Option<&'static str> {
    let (w, h) = (f64::from(w), f64::from(h));
    let margin = 1.0;
    outline.iter().find_map(|p| {
        if p[0] < margin {
            Some("left")
        } else if p[0] > w - 1.0 - margin {
            Some("right")
        } else if p[1] < margin {
            Some("top")
        } else if p[1] > h - 1.0 - margin {
            Some("bottom")
        } else {
            None
        }
    })
}

/// The outline of the blob holding the image centre (else the biggest).
fn centre_blob(mask: &[u8], sw: usize, sh: usize) -> Result<Option<Vector<Point>>, CalibrateError> {
    let mask = Mat::from_slice(mask)?.reshape(1, sh as i32)?.try_clone()?;
    let kernel = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(5, 5))?;
    let mut m2 = Mat::default();
    imgproc::morphology_ex_def(&mask, &mut m2, imgproc::MORPH_OPEN, &kernel)?;
    let mut m3 = Mat::default();
    imgproc::morphology_ex_def(&m2, &mut m3, imgproc::MORPH_CLOSE, &kernel)?;
    let mut contours = Vector::<Vector<Point>>::new();
    imgproc::find_contours_def(
        &m3,
        &mut contours,
        imgproc::RETR_EXTERNAL,
        imgproc::CHAIN_APPROX_NONE,
    )?;
    let centre = opencv::core::Point2f::new(sw as f32 / 2.0, sh as f32 / 2.0);
    let mut best: Option<(f64, Vector<Point>)> = None;
    for c in contours.iter() {
        let area = imgproc::contour_area_def(&c)?;
        let holds = imgproc::point_polygon_test(&c, centre, false)? >= 0.0;
        let score = area * if holds { 10.0 } else { 1.0 };
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, c));
        }
    }
    Ok(best.map(|b| b.1))
}

/// The mean of the points of an outline.
fn centroid(pts: &[[f64; 2]]) -> [f64; 2] {
    let n = pts.len() as f64;
    pts.iter()
        .fold([0.0, 0.0], |a, p| [a[0] + p[0] / n, a[1] + p[1] / n])
}

/// The unit normal of a closed outline at point `i`, across the chord from
/// the point `reach` before it to the one `reach` after; `None` where those
/// two coincide.
fn outline_normal(pts: &[[f64; 2]], i: usize, reach: usize) -> Option<[f64; 2]> {
    let n = pts.len();
    let (a, b) = (pts[(i + n - reach) % n], pts[(i + reach) % n]);
    let t = [b[0] - a[0], b[1] - a[1]];
    let l = t[0].hypot(t[1]);
    (l >= 1e-6).then(|| [-t[1] / l, t[0] / l])
}

/// [`outline_normal`], turned to point away from the outline's `centre`.
fn outward_normal(pts: &[[f64; 2]], i: usize, reach: usize, centre: [f64; 2]) -> Option<[f64; 2]> {
    let nrm = outline_normal(pts, i, reach)?;
    let p = pts[i];
    Some(
        if nrm[0] * (p[0] - centre[0]) + nrm[1] * (p[1] - centre[1]) < 0.0 {
            [-nrm[0], -nrm[1]]
        } else {
            nrm
        },
    )
}

/// The mean of colour samples along a profile.
fn mean_colour(s: &[[f64; 3]]) -> [f64; 3] {
    std::array::from_fn(|k| s.iter().map(|c| c[k]).sum::<f64>() / s.len() as f64)
}

/// The least colour step (8-bit levels, as a distance in BGR) across the
/// outline that the outline's samplers read ([`colour_step`]): under it the
/// picture shows no clear edge there.
const MIN_EDGE_STEP: f64 = 15.0;

/// The colour step along a profile of samples across the outline, from the
/// mean of its first `ends` (inside) to the mean of its last `ends`
/// (outside): each sample's distance along that step from the inside mean,
/// in colour levels, and the step's size. `None` under [`MIN_EDGE_STEP`].
fn colour_step(prof: &[[f64; 3]], ends: usize) -> Option<(Vec<f64>, f64)> {
    let inside = mean_colour(&prof[..ends]);
    let outside = mean_colour(&prof[prof.len() - ends..]);
    let d: [f64; 3] = std::array::from_fn(|k| outside[k] - inside[k]);
    let size = d.iter().map(|v| v * v).sum::<f64>().sqrt();
    if size < MIN_EDGE_STEP {
        return None;
    }
    let u = d.map(|v| v / size);
    let along = prof
        .iter()
        .map(|c| (0..3).map(|k| (c[k] - inside[k]) * u[k]).sum())
        .collect();
    Some((along, size))
}

/// The outline points moved onto the mat's edge as the full picture shows
/// it, to a fraction of a pixel. The mask's outline runs through the centres
/// of its edge pixels in the small picture, so it lies about half of one of
/// those (`half_px`, full-size pixels) inside the edge, and steps by whole
/// ones: on 52 generated square mats the sides fitted to it put the mat's
/// edge 0.5 cm inside the truth, and the lens term fitted to those stepped
/// sides read a few mats' corners 2–4 cm off (ADR 0086).
/// Each point moves to where the colour, along the outline's normal, is
/// half-way between the mat's and the floor's a few pixels either side;
/// where the picture shows no clear step (a shadow, a stick on the rim) it
/// keeps its place, moved out by `half_px`.
fn refine_outline(
    bgr: &Mat,
    pts: &[[f64; 2]],
    half_px: f64,
) -> Result<Vec<[f64; 2]>, CalibrateError> {
    let mut smooth = Mat::default();
    imgproc::gaussian_blur(bgr, &mut smooth, Size::new(0, 0), 1.0, 0.0, BORDER_DEFAULT)?;
    let (w, h) = (smooth.cols() as i64, smooth.rows() as i64);
    let data = smooth.data_bytes()?;
    let px = |x: i64, y: i64, k: usize| data[((y * w + x) * 3) as usize + k] as f64;
    let at = |x: f64, y: f64| -> Option<[f64; 3]> {
        let (x0, y0) = (x.floor() as i64, y.floor() as i64);
        if x0 < 0 || y0 < 0 || x0 + 1 >= w || y0 + 1 >= h {
            return None;
        }
        let (fx, fy) = (x - x0 as f64, y - y0 as f64);
        Some(std::array::from_fn(|k| {
            (px(x0, y0, k) * (1.0 - fx) + px(x0 + 1, y0, k) * fx) * (1.0 - fy)
                + (px(x0, y0 + 1, k) * (1.0 - fx) + px(x0 + 1, y0 + 1, k) * fx) * fy
        }))
    };
    let n = pts.len();
    if n < 16 {
        return Ok(pts.to_vec());
    }
    let c = centroid(pts);
    // Far enough either side to hold the blur of the small picture's mask.
    let reach = (4.0 * half_px).max(3.0);
    let step = 0.25;
    let m = (reach / step).round() as i32;
    let out = (0..n)
        .map(|i| {
            let p = pts[i];
            let Some(nrm) = outward_normal(pts, i, 4, c) else {
                return p;
            };
            let moved = |d: f64| [p[0] + nrm[0] * d, p[1] + nrm[1] * d];
            let fallback = moved(half_px);
            let prof: Option<Vec<[f64; 3]>> = (-m..=m)
                .map(|k| {
                    let q = moved(k as f64 * step);
                    at(q[0], q[1])
                })
                .collect();
            let Some(prof) = prof else { return fallback };
            let Some((along, size)) = colour_step(&prof, (m as usize / 4).max(2)) else {
                return fallback;
            };
            // 0 inside, 1 outside, along the colour step.
            let level: Vec<f64> = along.iter().map(|a| a / size).collect();
            let crossing = level
                .windows(2)
                .enumerate()
                .filter(|(_, w)| (w[0] - 0.5) * (w[1] - 0.5) <= 0.0 && w[0] != w[1])
                .map(|(j, w)| (j as f64 + (0.5 - w[0]) / (w[1] - w[0])) * step - reach)
                .min_by(|x, y| (x - half_px).abs().total_cmp(&(y - half_px).abs()));
            crossing.map_or(fallback, moved)
        })
        .collect();
    Ok(out)
}

/// The median width (px, as a Gaussian σ) of the colour step across the
/// outline (measured along the colour direction from inside to outside, so a
/// mat that differs from the floor only in hue counts too).
fn edge_spread(bgr: &Mat, pts: &[[f64; 2]]) -> Result<f64, CalibrateError> {
    let (w, h) = (bgr.cols() as i64, bgr.rows() as i64);
    let data = bgr.data_bytes()?;
    let at = |x: f64, y: f64| -> Option<[f64; 3]> {
        let (xi, yi) = (x.round() as i64, y.round() as i64);
        (xi >= 0 && yi >= 0 && xi < w && yi < h).then(|| {
            let o = ((yi * w + xi) * 3) as usize;
            [data[o] as f64, data[o + 1] as f64, data[o + 2] as f64]
        })
    };
    let n = pts.len();
    let mut spreads = Vec::new();
    let step = (n / 60).max(1);
    const R: i32 = 20;
    for i in (0..n).step_by(step) {
        let Some(nrm) = outline_normal(pts, i, 4) else {
            continue;
        };
        let prof: Option<Vec<[f64; 3]>> = (-R..=R)
            .map(|k| at(pts[i][0] + nrm[0] * k as f64, pts[i][1] + nrm[1] * k as f64))
            .collect();
        let Some(prof) = prof else { continue };
        let Some((p, step_h)) = colour_step(&prof, 5) else {
            continue;
        };
        let g = p
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        spreads.push(step_h / (g * (2.0 * std::f64::consts::PI).sqrt()));
    }
    if spreads.len() < 8 {
        return Ok(0.0);
    }
    spreads.sort_by(f64::total_cmp);
    Ok(spreads[spreads.len() / 2])
}

fn fit_line(pts: &[[f64; 2]]) -> ([f64; 2], [f64; 2], f64) {
    let n = pts.len() as f64;
    let ([mx, my], theta) = principal_axis(pts);
    let d = [theta.cos(), theta.sin()];
    let resid = pts
        .iter()
        .map(|p| ((p[0] - mx) * -d[1] + (p[1] - my) * d[0]).powi(2))
        .sum::<f64>()
        / n;
    ([mx, my], d, resid)
}

fn intersect(a: ([f64; 2], [f64; 2]), b: ([f64; 2], [f64; 2])) -> [f64; 2] {
    let (p, r) = a;
    let (q, s) = b;
    let den = r[0] * s[1] - r[1] * s[0];
    let t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den;
    [p[0] + t * r[0], p[1] + t * r[1]]
}

/// Golden-section search for the lens term minimising `cost`.
fn best_k(cost: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut b) = (-0.25f64, 0.15f64);
    // Coarse grid first: the cost need not be unimodal over the whole range.
    let mut best = (f64::MAX, 0.0);
    for i in 0..=40 {
        let k = a + (b - a) * i as f64 / 40.0;
        let c = cost(k);
        if c < best.0 {
            best = (c, k);
        }
    }
    let step = (b - a) / 40.0;
    a = best.1 - step;
    b = best.1 + step;
    let g = 0.618_033_988_75;
    for _ in 0..30 {
        let x1 = b - g * (b - a);
        let x2 = a + g * (b - a);
        if cost(x1) < cost(x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    (a + b) / 2.0
}

/// Whether four corners (in order around) can be a square mat seen from a
/// camera tilted at most about 15°: every corner near a right angle and
/// opposite sides of similar length. A mat whose lit half was taken for floor
/// gives a clean but wrong quadrilateral (a station calibrated on it called
/// every throw 낙, confidently).
fn square_seen_from_above(c: &[[f64; 2]; 4]) -> bool {
    let side = |i: usize| {
        let (a, b) = (c[i], c[(i + 1) % 4]);
        [b[0] - a[0], b[1] - a[1]]
    };
    let len = |v: [f64; 2]| v[0].hypot(v[1]);
    let right_angles = (0..4).all(|i| {
        let (u, v) = (side((i + 3) % 4), side(i));
        let cos = -(u[0] * v[0] + u[1] * v[1]) / (len(u) * len(v)).max(1e-9);
        cos.abs() < 30f64.to_radians().sin()
    });
    let ratio = |a: f64, b: f64| a.min(b) / a.max(b).max(1e-9);
    right_angles
        && ratio(len(side(0)), len(side(2))) > 0.7
        && ratio(len(side(1)), len(side(3))) > 0.7
}

fn fit_square(
    pts: &[[f64; 2]],
    lens0: Lens,
    size: f64,
) -> Result<(MatMap, Vec<[f64; 2]>), CalibrateError> {
    // Corners: the convex hull simplified to four points.
    let cv: Vector<opencv::core::Point2f> = pts
        .iter()
        .map(|p| opencv::core::Point2f::new(p[0] as f32, p[1] as f32))
        .collect();
    let mut hull = Vector::<opencv::core::Point2f>::new();
    imgproc::convex_hull_def(&cv, &mut hull)?;
    let peri = imgproc::arc_length(&hull, true)?;
    let mut quad = Vector::<opencv::core::Point2f>::new();
    for f in [0.01, 0.02, 0.03, 0.05, 0.08] {
        imgproc::approx_poly_dp(&hull, &mut quad, f * peri, true)?;
        if quad.len() <= 4 {
            break;
        }
    }
    if quad.len() != 4 {
        return Err(CalibrateError::WrongShape("square"));
    }
    let corners: Vec<[f64; 2]> = quad.iter().map(|p| [p.x as f64, p.y as f64]).collect();
    // Assign outline points to sides, skipping the rounded corner regions.
    let side_len = |i: usize| {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        (b[0] - a[0]).hypot(b[1] - a[1])
    };
    let mut sides: Vec<Vec<[f64; 2]>> = vec![Vec::new(); 4];
    for p in pts {
        let mut best = (f64::MAX, 0usize, 0.0);
        for i in 0..4 {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            let l = side_len(i);
            let d = [(b[0] - a[0]) / l, (b[1] - a[1]) / l];
            let t = (p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1];
            let off = ((p[0] - a[0]) * -d[1] + (p[1] - a[1]) * d[0]).abs();
            if off < best.0 {
                best = (off, i, t / l);
            }
        }
        if best.2 > 0.08 && best.2 < 0.92 {
            sides[best.1].push(*p);
        }
    }
    if sides.iter().any(|s| s.len() < 10) {
        return Err(CalibrateError::WrongShape("square"));
    }
    let cost = |k: f64| {
        let lens = Lens { k, ..lens0 };
        sides
            .iter()
            .map(|s| {
                let u: Vec<[f64; 2]> = s.iter().map(|p| lens.undistort(*p)).collect();
                fit_line(&u).2
            })
            .sum::<f64>()
    };
    // A calibrated lens is already straight: no term to fit.
    let k = if lens0.model.is_some() {
        0.0
    } else {
        best_k(cost)
    };
    let lens = Lens { k, ..lens0 };
    let lines: Vec<([f64; 2], [f64; 2])> = sides
        .iter()
        .map(|s| {
            let u: Vec<[f64; 2]> = s.iter().map(|p| lens.undistort(*p)).collect();
            let (c, d, _) = fit_line(&u);
            (c, d)
        })
        .collect();
    let mut quad_u: Vec<[f64; 2]> = (0..4)
        .map(|i| intersect(lines[(i + 3) % 4], lines[i]))
        .collect();
    // Order: image top-left, top-right, bottom-right, bottom-left.
    let cx = quad_u.iter().map(|p| p[0]).sum::<f64>() / 4.0;
    let cy = quad_u.iter().map(|p| p[1]).sum::<f64>() / 4.0;
    quad_u.sort_by(|a, b| {
        let ta = (a[1] - cy).atan2(a[0] - cx);
        let tb = (b[1] - cy).atan2(b[0] - cx);
        ta.total_cmp(&tb)
    });
    // atan2 with y down: sorted from about -π (left) clockwise on screen.
    let start = (0..4)
        .min_by(|&i, &j| (quad_u[i][0] + quad_u[i][1]).total_cmp(&(quad_u[j][0] + quad_u[j][1])))
        .unwrap_or(0);
    let src: [[f64; 2]; 4] = std::array::from_fn(|i| quad_u[(start + i) % 4]);
    if !square_seen_from_above(&src) {
        return Err(CalibrateError::WrongShape("square"));
    }
    let hs = size / 2.0;
    let dst = [[-hs, hs], [hs, hs], [hs, -hs], [-hs, -hs]];
    let hmg = Homography::from_points(&src, &dst).ok_or(CalibrateError::WrongShape("square"))?;
    let map = MatMap { lens, h: hmg };
    let outline = (0..64)
        .map(|i| {
            let t = i as f64 / 16.0;
            let (s, f) = ((t.floor() as usize) % 4, t.fract());
            let (a, b) = (dst[s], dst[(s + 1) % 4]);
            map.to_px([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f])
        })
        .collect();
    Ok((map, outline))
}

fn fit_circle(
    pts: &[[f64; 2]],
    lens0: Lens,
    size: f64,
) -> Result<(MatMap, Vec<[f64; 2]>, RoundOutline), CalibrateError> {
    let ellipse = |lens: Lens| -> Result<(opencv::core::RotatedRect, f64), CalibrateError> {
        let u: Vector<opencv::core::Point2f> = pts
            .iter()
            .map(|p| {
                let q = lens.undistort(*p);
                opencv::core::Point2f::new(q[0] as f32, q[1] as f32)
            })
            .collect();
        let e = imgproc::fit_ellipse(&u)?;
        let (a, b) = (e.size.width as f64 / 2.0, e.size.height as f64 / 2.0);
        let th = (e.angle as f64).to_radians();
        let (c, s) = (th.cos(), th.sin());
        let mut res = 0.0;
        for p in u.iter() {
            let (dx, dy) = (
                p.x as f64 - e.center.x as f64,
                p.y as f64 - e.center.y as f64,
            );
            let (x, y) = (dx * c + dy * s, -dx * s + dy * c);
            let r = ((x / a).powi(2) + (y / b).powi(2)).sqrt();
            res += (r - 1.0).powi(2);
        }
        Ok((e, res / u.len() as f64))
    };
    // Radial distortion about the image centre keeps a centred circle round, so
    // the outline only shows the lens when the mat is off-centre: take a lens
    // term only when it clearly helps.
    let cost = |k: f64| {
        ellipse(Lens { k, ..lens0 })
            .map(|e| e.1)
            .unwrap_or(f64::MAX)
    };
    let k_best = if lens0.model.is_some() {
        0.0
    } else {
        best_k(cost)
    };
    let k = if cost(k_best) < 0.5 * cost(0.0) {
        k_best
    } else {
        0.0
    };
    let lens = Lens { k, ..lens0 };
    let (e, res) = ellipse(lens)?;
    if res.sqrt() > 0.06 {
        return Err(CalibrateError::WrongShape("circle"));
    }
    let round = RoundOutline {
        center: [e.center.x as f64, e.center.y as f64],
        semi_axes: [e.size.width as f64 / 2.0, e.size.height as f64 / 2.0],
        angle_deg: e.angle as f64,
    };
    // The mat's centre at the ellipse's until teaching picks a tilt
    // (`Calibration::round_maps`).
    let map = round
        .map(lens, size, 0.0)
        .ok_or(CalibrateError::WrongShape("circle"))?;
    let r = size / 2.0;
    let outline = (0..64)
        .map(|i| {
            let t = i as f64 / 64.0 * std::f64::consts::TAU;
            map.to_px([r * t.cos(), r * t.sin()])
        })
        .collect();
    Ok((map, outline, round))
}

/// Draw helper for evidence images: the outline as a polyline.
pub fn outline_points(cal: &Calibration) -> Vector<Point> {
    cal.outline_px
        .iter()
        .map(|p| Point::new(p[0].round() as i32, p[1].round() as i32))
        .collect()
}

/// Unused-colour helper kept close to the drawing code.
pub fn colour(r: f64, g: f64, b: f64) -> Scalar {
    Scalar::new(b, g, r, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grey mat with a dark binding on a light floor, as the small picture
    /// calibration works on: 640 × 360, the mat's outer edge at (200, 80) to
    /// (440, 280), its binding 8 pixels wide.
    fn bound_mat() -> Mat {
        let mut img = Mat::new_rows_cols_with_default(
            360,
            640,
            opencv::core::CV_8UC3,
            Scalar::new(170.0, 200.0, 225.0, 0.0),
        )
        .unwrap();
        let rect = |x0, y0, x1, y1| opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0);
        imgproc::rectangle(
            &mut img,
            rect(200, 80, 440, 280),
            Scalar::new(70.0, 72.0, 75.0, 0.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        imgproc::rectangle(
            &mut img,
            rect(208, 88, 432, 272),
            Scalar::new(150.0, 160.0, 165.0, 0.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        img
    }

    #[test]
    fn the_cut_takes_in_the_mats_binding() {
        let (contour, s) = mat_outline_grab_cut(&bound_mat())
            .unwrap()
            .expect("a mat clear of the edges");
        let r = imgproc::bounding_rect(&contour).unwrap();
        let at = |v: i32| v as f64 / s;
        // The outer edge of the binding, not the inner one (8 px in).
        assert!((at(r.x) - 200.0).abs() <= 4.0, "{r:?} at {s}");
        assert!((at(r.y) - 80.0).abs() <= 4.0, "{r:?} at {s}");
        assert!((at(r.x + r.width) - 440.0).abs() <= 4.0, "{r:?} at {s}");
        assert!((at(r.y + r.height) - 280.0).abs() <= 4.0, "{r:?} at {s}");
    }

    #[test]
    fn a_mat_spec_is_a_shape_and_a_finite_size() {
        let spec: MatSpec = "circle:160".parse().unwrap();
        assert_eq!((spec.shape, spec.size_cm), (Shape::Circle, 160.0));
        assert_eq!("square:1000".parse::<MatSpec>().unwrap().size_cm, 1000.0);
        for bad in [
            "circle:NaN",
            "circle:nan",
            "circle:inf",
            "square:-inf",
            "circle:1e30",
            "circle:1000.5",
            "circle:0",
            "circle:-160",
            "circle:",
            "oval:160",
            "160",
        ] {
            let e = bad.parse::<MatSpec>().unwrap_err();
            assert!(!e.contains('\n'), "{bad}: {e}");
        }
    }

    /// A round mat's outline seen a little tilted: 300 × 280 px, turned 20°.
    fn tilted_round() -> RoundOutline {
        RoundOutline {
            center: [640.0, 360.0],
            semi_axes: [300.0, 280.0],
            angle_deg: 20.0,
        }
    }

    #[test]
    fn a_round_mat_s_maps_keep_its_outline_and_move_its_centre_along_the_minor_axis() {
        let round = tilted_round();
        let lens = Lens::none(1280, 720);
        let th = 20f64.to_radians();
        let (u1, u2) = ([th.cos(), th.sin()], [-th.sin(), th.cos()]);
        let mut centres = Vec::new();
        for side in [-1.0, 0.0, 1.0] {
            let map = round.map(lens, 160.0, side).unwrap();
            // Every point of the outline lies on the mat's edge, whichever side.
            for k in 0..36 {
                let f = k as f64 / 36.0 * std::f64::consts::TAU;
                let p = [
                    640.0 + 300.0 * f.cos() * u1[0] + 280.0 * f.sin() * u2[0],
                    360.0 + 300.0 * f.cos() * u1[1] + 280.0 * f.sin() * u2[1],
                ];
                let cm = map.to_cm(p);
                assert!((cm[0].hypot(cm[1]) - 80.0).abs() < 1e-6, "{side}: {cm:?}");
            }
            let c = map.to_px([0.0, 0.0]);
            centres.push([c[0] - 640.0, c[1] - 360.0]);
        }
        // The mat's centre: at the ellipse's, or off it along the minor axis
        // (u2 here), on either side, by semi-major × MOUNT_RATIO × sin t × cos t.
        let cos_t: f64 = 280.0 / 300.0;
        let offset = 300.0 * MOUNT_RATIO * (1.0 - cos_t * cos_t).sqrt() * cos_t;
        assert!(centres[1][0].hypot(centres[1][1]) < 1e-6);
        for (c, side) in [(centres[0], -1.0), (centres[2], 1.0)] {
            let along = c[0] * u2[0] + c[1] * u2[1];
            let across = c[0] * u1[0] + c[1] * u1[1];
            assert!((along - side * offset).abs() < 1e-6, "{c:?}");
            assert!(across.abs() < 1e-6, "{c:?}");
        }
    }

    #[test]
    fn only_a_round_mat_has_maps_to_choose_from() {
        let round = tilted_round();
        let map = round.map(Lens::none(1280, 720), 160.0, 0.0).unwrap();
        let cal = |shape, round| Calibration {
            mat: MatSpec {
                shape,
                size_cm: 160.0,
            },
            width: 1280,
            height: 720,
            map,
            outline_px: Vec::new(),
            round,
        };
        assert_eq!(cal(Shape::Circle, Some(round)).round_maps().len(), 3);
        assert_eq!(cal(Shape::Circle, Some(round)).round_maps()[0], map);
        assert!(cal(Shape::Square, None).round_maps().is_empty());
        // A profile from before the outline was kept.
        assert!(cal(Shape::Circle, None).round_maps().is_empty());
    }

    #[test]
    fn an_outline_past_the_picture_s_edge_says_which_edge() {
        let inside = [[10.0, 10.0], [600.0, 20.0], [320.0, 470.0]];
        assert_eq!(outline_leaves_picture(&inside, 640, 480), None);
        assert_eq!(
            outline_leaves_picture(&[[10.0, 10.0], [320.0, -40.0]], 640, 480),
            Some("top")
        );
        assert_eq!(
            outline_leaves_picture(&[[320.0, 479.5]], 640, 480),
            Some("bottom")
        );
    }

    #[test]
    fn a_square_mat_seen_from_above_is_a_near_rectangle_and_half_a_mat_is_not() {
        // Straight down, turned a little.
        let seen = [
            [425.0, 105.0],
            [867.0, 155.0],
            [850.0, 585.0],
            [395.0, 580.0],
        ];
        assert!(square_seen_from_above(&seen));
        // A strong keystone (the far side a quarter shorter) still passes.
        let tilted = [
            [450.0, 100.0],
            [830.0, 100.0],
            [880.0, 560.0],
            [400.0, 560.0],
        ];
        assert!(square_seen_from_above(&tilted));
        // Generated look 1001102: the mat's lit half read as floor.
        let half = [
            [422.0, 100.0],
            [764.0, 147.0],
            [499.0, 575.0],
            [395.0, 579.0],
        ];
        assert!(!square_seen_from_above(&half));
    }
}
