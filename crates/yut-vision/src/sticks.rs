//! Finding sticks: what differs from the empty mat (shadows mostly excluded),
//! split into sticks using the known stick size, each as a rotated rectangle.
//!
//! Pure: pictures in, sticks out.

use crate::geometry::principal_axis;
use opencv::core::{Mat, Point, Point2f, Scalar, Size, Vector, BORDER_CONSTANT, CV_32F};
use opencv::imgproc;
use opencv::prelude::*;

/// The empty mat prepared once for differencing: the range of its colour
/// planes at each pixel, and the per-pixel lightness thresholds.
///
/// Where the empty picture changes sharply (the mat's outline against the
/// floor, a painted line: `SHARP_CHANGE`), a frame's pixel is compared
/// with the empty mat's least and most of each plane within a pixel of it,
/// not with the one pixel at its place: a shift of a fraction of a pixel
/// between pictures (the camera's stand, the encoder) would otherwise show
/// there as a sliver of something new. On look 1004700 such a sliver at the
/// mat's edge was taken for a piece of a stick in 12 of its 50 throws.
/// Elsewhere the range is the pixel itself: widened over a whole mat, it
/// hid the edges of faint sticks on grained or woven mats.
#[derive(Clone)]
pub struct Reference {
    /// The least of the empty image's a and b planes of Lab around each
    /// pixel (8-bit).
    pub ab_low: [Mat; 2],
    /// The most of them.
    pub ab_high: [Mat; 2],
    /// Lightness rise above which a pixel is brighter than the mat (16-bit).
    pub rise: Mat,
    /// Lightness under which a pixel is darker than any shadow (16-bit):
    /// [`Reference::dark_share`] of the empty mat's.
    pub floor: Mat,
    /// The lower rise of the faint second look off the mat
    /// (`FAINT_RISE`, 16-bit; see [`find_off_mat`]).
    pub faint_rise: Mat,
    /// Lightness under which the dark third look off the mat takes a pixel
    /// ([`DARK_LOOK`], 16-bit; see [`dark_foreground`]).
    pub dim: Mat,
    pub width: i32,
    pub height: i32,
    /// The colour change over which a pixel is no longer the mat
    /// ([`COLOUR_BAR`], or the station's from teaching: [`station_colour_bar`]).
    pub colour_bar: f64,
    /// The share of the empty mat's lightness under which a pixel is darker
    /// than a shadow ([`DARK_SHARE`], or the station's from teaching:
    /// [`station_dark_share`]).
    pub dark_share: f64,
    /// The empty picture's lightness, or where it changes sharply the least
    /// around each pixel (8-bit): what [`Reference::floor`] is a share of.
    darkest: Mat,
    /// The empty picture at the working scale (BGR), kept to leave out
    /// coloured shadows where the station does ([`Reference::trimming_shadows`]).
    empty_small: Mat,
    /// Where a station's shadows are left out: each channel of the empty
    /// picture times [`SHADOW_RATIO`]; a pixel under it in every channel is a
    /// shadow, whatever its colour change ([`shadow_like`]).
    shadow_below: Option<Mat>,
    /// Whether a throw short of sticks gets the faint second look off the
    /// mat ([`faint_foreground`]) and the dark third ([`dark_foreground`]):
    /// a station whose teach pictures showed either finding sticks on the
    /// empty floor goes without it ([`Reference::with_looks_off_mat`]).
    pub looks_off_mat: LooksOffMat,
    /// The disc a foreground mask is opened with, so that lone pixels of
    /// noise go ([`SPECK_DISC`], or [`FINER_SPECK_DISC`] in the finer look:
    /// [`Reference::with_finer_specks`]).
    speck_disc: i32,
}

/// The disc (pixels across, at the working scale) a foreground mask is
/// opened with. The appearance models learned their sticks as it leaves
/// them.
pub const SPECK_DISC: i32 = 3;

/// The smaller disc of the finer look (`crate::finer_look`). A black
/// lacquered round face shows the camera little more than the two-pixel
/// highlight along its crest at the working scale; the usual disc breaks
/// that line into pieces, and the throw is referred for its count of
/// sticks (look 1 400 297: 51 of its 58 referred plain throws). Opened with
/// this one everywhere, the models judged sticks they had not learned, and
/// the leave-one-family-out sets lost six points (ADR 0126); so it is a
/// second look, taken only where the station's referee's calls showed it
/// right (ADR 0127), and the whole look only of a station the usual disc
/// could not teach (ADR 0129).
pub const FINER_SPECK_DISC: i32 = 2;

/// A further look off the mat for a missing stick: a frame's Lab picture
/// to the foreground it takes ([`faint_foreground`], [`dark_foreground`]).
pub type OffMatLook = fn(&Mat, &Reference) -> opencv::Result<Mat>;

/// Which of the further looks off the mat a station takes for a missing
/// stick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LooksOffMat {
    pub faint: bool,
    pub dark: bool,
}

/// How much darker than the empty mat, in every one of its blue, green and red,
/// a pixel must be to count as a shadow where a station leaves its shadows
/// out. A shadow under two lights of different colour (a window and a warm
/// lamp) keeps the lamp's colour: it changes colour as much as a stick does,
/// and the colour bar takes it in, on one side of each stick, widening it
/// (photoreal-H: the sticks measured 5.6 cm wide, not 3.2, and sticks lying
/// along the light, their shadow off one end, were taken as on their edge).
/// No face is darker in every channel by this much unless it is a dark face,
/// which teaching sees (`teach::trims_cleanly`): on the other photoreal
/// looks' teach pictures at most 9 % of a stick's pixels were, against
/// 10–37 % (its shadow) on photoreal-H's.
pub const SHADOW_RATIO: f64 = 0.93;

/// How much the empty picture's lightness (or its a and b together) must
/// change within a pixel for a frame to be compared there with the range
/// around the pixel (see [`Reference`]): a mat's outline against the floor
/// changes by 40 to 150, the weave or grain inside a mat by under 20 (the
/// 90th percentile at most 13 on the looks from 1004650 and 1004750).
const SHARP_CHANGE: f64 = 24.0;

/// The colour change (|Δa| + |Δb|, 8-bit Lab) over which a pixel no longer
/// counts as the empty mat, where lightness alone does not tell: a shadow
/// darkens with the same colour. A station whose round faces (or flat faces)
/// this bar loses lowers it at teaching ([`station_colour_bar`]).
pub const COLOUR_BAR: f64 = 9.0;

/// The share of what one face's teach picture shows at [`COLOUR_BAR`]
/// that the other face's picture must show (the same sticks, turned over in
/// place) before the bar is lowered for the station. Most generated looks
/// show 0.75–1.0. On look 1004183 (dark brown round faces on a dark olive
/// mat, |Δa| + |Δb| about 9) 0.59: its round faces fell apart into pieces
/// and 14 more of its 71 clear throws were called at its own bar; 1004231
/// (0.64) 6 more of 66. At 0.85 four more looks of 0.75–0.85 were lowered
/// too, for 4 fewer calls on one (1004261) and one more on another (ADR
/// 0056).
pub const DARK_FACE_SHARE: f64 = 0.7;
/// Where the bar is lowered, it is lowered until the face that showed less
/// (the round faces, or the flat faces) shows this share of what the other
/// showed at [`COLOUR_BAR`] (1004183's round faces: 0.79 at 8, 1.0 at 7).
/// The same holds the other way round:
/// on hard-case look 303033 (seed 1003) the flat faces, pale wood on a pale
/// mat, showed a third of what the round faces did; its flat faces were
/// found in pieces, its station read its taught faces at 0.77, and all 15
/// of its clear throws went to the referee. At 7 its flat faces showed and
/// it called all 15 (ADR 0069).
pub const WHOLE_FACE_SHARE: f64 = 0.95;
/// The lowest bar teaching sets. Lowered for every station, to 7, the
/// foreground took in path-traced shadows on photoreal-dev and 4 of its 27
/// clear throws went to the referee.
pub const LOWEST_COLOUR_BAR: f64 = 6.0;

/// The least drop in lightness (8-bit Lab) at which a pixel counts as darker
/// than the empty picture (than a shadow, or in the dark look off the mat),
/// whatever share of it that is: in the black corners of fresh look 1005812
/// (lightness 1) a pixel at 0 was under 55 % of the empty picture, and
/// specks were found there beside the four sticks (ADR 0081).
pub const DARK_MIN_DROP: f64 = 6.0;

/// The share of the empty mat's lightness under which a pixel is darker
/// than any shadow and counts as a stick whatever its colour: shadows are left
/// out on purpose (they would widen every stick and join neighbours).
pub const DARK_SHARE: f64 = 0.55;

/// The highest share a station raises [`DARK_SHARE`] to
/// ([`station_dark_share`]): the dark third look off the mat's
/// ([`DARK_LOOK`]), which takes in soft shadows.
pub const HIGHEST_DARK_SHARE: f64 = DARK_LOOK;

/// The step by which a station's dark share is raised.
pub const DARK_SHARE_STEP: f64 = 0.05;

/// How much more of the face that shows well a raised dark share may show
/// than [`DARK_SHARE`] did: more is its sticks' shadows coming in, which would
/// widen every stick of the station.
pub const SHADOW_GROWTH: f64 = 1.05;

/// What the teach pictures show at a colour bar ([`station_colour_bar`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shown {
    /// The foreground area of the flat-face teach picture.
    pub front: f64,
    /// The same of the round-face teach picture.
    pub back: f64,
    /// Foreground in either picture farther than a stick's length from all
    /// they show at the usual bar: not the sticks, but the empty picture's
    /// noise the lowered bar lets through.
    pub apart: f64,
}

/// The station's colour bar: [`COLOUR_BAR`], unless one face's teach
/// picture (the round faces', or the flat faces') shows under
/// [`DARK_FACE_SHARE`] of what the other face's picture shows at it; then
/// lowered a step at a time until it shows [`WHOLE_FACE_SHARE`] of that,
/// down to [`LOWEST_COLOUR_BAR`], and never to a bar at which the teach
/// pictures show something apart from their sticks (`Shown::apart`): what
/// shows there shows in every throw. On fresh look 1006129 (pale sticks on
/// a light brown mat) the bar went down to 6; slivers just beyond the mat's
/// blurred edge, a colour change of 7–9 against the one empty picture,
/// showed in both teach pictures and in every throw, and 33 of its 41 clear
/// throws went to the referee as `stick_count` (ADR 0082). `shown(bar)`
/// measures the teach pictures at a bar.
pub fn station_colour_bar(
    mut shown: impl FnMut(f64) -> opencv::Result<Shown>,
) -> opencv::Result<f64> {
    let usual = shown(COLOUR_BAR)?;
    // The face that shows less, and what the other shows at the usual bar.
    let weak_is_flat = usual.front < usual.back;
    let weak_of = |s: &Shown| if weak_is_flat { s.front } else { s.back };
    let (strong, mut weak) = (usual.front.max(usual.back), weak_of(&usual));
    let mut bar = COLOUR_BAR;
    if weak >= DARK_FACE_SHARE * strong {
        return Ok(bar);
    }
    while weak < WHOLE_FACE_SHARE * strong && bar > LOWEST_COLOUR_BAR {
        let lower = shown(bar - 1.0)?;
        if lower.apart > 0.0 {
            break;
        }
        bar -= 1.0;
        weak = weak_of(&lower);
    }
    Ok(bar)
}

/// The station's dark share: [`DARK_SHARE`], unless at the station's colour
/// bar one face's teach picture (a face painted black on a dark grey mat:
/// no colour to tell it by, and lighter than under a shadow) still shows
/// under [`DARK_FACE_SHARE`] of what the other shows. Then raised a step at a
/// time until it shows [`WHOLE_FACE_SHARE`] of that, up to
/// [`HIGHEST_DARK_SHARE`], never to a share at which the other face shows
/// over [`SHADOW_GROWTH`] of what it showed (its shadows) or the teach
/// pictures show something apart from their sticks (`Shown::apart`).
/// `shown(share)` measures the teach pictures at a share.
pub fn station_dark_share(
    mut shown: impl FnMut(f64) -> opencv::Result<Shown>,
) -> opencv::Result<f64> {
    let usual = shown(DARK_SHARE)?;
    let weak_is_flat = usual.front < usual.back;
    let weak_of = |s: &Shown| if weak_is_flat { s.front } else { s.back };
    let strong_of = |s: &Shown| if weak_is_flat { s.back } else { s.front };
    let strong = strong_of(&usual);
    let mut weak = weak_of(&usual);
    if weak >= DARK_FACE_SHARE * strong {
        return Ok(DARK_SHARE);
    }
    let mut steps = 0;
    while weak < WHOLE_FACE_SHARE * strong && dark_share_at(steps + 1) <= HIGHEST_DARK_SHARE {
        let higher = shown(dark_share_at(steps + 1))?;
        if higher.apart > 0.0 || strong_of(&higher) > SHADOW_GROWTH * strong {
            break;
        }
        steps += 1;
        weak = weak_of(&higher);
    }
    Ok(dark_share_at(steps))
}

/// The dark share `steps` of [`DARK_SHARE_STEP`] above [`DARK_SHARE`], in
/// hundredths (as profiles keep it): the shares a station may be taught at.
pub fn dark_share_at(steps: u32) -> f64 {
    ((DARK_SHARE + f64::from(steps) * DARK_SHARE_STEP) * 100.0).round() / 100.0
}

/// How many steps of [`DARK_SHARE_STEP`] a dark share lies above
/// [`DARK_SHARE`] ([`dark_share_at`] the other way).
pub fn dark_share_steps(share: f64) -> u32 {
    ((share - DARK_SHARE) / DARK_SHARE_STEP).round().max(0.0) as u32
}

/// The scale at which masks are made: large frames are halved (sticks stay
/// several pixels wide, and it is four times less work).
pub fn work_scale(width: i32) -> f64 {
    if width > 900 {
        0.5
    } else {
        1.0
    }
}

/// Smooth (or shrink) and convert a BGR frame to Lab at the working scale.
pub fn to_lab(m: &Mat) -> opencv::Result<Mat> {
    let mut lab = Mat::default();
    imgproc::cvt_color_def(&to_small(m)?, &mut lab, imgproc::COLOR_BGR2Lab)?;
    Ok(lab)
}

/// A BGR frame smoothed (or shrunk) to the working scale.
fn to_small(m: &Mat) -> opencv::Result<Mat> {
    let sc = work_scale(m.cols());
    let mut s = Mat::default();
    if sc < 1.0 {
        imgproc::resize(m, &mut s, Size::new(0, 0), sc, sc, imgproc::INTER_AREA)?;
    } else {
        imgproc::blur_def(m, &mut s, Size::new(3, 3))?;
    }
    Ok(s)
}

/// The lightness (16-bit) under which a pixel is darker than `darkest` (the
/// empty picture's, 8-bit): under `share` of it, and by at least
/// [`DARK_MIN_DROP`].
fn darker_than(darkest: &Mat, share: f64) -> opencv::Result<Mat> {
    let (mut by_share, mut by_drop, mut out) = (Mat::default(), Mat::default(), Mat::default());
    darkest.convert_to(&mut by_share, opencv::core::CV_16S, share, 0.0)?;
    darkest.convert_to(&mut by_drop, opencv::core::CV_16S, 1.0, -DARK_MIN_DROP)?;
    opencv::core::min(&by_share, &by_drop, &mut out)?;
    Ok(out)
}

/// Where a frame (`frame_lab`, from [`to_lab`]) is darker than `below` in
/// each of its blue, green and red: a shadow (255), see [`SHADOW_RATIO`].
fn shadow_like(frame_lab: &Mat, below: &Mat) -> opencv::Result<Mat> {
    use opencv::core::{bitwise_and_def, compare, CMP_LT};
    let mut bgr = Mat::default();
    imgproc::cvt_color_def(frame_lab, &mut bgr, imgproc::COLOR_Lab2BGR)?;
    let (mut ours, mut theirs) = (Vector::<Mat>::new(), Vector::<Mat>::new());
    opencv::core::split(&bgr, &mut ours)?;
    opencv::core::split(below, &mut theirs)?;
    let mut all = Mat::default();
    for k in 0..3 {
        let mut under = Mat::default();
        compare(&ours.get(k)?, &theirs.get(k)?, &mut under, CMP_LT)?;
        all = if all.empty() {
            under
        } else {
            let mut both = Mat::default();
            bitwise_and_def(&all, &under, &mut both)?;
            both
        };
    }
    Ok(all)
}

