//! Teaching, pure: a stick set learned from its pictures (all flat faces up, all
//! round faces up, only the marked stick flat face up), checked for whether the
//! readers can read it, with the notes the crew should hear.

use crate::calibrate::{Calibration, SMALL_IN_PICTURE_PX_PER_CM};
use crate::classify::{self, Classifier};
use crate::features::{self, N_APPEAR};
use crate::geometry::MatMap;
use crate::measure::{mark_score, measure, station_reference, sticks_on_empty_floor, Measured};
use crate::profile::{self, Taught};
use crate::reader;
use crate::sticks::{
    self, bridge, find_sticks, foreground, to_lab, work_scale, Found, LooksOffMat, Reference, Split,
};
use crate::taught_reader::{self, TaughtReader};
use crate::verdict::{self, MARK_NEED};
use opencv::core::Mat;
use opencv::prelude::*;

/// The patches of the taught sticks `set` but the one nearest `at` (cm).
fn patches_but_nearest(set: &[Measured], at: [f64; 2]) -> impl Iterator<Item = &features::Patch> {
    let d = |m: &Measured| (m.center_cm[0] - at[0]).hypot(m.center_cm[1] - at[1]);
    let nearest = (0..set.len()).min_by(|&i, &j| d(&set[i]).total_cmp(&d(&set[j])));
    set.iter()
        .enumerate()
        .filter(move |(i, _)| Some(*i) != nearest)
        .map(|(_, m)| &m.patch)
}

/// How clearly this station tells the faces apart: the model's probability of
/// the right face on the worst of the eight taught sticks (all flat faces up,
/// all round faces up). Low means many throws will go to the referee.
pub fn readability(
    classifier: &Classifier,
    taught: &Taught,
    set: &TeachSet,
) -> opencv::Result<f64> {
    // The appearance models on their own must read the taught sticks too:
    // on a station where they cannot (held-out look 1001203, a taught stick
    // at 35 %), the stick reader read the taught sticks at 97 % and called
    // flat faces round at 1.00 on its throws (5 silent errors in 60).
    let mut worst = 1.0f64;
    for s in &set.front {
        worst = worst.min(classifier.probs(taught, &s.features)?.front);
    }
    for s in &set.back {
        worst = worst.min(classifier.probs(taught, &s.features)?.back);
    }
    // Each taught stick is read beside taught faces made without it and
    // without its other face (the same stick turned over, in the same place
    // under the same light): the stick reader compares a stick with its
    // station's taught faces, and beside means that hold the stick itself it
    // reads its own picture back, however alike the two faces look.
    if !classifier.has_stick_reader() {
        return Ok(worst);
    }
    for s in &set.front {
        worst = worst.min(read_apart(classifier, taught, set, s)?.front);
    }
    for s in &set.back {
        worst = worst.min(read_apart(classifier, taught, set, s)?.back);
    }
    Ok(worst)
}

/// A taught stick read beside taught faces made without it and without its
/// other face (the same stick turned over, in the same place).
fn read_apart(
    classifier: &Classifier,
    taught: &Taught,
    set: &TeachSet,
    s: &Measured,
) -> opencv::Result<classify::FaceProbs> {
    let looks = reader::TaughtLooks::from_patches(
        patches_but_nearest(&set.front, s.center_cm),
        patches_but_nearest(&set.back, s.center_cm),
    );
    Ok(classifier.read(taught, Some(&looks), std::slice::from_ref(s))?[0])
}

/// The stick reader's mark head on the taught sticks, each read beside
/// taught faces made without it (as [`readability`]): its certainty on the
/// marked stick (the smaller of its readings in the front and the marked
/// pictures) and the largest on the three unmarked flat faces. `None`
/// without a stick reader.
pub fn taught_mark_reads(
    classifier: &Classifier,
    taught: &Taught,
    set: &TeachSet,
) -> opencv::Result<Option<(f64, f64)>> {
    if !classifier.has_stick_reader() {
        return Ok(None);
    }
    // The marked stick as teaching found it (`learn`).
    let Ok((nearest, flat)) = marked_stick(taught, &set.front, &set.back, &set.marked) else {
        return Ok(None);
    };
    let read = |s: &Measured| -> opencv::Result<f64> {
        Ok(read_apart(classifier, taught, set, s)?.mark.unwrap_or(0.5))
    };
    let marked = read(flat)?.min(read(&set.front[nearest])?);
    let mut other = 0.0f64;
    for (i, s) in set.front.iter().enumerate() {
        if i != nearest {
            other = other.max(read(s)?);
        }
    }
    Ok(Some((marked, other)))
}

/// Under this readability ([`readability`]) teaching is refused: the reader
/// takes a taught stick, whose face is known, for the other face or for
/// neither, and the station would make confident wrong calls no bar
/// catches. 0.5 until round 26, when on 1,281 taught held-out, fresh and
/// training looks the 18 stations read at 0.5–0.7 made 4 silent errors
/// (401 clear throws among theirs; look 3093, read at 0.63, called three
/// lone flat faces round with all three readers sure), the 1,263 at 0.7 or
/// more 17 (34,025 clear throws), none of them at 0.7–0.8 (ADR 0067).
/// Between this and [`FACES_LOOK_ALIKE`] teaching goes on with a note
/// ([`teach_notes`]).
pub const UNREADABLE: f64 = 0.7;

/// Under this readability (and at [`UNREADABLE`] or more) teaching goes on,
/// but the crew hears that the faces look alike to the camera: the bar under
/// which judging no longer takes the stick reader's surest readings against
/// the forest's doubt (`verdict::READABLE`; 0.8 here until round 37). Of the
/// 458 stored held-out and fresh looks of rounds 33–37, the 19 stations read
/// under 0.9 called 89.0 % of their clear throws (665/747; the 13 at 0.8–0.9
/// 90.3 %), the 439 at 0.9 or more 96.8 % (16,748/17,299): three times as
/// many throws went to the referee.
pub const FACES_LOOK_ALIKE: f64 = verdict::READABLE;

/// [`readability`], refused under [`UNREADABLE`]. Also sets whether the stick
/// reader's mark head is trusted on this set (`Taught::reader_reads_mark`):
/// it must read the taught marked stick as marked, and the other three flat
/// faces as unmarked, at [`MARK_NEED`].
pub fn check_readable(
    classifier: &Classifier,
    taught: &mut Taught,
    set: &TeachSet,
    more: &[TeachSet],
) -> Result<f64, TeachError> {
    let worst = readability(classifier, taught, set)?;
    if worst < UNREADABLE {
        // The models cannot read this set; its own taught reader may.
        return match own_reader(taught, set, more) {
            Some((own, own_worst)) => {
                taught.edge_witness = witnesses_edges(classifier, taught, set, more)?;
                taught.taught_reader = Some(own);
                taught.reader_reads_mark = false;
                taught.readability = Some(own_worst);
                Ok(own_worst)
            }
            None => Err(TeachError::Unreadable(worst)),
        };
    }
    if let Some((marked, other)) = taught_mark_reads(classifier, taught, set)? {
        taught.reader_reads_mark = marked >= MARK_NEED && other <= 1.0 - MARK_NEED;
    }
    taught.readability = Some(worst);
    Ok(worst)
}