/// The L, a and b planes of a Lab picture, split in one pass.
fn planes(lab: &Mat) -> opencv::Result<[Mat; 3]> {
    let mut v = Vector::<Mat>::new();
    opencv::core::split(lab, &mut v)?;
    Ok([v.get(0)?, v.get(1)?, v.get(2)?])
}

impl Reference {
    pub fn new(empty: &Mat) -> opencv::Result<Reference> {
        use opencv::core::{absdiff, add_def, compare, CMP_GT};
        let empty_small = to_small(empty)?;
        let mut empty_lab = Mat::default();
        imgproc::cvt_color_def(&empty_small, &mut empty_lab, imgproc::COLOR_BGR2Lab)?;
        let lab = planes(&empty_lab)?;
        let k = imgproc::get_structuring_element_def(imgproc::MORPH_RECT, Size::new(3, 3))?;
        let mut least = Vec::new();
        let mut most = Vec::new();
        let mut spread = Vec::new();
        for plane in &lab {
            let (mut lo, mut hi, mut d) = (Mat::default(), Mat::default(), Mat::default());
            imgproc::erode_def(plane, &mut lo, &k)?;
            imgproc::dilate_def(plane, &mut hi, &k)?;
            absdiff(&hi, &lo, &mut d)?;
            least.push(lo);
            most.push(hi);
            spread.push(d);
        }
        // Where the empty picture changes sharply: in lightness, or in
        // colour (a and b together).
        let mut sharp = Mat::default();
        compare(&spread[0], &Scalar::all(SHARP_CHANGE), &mut sharp, CMP_GT)?;
        let mut colour_spread = Mat::default();
        add_def(&spread[1], &spread[2], &mut colour_spread)?;
        let mut sharp_colour = Mat::default();
        compare(
            &colour_spread,
            &Scalar::all(SHARP_CHANGE),
            &mut sharp_colour,
            CMP_GT,
        )?;
        let mut any_sharp = Mat::default();
        opencv::core::bitwise_or_def(&sharp, &sharp_colour, &mut any_sharp)?;
        // Each plane's range: the pixel itself, or where the picture changes
        // sharply the least and most around it.
        let range = |k: usize, top: bool| -> opencv::Result<Mat> {
            let mut out = lab[k].try_clone()?;
            let around = if top { &most[k] } else { &least[k] };
            around.copy_to_masked(&mut out, &any_sharp)?;
            Ok(out)
        };
        // Brighter: a rise of 6 + 6 % of the mat's lightness. Darker than a
        // shadow: under 55 % of it (shadows are left out on purpose), and by
        // at least `DARK_MIN_DROP`.
        let lightest = range(0, true)?;
        let mut rise = Mat::default();
        lightest.convert_to(&mut rise, opencv::core::CV_16S, 1.06, 6.0)?;
        let darkest = range(0, false)?;
        let floor = darker_than(&darkest, DARK_SHARE)?;
        let mut faint_rise = Mat::default();
        lightest.convert_to(
            &mut faint_rise,
            opencv::core::CV_16S,
            1.0 + FAINT_RISE.0,
            FAINT_RISE.1,
        )?;
        let dim = darker_than(&darkest, DARK_LOOK)?;
        let (width, height) = (lab[0].cols(), lab[0].rows());
        Ok(Reference {
            ab_low: [range(1, false)?, range(2, false)?],
            ab_high: [range(1, true)?, range(2, true)?],
            rise,
            floor,
            faint_rise,
            dim,
            width,
            height,
            colour_bar: COLOUR_BAR,
            dark_share: DARK_SHARE,
            darkest,
            empty_small,
            shadow_below: None,
            looks_off_mat: LooksOffMat {
                faint: true,
                dark: true,
            },
            speck_disc: SPECK_DISC,
        })
    }

    /// The same reference opening its masks with the finer look's smaller
    /// disc ([`FINER_SPECK_DISC`]).
    pub fn with_finer_specks(self) -> Reference {
        self.with_speck_disc(FINER_SPECK_DISC)
    }

    /// The same reference opening its masks with a disc `speck_disc` pixels
    /// across (the station's: `Taught::speck_disc`).
    pub fn with_speck_disc(self, speck_disc: i32) -> Reference {
        Reference { speck_disc, ..self }
    }

    /// The disc its masks are opened with.
    pub fn speck_disc(&self) -> i32 {
        self.speck_disc
    }

    /// The same reference taking only these looks off the mat (the
    /// station's, as teaching tried them: `Taught::faint_look`,
    /// `Taught::dark_look`).
    pub fn with_looks_off_mat(self, looks_off_mat: LooksOffMat) -> Reference {
        Reference {
            looks_off_mat,
            ..self
        }
    }

    /// The same reference with another dark share (the station's):
    /// [`Reference::floor`] made again.
    pub fn with_dark_share(self, dark_share: f64) -> opencv::Result<Reference> {
        Ok(Reference {
            floor: darker_than(&self.darkest, dark_share)?,
            dark_share,
            ..self
        })
    }

    /// The same reference with another colour bar (the station's).
    pub fn with_colour_bar(self, colour_bar: f64) -> Reference {
        Reference { colour_bar, ..self }
    }

    /// The same reference leaving shadows out (`trim`, as teaching found the
    /// station's shadows: `Taught::shadows_trimmed`) or not.
    pub fn with_shadows_trimmed(self, trim: bool) -> opencv::Result<Reference> {
        let shadow_below = if trim {
            let mut below = Mat::default();
            // Through Lab and back, as a frame's pixels are compared.
            let mut lab = Mat::default();
            imgproc::cvt_color_def(&self.empty_small, &mut lab, imgproc::COLOR_BGR2Lab)?;
            let mut bgr = Mat::default();
            imgproc::cvt_color_def(&lab, &mut bgr, imgproc::COLOR_Lab2BGR)?;
            bgr.convert_to(&mut below, -1, SHADOW_RATIO, 0.0)?;
            Some(below)
        } else {
            None
        };
        Ok(Reference {
            shadow_below,
            ..self
        })
    }

    /// Whether it leaves shadows out ([`Reference::with_shadows_trimmed`]).
    pub fn trimming_shadows(&self) -> bool {
        self.shadow_below.is_some()
    }
}

/// The foreground mask (255 = not the empty mat or floor, and not a shadow).
/// `frame_lab` comes from [`to_lab`].
pub fn foreground(frame_lab: &Mat, reference: &Reference) -> opencv::Result<Mat> {
    foreground_with_bar(frame_lab, reference, reference.colour_bar)
}

/// [`foreground`] at another colour bar (the lower look where a throw's
/// sticks show in pieces: [`PIECES_COLOUR_BAR`]).
pub fn foreground_with_bar(
    frame_lab: &Mat,
    reference: &Reference,
    colour_bar: f64,
) -> opencv::Result<Mat> {
    foreground_at(
        frame_lab,
        reference,
        &reference.rise,
        &reference.floor,
        colour_bar,
    )
}

/// The colour bar of the second look at a throw whose sticks showed in
/// pieces, or too few, at the station's bar: the lowest bar teaching sets.
/// A round face that differs from the mat only a little in colour, lying
/// where the light shows it least, falls apart at the usual bar although
/// the teach pictures showed it whole (look 1005972: dark grey round faces
/// on a dark olive mat, 21 of its 50 throws went to the referee for pieces).
pub const PIECES_COLOUR_BAR: f64 = LOWEST_COLOUR_BAR;

/// [`foreground`] at the faint second look's bars: a smaller rise in
/// lightness (`FAINT_RISE`) and a lower colour bar (`FAINT_COLOUR`);
/// darker still means darker than any shadow.
pub fn faint_foreground(frame_lab: &Mat, reference: &Reference) -> opencv::Result<Mat> {
    let bar = reference.colour_bar * FAINT_COLOUR;
    foreground_at(
        frame_lab,
        reference,
        &reference.faint_rise,
        &reference.floor,
        bar,
    )
}

/// The dark third look off the mat: what is darker than [`DARK_LOOK`] of
/// the empty picture, whatever its colour. The first two looks leave out
/// what is only darker than the floor, as a shadow is; a stick off the mat
/// of the floor's hue but darker (a round face of dark wood on a light wooden
/// floor) is such a thing, and only its size, its shape and its lying apart
/// from every stick found tell it from a shadow ([`find_off_mat`]).
pub fn dark_foreground(frame_lab: &Mat, reference: &Reference) -> opencv::Result<Mat> {
    let [l, _, _] = planes(frame_lab)?;
    let mut dark = Mat::default();
    opencv::core::compare(
        &lightness_16(&l)?,
        &reference.dim,
        &mut dark,
        opencv::core::CMP_LT,
    )?;
    without_specks(&dark, reference.speck_disc)
}

/// The 8-bit lightness plane as 16-bit, to be compared with the reference's
/// 16-bit bars.
fn lightness_16(l: &Mat) -> opencv::Result<Mat> {
    let mut l16 = Mat::default();
    l.convert_to(&mut l16, opencv::core::CV_16S, 1.0, 0.0)?;
    Ok(l16)
}

/// A foreground mask opened with a small disc (`disc` pixels across): lone
/// pixels of noise go.
fn without_specks(mask: &Mat, disc: i32) -> opencv::Result<Mat> {
    let k = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(disc, disc))?;
    let mut out = Mat::default();
    imgproc::morphology_ex_def(mask, &mut out, imgproc::MORPH_OPEN, &k)?;
    Ok(out)
}

fn foreground_at(
    frame_lab: &Mat,
    reference: &Reference,
    rise: &Mat,
    floor: &Mat,
    colour_bar: f64,
) -> opencv::Result<Mat> {
    use opencv::core::{add_def, bitwise_or_def, compare, subtract_def, CMP_GT, CMP_LT};
    let [l, a, b] = planes(frame_lab)?;
    let l16 = lightness_16(&l)?;
    let mut bright = Mat::default();
    compare(&l16, rise, &mut bright, CMP_GT)?;
    let mut dark = Mat::default();
    compare(&l16, floor, &mut dark, CMP_LT)?;
    // Colour change (shadows keep the colour): how far a and b lie outside
    // the empty mat's range around the pixel, summed (8-bit arithmetic
    // stops at 0, so only the side it lies out on counts).
    let mut dc = Mat::default();
    for (k, plane) in [&a, &b].into_iter().enumerate() {
        for (over, under) in [
            (plane, &reference.ab_high[k]),
            (&reference.ab_low[k], plane),
        ] {
            let mut d = Mat::default();
            subtract_def(over, under, &mut d)?;
            if dc.empty() {
                dc = d;
            } else {
                let mut sum = Mat::default();
                add_def(&dc, &d, &mut sum)?;
                dc = sum;
            }
        }
    }
    let mut colour = Mat::default();
    compare(&dc, &Scalar::all(colour_bar), &mut colour, CMP_GT)?;
    if let Some(below) = &reference.shadow_below {
        // A coloured shadow changes colour, yet is no stick.
        let mut lit = Mat::default();
        opencv::core::bitwise_not_def(&shadow_like(frame_lab, below)?, &mut lit)?;
        let mut kept = Mat::default();
        opencv::core::bitwise_and_def(&colour, &lit, &mut kept)?;
        colour = kept;
    }
    let mut m1 = Mat::default();
    bitwise_or_def(&bright, &dark, &mut m1)?;
    let mut m = Mat::default();
    bitwise_or_def(&m1, &colour, &mut m)?;
    without_specks(&m, reference.speck_disc)
}

/// Bridge gaps inside a stick (a dark mark on a dark mat reads as mat) with a
/// closing a little over half a stick width wide.
pub fn bridge(mask: &Mat, stick_width_px: f64) -> opencv::Result<Mat> {
    let k = ((stick_width_px * 0.6).round() as i32).max(3) | 1;
    let kernel = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(k, k))?;
    let mut out = Mat::default();
    imgproc::morphology_ex_def(mask, &mut out, imgproc::MORPH_CLOSE, &kernel)?;
    Ok(out)
}

/// One stick as found: a rotated rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Found {
    pub center: [f64; 2],
    /// Unit vector along the long axis (image coordinates, y down).
    pub dir: [f64; 2],
    pub length: f64,
    pub width: f64,
    /// It shares its blob with other sticks (touching, crossing, resting).
    pub shared: bool,
    /// Blob area over the expected single-stick area.
    pub blob_ratio: f64,
}

impl Found {
    /// Whether `other` was split out of the same blob. The blob's area ratio
    /// is computed once per blob and written on each of its sticks, so equal
    /// ratios name one blob.
    pub fn same_blob(&self, other: &Found) -> bool {
        self.shared && other.shared && self.blob_ratio == other.blob_ratio
    }

    /// |cos| of the angle between this stick's long axis and `other`'s: 1
    /// for parallel sticks, 0 for crossing at right angles.
    pub fn axis_cos(&self, other: &Found) -> f64 {
        (self.dir[0] * other.dir[0] + self.dir[1] * other.dir[1]).abs()
    }

    /// Counter-clockwise from image +x as viewed, in [0, 180).
    pub fn angle_deg(&self) -> f64 {
        (-self.dir[1])
            .atan2(self.dir[0])
            .to_degrees()
            .rem_euclid(180.0)
    }

    /// Whether point `q` lies on this stick's rectangle.
    pub fn covers(&self, q: [f64; 2]) -> bool {
        in_rect(
            q,
            self.center,
            self.dir,
            self.length / 2.0,
            self.width / 2.0,
        )
    }

    pub fn corners(&self) -> [[f64; 2]; 4] {
        let (d, n) = (self.dir, [-self.dir[1], self.dir[0]]);
        let (hl, hw) = (self.length / 2.0, self.width / 2.0);
        [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].map(|(a, b)| {
            [
                self.center[0] + a * hl * d[0] + b * hw * n[0],
                self.center[1] + a * hl * d[1] + b * hw * n[1],
            ]
        })
    }
}

/// Every found stick but the `i`-th.
pub fn others_than(found: &[Found], i: usize) -> Vec<Found> {
    found
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != i)
        .map(|(_, f)| *f)
        .collect()
}

/// Whether point `q` lies in the rectangle of centre `c`, unit direction
/// `dir` (along its length), half length `hl` and half width `hw`.
pub fn in_rect(q: [f64; 2], c: [f64; 2], dir: [f64; 2], hl: f64, hw: f64) -> bool {
    let (dx, dy) = (q[0] - c[0], q[1] - c[1]);
    (dx * dir[0] + dy * dir[1]).abs() <= hl && (-dx * dir[1] + dy * dir[0]).abs() <= hw
}

/// The share of a stick's footprint that other sticks' footprints cover:
/// one lies across it or it lies across one (0 for sticks that only touch
/// side by side, or lie apart). Sampled on a grid over the footprint.
pub fn covered_share(s: &Found, others: &[Found]) -> f64 {
    const ALONG: usize = 16;
    const ACROSS: usize = 4;
    let n = [-s.dir[1], s.dir[0]];
    let mut covered = 0;
    for a in 0..ALONG {
        for b in 0..ACROSS {
            let u = ((a as f64 + 0.5) / ALONG as f64 - 0.5) * s.length;
            let v = ((b as f64 + 0.5) / ACROSS as f64 - 0.5) * s.width;
            let q = [
                s.center[0] + u * s.dir[0] + v * n[0],
                s.center[1] + u * s.dir[1] + v * n[1],
            ];
            if others
                .iter()
                .any(|o| in_rect(q, o.center, o.dir, o.length / 2.0, o.width / 2.0))
            {
                covered += 1;
            }
        }
    }
    covered as f64 / (ALONG * ACROSS) as f64
}

/// Whether `other`'s footprint reaches over any of `s`'s ([`covered_share`]).
pub fn reaches_over(s: &Found, other: &Found) -> bool {
    covered_share(s, std::slice::from_ref(other)) > 0.0
}

/// Expected stick size in pixels at an image point.
pub type SizeAt<'a> = &'a dyn Fn([f64; 2]) -> (f64, f64);

/// How [`find_sticks`] takes a blob bigger than one stick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Split {
    /// Every blob is one stick (teaching's first look, where the stick size
    /// is not known yet and the sticks lie apart).
    Never,
    /// A blob that cannot be one stick is split into sticks. `lone_area`:
    /// how much of the mat one lone stick of this station covers, in taught
    /// stick areas, on its wider-looking face (`Taught::front_area` or
    /// `back_area`; a profile taught before they were kept has 0, and 0 or 1
    /// keeps the usual bars). See `LONE_SWELL`.
    Blobs { lone_area: f64 },
}

impl Split {
    /// The usual station, whose lone sticks cover about one taught area.
    pub const USUAL: Split = Split::Blobs { lone_area: 1.0 };
}

/// A blob under this many taught stick areas that fits one stick's box
/// (under [`SINGLE_LENGTH`] of its length and [`SINGLE_WIDTH`] of its width)
/// is one stick.
const SINGLE_AREA: f64 = 1.45;
const SINGLE_LENGTH: f64 = 1.25;
const SINGLE_WIDTH: f64 = 1.5;

/// Where one face of a station's sticks covers more than the taught size
/// (which is the median of all twelve taught sticks, so mostly the other
/// face's), a lone stick of that face may cover this much more than its
/// taught mean before its blob is taken for two: the area and width bars
/// above become `LONE_SWELL` times `Split::Blobs::lone_area` where that is
/// more. On fresh look 1005355 the flat faces covered 1.42 taught areas and
/// showed 1.43 taught widths (the round faces, dark on the mat, 0.86): a
/// lone flat face over 1.45 was split in two, and 22 of its 50 throws went
/// to the referee for their stick count (ADR 0068).
const LONE_SWELL: f64 = 1.2;

/// Find sticks in a foreground mask. `size_at` gives the expected (length,
/// width) in pixels at a point; `split` says how a blob bigger than one
/// stick is taken.
pub fn find_sticks(mask: &Mat, size_at: SizeAt, split: Split) -> opencv::Result<Vec<Found>> {
    find_sticks_counted(mask, size_at, split, None)
}

/// [`find_sticks`], with every blob fitted with exactly `count` sticks where
/// it is given (the count look, [`count_look`]): no blob is then taken for
/// one stick alone, and none is given a stick more where much of it is left
/// unexplained.
fn find_sticks_counted(
    mask: &Mat,
    size_at: SizeAt,
    split: Split,
    count: Option<usize>,
) -> opencv::Result<Vec<Found>> {
    // The area and width bars of one stick's blob at this station (see
    // `LONE_SWELL`); none where every blob is one stick.
    let single_bars = match split {
        Split::Never => None,
        Split::Blobs { lone_area } => Some((
            SINGLE_AREA.max(LONE_SWELL * lone_area),
            SINGLE_WIDTH.max(LONE_SWELL * lone_area),
        )),
    };
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut cents = Mat::default();
    let n =
        imgproc::connected_components_with_stats_def(mask, &mut labels, &mut stats, &mut cents)?;
    // Components big enough to matter.
    struct Comp {
        ids: Vec<i32>,
        area: f64,
        rect: opencv::core::Rect,
        centre: [f64; 2],
    }
    let mut comps: Vec<Comp> = Vec::new();
    for i in 1..n {
        let area = *stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)? as f64;
        let rect = opencv::core::Rect::new(
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_LEFT)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_TOP)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_WIDTH)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_HEIGHT)?,
        );
        let centre = [*cents.at_2d::<f64>(i, 0)?, *cents.at_2d::<f64>(i, 1)?];
        let (l, wd) = size_at(centre);
        if area >= 0.12 * l * wd {
            comps.push(Comp {
                ids: vec![i],
                area,
                rect,
                centre,
            });
        }
    }
    let points_of = |c: &Comp| -> opencv::Result<Vector<Point>> {
        let lab = Mat::roi(&labels, c.rect)?;
        let mut all = Vector::<Point>::new();
        for id in &c.ids {
            let mut b = Mat::default();
            opencv::core::compare(&lab, &Scalar::all(*id as f64), &mut b, opencv::core::CMP_EQ)?;
            let mut pts = Vector::<Point>::new();
            opencv::core::find_non_zero(&b, &mut pts)?;
            for p in pts.iter() {
                all.push(Point::new(p.x + c.rect.x, p.y + c.rect.y));
            }
        }
        Ok(all)
    };
    // Pieces of one stick cut by a dark mark: two small, collinear parts that
    // together make one stick.
    loop {
        let mut merged = false;
        'pairs: for a in 0..comps.len() {
            for b in a + 1..comps.len() {
                let (l, wd) = size_at(comps[a].centre);
                let a1 = l * wd;
                if comps[a].area > 0.85 * a1 || comps[b].area > 0.85 * a1 {
                    continue;
                }
                let (ca, cb) = (comps[a].centre, comps[b].centre);
                if (ca[0] - cb[0]).hypot(ca[1] - cb[1]) > l * 0.8 {
                    continue;
                }
                let mut pts = points_of(&comps[a])?;
                for p in points_of(&comps[b])?.iter() {
                    pts.push(p);
                }
                let rr = imgproc::min_area_rect(&pts)?;
                let rl = rr.size.width.max(rr.size.height) as f64;
                let rw = rr.size.width.min(rr.size.height) as f64;
                let ratio = (comps[a].area + comps[b].area) / a1;
                if rl <= 1.2 * l && rw <= 1.5 * wd && (0.4..1.35).contains(&ratio) {
                    let cb_ = comps.remove(b);
                    let ca_ = &mut comps[a];
                    let tot = ca_.area + cb_.area;
                    ca_.centre = [
                        (ca_.centre[0] * ca_.area + cb_.centre[0] * cb_.area) / tot,
                        (ca_.centre[1] * ca_.area + cb_.centre[1] * cb_.area) / tot,
                    ];
                    ca_.area = tot;
                    ca_.rect |= cb_.rect;
                    ca_.ids.extend(cb_.ids);
                    merged = true;
                    break 'pairs;
                }
            }
        }
        if !merged {
            break;
        }
    }
    let mut out = Vec::new();
    for comp in &comps {
        let (area, c) = (comp.area, comp.centre);
        let (x, y, w, h) = (comp.rect.x, comp.rect.y, comp.rect.width, comp.rect.height);
        let (l, wd) = size_at(c);
        let a1 = l * wd;
        // This blob alone, cropped with a margin.
        let m = (l * 0.6) as i32;
        let x0 = (x - m).max(0);
        let y0 = (y - m).max(0);
        let x1 = (x + w + m).min(mask.cols());
        let y1 = (y + h + m).min(mask.rows());
        let roi = opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0);
        let lab = Mat::roi(&labels, roi)?.try_clone()?;
        let mut blob = Mat::zeros(roi.height, roi.width, opencv::core::CV_8U)?.to_mat()?;
        for id in &comp.ids {
            let mut b = Mat::default();
            opencv::core::compare(&lab, &Scalar::all(*id as f64), &mut b, opencv::core::CMP_EQ)?;
            let mut acc = Mat::default();
            opencv::core::bitwise_or_def(&blob, &b, &mut acc)?;
            blob = acc;
        }
        let ratio = area / a1;
        let mut pts = Vector::<Point>::new();
        opencv::core::find_non_zero(&blob, &mut pts)?;
        let rr = imgproc::min_area_rect(&pts)?;
        let (rl, rw) = (
            rr.size.width.max(rr.size.height) as f64,
            rr.size.width.min(rr.size.height) as f64,
        );
        let single = single_bars.is_none_or(|(area_bar, width_bar)| {
            ratio < area_bar && rl < SINGLE_LENGTH * l && rw < width_bar * wd
        });
        if single && count.is_none() {
            out.push(lone_stick(&rr, [x0 as f64, y0 as f64], area, ratio));
            continue;
        }
        // Sticks in the blob, at 0.95 of a stick's area each (they overlap a
        // little), but two up to `TWO_STICKS_UP_TO`: two sticks whose blob
        // swelled (a shadow, one raised on the other) fitted as three is a
        // throw of five sticks. A third stick is still laid where much of
        // the blob is left unexplained ([`fit_rects`]).
        let by_area = (ratio / 0.95).round() as usize;
        let k = count.unwrap_or(if ratio < TWO_STICKS_UP_TO {
            by_area.clamp(1, 2)
        } else {
            by_area.clamp(3, 5)
        });
        let fits = fit_rects(&blob, k, l, wd, count.is_none())?;
        for (cc, dir, width) in fits {
            out.push(Found {
                center: [cc[0] + x0 as f64, cc[1] + y0 as f64],
                dir,
                length: l,
                width,
                shared: true,
                blob_ratio: ratio,
            });
        }
    }
    Ok(out)
}

/// A blob taken for one stick alone: its minimum-area box (`rr`, in pixels
/// of a crop whose top-left corner is `origin`), its pixel count `area` and
/// its area over one stick's, `ratio`.
fn lone_stick(rr: &opencv::core::RotatedRect, origin: [f64; 2], area: f64, ratio: f64) -> Found {
    let (rl, rw) = (
        rr.size.width.max(rr.size.height) as f64,
        rr.size.width.min(rr.size.height) as f64,
    );
    let th = (rr.angle as f64).to_radians();
    let mut dir = [th.cos(), th.sin()];
    if rr.size.height > rr.size.width {
        dir = [-dir[1], dir[0]];
    }
    Found {
        center: [
            rr.center.x as f64 + origin[0],
            rr.center.y as f64 + origin[1],
        ],
        dir,
        length: rl,
        // Area over length: less swayed by a ragged edge than the box.
        width: (area / rl.max(1.0)).min(rw),
        shared: false,
        blob_ratio: ratio,
    }
}

/// What of a throw found in pieces (or short of sticks) is looked at again
/// at a lower bar: `low` is the foreground there, `whole` the sticks the
/// first look found whole and `pieces` the rest. A blob of `low` is fitted
/// again when it holds a piece's centre, or no whole stick's centre (a stick
/// the first look missed), or, with `refit_whole` (where sticks are
/// missing), one whole stick (two sticks the first look took for one);
/// never one that holds two or more whole sticks, the costliest to fit,
/// where the first look's split stands. Every whole stick outside the blobs fitted again stays as the
/// first look placed it. Returns `low` with only those blobs left, and the
/// whole sticks kept: the second look costs the few small blobs of a stick
/// in pieces, not the whole throw again.
pub fn blobs_to_refind(
    low: &Mat,
    whole: &[Found],
    pieces: &[Found],
    refit_whole: bool,
) -> opencv::Result<(Mat, Vec<Found>)> {
    let mut labels = Mat::default();
    let n = imgproc::connected_components_def(low, &mut labels)? as usize;
    let (w, h) = (labels.cols(), labels.rows());
    let label_at = |s: &Found| label_under(&labels, s);
    let mut wholes = vec![0usize; n];
    let mut holds_piece = vec![false; n];
    let whole_labels = whole
        .iter()
        .map(label_at)
        .collect::<opencv::Result<Vec<_>>>()?;
    for &k in &whole_labels {
        wholes[k] += 1;
    }
    for s in pieces {
        holds_piece[label_at(s)?] = true;
    }
    // The background (label 0) is never fitted; a whole stick whose centre
    // falls on it keeps its place.
    let refind: Vec<bool> = (0..n)
        .map(|k| k > 0 && wholes[k] <= 1 && (holds_piece[k] || wholes[k] == 0 || refit_whole))
        .collect();
    let kept = whole
        .iter()
        .zip(&whole_labels)
        .filter(|(_, &k)| !refind[k])
        .map(|(s, _)| *s)
        .collect();
    let mut only = Mat::zeros(h, w, opencv::core::CV_8U)?.to_mat()?;
    {
        let lab = labels.data_typed::<i32>()?;
        let out = only.data_bytes_mut()?;
        for (o, &k) in out.iter_mut().zip(lab) {
            if refind[k as usize] {
                *o = 255;
            }
        }
    }
    Ok((only, kept))
}

/// How many sticks a throw has.
pub const THROWN_STICKS: usize = 4;

/// The count look (ADR 0076): four sticks are thrown, so where the finder
/// found more or fewer and one blob alone can account for the difference,
/// that blob is fitted again with exactly the sticks the count leaves it.
/// Found too many: the one blob split into three or more sticks, when it
/// keeps two. A pile fitted again with three was misfitted: on fresh look
/// 1006005 a blob of 3.4 stick areas split into four, fitted again with
/// three, laid one where a round face lay and read it flat (a silent 걸 for
/// 개). Found one too few: the one blob the finder took for no single stick
/// (too long, wide or large: `shared`) yet fitted with one, fitted with two.
/// Nothing is done where a lone piece shows (`is_piece`: it may be the
/// stick the count lacks, or the one too many), where several blobs could
/// hold the difference, or where the blob does not take the sticks. Returns
/// the throw's sticks with that blob's fitted again, or `None`.
pub fn count_look(
    mask: &Mat,
    found: &[Found],
    size_at: SizeAt,
    split: Split,
    is_piece: &dyn Fn(&Found) -> bool,
) -> opencv::Result<Option<Vec<Found>>> {
    if found.len() == THROWN_STICKS || found.iter().any(is_piece) {
        return Ok(None);
    }
    // The blobs split into sticks: one member each, the first found.
    let mut blobs: Vec<usize> = Vec::new();
    for (i, s) in found.iter().enumerate() {
        if s.shared && !blobs.iter().any(|&b| found[b].same_blob(s)) {
            blobs.push(i);
        }
    }
    let [b] = blobs[..] else {
        return Ok(None);
    };
    let (members, rest): (Vec<Found>, Vec<Found>) =
        found.iter().partition(|s| found[b].same_blob(s));
    let held = members.len();
    let want = if found.len() > THROWN_STICKS {
        held.checked_sub(found.len() - THROWN_STICKS)
            .filter(|&k| k == 2)
    } else {
        (held == 1 && found.len() + 1 == THROWN_STICKS).then_some(2)
    };
    let Some(want) = want else {
        return Ok(None);
    };
    let Some(only) = only_blob_under(mask, &members)? else {
        return Ok(None);
    };
    let refit = find_sticks_counted(&only, size_at, split, Some(want))?;
    if refit.len() != want {
        return Ok(None);
    }
    let mut again = rest;
    again.extend(refit);
    Ok(Some(again))
}

/// The connected-component label under a found stick's centre (clamped to
/// the picture; 0 is the background).
fn label_under(labels: &Mat, s: &Found) -> opencv::Result<usize> {
    let x = (s.center[0].round() as i32).clamp(0, labels.cols() - 1);
    let y = (s.center[1].round() as i32).clamp(0, labels.rows() - 1);
    Ok(*labels.at_2d::<i32>(y, x)? as usize)
}

/// `mask` with only the blob most of `sticks`' centres fall on, or `None`
/// where none falls on a blob.
fn only_blob_under(mask: &Mat, sticks: &[Found]) -> opencv::Result<Option<Mat>> {
    let mut labels = Mat::default();
    let n = imgproc::connected_components_def(mask, &mut labels)? as usize;
    let mut votes = vec![0usize; n];
    for s in sticks {
        votes[label_under(&labels, s)?] += 1;
    }
    // The background (label 0) holds no blob.
    let Some((k, _)) = votes
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, &v)| v > 0)
        .max_by_key(|(_, &v)| v)
    else {
        return Ok(None);
    };
    let mut only = Mat::default();
    opencv::core::compare(
        &labels,
        &Scalar::all(k as f64),
        &mut only,
        opencv::core::CMP_EQ,
    )?;
    Ok(Some(only))
}

/// The faint second look's rise in lightness: over the empty picture's by
/// this share and these units (the first look's is 6 % and 6). A light
/// stick off the mat on a floor of about its lightness and colour (look
/// 1004758: a floor of L 80, the stick 91, |Δa| + |Δb| 5) stays under the
/// first look's bars, and the throw, 낙, went to the referee with three
/// sticks found.
const FAINT_RISE: (f64, f64) = (0.03, 3.0);
/// The faint second look's colour bar, as a share of the station's
/// (look 1004903: a stick on a grey floor, |Δa| + |Δb| 8 against 9).
const FAINT_COLOUR: f64 = 0.6;
/// The dark third look's lightness bar, a share of the empty picture's
/// least lightness around each pixel: a stick off the mat that the first two
/// looks miss because it is only darker than the floor (look 1005677: round
/// faces at 65 % of a light wooden floor's lightness, |Δa| + |Δb| 5; three
/// clear 낙 throws went to the referee with three sticks found, ADR 0073).
pub const DARK_LOOK: f64 = 0.8;
/// How far off the mat (cm) every corner of what the faint second look
/// finds must lie: past the mat's hem and the calibration's error, so
/// nothing of the mat itself is taken.
pub const OFF_MAT_CLEAR_CM: f64 = 1.0;