/// Whether the stick reader may witness sticks on their edge at a station
/// that reads its faces with its own taught reader: in no teach picture
/// does it give half or more of the sticks, each lying on a face, "neither"
/// at `EDGE_WITNESS`. Where it takes this station's sticks lying flat for
/// sticks on their edge (a dark, glossy round face shaded like a stick's
/// flank: photoreal-F's back picture, all four at 0.996 or more), its
/// "neither" would hold sticks lying plainly on a face in every throw. One
/// stick so read is a misreading like any in a throw: the witness holds
/// that stick alone. Asked of every taught stick, read before each picture
/// was read on its own, the check turned the witness off at stations where
/// it held 3 of the stored sets' silent errors.
fn witnesses_edges(
    classifier: &Classifier,
    taught: &Taught,
    set: &TeachSet,
    more: &[TeachSet],
) -> Result<bool, TeachError> {
    let looks = taught.seen.as_ref().map(reader::TaughtSticks::looks);
    // Each picture read on its own, as a throw is: the sticks of one picture
    // are the others beside a stick, not those of another picture lying
    // where it lies.
    for s in std::iter::once(set).chain(more) {
        for picture in [&s.front, &s.back, &s.marked] {
            let Some(witness) = classifier.edge_witness(picture, looks.as_ref())? else {
                return Ok(false);
            };
            let held = witness
                .iter()
                .filter(|&&n| n >= crate::verdict::EDGE_WITNESS)
                .count();
            if 2 * held >= witness.len() {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The taught sticks with their faces: the flat faces of the front picture
/// and the marked picture's marked stick, the round faces of the back picture
/// and the marked picture's other three. `None` where the marked stick is not
/// found.
fn taught_faces(taught: &Taught, set: &TeachSet) -> Option<(Vec<Measured>, Vec<Measured>)> {
    let (_, marked) = marked_stick(taught, &set.front, &set.back, &set.marked).ok()?;
    let mut front = set.front.clone();
    let mut back = set.back.clone();
    for s in &set.marked {
        if std::ptr::eq(s, marked) {
            front.push(s.clone());
        } else {
            back.push(s.clone());
        }
    }
    Some((front, back))
}

/// The station's own taught reader and the least probability of its own face
/// it gives a taught stick, where it reads the set: its faces lie
/// [`taught_reader::SEPARATES`] apart or more, and each taught stick, read by a
/// reader learned without it (nor the sticks in its place in the other
/// pictures), reads as its own face by its look at [`FACES_LOOK_ALIKE`] or
/// more.
pub fn own_reader(
    taught: &Taught,
    set: &TeachSet,
    more: &[TeachSet],
) -> Option<(TaughtReader, f64)> {
    // Each shot's sticks, and which shot they are of: a stick's place is the
    // same stick only within one shot.
    let (mut front, mut back) = (Vec::new(), Vec::new());
    for (shot, s) in std::iter::once(set).chain(more).enumerate() {
        let (f, b) = taught_faces(taught, s)?;
        front.extend(f.into_iter().map(|m| (shot, m)));
        back.extend(b.into_iter().map(|m| (shot, m)));
    }
    fn feats<'a>(v: impl Iterator<Item = &'a (usize, Measured)>) -> Vec<&'a Measured> {
        v.map(|(_, s)| s).collect()
    }
    let own = TaughtReader::learn(&feats(front.iter()), &feats(back.iter()));
    if !own.is_ready() || own.separation() < taught_reader::SEPARATES {
        return None;
    }
    // A stick's place in a shot: the same place in each of its three
    // pictures is the same stick.
    let near = |(sa, a): &(usize, Measured), (sb, b): &(usize, Measured)| {
        sa == sb
            && (a.center_cm[0] - b.center_cm[0]).hypot(a.center_cm[1] - b.center_cm[1])
                < taught.length_cm / 2.0
    };
    let mut worst = 1.0f64;
    for (s, is_front) in front
        .iter()
        .map(|s| (s, true))
        .chain(back.iter().map(|s| (s, false)))
    {
        let apart = TaughtReader::learn(
            &feats(front.iter().filter(|o| !near(o, s))),
            &feats(back.iter().filter(|o| !near(o, s))),
        );
        if !apart.is_ready() {
            return None;
        }
        // Its look alone: a taught stick lies flat whatever width it was
        // found at.
        let front = apart.front_by_look(&s.1.features);
        worst = worst.min(if is_front { front } else { 1.0 - front });
    }
    (worst >= FACES_LOOK_ALIKE).then_some((own, worst))
}

/// The taught width, in picture pixels at the mat's centre, under which
/// teaching tells the crew that the sticks show too small for sure calls
/// ([`teach_notes`]). Of the 634 stored held-out and fresh looks judged in
/// round 39, those whose sticks showed under 8 px wide where found (10) called 91.3 %
/// of their clear throws with the mark in view (359/393), the rest 97.5 %
/// (23,812/24,414): three and a half times as many throws went to the
/// referee. On the training looks of seeds 11 and 12: 73.6 % (7 looks)
/// against 95.1 %. At 9 px the looks under it called 95.2 %, so the bar
/// marks where calls fall away, not a size every station should reach.
/// Calibration's note on a mat small in the picture
/// (`calibrate::SMALL_IN_PICTURE_PX_PER_CM`) does not stand in for it: 7 of
/// those 10 looks showed the mat at 2.5 px/cm or more with thin sticks
/// (93.7 %, 254/271), while the 120 looks under 2.5 px/cm with sticks of 8 px
/// or more called 95.9 %.
pub const SMALL_STICK_PX: f64 = 8.0;

/// What the crew should know about a taught set that teaching accepted:
/// faces that look alike ([`readability`] under [`FACES_LOOK_ALIKE`]),
/// sticks that show under [`SMALL_STICK_PX`] wide on `cal`'s map, or a mark
/// that does not stand out (`Taught::mark_distinct`). Empty when all is well.
pub fn teach_notes(worst: f64, taught: &Taught, cal: &Calibration) -> Vec<String> {
    let mut notes = Vec::new();
    if taught.taught_reader.is_some() {
        notes.push(
            "these sticks look like none the station's models learned from: it reads their faces by what the teach pictures showed it; teach more shots (move and turn the sticks, shoot again) to make it surer, and confirm calls at the console: it learns from them"
                .to_string(),
        );
        if !taught.edge_witness {
            notes.push(
                "the station cannot point out a stick standing on its edge here (its stick reader takes these sticks lying flat for sticks on their edge, or is not installed): it may read one as the face it leans to; the referee should watch for sticks on their edge and correct such a call"
                    .to_string(),
            );
        }
    }
    let width_px = taught.width_cm * cal.px_per_cm_at_centre();
    if width_px < SMALL_STICK_PX {
        notes.push(format!(
            "the sticks show only {width_px:.1} px wide in the picture (the station reads them surely from {SMALL_STICK_PX:.0} px): expect more throws to go to the referee; bring the camera closer to the mat or use a higher resolution, and calibrate and teach again"
        ));
    }
    if worst < FACES_LOOK_ALIKE {
        notes.push(format!(
            "the two faces look alike to the camera here (a taught stick read at {:.0} %): expect more throws to go to the referee; light the mat more from one side, bring the camera closer or sharpen the focus, and teach again",
            worst * 100.0
        ));
    }
    if !taught.reader_reads_mark && taught.mark_distinct() {
        notes.push(
            "the stick reader does not tell the marked stick from the others here: the mark is judged from how dark it is against the taught faces, and more 도 and 뒷도 may go to the referee; a larger or darker mark lets it read the mark"
                .to_string(),
        );
    }
    if taught.colour_bar < sticks::COLOUR_BAR {
        notes.push(format!(
            "the round faces barely differ in colour from the mat here: the station looks for sticks at a lowered colour bar ({}, usual {}), and shadows may join the sticks more often; a mat of another colour, or more light, lets it keep the usual bar",
            taught.colour_bar,
            sticks::COLOUR_BAR
        ));
    }
    if taught.dark_share > sticks::DARK_SHARE {
        notes.push(
            "one face of the sticks is dark and barely differs from the mat here: the station takes darker pixels for sticks than it usually does, and the sticks' shadows may join them more often; a lighter mat, or more light, lets it keep the usual bar"
                .to_string(),
        );
    }
    if !taught.faint_look || !taught.dark_look {
        notes.push(
            "the floor around the mat shows the camera's noise or its own pattern to the station's closer looks (in the teach pictures they found sticks on the empty floor): a stick that lands off the mat and stands out from the floor only faintly goes to the referee; a floor that differs more from the sticks, or more light, lets the station look closer"
                .to_string(),
        );
    }
    if taught.shadows_trimmed {
        notes.push(
            "the sticks' shadows are coloured here (two lights of different colour, a window and a lamp): the station leaves them out when it looks for the sticks; light from one kind of lamp keeps it simpler"
                .to_string(),
        );
    }
    if !taught.mark_distinct() {
        // Where the stick reader's mark head passed its check at teaching,
        // it still tells the marked stick when all but certain (ADR 0053).
        let calls = if taught.reader_reads_mark {
            "도 and 뒷도 are called only where the stick reader is all but certain of the mark, the rest go to the referee"
        } else {
            "every 도 and 뒷도 goes to the referee"
        };
        notes.push(format!(
            "the mark hardly stands out from the other flat faces here: {calls}; a larger or darker mark, or the camera closer, lets the station tell them apart"
        ));
    }
    notes
}

/// What else to check when a teach picture shows the wrong number of sticks
/// and the sticks already lie apart. On generated looks, more than four were
/// sticks with dark bands painted across them, each found as pieces; fewer,
/// sticks the colour of the mat (wood on straw). Where the mat shows small
/// in the picture (under `SMALL_IN_PICTURE_PX_PER_CM`, `px_per_cm` at its
/// centre), the sticks show small with it, and a stick's highlights, which
/// tell a dark face from a dark mat, are a pixel or two wide: three of the
/// four fresh painted-dark looks from 1 700 000 refused for their count of
/// sticks showed the mat at 1.8–2.4 px/cm.
fn stick_count_hint(found: usize, px_per_cm: f64) -> String {
    let small = if px_per_cm < SMALL_IN_PICTURE_PX_PER_CM {
        format!(
            "the mat and the sticks show small in the picture ({px_per_cm:.1} px/cm at its centre, under {SMALL_IN_PICTURE_PX_PER_CM}): bring the camera closer, zoom in, or use a higher resolution; "
        )
    } else {
        String::new()
    };
    let what = if found > 4 {
        "a stick shows in pieces (dark bands across it, or a deep shadow): light the mat evenly, or use sticks without dark bands across them"
    } else {
        "the sticks do not stand out from the mat: add light, or lay a mat of another colour or brightness than the sticks"
    };
    format!("if they lie apart, {small}{what}")
}

/// Why teaching refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TeachError {
    #[error("the {picture} picture shows {found} sticks, not 4: spread all four sticks apart on the mat, away from its edge; {hint}", hint = stick_count_hint(*found, *px_per_cm))]
    StickCount {
        picture: &'static str,
        found: usize,
        /// How large the mat shows at its centre, for the hint.
        px_per_cm: f64,
    },
    #[error("the mark is not visible: in the marked picture exactly one stick must lie flat face up, and its mark must be dark on the flat face")]
    NoMark,
    #[error("the sticks moved between the teach pictures: keep them in the same places and turn them over")]
    Moved,
    #[error("the camera cannot tell the two faces apart here (a taught stick read as its own face at only {:.0} %): light the mat more from one side, bring the camera closer or use a higher resolution, and teach again; sticks whose round face differs in colour or shade from the flat face are read more surely", .0 * 100.0)]
    Unreadable(f64),
    #[error("no teach pictures: give the front, back and marked pictures")]
    NoShots,
    #[error("a stick of the {0} picture lies outside the mat as it was calibrated: the mat's outline was not found where the mat is; calibrate again from a picture of the empty mat (or give its corners with --corners), then teach again")]
    OffMat(&'static str),
    #[error("image processing failed: {0}")]
    OpenCv(String),
    /// What went wrong in one shot's pictures where several shots were given
    /// (the first is shot 1), so that the crew knows which to take again.
    #[error("shot {shot} of {shots}: {error}")]
    InShot {
        shot: usize,
        shots: usize,
        error: Box<TeachError>,
    },
}

impl TeachError {
    /// This error, said of shot `shot` (from 1) of `shots` where there is
    /// more than one.
    fn in_shot(self, shot: usize, shots: usize) -> TeachError {
        if shots > 1 {
            TeachError::InShot {
                shot,
                shots,
                error: Box::new(self),
            }
        } else {
            self
        }
    }
}

impl From<opencv::Error> for TeachError {
    fn from(e: opencv::Error) -> Self {
        TeachError::OpenCv(e.message)
    }
}

/// A station taught from its three pictures ([`teach`]).
#[derive(Debug, Clone)]
pub struct Teaching {
    /// The sticks of the teach pictures, as measured.
    pub set: TeachSet,
    /// The sticks of the further shots, as measured.
    pub more: Vec<TeachSet>,
    /// What was learned from them (with `Taught::readability` where a
    /// classifier checked the set).
    pub taught: Taught,
    /// The calibration the sticks were measured with: the one given, or for
    /// a round mat the map of the tilt the taught sticks show
    /// ([`with_taught_tilt`]). The station judges with this one.
    pub calibration: Calibration,
}

/// Learn a stick set from three pictures: all flat faces up, all round faces
/// up, only the marked stick flat face up (sticks in the same places).
/// `checked_by` must read the taught sticks ([`check_readable`]); without
/// it any set is learned (the taught-faces rule of training runs).
///
/// Taught first at the usual colour bar: a station whose first shot is
/// refused there stays refused (stations taught only at a lowered bar made
/// silent errors; ADR 0056, 0122). Where its round faces (or its flat faces)
/// barely differ from the mat ([`sticks::station_colour_bar`]), it is taught
/// again at the lowered bar, and that is kept if accepted (ADR 0056, 0069);
/// further shots the usual bar does not show whole are taught at the
/// station's own bars alone (ADR 0122). Where a face still
/// barely shows (a dark face on a dark mat, no colour to find it by), it is
/// taught at a raised dark share ([`sticks::station_dark_share`], ADR 0120).
/// A round mat's tilt is
/// picked first, from the sticks' lengths ([`with_taught_tilt`]).
///
/// More shots (the sticks moved and turned, shot again: `shots[1..]`) teach
/// the station's own reader more of how its faces look across the mat and
/// its light; the first shot is the taught set itself.
///
/// Where the usual speck disc shows a teach picture's sticks too few or in
/// pieces (the thin highlight of a black lacquered round face, all the
/// camera sees of it at a small scale), the station is taught again with
/// the finer disc (`sticks::FINER_SPECK_DISC`) and, if that is accepted,
/// sees with it throughout (`Taught::speck_disc`); if not, the first
/// refusal stands (ADR 0129). Only where `checked_by` checks the taught
/// sticks: a training run keeps to the stations the usual disc teaches.
///
/// Last, the looks off the mat for a missing stick are tried on the teach
/// pictures' empty floor ([`looks_off_mat_kept`]).
pub fn teach(
    cal: &Calibration,
    empty: &Mat,
    shots: &[[&Mat; 3]],
    checked_by: Option<&Classifier>,
) -> Result<Teaching, TeachError> {
    let mut t = match teach_at_bars(cal, empty, shots, checked_by, sticks::SPECK_DISC) {
        // The usual disc shows too few sticks, or sticks in pieces: where
        // the finer one shows them, and the readers read the sticks it
        // shows, the station sees with it throughout (ADR 0129). Training
        // runs (no reader checks) keep the stations the usual disc teaches.
        Err(e @ TeachError::StickCount { .. }) if checked_by.is_some() => {
            teach_at_bars(cal, empty, shots, checked_by, sticks::FINER_SPECK_DISC).map_err(|_| e)?
        }
        t => t?,
    };
    let kept = looks_off_mat_kept(&t.calibration, &t.taught, empty, shots)?;
    t.taught.faint_look = kept.faint;
    t.taught.dark_look = kept.dark;
    Ok(t)
}

/// Which looks off the mat a taught station keeps: each look
/// ([`sticks::faint_foreground`], [`sticks::dark_foreground`]) is tried on
/// every teach picture at the station's bars, and kept only where it finds
/// no stick on the floor off the mat, which holds none while the crew
/// teaches (the sticks lie on the mat). A look that finds sticks there
/// shows the camera's own noise or the floor's pattern at its bars, and
/// would find them in throws too: on world look 1 300 159 (a faint look's
/// colour bar of 3.6, JPEG at quality 89) the faint look found three in one
/// teach picture, and in a throw took the noise in a corner of the floor
/// for the stick it was short of, a silent 낙 (ADR 0124). The station still
/// finds the sticks its first look sees off the mat; one that only these
/// looks would see leaves the throw short of a stick, for the referee.
/// Learned from the pictures this station's camera takes, not from bars set
/// on renders.
pub fn looks_off_mat_kept(
    cal: &Calibration,
    taught: &Taught,
    empty: &Mat,
    shots: &[[&Mat; 3]],
) -> opencv::Result<LooksOffMat> {
    let reference = station_reference(empty, taught)?;
    let size = (taught.length_cm, taught.width_cm);
    let quiet = |look: sticks::OffMatLook| -> opencv::Result<bool> {
        for picture in shots.iter().flatten() {
            if sticks_on_empty_floor(look, cal, &reference, picture, size)? > 0 {
                return Ok(false);
            }
        }
        Ok(true)
    };
    Ok(LooksOffMat {
        faint: quiet(sticks::faint_foreground)?,
        dark: quiet(sticks::dark_foreground)?,
    })
}

/// [`teach`] up to the looks off the mat: the taught set at the station's
/// bars.
fn teach_at_bars(
    cal: &Calibration,
    empty: &Mat,
    shots: &[[&Mat; 3]],
    checked_by: Option<&Classifier>,
    speck_disc: i32,
) -> Result<Teaching, TeachError> {
    let usual_bars = Bars {
        speck_disc,
        ..Bars::USUAL
    };
    let Some(&[front, back, marked]) = shots.first() else {
        return Err(TeachError::NoShots);
    };
    let cal = &with_taught_tilt(cal, empty, [front, back, marked])?;
    // Teaching from the first `taken` shots; with several shots given, what
    // goes wrong in one picture names its shot.
    let n = shots.len();
    let at_trimmed_of =
        |taken: &[[&Mat; 3]], bars: Bars, trim: bool| -> Result<Teaching, TeachError> {
            let set = teach_measure(cal, empty, front, back, marked, bars, trim)
                .map_err(|e| e.in_shot(1, n))?;
            let more = taken[1..]
                .iter()
                .enumerate()
                .map(|(k, &[f, b, m])| {
                    teach_measure(cal, empty, f, b, m, bars, trim).map_err(|e| e.in_shot(k + 2, n))
                })
                .collect::<Result<Vec<_>, _>>()?;
            for (k, s) in std::iter::once(&set).chain(&more).enumerate() {
                sticks_on_mat(s, &cal.mat).map_err(|e| e.in_shot(k + 1, n))?;
            }
            let mut taught = set.learn()?;
            if let Some(c) = checked_by {
                check_readable(c, &mut taught, &set, &more)?;
            }
            Ok(Teaching {
                set,
                more,
                taught,
                calibration: cal.clone(),
            })
        };
    let at_trimmed = |bars: Bars, trim: bool| at_trimmed_of(shots, bars, trim);
    // Where the sticks' shadows are coloured (two lights of different
    // colour) they widen the sticks, and the models may not read them: a
    // station whose taught sticks the models read under `FACES_LOOK_ALIKE`
    // leaves its shadows out where they trim cleanly and the models then
    // read its taught sticks better. Every other station sees as before
    // (left out everywhere they trim, the generator's stations lost 27 of
    // 1,632 clear throws: ADR 0109).
    let at = |bars: Bars| -> Result<Teaching, TeachError> {
        let kept = at_trimmed(bars, false)?;
        let Some(models) = checked_by else {
            return Ok(kept);
        };
        // How the models read a set's taught sticks: `check_readable` kept it
        // where the station reads with them; where it reads with its own
        // taught reader, it kept that reader's instead.
        let models_read = |t: &Teaching| -> Result<f64, TeachError> {
            match (&t.taught.taught_reader, t.taught.readability) {
                (None, Some(worst)) => Ok(worst),
                _ => Ok(readability(models, &t.set.learn()?, &t.set)?),
            }
        };
        let kept_reads = models_read(&kept)?;
        if kept_reads >= FACES_LOOK_ALIKE {
            return Ok(kept);
        }
        Ok(match at_trimmed(bars, true) {
            Ok(trimmed)
                if trims_cleanly(&kept.set, &trimmed.set)
                    && models_read(&trimmed)? > kept_reads =>
            {
                trimmed
            }
            _ => kept,
        })
    };
    // A station the usual bars cannot teach stays refused (ADR 0056, 0122):
    // asked of its first shot. Further shots, the sticks moved round the
    // mat, may show a face only in part at the usual bars (a dark round face
    // moved where the mat is darker), and need the station's own bars below
    // as the first shot may.
    let (usual, length_cm) = match at(usual_bars) {
        Ok(t) => {
            let length_cm = t.set.length_cm;
            (Ok(t), length_cm)
        }
        Err(e) if n > 1 => {
            let first = at_trimmed_of(&shots[..1], usual_bars, false)?;
            (Err(e), first.set.length_cm)
        }
        Err(e) => return Err(e),
    };
    // Faces that barely differ from the mat, round or flat, lower the
    // station's colour bar (the same sticks, turned over in place, must show
    // about as much).
    let (front_lab, back_lab) = (to_lab(front)?, to_lab(back)?);
    // Within a stick's length of what the pictures show at the usual bar:
    // the sticks, and parts of them the lowered bar brings out. Made only
    // where the bar is lowered (most stations keep the usual one).
    let reach = length_cm * cal.px_per_cm_at_centre() * work_scale(empty.cols());
    let near_of = |lab: &Mat| -> opencv::Result<Mat> {
        let k = ((2.0 * reach).round() as i32).max(3) | 1;
        let disc = opencv::imgproc::get_structuring_element_def(
            opencv::imgproc::MORPH_ELLIPSE,
            opencv::core::Size::new(k, k),
        )?;
        let mut out = Mat::default();
        opencv::imgproc::dilate_def(&foreground(lab, &Reference::new(empty)?)?, &mut out, &disc)?;
        Ok(out)
    };
    // How much of `fg` lies outside `near`.
    let outside = |fg: &Mat, near: &Mat| -> opencv::Result<f64> {
        let mut far = Mat::default();
        opencv::core::bitwise_not_def(near, &mut far)?;
        let mut out = Mat::default();
        opencv::core::bitwise_and_def(fg, &far, &mut out)?;
        Ok(opencv::core::count_non_zero(&out)? as f64)
    };
    let mut near: Option<(Mat, Mat)> = None;
    let mut shown = |bars: Bars| -> opencv::Result<sticks::Shown> {
        let at = Reference::new(empty)?
            .with_colour_bar(bars.colour)
            .with_dark_share(bars.dark_share)?
            .with_speck_disc(bars.speck_disc);
        let (front_fg, back_fg) = (foreground(&front_lab, &at)?, foreground(&back_lab, &at)?);
        let apart = if bars != usual_bars {
            if near.is_none() {
                near = Some((near_of(&front_lab)?, near_of(&back_lab)?));
            }
            let Some((front_near, back_near)) = &near else {
                unreachable!("made just above")
            };
            outside(&front_fg, front_near)? + outside(&back_fg, back_near)?
        } else {
            0.0
        };
        Ok(sticks::Shown {
            front: opencv::core::count_non_zero(&front_fg)? as f64,
            back: opencv::core::count_non_zero(&back_fg)? as f64,
            apart,
        })
    };
    let colour = sticks::station_colour_bar(|colour| {
        shown(Bars {
            colour,
            ..usual_bars
        })
    })?;
    let kept = if colour < sticks::COLOUR_BAR {
        at(Bars {
            colour,
            ..usual_bars
        })
        .or(usual)
    } else {
        usual
    };
    // A face dark where the mat is dark shows no colour to find it by:
    // the station takes darker pixels than a shadow's for sticks at a
    // raised share where the teach pictures allow it (ADR 0120).
    let colour = kept.as_ref().map_or(colour, |t| t.set.colour_bar);
    let dark_share = sticks::station_dark_share(|dark_share| {
        shown(Bars {
            colour,
            dark_share,
            speck_disc,
        })
    })?;
    // Taught at the highest share up to it that teaching accepts: at a raised
    // share the readers may no longer tell the taught faces apart (look
    // 1 400 297 at 0.75: its taught sticks read at 20 %).
    for steps in (1..=sticks::dark_share_steps(dark_share)).rev() {
        let dark_share = sticks::dark_share_at(steps);
        if let Ok(t) = at(Bars {
            colour,
            dark_share,
            speck_disc,
        }) {
            return Ok(t);
        }
    }
    kept
}

/// The bars at which a station's foreground takes a pixel for a stick: its
/// colour bar ([`sticks::station_colour_bar`]) and its dark share
/// ([`sticks::station_dark_share`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bars {
    pub colour: f64,
    pub dark_share: f64,
    /// The disc its foreground is opened with (`sticks::SPECK_DISC`, or the
    /// finer one at a station whose sticks only it shows: [`teach`]).
    pub speck_disc: i32,
}

impl Bars {
    /// The bars of a station whose faces both differ plainly from the mat.
    pub const USUAL: Bars = Bars {
        colour: sticks::COLOUR_BAR,
        dark_share: sticks::DARK_SHARE,
        speck_disc: sticks::SPECK_DISC,
    };
}

/// Whether every stick of a taught set lies on the mat as calibrated (its
/// middle inside the mat's edge), as the crew lays them: a calibration that
/// found the mat's outline elsewhere (a pattern on it, its shadow) puts them
/// off it, and would call sticks lying on the mat 낙 without a doubt (world
/// look 1 400 040: a 171 cm mat fitted with a lens of k −0.26, two of its
/// taught sticks 15–33 cm beyond its edge, 6 silent 낙 in 20 throws).
pub fn sticks_on_mat(set: &TeachSet, mat: &crate::calibrate::MatSpec) -> Result<(), TeachError> {
    for (name, sticks) in [
        ("front", &set.front),
        ("back", &set.back),
        ("marked", &set.marked),
    ] {
        if sticks.iter().any(|m| m.inside_mat(mat).0 < 0.0) {
            return Err(TeachError::OffMat(name));
        }
    }
    Ok(())
}

/// How much narrower the taught sticks must show with their shadows left out
/// before a station leaves them out ([`trims_cleanly`]): a shadow that widens
/// them less is not worth a change to how the station sees.
pub const TRIM_NARROWS: f64 = 0.9;

/// How much of its length a taught stick may lose with its shadows left out
/// ([`trims_cleanly`]): a shadow off one side takes none of it.
pub const TRIM_KEEPS_LENGTH: f64 = 0.9;

/// The least share of what one face's sticks lose with their shadows left
/// out that the other face's must lose too ([`trims_cleanly`]): the same
/// sticks, turned over in place, cast the same shadows.
pub const TRIM_FACES_ALIKE: f64 = 0.75;

/// How much more alike the taught sticks' widths must be with their shadows
/// left out ([`trims_cleanly`]: the spread of their widths against a stick
/// lying flat where each lies, at most this share of the spread with them).
/// A shadow cast by a light low to one side widens a stick lying across the
/// light and not one lying along it: sticks of one size show at different
/// widths (photoreal-H: a spread of 0.19 of a width with their shadows, 0.07
/// without). On the generator's held-out world looks whose shadows trimmed
/// cleanly, leaving them out made the widths agree at best a little better
/// (0.61 of their spread), and mostly worse.
pub const TRIM_AGREES: f64 = 0.6;

/// Whether the taught sticks' shadows trim cleanly: found with them left out
/// (`trimmed`), the sticks are as long as found with them (`kept`), markedly
/// narrower ([`TRIM_NARROWS`]), of widths much more alike ([`TRIM_AGREES`]),
/// and both faces lose about as much ([`TRIM_FACES_ALIKE`]). A face darker
/// than the mat in every colour (stained, painted dark) would be trimmed away
/// with the shadows: its sticks shorten or fall apart, or it loses far more
/// than the other face, and the station keeps its shadows.
pub fn trims_cleanly(kept: &TeachSet, trimmed: &TeachSet) -> bool {
    let area = |v: &[Measured]| -> f64 { v.iter().map(|m| m.found.length * m.found.width).sum() };
    let (front, back) = (
        area(&trimmed.front) / area(&kept.front).max(1e-9),
        area(&trimmed.back) / area(&kept.back).max(1e-9),
    );
    trimmed.length_cm >= TRIM_KEEPS_LENGTH * kept.length_cm
        && trimmed.width_cm <= TRIM_NARROWS * kept.width_cm
        && width_spread(trimmed) <= TRIM_AGREES * width_spread(kept)
        && front.min(back) >= TRIM_FACES_ALIKE * front.max(back)
}

/// The spread (standard deviation) of a taught set's widths, each against a
/// stick lying flat where it lies (`Measured::width_lying_flat`).
fn width_spread(set: &TeachSet) -> f64 {
    let w: Vec<f64> = [&set.front, &set.back, &set.marked]
        .into_iter()
        .flatten()
        .map(|m| f64::from(m.width_lying_flat()))
        .collect();
    let n = w.len().max(1) as f64;
    let mean = w.iter().sum::<f64>() / n;
    (w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// The sticks of the three teach pictures, measured at the stick size they show.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TeachSet {
    pub length_cm: f64,
    pub width_cm: f64,
    pub front: Vec<Measured>,
    pub back: Vec<Measured>,
    pub marked: Vec<Measured>,
    /// The station's colour bar the sticks were found with
    /// ([`sticks::station_colour_bar`]); sets stored before it was learned
    /// were found at the usual one.
    #[serde(default = "usual_colour_bar")]
    pub colour_bar: f64,
    /// Found with their shadows left out (`Taught::shadows_trimmed`).
    #[serde(default)]
    pub shadows_trimmed: bool,
    /// The station's dark share the sticks were found with
    /// ([`sticks::station_dark_share`]); sets stored before it was learned
    /// were found at the usual one.
    #[serde(default = "usual_dark_share")]
    pub dark_share: f64,
    /// The disc the sticks' foreground was opened with (`Taught::speck_disc`);
    /// sets stored before it was chosen used the usual one.
    #[serde(default = "usual_speck_disc")]
    pub speck_disc: i32,
}

fn usual_speck_disc() -> i32 {
    sticks::SPECK_DISC
}

fn usual_colour_bar() -> f64 {
    sticks::COLOUR_BAR
}

fn usual_dark_share() -> f64 {
    sticks::DARK_SHARE
}

impl TeachSet {
    pub fn learn(&self) -> Result<Taught, TeachError> {
        let taught = learn(
            &self.front,
            &self.back,
            &self.marked,
            self.length_cm,
            self.width_cm,
        )?;
        Ok(Taught {
            colour_bar: self.colour_bar,
            dark_share: self.dark_share,
            shadows_trimmed: self.shadows_trimmed,
            speck_disc: self.speck_disc,
            ..taught
        })
    }
}

/// The four biggest lone blobs of a teach picture (any blob of at least
/// 20 cm² that is not absurdly big), biggest first, in the picture's pixels.
fn teach_blobs(
    cal: &Calibration,
    reference: &Reference,
    img: &Mat,
) -> Result<Vec<Found>, TeachError> {
    let sc = work_scale(img.cols());
    let mask = bridge(
        &foreground(&to_lab(img)?, reference)?,
        3.0 * cal.px_per_cm_at_centre() * sc,
    )?;
    let size_at = |p: [f64; 2]| {
        let s = cal.map.px_per_cm([p[0] / sc, p[1] / sc]) * sc;
        (20.0 * s, 4.0 * s)
    };
    let mut f = find_sticks(&mask, &size_at, Split::Never)?;
    for s in &mut f {
        s.center = [
            (s.center[0] + 0.5) / sc - 0.5,
            (s.center[1] + 0.5) / sc - 0.5,
        ];
        s.length /= sc;
        s.width /= sc;
    }
    let area = |s: &Found| s.length * s.width / cal.map.px_per_cm(s.center).powi(2);
    let mut out: Vec<Found> = f.into_iter().filter(|s| !s.shared).collect();
    out.sort_by(|a, b| area(b).total_cmp(&area(a)));
    out.truncate(4);
    Ok(out)
}

/// The least number of taught sticks whose lengths pick a round mat's tilt
/// ([`with_taught_tilt`]).
const TILT_STICKS: usize = 4;

/// A round mat's calibration with the tilt its teach pictures show. The
/// outline alone leaves it open which side of a tilted round mat is nearer
/// the camera (`Calibration::round_maps`); the taught sticks, all of one
/// length, tell: of the maps, the one under which their lengths (the four
/// sticks of each picture) differ least. Seen from nearer, a stick shows
/// longer; a map that takes the wrong side for the nearer makes the sticks
/// there longer still in centimetres, and those on the far side shorter. On
/// 21 generated round mats this picked the map nearest the truth on 20, and
/// on the other the mat's centre at the ellipse's (its tilt was slight);
/// sticks there were placed a median 0.3–1.2 cm off, against up to 4 cm
/// before (ADR 0084). A square mat's calibration is returned as it is.
pub fn with_taught_tilt(
    cal: &Calibration,
    empty: &Mat,
    pictures: [&Mat; 3],
) -> Result<Calibration, TeachError> {
    let maps = cal.round_maps();
    if maps.is_empty() {
        return Ok(cal.clone());
    }
    let reference = Reference::new(empty)?;
    let mut ends = Vec::new();
    for img in pictures {
        for s in teach_blobs(cal, &reference, img)? {
            let h = s.length / 2.0;
            let (d, c) = (s.dir, s.center);
            ends.push((
                [c[0] + d[0] * h, c[1] + d[1] * h],
                [c[0] - d[0] * h, c[1] - d[1] * h],
            ));
        }
    }
    if ends.len() < TILT_STICKS {
        // Teaching refuses such pictures: nothing to pick by.
        return Ok(cal.clone());
    }
    // How much the sticks' lengths differ under a map (their spread over
    // their mean).
    let spread = |m: &MatMap| {
        let lengths: Vec<f64> = ends
            .iter()
            .map(|(a, b)| {
                let (p, q) = (m.to_cm(*a), m.to_cm(*b));
                (p[0] - q[0]).hypot(p[1] - q[1])
            })
            .collect();
        let n = lengths.len() as f64;
        let mean = lengths.iter().sum::<f64>() / n;
        let var = lengths.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
        var.sqrt() / mean
    };
    let map = maps
        .into_iter()
        .min_by(|a, b| spread(a).total_cmp(&spread(b)))
        .unwrap_or(cal.map);
    Ok(Calibration { map, ..cal.clone() })
}

/// Find and measure the sticks of the three teach pictures.
pub fn teach_measure(
    cal: &Calibration,
    empty: &Mat,
    front: &Mat,
    back: &Mat,
    marked: &Mat,
    bars: Bars,
    shadows_trimmed: bool,
) -> Result<TeachSet, TeachError> {
    let reference = Reference::new(empty)?
        .with_colour_bar(bars.colour)
        .with_dark_share(bars.dark_share)?
        .with_shadows_trimmed(shadows_trimmed)?
        .with_speck_disc(bars.speck_disc);
    // First pass: the four biggest blobs give the stick size.
    let blobs = |img: &Mat| -> Result<Vec<(f64, f64, [f64; 2])>, TeachError> {
        Ok(teach_blobs(cal, &reference, img)?
            .iter()
            .map(|s| {
                let k = cal.map.px_per_cm(s.center);
                (s.length / k, s.width / k, s.center)
            })
            .collect())
    };
    let mut sizes = Vec::new();
    for (name, img) in [("front", front), ("back", back), ("marked", marked)] {
        let b = blobs(img)?;
        if b.len() != 4 {
            return Err(TeachError::StickCount {
                picture: name,
                found: b.len(),
                px_per_cm: cal.px_per_cm_at_centre(),
            });
        }
        sizes.extend(b);
    }
    let mut lengths: Vec<f64> = sizes.iter().map(|s| s.0).collect();
    let mut widths: Vec<f64> = sizes.iter().map(|s| s.1).collect();
    lengths.sort_by(f64::total_cmp);
    widths.sort_by(f64::total_cmp);
    let (length_cm, width_cm) = (lengths[lengths.len() / 2], widths[widths.len() / 2]);
    // Second pass: features at the learned size.
    let feats = |name: &'static str, img: &Mat| -> Result<Vec<Measured>, TeachError> {
        let mut m = measure(cal, &reference, empty, img, (length_cm, width_cm))?;
        // A speck far from the four sticks is no fifth stick (ADR 0078).
        if let Some(stray) = verdict::stray_pieces(&m) {
            m = m
                .into_iter()
                .zip(stray)
                .filter(|(_, s)| !s)
                .map(|(m, _)| m)
                .collect();
        }
        if m.len() != 4 {
            return Err(TeachError::StickCount {
                picture: name,
                found: m.len(),
                px_per_cm: cal.px_per_cm_at_centre(),
            });
        }
        Ok(m)
    };
    Ok(TeachSet {
        length_cm,
        width_cm,
        front: feats("front", front)?,
        back: feats("back", back)?,
        marked: feats("marked", marked)?,
        colour_bar: bars.colour,
        shadows_trimmed,
        dark_share: bars.dark_share,
        speck_disc: bars.speck_disc,
    })
}

/// Where along the marked stick its mark lies (see `Taught::mark_span`),
/// from its taught pictures: the reach of every stretch that reads as a mark,
/// widened by `MARK_SPAN_PAD` for a stick found a little off along its
/// length. The whole stick when no stretch clears the bar in some picture.
fn mark_span(views: &[&Measured], bar: f32) -> [f32; 2] {
    let mut span: Option<[f32; 2]> = None;
    for m in views {
        let Some([lo, hi]) = features::mark_reach(&m.patch, &m.found, m.nominal, bar) else {
            return profile::WHOLE_STICK;
        };
        span = Some(span.map_or([lo, hi], |[a, b]| [a.min(lo), b.max(hi)]));
    }
    span.map_or(profile::WHOLE_STICK, |[lo, hi]| {
        [(lo - MARK_SPAN_PAD).max(0.0), (hi + MARK_SPAN_PAD).min(0.5)]
    })
}

/// Padding (share of the stick length) around the taught mark's reach: a
/// window of three patch columns is 5 % of the length, and split sticks are
/// found within a few per cent of it along their length.
const MARK_SPAN_PAD: f32 = 0.05;

/// The marked stick: the one in the marked picture `k` that turned over
/// between the back picture `b` and it (the stick that changed most at the
/// same place, its features against `taught`'s faces), with the index of the
/// front picture's stick `f` at its place. Refused when that is more than
/// half a stick away (the sticks moved).
fn marked_stick<'a>(
    taught: &Taught,
    f: &[Measured],
    b: &[Measured],
    k: &'a [Measured],
) -> Result<(usize, &'a Measured), TeachError> {
    let z = |s: &Measured| taught.normalise(&s.features[..N_APPEAR]);
    let change = |s: &Measured| -> f32 {
        let Some(before) = b.iter().min_by(|x, y| {
            let d = |t: &Measured| {
                (t.center_cm[0] - s.center_cm[0]).hypot(t.center_cm[1] - s.center_cm[1])
            };
            d(x).total_cmp(&d(y))
        }) else {
            return 0.0;
        };
        z(s).iter()
            .zip(z(before))
            .map(|(p, q)| (p.clamp(-3.0, 3.0) - q.clamp(-3.0, 3.0)).abs())
            .sum()
    };
    let marked_one = k
        .iter()
        .max_by(|a, b| change(a).total_cmp(&change(b)))
        .ok_or(TeachError::NoMark)?;
    let nearest = f
        .iter()
        .enumerate()
        .min_by(|a, b| {
            let d = |s: &Measured| {
                (s.center_cm[0] - marked_one.center_cm[0])
                    .hypot(s.center_cm[1] - marked_one.center_cm[1])
            };
            d(a.1).total_cmp(&d(b.1))
        })
        .map(|(i, _)| i)
        .ok_or(TeachError::NoMark)?;
    let moved = (f[nearest].center_cm[0] - marked_one.center_cm[0])
        .hypot(f[nearest].center_cm[1] - marked_one.center_cm[1]);
    if moved > taught.length_cm * 0.5 {
        return Err(TeachError::Moved);
    }
    Ok((nearest, marked_one))
}