/// The faint second look off the mat: where the first look found fewer
/// than [`THROWN_STICKS`] sticks, a missing one may lie on a floor that
/// shows it only faintly. `faint` is the foreground at the faint bars
/// ([`faint_foreground`], bridged like the first look's; or, for the dark
/// third look where sticks are still missing, [`dark_foreground`]), `found` what the
/// first look found, both at the working scale; `off_mat` tells whether a
/// point (working scale) lies clearly off the mat. A blob of the faint
/// foreground counts as a stick when it has one whole stick's size and
/// shape (as [`find_sticks`] takes a blob for one stick, and at least
/// 0.8 of a stick long), lies wholly off the mat and is none of the
/// sticks found. Only when there are no more such blobs than sticks
/// missing are they taken: more would mean the floor itself shows at
/// these bars, and then the referee counts.
pub fn find_off_mat(
    faint: &Mat,
    size_at: SizeAt,
    found: &[Found],
    off_mat: &dyn Fn([f64; 2]) -> bool,
    missing: usize,
) -> opencv::Result<Vec<Found>> {
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut cents = Mat::default();
    let n =
        imgproc::connected_components_with_stats_def(faint, &mut labels, &mut stats, &mut cents)?;
    let mut out = Vec::new();
    for i in 1..n {
        let area = *stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)? as f64;
        let centre = [*cents.at_2d::<f64>(i, 0)?, *cents.at_2d::<f64>(i, 1)?];
        let (l, wd) = size_at(centre);
        let ratio = area / (l * wd);
        if !(0.6..1.45).contains(&ratio) || found.iter().any(|f| f.covers(centre)) {
            continue;
        }
        let rect = opencv::core::Rect::new(
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_LEFT)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_TOP)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_WIDTH)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_HEIGHT)?,
        );
        let mut own = Mat::default();
        opencv::core::compare(
            &Mat::roi(&labels, rect)?,
            &Scalar::all(i as f64),
            &mut own,
            opencv::core::CMP_EQ,
        )?;
        let mut pts = Vector::<Point>::new();
        opencv::core::find_non_zero(&own, &mut pts)?;
        let rr = imgproc::min_area_rect(&pts)?;
        let (rl, rw) = (
            rr.size.width.max(rr.size.height) as f64,
            rr.size.width.min(rr.size.height) as f64,
        );
        if !(0.8 * l..1.25 * l).contains(&rl) || rw >= 1.5 * wd {
            continue;
        }
        let stick = lone_stick(&rr, [rect.x as f64, rect.y as f64], area, ratio);
        if stick.corners().iter().all(|c| off_mat(*c)) {
            out.push(stick);
        }
    }
    if out.len() > missing {
        out.clear();
    }
    Ok(out)
}

/// Whether one stick is found twice: a stick alone in its blob that covers
/// another's centre, or whose centre another covers (the second look keeps a
/// whole stick and may fit it again in a blob of the lower bar whose centre
/// the kept one misses; ADR 0085). Two fitted in one blob may lie one on the
/// other, and do not count.
pub fn found_twice(found: &[Found]) -> bool {
    found.iter().enumerate().any(|(i, a)| {
        found[i + 1..]
            .iter()
            .any(|b| (!a.shared || !b.shared) && (a.covers(b.center) || b.covers(a.center)))
    })
}

/// A fitted stick in crop pixels: centre, unit direction, width.
type Placed = ([f64; 2], [f64; 2], f64);

/// Sums over every axis-aligned window of a picture, for the greedy fit's
/// template search: each pixel counts its value less a half (covered
/// foreground rewards, covered background costs), nothing past the
/// picture's edge. One summed-area table answers both window sizes the fit
/// tries, where two box filters and two searches for their maxima passed
/// over the picture four times. The sums are taken in `f64` and rounded to
/// `f32` as a box filter of an `f32` picture rounds its `f64` running sums,
/// and ties go to the first window in row order as OpenCV's `minMaxLoc`
/// gives them, so the fit places its sticks where it did.
struct WindowSums {
    cols: usize,
    rows: usize,
    /// Columns of zeros the table holds left of the picture (and right of
    /// it, repeating its last column), so a window as wide as this that
    /// hangs over either edge reads the table without clamping.
    pad: usize,
    /// `rows + 1` rows of `cols + 1 + 2 · pad`: the sum of the pixels above
    /// and left of each corner.
    table: Vec<f64>,
}

impl WindowSums {
    /// The table of `picture` (single-channel `f32`) less a half per pixel,
    /// for windows up to `widest` pixels wide.
    fn centred(picture: &Mat, widest: usize) -> opencv::Result<WindowSums> {
        let (cols, rows) = (picture.cols() as usize, picture.rows() as usize);
        let px = picture.data_typed::<f32>()?;
        let pad = widest;
        let stride = cols + 1 + 2 * pad;
        let mut table = vec![0.0f64; stride * (rows + 1)];
        // Down the columns first, every column at once; then along the rows,
        // four rows at once, so no one running sum holds the next back.
        for y in 0..rows {
            let (above, here) = table[y * stride..(y + 2) * stride].split_at_mut(stride);
            let (above, here) = (&above[pad + 1..][..cols], &mut here[pad + 1..][..cols]);
            for ((t, &a), &v) in here.iter_mut().zip(above).zip(&px[y * cols..][..cols]) {
                // As `convertTo(.., 1.0, -0.5)` makes it: rounded to `f32`.
                *t = a + (v - 0.5) as f64;
            }
        }
        for y0 in (1..=rows).step_by(4) {
            let n = (rows + 1 - y0).min(4);
            let mut acc = [0.0f64; 4];
            for x in pad + 1..pad + 1 + cols {
                for (j, a) in acc.iter_mut().enumerate().take(n) {
                    let t = &mut table[(y0 + j) * stride + x];
                    *a += *t;
                    *t = *a;
                }
            }
            for (j, a) in acc.iter().enumerate().take(n) {
                table[(y0 + j) * stride + pad + 1 + cols..][..pad].fill(*a);
            }
        }
        Ok(WindowSums {
            cols,
            rows,
            pad,
            table,
        })
    }

    /// The greatest sum of a `kw × kh` window (`kw` at most the table's
    /// widest) and where it lies: each window is named by the pixel at
    /// `(kw / 2, kh / 2)` inside it, as OpenCV's box filter anchors a kernel
    /// at its centre, and may hang over the picture's edge.
    fn best(&self, kw: usize, kh: usize) -> (f64, [usize; 2]) {
        assert!(kw <= self.pad, "a window wider than the table was made for");
        let (cols, stride) = (self.cols, self.cols + 1 + 2 * self.pad);
        let (ax, ay) = (kw / 2, kh / 2);
        // Window x spans table columns [x − ax, x − ax + kw) of the picture,
        // at `pad` more in the padded table.
        let (lo, hi) = (self.pad - ax, self.pad - ax + kw);
        let mut row = vec![0.0f32; cols];
        let mut best = (f32::MIN, [0, 0]);
        for y in 0..self.rows {
            let y0 = y.saturating_sub(ay);
            let y1 = (y + kh - ay).min(self.rows);
            let top = &self.table[y0 * stride..][..stride];
            let bottom = &self.table[y1 * stride..][..stride];
            for (((out, &br), &bl), (&tr, &tl)) in row
                .iter_mut()
                .zip(&bottom[hi..hi + cols])
                .zip(&bottom[lo..lo + cols])
                .zip(top[hi..hi + cols].iter().zip(&top[lo..lo + cols]))
            {
                *out = (br - bl - tr + tl) as f32;
            }
            let row_max = greatest(&row);
            if row_max > best.0 {
                let x = row.iter().position(|&v| v == row_max).unwrap_or(0);
                best = (row_max, [x, y]);
            }
        }
        (best.0 as f64, best.1)
    }
}

/// The greatest of `values` (`f32::MIN` for none), eight lanes at a time so
/// the compiler keeps them in vector registers: one running maximum would
/// wait on itself at every value.
fn greatest(values: &[f32]) -> f32 {
    let mut lanes = [f32::MIN; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (m, &v) in lanes.iter_mut().zip(chunk) {
            *m = if v > *m { v } else { *m };
        }
    }
    lanes
        .iter()
        .chain(rest)
        .fold(f32::MIN, |m, &v| if v > m { v } else { m })
}

/// Greedy rotated-template fit of up to `k` sticks (plus one more if much is left
/// unexplained and `grow`) to one blob. Returns centres, directions and widths
/// (crop pixels).
fn fit_rects(blob: &Mat, k: usize, l: f64, wd: f64, grow: bool) -> opencv::Result<Vec<Placed>> {
    let (bw, bh) = (blob.cols(), blob.rows());
    let mut weight = Mat::default();
    blob.convert_to(&mut weight, CV_32F, 1.0 / 255.0, 0.0)?;
    let total: f64 = opencv::core::sum_elems(&weight)?[0];
    let mut out = Vec::new();
    let mut explained = 0.0;
    let mut target = k;
    // The stick's template at scale `sc`: its length and the two widths
    // tried (a stick flat, one on its edge), in pixels.
    let windows = |sc: f64| {
        let along = (l * sc).round() as usize;
        [(1.0, wd), (0.55, wd * 0.55)]
            .map(|(wk, wpx)| (wk, along, ((wpx * sc).round() as usize).max(2)))
    };
    // A weight map turned by `ang` degrees about its centre into a square
    // that holds it at any angle, summed for the template's windows, with
    // the turn.
    let turned = |wmap: &Mat, sc: f64, ang: f64| -> opencv::Result<(WindowSums, Mat)> {
        let (mw, mh) = (wmap.cols(), wmap.rows());
        let dg = ((mw * mw + mh * mh) as f64).sqrt().ceil() as i32 + 2;
        let mut rot = imgproc::get_rotation_matrix_2d(
            Point2f::new(mw as f32 / 2.0, mh as f32 / 2.0),
            ang,
            1.0,
        )?;
        *rot.at_2d_mut::<f64>(0, 2)? += (dg - mw) as f64 / 2.0;
        *rot.at_2d_mut::<f64>(1, 2)? += (dg - mh) as f64 / 2.0;
        let mut r = Mat::default();
        imgproc::warp_affine(
            &wmap,
            &mut r,
            &rot,
            Size::new(dg, dg),
            imgproc::INTER_LINEAR,
            BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        // Reward covered foreground, penalise covered background.
        let widest = windows(sc)
            .iter()
            .map(|&(_, a, w)| a.max(w))
            .max()
            .unwrap_or(1);
        Ok((WindowSums::centred(&r, widest)?, rot))
    };
    // Score of the best placement of a stick at one angle on a weight map
    // scaled by `sc`: (score, centre, direction, width) in crop pixels.
    let place = |wmap: &Mat, sc: f64, ang: f64| -> opencv::Result<(f64, [f64; 2], [f64; 2], f64)> {
        let (sums, rot) = turned(wmap, sc, ang)?;
        let mut best = (f64::MIN, [0.0; 2], [1.0, 0.0], wd);
        for (wk, along, across) in windows(sc) {
            let (maxv, maxl) = sums.best(along, across);
            let maxv = maxv / (sc * sc);
            if maxv > best.0 {
                let m = |r: i32, c: i32| -> opencv::Result<f64> { rot.at_2d::<f64>(r, c).copied() };
                let (a, b, c, d) = (m(0, 0)?, m(0, 1)?, m(1, 0)?, m(1, 1)?);
                let (tx, ty) = (m(0, 2)?, m(1, 2)?);
                let det = a * d - b * c;
                let (u, v) = (maxl[0] as f64 - tx, maxl[1] as f64 - ty);
                let cx = (d * u - b * v) / det / sc;
                let cy = (-c * u + a * v) / det / sc;
                let (dx, dy) = (d / det, -c / det);
                let n = dx.hypot(dy);
                best = (maxv, [cx, cy], [dx / n, dy / n], wk * wd);
            }
        }
        Ok(best)
    };
    while out.len() < target && out.len() < 6 {
        // Coarse at half size every 6°, then fine at full size around the best.
        let mut half = Mat::default();
        imgproc::resize(
            &weight,
            &mut half,
            Size::new(0, 0),
            0.5,
            0.5,
            imgproc::INTER_AREA,
        )?;
        // A stick turned a further 90° is the template on its side: the map
        // turned by an angle under 90° answers that angle and the one 90°
        // on, with the windows' sides swapped, for half the turns (the
        // coarse look wants only each angle's best score; the two differ
        // from a map turned 90° more only by how the turn rounds its
        // sub-pixel steps).
        let sc = 0.5;
        let mut scores = [f64::MIN; 30];
        for step in 0..15 {
            let (sums, _) = turned(&half, sc, step as f64 * 6.0)?;
            for (_, along, across) in windows(sc) {
                let flat = sums.best(along, across).0 / (sc * sc);
                let on_side = sums.best(across, along).0 / (sc * sc);
                scores[step] = scores[step].max(flat);
                scores[step + 15] = scores[step + 15].max(on_side);
            }
        }
        let mut coarse = (f64::MIN, 0.0);
        for (step, &score) in scores.iter().enumerate() {
            if score > coarse.0 {
                coarse = (score, step as f64 * 6.0);
            }
        }
        let mut best = (f64::MIN, [0.0; 2], [1.0, 0.0], wd);
        for da in [-4.0, -2.0, 0.0, 2.0, 4.0] {
            let r = place(&weight, 1.0, coarse.1 + da)?;
            if r.0 > best.0 {
                best = r;
            }
        }
        if best.0 <= 0.0 {
            break;
        }
        // Dim what this stick explains, so the next fit looks elsewhere.
        let (c, d, w) = (best.1, best.2, best.3);
        let n = [-d[1], d[0]];
        let pts: Vector<Point> = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|(a, b)| {
                Point::new(
                    (c[0] + a * l / 2.0 * d[0] + b * w / 2.0 * n[0]).round() as i32,
                    (c[1] + a * l / 2.0 * d[1] + b * w / 2.0 * n[1]).round() as i32,
                )
            })
            .collect();
        let mut cover = Mat::zeros(bh, bw, opencv::core::CV_8U)?.to_mat()?;
        imgproc::fill_convex_poly_def(&mut cover, &pts, Scalar::all(255.0))?;
        let mut covered = Mat::default();
        opencv::core::bitwise_and_def(&blob, &cover, &mut covered)?;
        let got = opencv::core::count_non_zero(&covered)? as f64;
        let mut dimmed = Mat::default();
        weight.copy_to(&mut dimmed)?;
        let mut part = Mat::default();
        opencv::core::multiply_def(&weight, &Scalar::all(0.3), &mut part)?;
        part.copy_to_masked(&mut dimmed, &cover)?;
        weight = dimmed;
        explained += got;
        out.push((c, d, w));
        if grow && out.len() == target && total - explained > 0.5 * l * wd && target < 5 {
            target += 1;
        }
    }
    refine(blob, &mut out, l, wd)?;
    Ok(out)
}

/// How well a set of sticks explains a blob, kept up to date as single
/// sticks move: how many sticks cover each pixel, and the score (each
/// foreground pixel covered counts 1, less a quarter for each stick beyond
/// the first; each background pixel covered costs a half per stick). A move
/// only revisits the pixels of the stick that moves, and a move only tried
/// ([`Coverage::moved_score`]) writes nothing. Every pixel's share is a
/// multiple of a quarter, so the score is exact in any order of summing.
struct Coverage<'a> {
    fg: &'a [u8],
    grid: Grid,
    count: Vec<u8>,
    score: f64,
}

/// The blob's pixel grid and the stick length: which pixels a stick covers.
#[derive(Clone, Copy)]
struct Grid {
    bw: usize,
    bh: usize,
    l: f64,
}

impl Grid {
    /// Whether the stick covers pixel (x, y): the one test [`Self::cover`]
    /// keeps its pixels by.
    fn covers(&self, (c, d, w): &Placed, x: usize, y: usize) -> bool {
        let (dx, dy) = (x as f64 - c[0], y as f64 - c[1]);
        let u = dx * d[0] + dy * d[1];
        let v = -dx * d[1] + dy * d[0];
        u.abs() <= self.l / 2.0 && v.abs() <= w / 2.0
    }

    /// The rows a stick may cover and the columns around them: its bounding
    /// box on the grid, `[x0, x1) × [y0, y1)`.
    fn bounds(&self, (c, d, w): &Placed) -> [usize; 4] {
        let (hl, hw) = (self.l / 2.0, w / 2.0);
        let ex = hl * d[0].abs() + hw * d[1].abs();
        let ey = hl * d[1].abs() + hw * d[0].abs();
        let x0 = (c[0] - ex).floor().max(0.0) as usize;
        let y0 = (c[1] - ey).floor().max(0.0) as usize;
        let x1 = ((c[0] + ex).ceil().max(-1.0) + 1.0).min(self.bw as f64) as usize;
        let y1 = ((c[1] + ey).ceil().max(-1.0) + 1.0).min(self.bh as f64) as usize;
        [x0, x1, y0, y1]
    }

    /// The pixels the stick covers, one run per row: row `y` holds
    /// `[xa, xb)` (empty when `xa == xb`). They are one run: each of
    /// [`Self::covers`]' two tests holds on one run of a row (its `u` and `v`
    /// grow or shrink steadily along the row, rounding included), so the run
    /// is found by testing inwards from a stretch a pixel wider than the
    /// exact one. (The stretch need only hold the run, so each slab's
    /// division is taken once per stick, not once per row: a refit computes
    /// runs for every row of every move it tries.)
    fn runs(&self, r: &Placed) -> Runs {
        let [x0, x1, y0, y1] = self.bounds(r);
        let (c, d, w) = r;
        let (hl, hw) = (self.l / 2.0, w / 2.0);
        // Each slab: a·dx + k·dy within ±h, as (1/a, k, h).
        let slabs = [(d[0], d[1], hl), (-d[1], d[0], hw)]
            .map(|(a, k, h)| (a.abs() > 1e-9).then(|| (1.0 / a, k, h)));
        let rows = (y0..y1)
            .map(|y| {
                let dy = y as f64 - c[1];
                // The row's stretch inside both slabs (|u| ≤ hl, |v| ≤ hw), a
                // pixel wider each side; the exact test decides.
                let (mut lo, mut hi) = (x0 as f64, x1 as f64);
                for &(inv, k, h) in slabs.iter().flatten() {
                    let b = dy * k;
                    let (p, q) = ((-h - b) * inv, (h - b) * inv);
                    lo = lo.max(p.min(q) + c[0] - 1.0);
                    hi = hi.min(p.max(q) + c[0] + 2.0);
                }
                let mut xa = lo.max(x0 as f64) as usize;
                let mut xb = (hi.min(x1 as f64).max(0.0) as usize).max(xa);
                while xa < xb && !self.covers(r, xa, y) {
                    xa += 1;
                }
                while xb > xa && !self.covers(r, xb - 1, y) {
                    xb -= 1;
                }
                (xa, xb)
            })
            .collect();
        Runs { y0, rows }
    }
}

/// A stick's pixels on a [`Grid`]: row `y0 + i` holds `[xa, xb)` = `rows[i]`.
struct Runs {
    y0: usize,
    rows: Vec<(usize, usize)>,
}

impl Runs {
    /// The run of row `y` (empty off the stick's rows).
    fn row(&self, y: usize) -> (usize, usize) {
        y.checked_sub(self.y0)
            .and_then(|i| self.rows.get(i))
            .copied()
            .unwrap_or((0, 0))
    }

    /// The rows after the last one.
    fn end(&self) -> usize {
        self.y0 + self.rows.len()
    }

    /// Each row with its run.
    fn iter(&self) -> impl Iterator<Item = (usize, (usize, usize))> + '_ {
        (self.y0..).zip(self.rows.iter().copied())
    }
}