/// The taught set from the measured sticks of the three teach pictures (all
/// flat faces up, all round faces up, only the marked one flat face up).
pub fn learn(
    f: &[Measured],
    b: &[Measured],
    k: &[Measured],
    length_cm: f64,
    width_cm: f64,
) -> Result<Taught, TeachError> {
    let stats = |v: &[Measured]| -> (Vec<f32>, Vec<f32>) {
        let mean: Vec<f32> = (0..N_APPEAR)
            .map(|i| v.iter().map(|s| s.features[i]).sum::<f32>() / v.len() as f32)
            .collect();
        let std: Vec<f32> = (0..N_APPEAR)
            .map(|i| {
                (v.iter()
                    .map(|s| (s.features[i] - mean[i]).powi(2))
                    .sum::<f32>()
                    / v.len() as f32)
                    .sqrt()
            })
            .collect();
        (mean, std)
    };
    let (front_mean, front_std) = stats(f);
    let (back_mean, back_std) = stats(b);
    let front_samples: Vec<f32> = f
        .iter()
        .flat_map(|s| {
            s.features[features::PROFILE..features::PROFILE + features::N_PROFILE].to_vec()
        })
        .collect();
    let front_level = front_samples.iter().sum::<f32>() / front_samples.len().max(1) as f32;
    let back_shading =
        profile::fit_back_shading(&b.iter().map(|s| &s.features[..]).collect::<Vec<_>>());
    let area = |v: &[Measured]| {
        (v.iter().map(|s| s.found.blob_ratio).sum::<f64>() / v.len().max(1) as f64) as f32
    };
    let (front_area, back_area) = (area(f), area(b));
    // The marked stick: the one in the marked picture that looks most like a
    // flat face; then the same place in the front picture.
    let provisional = Taught {
        length_cm,
        width_cm,
        front_mean: front_mean.clone(),
        back_mean: back_mean.clone(),
        front_std: front_std.clone(),
        back_std: back_std.clone(),
        mark_threshold: 0.0,
        mark_margin: 0.0,
        mark_span: profile::WHOLE_STICK,
        front_level,
        back_shading,
        front_area,
        back_area,
        reader_reads_mark: true,
        edge_witness: false,
        colour_bar: sticks::COLOUR_BAR,
        dark_share: sticks::DARK_SHARE,
        shadows_trimmed: false,
        faint_look: true,
        dark_look: true,
        readability: None,
        seen: Some(reader::TaughtSticks::from_teach(f, b)),
        taught_reader: None,
        finer_look: Default::default(),
        speck_disc: crate::sticks::SPECK_DISC,
    };
    let (nearest, marked_one) = marked_stick(&provisional, f, b, k)?;
    let m_marked = mark_score(&f[nearest].features).max(mark_score(&marked_one.features));
    let m_other = f
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != nearest)
        .map(|(_, s)| mark_score(&s.features))
        .fold(f32::MIN, f32::max);
    let mark_threshold = (m_marked + m_other) / 2.0;
    // A mark no darker than the other flat faces (too small or faint for this
    // camera) leaves the rest of the set taught: the margin stays at or under
    // zero, so the mark never counts as distinct (`Taught::mark_distinct`) and
    // the throws it decides, 도 and 뒷도, go to the referee; teaching says so.
    let mark_span = if m_marked > m_other {
        mark_span(&[&f[nearest], marked_one], mark_threshold)
    } else {
        profile::WHOLE_STICK
    };
    Ok(Taught {
        mark_threshold,
        mark_margin: (m_marked - m_other) / 2.0,
        mark_span,
        ..provisional
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sticks::Found;

    /// Four sticks of one face as teaching found them, about `width` px wide
    /// (by `spread` more and less, in turn), each against a stick lying flat
    /// there of `width`.
    fn four(width: f64, spread: f64) -> Vec<Measured> {
        let m = Measured {
            found: Found {
                center: [100.0, 100.0],
                dir: [1.0, 0.0],
                length: 60.0,
                width,
                shared: false,
                blob_ratio: 1.0,
            },
            center_cm: [0.0, 0.0],
            corners_cm: [[0.0; 2]; 4],
            patch: crate::features::Patch {
                bgr: vec![],
                empty_bgr: vec![],
                mask: vec![],
            },
            nominal: (60.0, width),
            flat_width_px: width,
            features: [0.0; crate::features::N_FEATURES],
            evidence: Default::default(),
        };
        [1.0, -1.0, 1.0, -1.0]
            .map(|k| {
                let mut s = m.clone();
                s.found.width = width * (1.0 + k * spread);
                s
            })
            .to_vec()
    }

    /// A taught set: its sticks' size (cm), each face's found width (px) and
    /// the spread of their widths (against a stick lying flat).
    fn set(
        (length_cm, width_cm): (f64, f64),
        front: f64,
        back: f64,
        spread: f64,
        trimmed: bool,
    ) -> TeachSet {
        TeachSet {
            length_cm,
            width_cm,
            front: four(front, spread),
            back: four(back, spread),
            marked: four(front, spread),
            colour_bar: sticks::COLOUR_BAR,
            dark_share: sticks::DARK_SHARE,
            shadows_trimmed: trimmed,
            speck_disc: sticks::SPECK_DISC,
        }
    }

    #[test]
    fn a_taught_stick_outside_the_calibrated_mat_refuses_teaching() {
        let mat: crate::calibrate::MatSpec = "square:171".parse().unwrap();
        let mut taught = set((20.0, 4.0), 12.0, 12.0, 0.0, false);
        for (k, m) in taught.front.iter_mut().enumerate() {
            m.center_cm = [-40.0 + 25.0 * k as f64, 60.0];
        }
        assert!(sticks_on_mat(&taught, &mat).is_ok());
        // World look 1 400 040: the mat's outline fitted where the mat is
        // not, two taught sticks 15–33 cm beyond its edge.
        taught.front[2].center_cm = [-28.7, -101.1];
        let e = sticks_on_mat(&taught, &mat).unwrap_err();
        assert_eq!(e, TeachError::OffMat("front"));
        assert!(e.to_string().contains("calibrate again"), "{e}");
    }

    #[test]
    fn shadows_are_trimmed_only_where_both_faces_come_through_whole() {
        // Photoreal-H's sticks: 5.6 cm wide with their coloured shadows
        // (0.19 of a width more or less, by how each lay to the light),
        // 3.4 cm without (0.07), as long either way, both faces losing alike.
        let kept = set((17.7, 5.6), 16.0, 16.0, 0.19, false);
        let h = set((16.3, 3.4), 9.5, 9.2, 0.07, true);
        assert!(trims_cleanly(&kept, &h));
        // Barely narrower: nothing worth trimming.
        assert!(!trims_cleanly(
            &kept,
            &set((17.7, 5.3), 15.2, 15.2, 0.07, true)
        ));
        // Widths no more alike: the shadows widened every stick alike.
        assert!(!trims_cleanly(
            &kept,
            &set((16.3, 3.4), 9.5, 9.2, 0.15, true)
        ));
        // A dark round face trimmed away with the shadows: its sticks lose
        // far more than the flat faces.
        assert!(!trims_cleanly(
            &kept,
            &set((17.0, 3.4), 9.5, 4.0, 0.07, true)
        ));
        // Or they shorten (in pieces, the longest piece measured).
        assert!(!trims_cleanly(
            &kept,
            &set((12.0, 3.4), 9.5, 9.5, 0.07, true)
        ));
    }
}