impl<'a> Coverage<'a> {
    fn new(fg: &'a [u8], bw: usize, bh: usize, l: f64, rects: &[Placed]) -> Coverage<'a> {
        let mut c = Coverage {
            fg,
            grid: Grid { bw, bh, l },
            count: vec![0; bw * bh],
            score: 0.0,
        };
        rects.iter().for_each(|r| c.lay(r, true));
        c
    }

    /// A pixel's share of the score, covered by `n` sticks.
    #[cfg(test)]
    fn pixel(fg: bool, n: u8) -> f64 {
        match (n, fg) {
            (0, _) => 0.0,
            (n, true) => 1.0 - 0.25 * (n - 1) as f64,
            (n, false) => -0.5 * n as f64,
        }
    }

    /// Pixel `k`'s count with one more stick over it (`on`) or one fewer,
    /// and what that changes in its share ([`Self::pixel`], written out: this
    /// runs for every pixel of every stick a refit lays or tries).
    fn change(fg: &[u8], count: &[u8], k: usize, on: bool) -> (u8, f64) {
        let (fg, n) = (fg[k] > 0, count[k]);
        match (on, fg, n) {
            (true, _, u8::MAX) | (false, _, 0) => (n, 0.0),
            (true, true, 0) => (1, 1.0),
            (true, true, _) => (n + 1, -0.25),
            (true, false, _) => (n + 1, -0.5),
            (false, true, 1) => (0, -1.0),
            (false, true, _) => (n - 1, 0.25),
            (false, false, _) => (n - 1, 0.5),
        }
    }

    /// Lay a stick on the blob (`on`) or lift it off.
    fn lay(&mut self, r: &Placed, on: bool) {
        let runs = self.grid.runs(r);
        self.lay_runs(&runs, on);
    }

    /// [`Self::lay`] of a stick's runs.
    fn lay_runs(&mut self, runs: &Runs, on: bool) {
        let (fg, count, bw) = (self.fg, &mut self.count, self.grid.bw);
        for (y, (xa, xb)) in runs.iter() {
            for k in y * bw + xa..y * bw + xb {
                let (m, delta) = Self::change(fg, count, k, on);
                self.score += delta;
                count[k] = m;
            }
        }
    }

    /// The score with `from` moved to `to`, the move made: the tests'
    /// reference for [`Self::moved_score`] (`refine_with` makes its moves
    /// with the runs it scored them on).
    #[cfg(test)]
    fn shift(&mut self, from: &Placed, to: &Placed) -> f64 {
        self.lay(from, false);
        self.lay(to, true);
        self.score
    }

    /// The score with these sticks laid on the blob as well, the coverage
    /// left as it was (every share is a multiple of a quarter, so lifting
    /// them again restores the score exactly). Candidates that replace
    /// sticks are scored with those lifted off first: two lays a candidate
    /// stick rather than four.
    fn score_with(&mut self, sticks: &[Placed]) -> f64 {
        let runs: Vec<Runs> = sticks.iter().map(|r| self.grid.runs(r)).collect();
        runs.iter().for_each(|r| self.lay_runs(r, true));
        let score = self.score;
        runs.iter().rev().for_each(|r| self.lay_runs(r, false));
        score
    }

    /// The score with `from` lifted off and `to` laid on, the move not made: only the
    /// pixels one of the two covers and the other does not change (`from`
    /// and `to` as their [`Grid::runs`]; a refit tries a dozen moves of each
    /// stick, so the caller takes `from`'s runs once).
    /// Row by row, only the ends of the two runs differ for a small move, so
    /// this visits the pixels that change, not the whole stick.
    fn moved_score(&self, from: &Runs, to: &Runs) -> f64 {
        let mut score = self.score;
        for y in from.y0.min(to.y0)..from.end().max(to.end()) {
            let row = y * self.grid.bw;
            let (f, t) = (from.row(y), to.row(y));
            for ((a0, a1), (b0, b1), on) in [(f, t, false), (t, f, true)] {
                // The run [a0, a1) less [b0, b1): what lies before and after it.
                let (before, after) = if b0 < b1 {
                    ((a0, a1.min(b0)), (a0.max(b1), a1))
                } else {
                    ((a0, a1), (a1, a1))
                };
                for (x0, x1) in [before, after] {
                    for x in x0..x1 {
                        score += Self::change(self.fg, &self.count, row + x, on).1;
                    }
                }
            }
        }
        score
    }
}

/// Local search on the greedy fit: shift, turn and narrow each stick while
/// that explains the blob better (undoes fits that straddle two sticks).
fn refine(blob: &Mat, rects: &mut [Placed], l: f64, wd: f64) -> opencv::Result<()> {
    refine_with(blob, rects, l, wd, 12, &[1.0, NARROW], 0)
}

/// Sticks split out of one blob, placed again on the full-resolution
/// foreground of their neighbourhood: the split is found on the half-size
/// mask, where a stick is only a few pixels wide, and a stick placed a fifth
/// of a width off reads part of its neighbour or of the mat as its own face.
/// `group` holds full-frame placements that shared one blob; `crop` is the
/// full-resolution foreground around them, whose top-left corner is `origin`.
pub fn refit_full(
    crop: &Mat,
    origin: [f64; 2],
    group: &mut [Found],
    l: f64,
    wd: f64,
) -> opencv::Result<()> {
    let mut rects: Vec<Placed> = group
        .iter()
        .map(|s| {
            (
                [s.center[0] - origin[0], s.center[1] - origin[1]],
                s.dir,
                if s.width < wd * 0.8 { wd * NARROW } else { wd },
            )
        })
        .collect();
    // A stick lying flat may show narrower than the taught width (a round
    // face's dark flanks read as mat): fitted at the full width beside
    // another, it leaves a strip that a narrow stick, "on its edge", fills.
    let widths = [1.0, REFIT_SLIM, NARROW];
    split_straddles(crop, &mut rects, l, wd)?;
    refine_with(crop, &mut rects, l, wd, REFIT_ROUNDS, &widths, REFIT_SHIFT)?;
    lay_side_by_side(crop, &mut rects, l, wd, &widths)?;
    for (s, (c, d, w)) in group.iter_mut().zip(rects) {
        s.center = [c[0] + origin[0], c[1] + origin[1]];
        s.dir = d;
        s.width = w;
    }
    Ok(())
}

/// Two near-parallel sticks side by side that the greedy fit placed one on
/// the seam between them and the other as a narrow strip at the side: no
/// move of a pixel or two undoes that, so each such pair is also tried laid
/// apart across their common axis, about a width between them (each keeping
/// its place along), and taken when that explains the blob better.
fn split_straddles(blob: &Mat, rects: &mut [Placed], l: f64, wd: f64) -> opencv::Result<()> {
    let (bw, bh) = (blob.cols() as usize, blob.rows() as usize);
    let fg = blob.data_bytes()?.to_vec();
    let mut cover = Coverage::new(&fg, bw, bh, l, rects);
    let mut best = cover.score;
    for i in 0..rects.len() {
        for j in i + 1..rects.len() {
            let (ci, di, _) = rects[i];
            let (cj, mut dj, _) = rects[j];
            let dot = di[0] * dj[0] + di[1] * dj[1];
            if dot.abs() < STRADDLE_PARALLEL {
                continue;
            }
            if dot < 0.0 {
                dj = [-dj[0], -dj[1]];
            }
            let d = {
                let s = [di[0] + dj[0], di[1] + dj[1]];
                let k = s[0].hypot(s[1]);
                [s[0] / k, s[1] / k]
            };
            let n = [-d[1], d[0]];
            let m = [(ci[0] + cj[0]) / 2.0, (ci[1] + cj[1]) / 2.0];
            let along = |c: [f64; 2]| (c[0] - m[0]) * d[0] + (c[1] - m[1]) * d[1];
            let gap = |c: [f64; 2]| ((c[0] - m[0]) * n[0] + (c[1] - m[1]) * n[1]).abs() * 2.0;
            // Only sticks closer across than a width and a third: a pair a
            // full width apart already lies side by side.
            if gap(ci) > 1.3 * wd {
                continue;
            }
            let (ti, tj) = (along(ci), along(cj));
            let at =
                |t: f64, off: f64| [m[0] + t * d[0] + off * n[0], m[1] + t * d[1] + off * n[1]];
            let keep = (rects[i], rects[j]);
            let mut pick = None;
            // Each stays on its side of the midpoint between them (laid
            // apart the other way round they would only swap places).
            let side = if (ci[0] - m[0]) * n[0] + (ci[1] - m[1]) * n[1] >= 0.0 {
                1.0
            } else {
                -1.0
            };
            // The pair lifted off while the candidates are laid in its place.
            cover.lay(&rects[i], false);
            cover.lay(&rects[j], false);
            for apart in [0.8, 0.9, 1.0, 1.1] {
                for (wi, wj) in [(1.0, 1.0), (REFIT_SLIM, 1.0), (1.0, REFIT_SLIM)] {
                    let h = side * apart * wd / 2.0;
                    let (a, b) = ((at(ti, h), d, wi * wd), (at(tj, -h), d, wj * wd));
                    let sc = cover.score_with(&[a, b]);
                    if sc > best + 0.25 {
                        best = sc;
                        pick = Some((a, b));
                    }
                }
            }
            let (a, b) = pick.unwrap_or(keep);
            cover.lay(&a, true);
            cover.lay(&b, true);
            rects[i] = a;
            rects[j] = b;
        }
    }
    Ok(())
}

/// Two sticks split out of one blob, laid again side by side where that
/// explains the blob better. Fitted as a cross (their axes apart by more
/// than `STRADDLE_PARALLEL`) they may be two sticks side by side: short,
/// wide sticks side by side make a blob about as wide as it is long, which
/// an X covers nearly as well, and no move of a pixel or a few degrees turns
/// an X into a pair. Fitted side by side, they may lie along the wrong axis:
/// two sticks side by side but staggered along their length make a blob
/// whose long axis runs askew of theirs, and the pair was fitted along it,
/// both sticks turned 15° off (look 1004652, throw 0), which no turn of a
/// few degrees undoes. So the pair is tried laid side by side along the
/// blob's long axis (its pixels' second moments) and turned from it up to
/// 20° each way (and so from the axis it was fitted along), each stick
/// where the blob's pixels on its side of that axis lie along it, about a
/// width apart; the best is refined like any fit, and taken when it
/// explains the blob better: clearly better than a cross
/// (`SIDE_BY_SIDE_GAIN` of a stick's area), a little better than the pair
/// as fitted (`TURNED_PAIR_GAIN`).
fn lay_side_by_side(
    blob: &Mat,
    rects: &mut [Placed],
    l: f64,
    wd: f64,
    widths: &[f64],
) -> opencv::Result<()> {
    let [a, b] = rects else {
        return Ok(());
    };
    let dot = a.1[0] * b.1[0] + a.1[1] * b.1[1];
    let crossed = dot.abs() < STRADDLE_PARALLEL;
    // The axis the pair was fitted along, when it was fitted side by side.
    let fitted_axis = {
        let bd = if dot < 0.0 { [-b.1[0], -b.1[1]] } else { b.1 };
        (a.1[1] + bd[1]).atan2(a.1[0] + bd[0])
    };
    let (bw, bh) = (blob.cols() as usize, blob.rows() as usize);
    let fg = blob.data_bytes()?.to_vec();
    let pts = pair_pixels(&fg, bw, bh, [a, b], l, wd);
    if pts.len() < 8 {
        return Ok(());
    }
    let (m, blob_axis) = principal_axis(&pts);
    let mut cover = Coverage::new(&fg, bw, bh, l, rects);
    let current = cover.score;
    let keep = [rects[0], rects[1]];
    // The score of a candidate pair in place of the fitted one (lifted off).
    keep.iter().for_each(|r| cover.lay(r, false));
    let mut score_of = |cand: &[Placed; 2]| cover.score_with(cand);
    // Along the blob's long axis, and turned from it: two sticks side by
    // side but staggered along their length make a blob whose long axis
    // runs askew of theirs. A pair fitted side by side is also tried turned
    // from its own axis.
    let mut axes = vec![blob_axis];
    if !crossed && (fitted_axis - blob_axis).sin().abs() > 0.02 {
        axes.push(fitted_axis);
    }
    // Each axis: the pair laid a width apart at the full width, each stick
    // where its side's pixels lie along the axis (the middle of their 3rd
    // to 97th percentile).
    let mut laid_along: Vec<([f64; 2], f64, f64, f64)> = Vec::new();
    let mut u = Vec::with_capacity(pts.len());
    for axis in axes {
        for k in -SIDE_BY_SIDE_TURNS..=SIDE_BY_SIDE_TURNS {
            let theta = axis + (k as f64 * SIDE_BY_SIDE_TURN_DEG).to_radians();
            let d = [theta.cos(), theta.sin()];
            let across = [-d[1], d[0]];
            let mut along_of = |sign: f64| -> Option<f64> {
                u.clear();
                u.extend(
                    pts.iter()
                        .filter(|p| {
                            ((p[0] - m[0]) * across[0] + (p[1] - m[1]) * across[1]) * sign > 0.0
                        })
                        .map(|p| (p[0] - m[0]) * d[0] + (p[1] - m[1]) * d[1]),
                );
                if u.len() < 4 {
                    return None;
                }
                let mut q = |f: f64| {
                    let k = ((u.len() - 1) as f64 * f).round() as usize;
                    *u.select_nth_unstable_by(k, f64::total_cmp).1
                };
                Some((q(0.03) + q(0.97)) / 2.0)
            };
            let (Some(tp), Some(tn)) = (along_of(1.0), along_of(-1.0)) else {
                continue;
            };
            let sc = score_of(&pair_at(m, d, tp, tn, wd, 1.0, (1.0, 1.0)));
            laid_along.push((d, tp, tn, sc));
        }
    }
    // The best axes, each with the pair a little closer or further
    // apart, and one of them slimmer (a round face whose flanks read as mat).
    laid_along.sort_by(|x, y| y.3.total_cmp(&x.3));
    let mut pick: Option<([Placed; 2], f64)> = None;
    for &(d, tp, tn, _) in laid_along.iter().take(SIDE_BY_SIDE_AXES) {
        for apart in [0.9, 1.0, 1.1] {
            for widths in [(1.0, 1.0), (REFIT_SLIM, 1.0), (1.0, REFIT_SLIM)] {
                let cand = pair_at(m, d, tp, tn, wd, apart, widths);
                let sc = score_of(&cand);
                if pick.is_none_or(|(_, best)| sc > best) {
                    pick = Some((cand, sc));
                }
            }
        }
    }
    let Some((mut pair, _)) = pick else {
        return Ok(());
    };
    refine_with(blob, &mut pair, l, wd, REFIT_ROUNDS, widths, REFIT_SHIFT)?;
    let laid = Coverage::new(&fg, bw, bh, l, &pair).score;
    let gain = if crossed {
        SIDE_BY_SIDE_GAIN
    } else {
        TURNED_PAIR_GAIN
    };
    if laid > current + gain * l * wd {
        // Each fitted stick keeps the place nearest its own.
        let d = |p: &Placed, q: &Placed| (p.0[0] - q.0[0]).hypot(p.0[1] - q.0[1]);
        if d(&pair[0], &keep[1]) + d(&pair[1], &keep[0])
            < d(&pair[0], &keep[0]) + d(&pair[1], &keep[1])
        {
            pair.swap(0, 1);
        }
        rects.copy_from_slice(&pair);
    }
    Ok(())
}

/// A pair's pixels: the foreground within half a width of either fitted
/// stick's sides (the crop may hold the ends of other blobs).
fn pair_pixels(
    fg: &[u8],
    bw: usize,
    bh: usize,
    pair: [&Placed; 2],
    l: f64,
    wd: f64,
) -> Vec<[f64; 2]> {
    let near = |q: [f64; 2], r: &Placed| in_rect(q, r.0, r.1, l / 2.0 + 2.0, r.2 / 2.0 + wd / 2.0);
    let mut pts = Vec::new();
    for y in 0..bh {
        for x in 0..bw {
            let q = [x as f64, y as f64];
            if fg[y * bw + x] > 0 && pair.iter().any(|r| near(q, r)) {
                pts.push(q);
            }
        }
    }
    pts
}

/// Two sticks laid side by side along `d` through `m`: `apart` widths
/// apart, each at its place along (`tp` on the +across side, `tn` on the
/// other) and its share of the width.
fn pair_at(
    m: [f64; 2],
    d: [f64; 2],
    tp: f64,
    tn: f64,
    wd: f64,
    apart: f64,
    (wp, wn): (f64, f64),
) -> [Placed; 2] {
    let across = [-d[1], d[0]];
    let h = apart * wd / 2.0;
    let at = |t: f64, off: f64| {
        [
            m[0] + t * d[0] + off * across[0],
            m[1] + t * d[1] + off * across[1],
        ]
    };
    [(at(tp, h), d, wp * wd), (at(tn, -h), d, wn * wd)]
}

/// The pair laid side by side is tried along the blob's axis and turned
/// from it by up to this many steps each way, of this many degrees.
const SIDE_BY_SIDE_TURNS: i32 = 8;
const SIDE_BY_SIDE_TURN_DEG: f64 = 2.5;
/// The axes (by how well the pair laid plainly along them explains the
/// blob) at which the pair is tried further apart, closer, or one slimmer.
const SIDE_BY_SIDE_AXES: usize = 4;
/// How much better (in stick areas) a pair fitted side by side must be
/// explained laid side by side along another axis: a few pixels, so that
/// a pair fitted about as well stays as it was.
const TURNED_PAIR_GAIN: f64 = 0.05;

/// How much better (in stick areas) two sticks laid side by side must explain
/// their blob than the cross they were fitted as (see `lay_side_by_side`).
/// On 8 held-out looks (1003670–74, 1003700–03) the pairs laid side by side
/// that truly lay so gained 0.39 to 0.52 of a stick's area (four touching,
/// one leaning), and true crossings (fitted 35° to 57° apart) at most 0.21: laid
/// side by side at a bar of 0.03, a round face under a flat one was read
/// flat (a silent 걸 for 개 on look 1003702, throw 39; ADR 0045).
const SIDE_BY_SIDE_GAIN: f64 = 0.3;
/// A blob under this many single-stick areas is fitted with two sticks first
/// (by area alone three from 2.375). On the 428 stored looks of seeds 5–8
/// (round 15), 83 blobs measured 2.375–2.6; 63 had been fitted as three,
/// now 11 are (where two left much unexplained), and 23 more clear throws
/// were called, no other call changing. From 2.6 on, blobs of three sticks
/// outnumber swollen blobs of two by far (ADR 0049).
const TWO_STICKS_UP_TO: f64 = 2.6;

/// |cos| of the angle under which two sticks count as near-parallel (12°).
const STRADDLE_PARALLEL: f64 = 0.978;

/// Rounds of the full-resolution refit: each moves a stick by at most a
/// pixel or two (a half-size pixel is two), so a few rounds reach the
/// half-size fit's error.
const REFIT_ROUNDS: usize = 4;
/// The slimmer width a flat stick may take in the refit (still well above
/// the on-edge bar of 0.7).
const REFIT_SLIM: f64 = 0.85;
/// How far (pixels across) a stick given another width may also move (it
/// is tried there, in place, and as far the other way).
const REFIT_SHIFT: i32 = 2;

/// Width of a stick on its edge, against the nominal width (its thickness:
/// about half).
const NARROW: f64 = 0.55;

/// The local search of [`refine`] and [`refit_full`]: up to `rounds` rounds,
/// with the widths (against the nominal) a stick may take, and how far across
/// (pixels) it may move when it takes another.
fn refine_with(
    blob: &Mat,
    rects: &mut [Placed],
    l: f64,
    wd: f64,
    rounds: usize,
    widths: &[f64],
    width_shift: i32,
) -> opencv::Result<()> {
    let (bw, bh) = (blob.cols() as usize, blob.rows() as usize);
    let fg = blob.data_bytes()?.to_vec();
    let mut cover = Coverage::new(&fg, bw, bh, l, rects);
    let mut best = cover.score;
    // Whether a width counts as a stick on its edge.
    let edge = |w: f64| w < wd * 0.7;
    for _round in 0..rounds {
        let mut improved = false;
        for r in rects.iter_mut() {
            let (c, d, w) = *r;
            let n = [-d[1], d[0]];
            let turn = |a: f64| {
                let (cs, sn) = (a.cos(), a.sin());
                [d[0] * cs - d[1] * sn, d[0] * sn + d[1] * cs]
            };
            let from = cover.grid.runs(r);
            // Each move with its runs and score where they are known already
            // (a width's move is scored while its shift is picked).
            let mut moves: Vec<(Placed, Option<(Runs, f64)>)> = [
                ([c[0] + n[0], c[1] + n[1]], d, w),
                ([c[0] - n[0], c[1] - n[1]], d, w),
                ([c[0] + 2.0 * n[0], c[1] + 2.0 * n[1]], d, w),
                ([c[0] - 2.0 * n[0], c[1] - 2.0 * n[1]], d, w),
                ([c[0] + d[0], c[1] + d[1]], d, w),
                ([c[0] - d[0], c[1] - d[1]], d, w),
                (c, turn(0.03), w),
                (c, turn(-0.03), w),
            ]
            .into_iter()
            .map(|m| (m, None))
            .collect();
            if width_shift > 0 {
                // At full resolution also a few pixels along at once.
                let k = width_shift as f64;
                moves.push((([c[0] + k * d[0], c[1] + k * d[1]], d, w), None));
                moves.push((([c[0] - k * d[0], c[1] - k * d[1]], d, w), None));
            }
            // Another width, with the shift across that suits it best (a
            // stick slimmed in place leaves the strip it no longer covers).
            for nw in widths
                .iter()
                .map(|k| k * wd)
                .filter(|nw| (nw - w).abs() > 1e-6)
            {
                let mut pick: Option<(Placed, Runs, f64)> = None;
                for sh in (-width_shift..=width_shift).step_by(width_shift.max(1) as usize) {
                    let m = ([c[0] + sh as f64 * n[0], c[1] + sh as f64 * n[1]], d, nw);
                    let to = cover.grid.runs(&m);
                    let sc = cover.moved_score(&from, &to);
                    if pick.as_ref().is_none_or(|p| sc > p.2) {
                        pick = Some((m, to, sc));
                    }
                }
                // The range always holds the shift 0, so a width is picked.
                if let Some((m, to, sc)) = pick {
                    moves.push((m, Some((to, sc))));
                }
            }
            for (m, known) in moves {
                let (to, sc) = known.unwrap_or_else(|| {
                    let to = cover.grid.runs(&m);
                    let sc = cover.moved_score(&from, &to);
                    (to, sc)
                });
                // Narrowing to a stick on its edge (or widening back) must
                // clearly pay: a stick on its edge is half as wide.
                let need = if edge(m.2) != edge(w) {
                    0.1 * l * wd
                } else {
                    0.25
                };
                if sc > best + need {
                    cover.lay_runs(&from, false);
                    cover.lay_runs(&to, true);
                    *r = m;
                    best = sc;
                    improved = true;
                    break;
                }
            }
        }
        if !improved {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn placed(x: f64, y: f64, angle: f64, w: f64) -> Placed {
        ([x, y], [angle.cos(), angle.sin()], w)
    }

    proptest! {
        /// A move only tried scores what making it scores, and making and
        /// undoing it leaves the coverage as it was (refine relies on both).
        #[test]
        fn a_tried_move_scores_as_a_made_one(
            seed in any::<u64>(),
            sticks in proptest::collection::vec((0.0..60.0f64, 0.0..40.0f64, 0.0..6.3f64, 2.0..9.0f64), 1..4),
            to in (-5.0..65.0f64, -5.0..45.0f64, 0.0..6.3f64, 2.0..9.0f64),
        ) {
            let (bw, bh) = (60, 40);
            let fg: Vec<u8> = (0..bw * bh)
                .map(|k| if (seed >> (k % 64)) & 1 == 1 || k % 7 == 0 { 255 } else { 0 })
                .collect();
            let rects: Vec<Placed> = sticks.iter().map(|&(x, y, a, w)| placed(x, y, a, w)).collect();
            let mut cover = Coverage::new(&fg, bw, bh, 30.0, &rects);
            let (count, score) = (cover.count.clone(), cover.score);
            let to = placed(to.0, to.1, to.2, to.3);
            let tried = cover.moved_score(&cover.grid.runs(&rects[0]), &cover.grid.runs(&to));
            prop_assert_eq!(tried, cover.shift(&rects[0], &to));
            prop_assert_eq!(score, cover.shift(&to, &rects[0]));
            prop_assert_eq!(count, cover.count);
        }

        /// Candidates scored in place of sticks lifted off score as the
        /// sticks moved there, and leave the coverage as it was.
        #[test]
        fn a_candidate_scored_in_place_of_a_lifted_stick_scores_as_the_stick_moved(
            seed in any::<u64>(),
            sticks in proptest::collection::vec((0.0..60.0f64, 0.0..40.0f64, 0.0..6.3f64, 2.0..9.0f64), 2..5),
            to in proptest::collection::vec((-5.0..65.0f64, -5.0..45.0f64, 0.0..6.3f64, 2.0..9.0f64), 2),
        ) {
            let (bw, bh) = (60, 40);
            let fg: Vec<u8> = (0..bw * bh)
                .map(|k| if (seed >> (k % 64)) & 1 == 1 || k % 5 == 0 { 255 } else { 0 })
                .collect();
            let rects: Vec<Placed> = sticks.iter().map(|&(x, y, a, w)| placed(x, y, a, w)).collect();
            let to: Vec<Placed> = to.iter().map(|&(x, y, a, w)| placed(x, y, a, w)).collect();
            let mut moved = Coverage::new(&fg, bw, bh, 30.0, &rects);
            moved.shift(&rects[0], &to[0]);
            let want = moved.shift(&rects[1], &to[1]);
            let mut cover = Coverage::new(&fg, bw, bh, 30.0, &rects);
            cover.lay(&rects[0], false);
            cover.lay(&rects[1], false);
            let (count, score) = (cover.count.clone(), cover.score);
            prop_assert_eq!(cover.score_with(&to), want);
            prop_assert_eq!(score, cover.score);
            prop_assert_eq!(count, cover.count);
        }

        /// The pixels a stick covers, taken run by run, are exactly those
        /// the pixel test accepts anywhere on the grid (nothing outside its
        /// runs, nothing missed inside).
        #[test]
        fn a_stick_covers_its_runs_and_nothing_else(
            (x, y, a, w) in (-5.0..65.0f64, -5.0..45.0f64, 0.0..6.3f64, 1.0..9.0f64),
            l in 3.0..40.0f64,
        ) {
            let grid = Grid { bw: 60, bh: 40, l };
            let r = placed(x, y, a, w);
            let by_runs: Vec<(usize, usize, usize)> = grid
                .runs(&r)
                .iter()
                .flat_map(|(y, (xa, xb))| (xa..xb).map(move |x| (x, y, y * 60 + x)))
                .collect();
            let every: Vec<(usize, usize, usize)> = (0..40)
                .flat_map(|y| (0..60).map(move |x| (x, y, y * 60 + x)))
                .filter(|&(x, y, _)| grid.covers(&r, x, y))
                .collect();
            prop_assert_eq!(by_runs, every);
        }
    }

    proptest! {
        /// The summed-area table finds the window OpenCV's box filter and
        /// `minMaxLoc` find, to the bit and the pixel, whatever the window's
        /// size (odd or even, wider than the picture or hanging over its
        /// edges) and whatever the weights (whole, dimmed by 0.3 once or
        /// twice, or any fraction a turn leaves).
        #[test]
        fn window_sums_find_the_window_a_box_filter_finds(
            (cols, rows) in (1..48i32, 1..48i32),
            seed in any::<u64>(),
            kw in 1..40usize,
            kh in 1..40usize,
        ) {
            let mut rng = seed;
            let mut next = || {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (rng >> 33) as u32
            };
            let mut picture = Mat::zeros(rows, cols, CV_32F).unwrap().to_mat().unwrap();
            for v in picture.data_typed_mut::<f32>().unwrap() {
                *v = match next() % 5 {
                    0 | 1 => 0.0,
                    2 => 1.0,
                    3 => [0.3f32, 0.09][(next() % 2) as usize],
                    _ => (next() % 1024) as f32 / 1024.0 * 0.3,
                };
            }
            let sums = WindowSums::centred(&picture, kw.max(kh)).unwrap();
            let (got, at) = sums.best(kw, kh);
            let mut centred = Mat::default();
            picture.convert_to(&mut centred, CV_32F, 1.0, -0.5).unwrap();
            let mut score = Mat::default();
            imgproc::box_filter(
                &centred,
                &mut score,
                CV_32F,
                Size::new(kw as i32, kh as i32),
                Point::new(-1, -1),
                false,
                BORDER_CONSTANT,
            )
            .unwrap();
            let (mut want, mut want_at) = (0.0, Point::default());
            opencv::core::min_max_loc(
                &score,
                None,
                Some(&mut want),
                None,
                Some(&mut want_at),
                &opencv::core::no_array(),
            )
            .unwrap();
            prop_assert_eq!(got, want);
            prop_assert_eq!(at, [want_at.x as usize, want_at.y as usize]);
        }
    }

    /// The coarse look tries angles under 90° and, with the template on its
    /// side, the ones 90° on: a lone stick at any angle is fitted along its
    /// own axis and on its own place.
    #[test]
    fn a_stick_at_any_angle_is_fitted_along_it() {
        let (l, wd) = (60.0, 12.0);
        for angle in (0..180).step_by(7) {
            let s = stick([80.0, 70.0], angle as f64);
            let fits = fit_rects(&mask_of(&[s], 160, 140), 1, l, wd, false).unwrap();
            let [(c, d, _)] = fits[..] else {
                panic!("{angle}°: {fits:?}");
            };
            let mut fitted = s;
            fitted.dir = d;
            assert!(
                angle_off(&fitted, &s) < 3.0,
                "{angle}°: fitted at {}°",
                fitted.angle_deg()
            );
            assert!((c[0] - 80.0).hypot(c[1] - 70.0) < 2.0, "{angle}°: {c:?}");
        }
    }

    #[test]
    fn a_pixel_changes_by_its_share_with_one_stick_more_or_less() {
        for fg in [false, true] {
            for n in 0..=u8::MAX {
                for on in [false, true] {
                    let (m, delta) = Coverage::change(&[u8::from(fg)], &[n], 0, on);
                    let want = if on {
                        n.saturating_add(1)
                    } else {
                        n.saturating_sub(1)
                    };
                    assert_eq!(m, want, "fg {fg} n {n} on {on}");
                    assert_eq!(delta, Coverage::pixel(fg, m) - Coverage::pixel(fg, n));
                }
            }
        }
    }

    #[test]
    fn the_colour_bar_is_lowered_only_until_the_faces_that_show_less_show() {
        // Foreground areas (flat-face, round-face picture) by bar, as look
        // 1004183's teach pictures measured (half-size pixels).
        let dark = |bar: f64| {
            Ok(shown(match bar as i32 {
                9 => (1087.0, 646.0),
                8 => (1125.0, 859.0),
                7 => (1213.0, 1084.0),
                _ => (1298.0, 1298.0),
            }))
        };
        assert_eq!(station_colour_bar(dark).unwrap(), 7.0);
        // Round faces showing 0.75 of the flat ones keep the usual bar.
        assert_eq!(
            station_colour_bar(|_| Ok(shown((1000.0, 750.0)))).unwrap(),
            COLOUR_BAR
        );
        // Never enough: no lower than the lowest bar.
        assert_eq!(
            station_colour_bar(|_| Ok(shown((1000.0, 100.0)))).unwrap(),
            LOWEST_COLOUR_BAR
        );
        // Nor to a bar at which something shows apart from the sticks.
        let noisy = |bar: f64| {
            Ok(Shown {
                apart: if bar < 8.0 { 16.0 } else { 0.0 },
                ..shown((1000.0, 100.0))
            })
        };
        assert_eq!(station_colour_bar(noisy).unwrap(), 8.0);
        // Flat faces that barely differ from the mat lower it the same way
        // (the flat faces of look 303033 showed a third of the round ones).
        let pale = |bar: f64| {
            Ok(shown(match bar as i32 {
                9 => (350.0, 1050.0),
                8 => (700.0, 1080.0),
                7 => (1020.0, 1100.0),
                _ => (1200.0, 1200.0),
            }))
        };
        assert_eq!(station_colour_bar(pale).unwrap(), 7.0);
    }

    #[test]
    fn the_dark_share_is_raised_only_until_the_dark_faces_show_and_never_over_shadows() {
        assert_eq!(dark_share_steps(dark_share_at(4)), 4);
        // Round faces painted black on a dark grey mat, by share (as world
        // look 1 400 297's teach pictures measured, half-size pixels).
        let black = |share: f64| {
            Ok(shown(match dark_share_steps(share) {
                0 => (726.0, 261.0),
                1 => (726.0, 321.0),
                2 => (726.0, 364.0),
                3 => (732.0, 402.0),
                4 => (743.0, 435.0),
                _ => (767.0, 477.0),
            }))
        };
        // At 0.8 the flat faces' shadows come in (over 5 % more of them).
        assert_eq!(station_dark_share(black).unwrap(), 0.75);
        // Faces that both show keep the usual share.
        assert_eq!(
            station_dark_share(|_| Ok(shown((1000.0, 750.0)))).unwrap(),
            DARK_SHARE
        );
        // Never above the highest share, however little shows.
        assert_eq!(
            station_dark_share(|_| Ok(shown((1000.0, 100.0)))).unwrap(),
            HIGHEST_DARK_SHARE
        );
        // Stopped where the dark faces show whole.
        let whole = |share: f64| {
            Ok(shown(match dark_share_steps(share) {
                0 => (1000.0, 500.0),
                1 => (1000.0, 960.0),
                _ => (1000.0, 1000.0),
            }))
        };
        assert_eq!(station_dark_share(whole).unwrap(), 0.6);
        // Nor raised to where something shows apart from the sticks.
        let noisy = |share: f64| {
            Ok(Shown {
                apart: if share > 0.62 { 9.0 } else { 0.0 },
                ..shown((1000.0, 100.0))
            })
        };
        assert_eq!(station_dark_share(noisy).unwrap(), 0.6);
    }

    /// What two teach pictures show, nothing apart from their sticks.
    fn shown((front, back): (f64, f64)) -> Shown {
        Shown {
            front,
            back,
            apart: 0.0,
        }
    }

    fn stick(center: [f64; 2], angle_deg: f64) -> Found {
        let a = angle_deg.to_radians();
        Found {
            center,
            dir: [a.cos(), a.sin()],
            length: 60.0,
            width: 12.0,
            shared: true,
            blob_ratio: 2.0,
        }
    }

    #[test]
    fn a_lone_stick_over_another_s_middle_is_one_stick_found_twice() {
        let lone = |c: [f64; 2], a: f64| Found {
            shared: false,
            blob_ratio: 1.0,
            ..stick(c, a)
        };
        // Two fitted in one blob, one lying on the other: two sticks.
        assert!(!found_twice(&[
            stick([100.0, 100.0], 0.0),
            stick([102.0, 101.0], 3.0)
        ]));
        // A lone stick kept whole and the same stick fitted again a few
        // pixels off in the lower bar's blob: one stick.
        assert!(found_twice(&[
            lone([100.0, 100.0], 0.0),
            stick([103.0, 99.0], 1.0)
        ]));
        // The other's centre beyond the lone stick's end or side: apart.
        assert!(!found_twice(&[
            lone([100.0, 100.0], 0.0),
            stick([100.0, 120.0], 0.0)
        ]));
        assert!(!found_twice(&[
            lone([100.0, 100.0], 0.0),
            stick([165.0, 100.0], 0.0)
        ]));
        // Crossing at the middle of a shared stick: a lone stick cannot.
        assert!(found_twice(&[
            lone([100.0, 100.0], 0.0),
            stick([100.0, 100.0], 90.0)
        ]));
    }

    #[test]
    fn a_second_look_fits_again_only_the_blobs_a_piece_or_a_missing_stick_may_lie_in() {
        // Four blobs of the lower bar's foreground: A holds two whole sticks
        // and a piece, B one whole stick and a piece, C a piece alone, D
        // nothing found, E one whole stick.
        let mut low = Mat::zeros(100, 400, opencv::core::CV_8U)
            .unwrap()
            .to_mat()
            .unwrap();
        for x0 in [0, 80, 160, 240, 320] {
            let r = opencv::core::Rect::new(x0 + 5, 10, 60, 80);
            imgproc::rectangle(&mut low, r, Scalar::all(255.0), -1, imgproc::LINE_8, 0).unwrap();
        }
        let at = |x: f64, y: f64| stick([x, y], 90.0);
        let whole = [
            at(25.0, 50.0),
            at(45.0, 50.0),
            at(115.0, 50.0),
            at(355.0, 50.0),
        ];
        let pieces = [at(35.0, 20.0), at(100.0, 80.0), at(195.0, 50.0)];
        let blobs = |only: &Mat| -> Vec<bool> {
            [35, 115, 195, 275, 355]
                .iter()
                .map(|&x| *only.at_2d::<u8>(50, x).unwrap() > 0)
                .collect()
        };
        let (only, kept) = blobs_to_refind(&low, &whole, &pieces, false).unwrap();
        // A stays as found (two whole sticks: the costliest blob to fit
        // again); B, C and D are fitted again; E's stick stays.
        assert_eq!(blobs(&only), [false, true, true, true, false]);
        let kept_x: Vec<f64> = kept.iter().map(|s| s.center[0]).collect();
        assert_eq!(kept_x, [25.0, 45.0, 355.0]);
        // Sticks missing: a blob of one whole stick may hold two.
        let (only, kept) = blobs_to_refind(&low, &whole, &pieces, true).unwrap();
        assert_eq!(blobs(&only), [false, true, true, true, true]);
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn the_count_look_fits_the_one_blob_again_with_the_sticks_four_leave_it() {
        // Two lone sticks and two crossing in an X: four sticks thrown.
        let lone = |x: f64| Found {
            shared: false,
            blob_ratio: 1.0,
            ..stick([x, 150.0], 90.0)
        };
        let x_pair = [stick([100.0, 100.0], 30.0), stick([100.0, 100.0], 150.0)];
        let lones = [lone(250.0), lone(330.0)];
        let all: Vec<Found> = x_pair.iter().chain(&lones).copied().collect();
        let mask = mask_of(&all, 400, 260);
        let size = |_: [f64; 2]| (60.0, 12.0);
        let no_piece = |s: &Found| !s.shared && s.length < 30.0;
        let split_as = |centres: &[[f64; 2]]| -> Vec<Found> {
            let ratio = 1.7;
            let mut f: Vec<Found> = centres
                .iter()
                .map(|&c| Found {
                    blob_ratio: ratio,
                    ..stick(c, 90.0)
                })
                .collect();
            f.extend(lones);
            f
        };
        let near_the_pair = |got: &[Found]| {
            let shared: Vec<&Found> = got.iter().filter(|s| s.shared).collect();
            assert_eq!(shared.len(), 2, "{got:?}");
            for want in &x_pair {
                assert!(
                    shared.iter().any(|s| s.axis_cos(want) > 0.98
                        && (s.center[0] - 100.0).hypot(s.center[1] - 100.0) < 6.0),
                    "{got:?}"
                );
            }
        };
        // The X split into three: fitted again with two.
        let five = split_as(&[[90.0, 90.0], [110.0, 110.0], [100.0, 120.0]]);
        let got = count_look(&mask, &five, &size, Split::USUAL, &no_piece)
            .unwrap()
            .expect("fitted again");
        assert_eq!(got.len(), THROWN_STICKS);
        near_the_pair(&got);
        // The X fitted with one: fitted again with two.
        let three = split_as(&[[100.0, 100.0]]);
        let got = count_look(&mask, &three, &size, Split::USUAL, &no_piece)
            .unwrap()
            .expect("fitted again");
        near_the_pair(&got);
        // Four found: nothing to do. A piece beside the five: nothing either
        // (it may be the fifth). A second blob that could hold the extra
        // stick: nothing. Two short: no blob is fitted with three more.
        let none = |found: &[Found]| {
            count_look(&mask, found, &size, Split::USUAL, &no_piece)
                .unwrap()
                .is_none()
        };
        assert!(none(&all));
        let mut with_piece = five.clone();
        with_piece.push(Found {
            length: 20.0,
            ..lone(380.0)
        });
        assert!(none(&with_piece));
        let mut two_blobs = five.clone();
        two_blobs[4] = Found {
            shared: true,
            blob_ratio: 2.1,
            ..lones[1]
        };
        assert!(none(&two_blobs));
        assert!(none(&three[..2]));
        // A blob split into four beside one lone stick would keep three: a
        // pile is not fitted again.
        let mut pile = split_as(&[[90.0, 90.0], [110.0, 110.0], [100.0, 120.0], [95.0, 100.0]]);
        pile.pop();
        assert_eq!(pile.len(), 5);
        assert!(none(&pile));
    }

    #[test]
    fn sticks_side_by_side_do_not_cover_each_other_and_crossing_ones_do() {
        let me = stick([100.0, 100.0], 0.0);
        // Touching along a long edge (a width and a bit apart): nothing covered.
        let beside = stick([110.0, 112.5], 0.0);
        assert_eq!(covered_share(&me, &[beside]), 0.0);
        // Lying across the middle at right angles: a width of its length.
        let across = stick([100.0, 100.0], 90.0);
        let share = covered_share(&me, &[across]);
        assert!((0.15..0.3).contains(&share), "{share}");
        // Apart: nothing.
        assert_eq!(covered_share(&me, &[stick([300.0, 100.0], 0.0)]), 0.0);
        assert!(share > crate::CROSSED);
    }

    /// A mask with filled sticks (full resolution).
    fn mask_of(sticks: &[Found], w: i32, h: i32) -> Mat {
        let mut m = Mat::zeros(h, w, opencv::core::CV_8U)
            .unwrap()
            .to_mat()
            .unwrap();
        for s in sticks {
            let pts: Vector<Point> = s
                .corners()
                .iter()
                .map(|c| Point::new(c[0].round() as i32, c[1].round() as i32))
                .collect();
            imgproc::fill_convex_poly_def(&mut m, &pts, Scalar::all(255.0)).unwrap();
        }
        m
    }

    /// A picture `rows` × 240 of a mat (dark green) left of column `edge`
    /// and a floor of `floor` (BGR) filling the picture right of it.
    fn mat_beside_floor(rows: i32, edge: i32, floor: Scalar) -> Mat {
        let mut m = Mat::new_rows_cols_with_default(
            rows,
            240,
            opencv::core::CV_8UC3,
            Scalar::new(40.0, 60.0, 35.0, 0.0),
        )
        .unwrap();
        let at = opencv::core::Rect::new(edge, 0, 240 - edge, rows);
        imgproc::rectangle(&mut m, at, floor, -1, 8, 0).unwrap();
        m
    }

    /// A mat left of column `edge`, a light purple floor right of it, and a
    /// light wooden stick on the mat where `stick` holds.
    fn mat_and_floor(edge: i32, stick: bool) -> Mat {
        let mut m = mat_beside_floor(120, edge, Scalar::new(200.0, 150.0, 190.0, 0.0));
        if stick {
            let at = opencv::core::Rect::new(40, 50, 60, 12);
            imgproc::rectangle(&mut m, at, Scalar::new(120.0, 190.0, 220.0, 0.0), -1, 8, 0)
                .unwrap();
        }
        m
    }

    #[test]
    fn the_mat_outline_shifted_a_pixel_shows_nothing_new_and_a_stick_shows_whole() {
        let empty = mat_and_floor(150, false);
        let reference = Reference::new(&empty).unwrap();
        let shown = |frame: &Mat| {
            opencv::core::count_non_zero(&foreground(&to_lab(frame).unwrap(), &reference).unwrap())
                .unwrap()
        };
        // The camera moved: the outline's edge lands a pixel over, within
        // the range each pixel near it is compared with (ADR 0062).
        for edge in [149, 151] {
            assert_eq!(shown(&mat_and_floor(edge, false)), 0, "edge at {edge}");
        }
        // A stick on the even mat shows at its full size (60 × 12, and a
        // pixel round it that the smoothing before differencing spreads).
        let stick = shown(&mat_and_floor(151, true));
        assert!((700..=880).contains(&stick), "{stick}");
    }

    /// A grey mat lit by a warm lamp and a cool window, with a pale stick
    /// (60 × 12) and, where `shadow`, its shadow beside it (60 × 8): the mat
    /// lit by the lamp alone, darker in every channel and warmer. `face`
    /// paints the stick another colour.
    fn stick_and_coloured_shadow(shadow: bool, face: Option<Scalar>) -> Mat {
        let mut m =
            Mat::new_rows_cols_with_default(120, 200, opencv::core::CV_8UC3, Scalar::all(150.0))
                .unwrap();
        if shadow {
            let at = opencv::core::Rect::new(40, 62, 60, 8);
            imgproc::rectangle(&mut m, at, Scalar::new(96.0, 120.0, 132.0, 0.0), -1, 8, 0).unwrap();
        }
        let at = opencv::core::Rect::new(40, 50, 60, 12);
        let colour = face.unwrap_or(Scalar::new(200.0, 220.0, 235.0, 0.0));
        imgproc::rectangle(&mut m, at, colour, -1, 8, 0).unwrap();
        m
    }

    #[test]
    fn a_coloured_shadow_is_left_out_only_where_the_station_trims_shadows() {
        let empty =
            Mat::new_rows_cols_with_default(120, 200, opencv::core::CV_8UC3, Scalar::all(150.0))
                .unwrap();
        let kept = Reference::new(&empty).unwrap();
        assert!(!kept.trimming_shadows());
        let trimmed = Reference::new(&empty)
            .unwrap()
            .with_shadows_trimmed(true)
            .unwrap();
        assert!(trimmed.trimming_shadows());
        let shown = |frame: &Mat, r: &Reference| {
            opencv::core::count_non_zero(&foreground(&to_lab(frame).unwrap(), r).unwrap()).unwrap()
        };
        // The shadow changes colour as much as a stick: the usual foreground
        // takes it in, a third wider than the stick.
        let (stick, with_shadow) = (
            stick_and_coloured_shadow(false, None),
            stick_and_coloured_shadow(true, None),
        );
        let alone = shown(&stick, &kept);
        assert!((700..=900).contains(&alone), "{alone}");
        assert!(shown(&with_shadow, &kept) > alone + 350);
        // Trimmed, the stick shows as it does without its shadow.
        let trimmed_shown = shown(&with_shadow, &trimmed);
        assert!(
            trimmed_shown.abs_diff(alone) < 80,
            "{trimmed_shown} against {alone}"
        );
        // A face darker than the mat in every channel goes with the shadows:
        // why teaching trims only where both faces come through whole
        // (`teach::trims_cleanly`).
        let dark = stick_and_coloured_shadow(false, Some(Scalar::new(60.0, 80.0, 110.0, 0.0)));
        assert!(shown(&dark, &kept) > 700);
        assert!(shown(&dark, &trimmed) < 100);
    }

    /// A near-black picture with a patch a few levels darker still, or a
    /// stick on it.
    fn black_with(patch: Scalar, stick: bool) -> Mat {
        let mut m =
            Mat::new_rows_cols_with_default(200, 300, opencv::core::CV_8UC3, Scalar::all(7.0))
                .unwrap();
        let at = opencv::core::Rect::new(100, 80, 60, 40);
        imgproc::rectangle(&mut m, at, patch, -1, 8, 0).unwrap();
        if stick {
            let s = opencv::core::Rect::new(40, 20, 60, 12);
            imgproc::rectangle(&mut m, s, Scalar::new(40.0, 60.0, 90.0, 0.0), -1, 8, 0).unwrap();
        }
        m
    }

    #[test]
    fn near_black_a_few_levels_darker_is_no_stick_and_a_stick_shows() {
        let reference = Reference::new(&black_with(Scalar::all(7.0), false)).unwrap();
        let shown = |frame: &Mat| {
            opencv::core::count_non_zero(&foreground(&to_lab(frame).unwrap(), &reference).unwrap())
                .unwrap()
        };
        // Under 55 % of the empty picture's lightness, but by a level or
        // three: noise in the dark, not a stick (ADR 0081).
        assert_eq!(shown(&black_with(Scalar::all(2.0), false)), 0);
        let stick = shown(&black_with(Scalar::all(7.0), true));
        assert!((700..=900).contains(&stick), "{stick}");
    }

    /// A mat (left of x = 150) and a floor beside it, with sticks 60 × 12
    /// lying on the floor at `rows`: light ones only a little lighter than
    /// it (about 10 in 8-bit L, the colour all but the same), or dark ones
    /// at about three quarters of its lightness, as a shadow would be.
    fn faint_sticks_on_the_floor(rows: &[i32], dark: bool) -> Mat {
        let mut m = mat_beside_floor(160, 150, Scalar::new(90.0, 95.0, 110.0, 0.0));
        for &y in rows {
            let at = opencv::core::Rect::new(168, y, 60, 12);
            let colour = if dark {
                Scalar::new(66.0, 70.0, 81.0, 0.0)
            } else {
                Scalar::new(100.0, 106.0, 121.0, 0.0)
            };
            imgproc::rectangle(&mut m, at, colour, -1, 8, 0).unwrap();
        }
        m
    }

    #[test]
    fn a_stick_faint_on_the_floor_is_found_by_the_second_look_when_one_is_missing() {
        let reference = Reference::new(&faint_sticks_on_the_floor(&[], false)).unwrap();
        let size = |_: [f64; 2]| (60.0, 12.0);
        let off_floor = |p: [f64; 2]| p[0] > 152.0;
        let lab = to_lab(&faint_sticks_on_the_floor(&[40], false)).unwrap();
        // The first look does not see it.
        let first = bridge(&foreground(&lab, &reference).unwrap(), 12.0).unwrap();
        assert!(find_sticks(&first, &size, Split::USUAL).unwrap().is_empty());
        let faint = bridge(&faint_foreground(&lab, &reference).unwrap(), 12.0).unwrap();
        let got = find_off_mat(&faint, &size, &[], &off_floor, 1).unwrap();
        assert_eq!(got.len(), 1, "{got:?}");
        let s = got[0];
        assert!(
            (s.center[0] - 197.5).abs() < 2.0 && (s.center[1] - 45.5).abs() < 2.0,
            "{s:?}"
        );
        assert!((55.0..66.0).contains(&s.length), "{s:?}");
        // Darker than the floor only as a shadow is, it is not taken: it
        // may be one (ADR 0064).
        let dark = to_lab(&faint_sticks_on_the_floor(&[40], true)).unwrap();
        let shade = bridge(&faint_foreground(&dark, &reference).unwrap(), 12.0).unwrap();
        assert!(find_off_mat(&shade, &size, &[], &off_floor, 1)
            .unwrap()
            .is_empty());
        // Not where it reaches onto the mat, nor where it is one of the
        // sticks already found.
        let past_200 = |p: [f64; 2]| p[0] > 200.0;
        assert!(find_off_mat(&faint, &size, &[], &past_200, 1)
            .unwrap()
            .is_empty());
        let known = Found { shared: false, ..s };
        assert!(find_off_mat(&faint, &size, &[known], &off_floor, 1)
            .unwrap()
            .is_empty());
        // Two such things where one stick is missing: the floor itself may
        // show at these bars, so neither is taken; where two are missing,
        // both are.
        let two = to_lab(&faint_sticks_on_the_floor(&[40, 110], false)).unwrap();
        let faint = bridge(&faint_foreground(&two, &reference).unwrap(), 12.0).unwrap();
        assert!(find_off_mat(&faint, &size, &[], &off_floor, 1)
            .unwrap()
            .is_empty());
        assert_eq!(
            find_off_mat(&faint, &size, &[], &off_floor, 2)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn a_staggered_pair_fitted_along_its_blobs_askew_axis_is_turned_onto_its_sticks() {
        // Two sticks side by side at 56°, touching, one a third of a stick
        // further along than the other (look 1004652, throw 0): their blob's
        // long axis runs about 15° off theirs, and the split laid both
        // along it.
        let (l, wd) = (60.0, 12.0);
        let d = 56f64.to_radians();
        let (along, across) = ([d.cos(), d.sin()], [-d.sin(), d.cos()]);
        let at = |t: f64, o: f64| {
            [
                100.0 + t * along[0] + o * across[0],
                90.0 + t * along[1] + o * across[1],
            ]
        };
        let a = stick(at(-10.0, -6.0), 56.0);
        let b = stick(at(10.0, 6.0), 56.0);
        let mask = mask_of(&[a, b], 200, 180);
        let mut group = [stick(at(-10.0, -6.0), 41.0), stick(at(10.0, 6.0), 41.0)];
        refit_full(&mask, [0.0, 0.0], &mut group, l, wd).unwrap();
        let mut got = group.to_vec();
        // Matched to the truth by the side they lie on.
        got.sort_by(|x, y| {
            let o =
                |s: &Found| (s.center[0] - 100.0) * across[0] + (s.center[1] - 90.0) * across[1];
            o(x).total_cmp(&o(y))
        });
        for (got, truth) in got.iter().zip([a, b]) {
            let off = (got.center[0] - truth.center[0]).hypot(got.center[1] - truth.center[1]);
            let turn = (got.angle_deg() - truth.angle_deg()).abs();
            assert!(off <= 1.5, "{got:?} against {truth:?}");
            assert!(turn.min(180.0 - turn) <= 2.5, "{got:?} against {truth:?}");
            assert!(got.width >= 0.8 * wd, "{got:?}");
        }
    }

    #[test]
    fn the_full_resolution_refit_moves_split_sticks_onto_their_pixels() {
        // Two sticks side by side, touching, one of them a little slimmer
        // than the taught width (as a round face whose flanks read as mat).
        let (l, wd) = (60.0, 12.0);
        let a = stick([60.0, 50.0], 0.0);
        let mut b = stick([60.0, 61.0], 4.0);
        b.width = 10.0;
        let mask = mask_of(&[a, b], 120, 110);
        // As the half-size split leaves them: off by two pixels across and
        // a few degrees, the slim one fitted as if on its edge.
        let mut start_a = stick([60.0, 48.0], 3.0);
        let mut start_b = stick([60.0, 63.0], 0.0);
        start_b.width = wd * NARROW;
        start_a.length = l;
        start_b.length = l;
        let mut group = [start_a, start_b];
        refit_full(&mask, [0.0, 0.0], &mut group, l, wd).unwrap();
        for (got, truth) in group.iter().zip([a, b]) {
            let off = (got.center[0] - truth.center[0]).hypot(got.center[1] - truth.center[1]);
            let turn = (got.angle_deg() - truth.angle_deg()).abs();
            assert!(off <= 1.5, "{got:?} against {truth:?}");
            assert!(turn.min(180.0 - turn) <= 2.5, "{got:?} against {truth:?}");
        }
        // The slim stick is read as lying flat, not on its edge.
        assert!(group[1].width >= 0.7 * wd, "{:?}", group[1]);
    }

    #[test]
    fn a_lone_stick_of_a_face_that_covers_more_than_the_taught_size_stays_one_stick() {
        let (l, wd) = (60.0, 12.0);
        let size = |_: [f64; 2]| (l, wd);
        // A flat face showing half as wide again as the taught size (fresh
        // look 1005355: its flat faces covered 1.42 taught areas).
        let mut wide = stick([80.0, 60.0], 20.0);
        wide.width = 18.0;
        let mask = mask_of(&[wide], 160, 120);
        let area = opencv::core::count_non_zero(&mask).unwrap() as f64 / (l * wd);
        assert!(area > SINGLE_AREA, "{area}");
        // At a usual station such a blob is two sticks side by side ...
        assert_eq!(find_sticks(&mask, &size, Split::USUAL).unwrap().len(), 2);
        // ... where lone sticks cover 1.42 taught areas, it is one.
        let swollen = Split::Blobs { lone_area: 1.42 };
        let found = find_sticks(&mask, &size, swollen).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(!found[0].shared, "{found:?}");
        // Two of its narrower round faces side by side are still two.
        let (mut a, mut b) = (stick([80.0, 60.0], 20.0), stick([76.3, 70.2], 20.0));
        a.width = 10.5;
        b.width = 10.5;
        let pair = mask_of(&[a, b], 160, 120);
        assert_eq!(find_sticks(&pair, &size, swollen).unwrap().len(), 2);
    }

    #[test]
    fn two_sticks_whose_blob_swelled_past_two_and_a_half_sticks_are_fitted_as_two() {
        let (l, wd) = (60.0, 12.0);
        let size = |_: [f64; 2]| (l, wd);
        let a = stick([80.0, 60.0], 0.0);
        let b = stick([80.0, 72.0], 0.0);
        // The shadow along one side: a strip a third of a width wide.
        let mut shadow = stick([80.0, 80.0], 0.0);
        shadow.width = 5.0;
        let mask = mask_of(&[a, b, shadow], 160, 120);
        let area = opencv::core::count_non_zero(&mask).unwrap() as f64 / (l * wd);
        assert!((2.375..TWO_STICKS_UP_TO).contains(&area), "{area}");
        let found = find_sticks(&mask, &size, Split::USUAL).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        // Three side by side, as many stick areas as that or more: three.
        let c = stick([80.0, 84.0], 0.0);
        let three = mask_of(&[a, b, c], 160, 120);
        let area = opencv::core::count_non_zero(&three).unwrap() as f64 / (l * wd);
        assert!(area >= TWO_STICKS_UP_TO, "{area}");
        assert_eq!(find_sticks(&three, &size, Split::USUAL).unwrap().len(), 3);
    }

    /// Short, wide sticks (look 1003671: 21 × 5.8 cm, about 50 × 14 pixels)
    /// side by side make a blob an X covers nearly as well.
    fn short(center: [f64; 2], angle_deg: f64) -> Found {
        let mut s = stick(center, angle_deg);
        s.length = 50.0;
        s.width = 14.0;
        s
    }

    fn angle_off(a: &Found, b: &Found) -> f64 {
        let d = (a.angle_deg() - b.angle_deg()).abs();
        d.min(180.0 - d)
    }

    #[test]
    fn two_short_sticks_side_by_side_fitted_as_a_cross_are_laid_side_by_side() {
        let (l, wd) = (50.0, 14.0);
        let a = short([60.0, 53.0], 48.0);
        let n = [-a.dir[1], a.dir[0]];
        let b = short([60.0 + 14.5 * n[0], 53.0 + 14.5 * n[1]], 48.0);
        let mask = mask_of(&[a, b], 130, 120);
        let mid = [
            (a.center[0] + b.center[0]) / 2.0,
            (a.center[1] + b.center[1]) / 2.0,
        ];
        // As the split left them on look 1003671, throw 45: crossed at the
        // pair's middle, 44° apart.
        let mut group = [short(mid, 70.0), short(mid, 26.0)];
        refit_full(&mask, [0.0, 0.0], &mut group, l, wd).unwrap();
        let mut got = group;
        // Match each truth to the nearer fitted stick.
        let near =
            |t: &Found, g: &Found| (t.center[0] - g.center[0]).hypot(t.center[1] - g.center[1]);
        if near(&a, &got[0]) > near(&a, &got[1]) {
            got.swap(0, 1);
        }
        for (g, t) in got.iter().zip(&[a, b]) {
            assert!(near(t, g) <= 2.0, "{g:?} against {t:?}");
            assert!(angle_off(g, t) <= 3.0, "{g:?} against {t:?}");
            assert!(g.width >= 0.8 * wd, "{g:?}");
        }
    }

    #[test]
    fn two_short_sticks_that_truly_cross_stay_crossed() {
        let (l, wd) = (50.0, 14.0);
        for apart in [35.0, 60.0, 90.0] {
            let a = short([65.0, 60.0], 30.0);
            let b = short([65.0, 60.0], 30.0 + apart);
            let mask = mask_of(&[a, b], 130, 120);
            let mut group = [a, b];
            refit_full(&mask, [0.0, 0.0], &mut group, l, wd).unwrap();
            for (g, t) in group.iter().zip(&[a, b]) {
                assert!(angle_off(g, t) <= 3.0, "{apart}°: {g:?} against {t:?}");
            }
        }
    }

    #[test]
    fn a_fit_straddling_two_sticks_side_by_side_is_laid_apart() {
        let (l, wd) = (60.0, 12.0);
        let a = stick([60.0, 50.0], 0.0);
        let b = stick([64.0, 62.0], 0.0);
        let mask = mask_of(&[a, b], 130, 110);
        // The greedy fit's trap: one stick on the seam between the two, the
        // other a narrow strip along the far side, "on its edge".
        let on_seam = stick([61.0, 56.0], 0.0);
        let mut strip = stick([64.0, 64.5], 0.0);
        strip.width = wd * NARROW;
        let mut group = [on_seam, strip];
        refit_full(&mask, [0.0, 0.0], &mut group, l, wd).unwrap();
        for (got, truth) in group.iter().zip([a, b]) {
            let off = (got.center[0] - truth.center[0]).hypot(got.center[1] - truth.center[1]);
            assert!(off <= 1.5, "{got:?} against {truth:?}");
            assert!(got.width >= 0.7 * wd, "{got:?}");
        }
    }
}
