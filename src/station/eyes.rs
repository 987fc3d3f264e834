//! The vision task: one thread that receives frames, runs the settle tracker and,
//! when the sticks have come to rest, the detector; it also keeps the live picture
//! for the console and runs the calibration steps on the newest frame. It holds no
//! game logic: it reports what it saw and the core decides what that means.
//!
//! Shell: a thread and its channels; the judging itself is `yut_vision`.

use super::hub::{CalibrateReply, CalibrateStep, Check};
use super::overlay;
use crate::capture::Frame;
use crate::journal::hash_of;
use opencv::core::{Mat, Vector};
use opencv::imgproc;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use yut_match::{EvidenceRef, Millis};
use yut_rules::yut::ThrowResult;
use yut_vision::calibrate::{calibrate, Calibration, MatSpec};
use yut_vision::files;
use yut_vision::settle::{self, SettleEvent, Tracker};
use yut_vision::{self, Detector, ThrowReading};

/// What the vision task tells the core.
#[derive(Debug)]
pub enum Seen {
    /// The tracker's state changed ("empty", "moving", "judged", ...).
    Status(&'static str),
    /// A throw came to rest and was judged. `evidence` is the annotated frame (JPEG).
    Judged {
        verdict: ThrowReading,
        evidence: Vec<u8>,
        /// The sticks as read, with the names of the set and the mat, for the
        /// journal (`None` where the judge keeps none).
        sticks: Option<yut_match::SticksRead>,
        /// The throw from release to rest as a video (WebM), if it was recorded.
        clip: Option<Vec<u8>>,
        /// When the sticks were first seen moving, and when they stopped.
        motion_ms: Millis,
        still_ms: Millis,
        judged_ms: Millis,
    },
    /// The sticks were taken away before the call: the referee should know.
    PickedUpBeforeCall { at_ms: Millis },
    /// The source ended (a video file) or failed (a camera unplugged): one line.
    SourceEnded { reason: Option<String> },
    /// The station now judges with this profile (after calibration).
    ProfileChanged { message: String },
}

/// What the vision task is asked from outside its frame stream.
pub enum Ask {
    Calibrate {
        step: CalibrateStep,
        mat: Option<String>,
        reply: oneshot::Sender<CalibrateReply>,
    },
    /// The referee called the throw whose evidence is `evidence`: a station
    /// reading with its own taught reader learns the faces the call settles
    /// (`yut_vision::taught_reader::learn_call`) and keeps them in its profile.
    Learn {
        evidence: EvidenceRef,
        called: ThrowResult,
        from: String,
    },
}

/// A judged throw kept for what the referee's call may teach: its evidence's
/// hash, its measured sticks and the station's reading of them.
struct Recent {
    evidence: EvidenceRef,
    sticks: Vec<yut_vision::Measured>,
    reading: ThrowReading,
}

/// How many judged throws are kept for the referee's calls.
const RECENT: usize = 16;

/// VisionInput to the vision task.
pub enum VisionInput {
    Frame(Frame),
    /// The source has no more frames (`None`) or failed (the reason).
    End(Option<String>),
}

/// Where a profile lives and how the station judges.
pub struct VisionSetup {
    pub detector: Option<Detector>,
    /// Where calibration saves the profile (and its empty-mat picture beside it).
    pub profile_path: Option<PathBuf>,
    pub model_path: PathBuf,
}

/// Calibration in progress: the pictures captured so far.
#[derive(Default)]
struct Calibrating {
    calibration: Option<Calibration>,
    empty: Option<Mat>,
    front: Option<Mat>,
    back: Option<Mat>,
    marked: Option<Mat>,
}

/// How often the live picture is refreshed (ms of station time).
const LIVE_EVERY_MS: Millis = 200;

/// Run the vision task until the frame channel closes or `stop` is set.
pub fn run(
    mut setup: VisionSetup,
    frames: Receiver<VisionInput>,
    asks: Receiver<Ask>,
    seen: Sender<Seen>,
    live: watch::Sender<Option<Arc<[u8]>>>,
    stop: Arc<AtomicBool>,
) {
    let tracker_for = |setup: &VisionSetup| {
        Tracker::new(
            setup
                .detector
                .as_ref()
                .map_or_else(settle::Config::default, Detector::settle_config),
        )
    };
    let mut tracker = tracker_for(&setup);
    let mut empty_mat = setup
        .detector
        .as_ref()
        .and_then(|d| settle::empty_mat(&d.empty).ok());
    let mut prev: Option<settle::Small> = None;
    let mut last_live: Option<Millis> = None;
    let mut last_verdict: Option<ThrowReading> = None;
    let mut motion_ms: Millis = 0;
    let mut newest: Option<Mat> = None;
    let mut cal = Calibrating::default();
    let mut recent: std::collections::VecDeque<Recent> = Default::default();
    let mut clips = super::clip::ClipRecorder::default();
    let mut status = "";
    let say_status = |s: &'static str, status: &mut &'static str| {
        if *status != s {
            *status = s;
            let _ = seen.send(Seen::Status(s));
        }
    };
    if setup.detector.is_none() {
        say_status("off", &mut status);
    }
    loop {
        while let Ok(ask) = asks.try_recv() {
            match ask {
                Ask::Calibrate { step, mat, reply } => {
                    let answer = calibrate_step(&mut setup, &mut cal, newest.as_ref(), step, mat);
                    if answer.ok && step == CalibrateStep::Save {
                        empty_mat = setup
                            .detector
                            .as_ref()
                            .and_then(|d| settle::empty_mat(&d.empty).ok());
                        tracker = tracker_for(&setup);
                        prev = None;
                        let _ = seen.send(Seen::ProfileChanged {
                            message: answer.message.clone(),
                        });
                        say_status("empty", &mut status);
                    }
                    let _ = reply.send(answer);
                }
                Ask::Learn {
                    evidence,
                    called,
                    from,
                } => learn(&mut setup, &recent, &evidence, called, &from),
            }
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let input = match frames.recv_timeout(Duration::from_millis(50)) {
            Ok(i) => i,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let frame = match input {
            VisionInput::Frame(f) => f,
            VisionInput::End(reason) => {
                let _ = seen.send(Seen::SourceEnded { reason });
                continue;
            }
        };
        let t = frame.at_ms;
        if setup.detector.is_some() {
            clips.frame(t, &frame.image);
        }
        if let (Some(det), Some(empty_mat)) = (&setup.detector, &empty_mat) {
            let judged = (|| -> opencv::Result<Option<Seen>> {
                let small = settle::small_grey(&frame.image)?;
                let stats = settle::frame_stats(t, &small, prev.as_ref(), empty_mat)?;
                prev = Some(small);
                Ok(match tracker.update(stats) {
                    Some(SettleEvent::ThrowStarted) => {
                        clips.throw_started(t);
                        motion_ms = t;
                        last_verdict = None;
                        say_status("moving", &mut status);
                        None
                    }
                    Some(SettleEvent::Judge { first_still_ms }) => {
                        let (sticks, probs) = det.read(&frame.image)?;
                        let verdict =
                            yut_vision::judge(&det.calibration, &det.taught, &sticks, &probs);
                        let annotated = overlay::annotate(
                            &frame.image,
                            Some(&det.calibration),
                            Some(&verdict),
                        )?;
                        let evidence = overlay::jpeg(&annotated, 1280, 85)?;
                        let clip = clips.finish(&annotated);
                        if let Some(problem) = &clips.last_problem {
                            eprintln!("yutstation: no replay clip: {problem}");
                        }
                        last_verdict = Some(verdict.clone());
                        if det.taught.taught_reader.is_some() {
                            recent.push_back(Recent {
                                evidence: hash_of(&evidence),
                                sticks,
                                reading: verdict.clone(),
                            });
                            if recent.len() > RECENT {
                                recent.pop_front();
                            }
                        }
                        say_status("judged", &mut status);
                        let sticks = super::core::sticks_read(
                            &verdict,
                            &set_name(&setup),
                            &det.calibration.mat.to_string(),
                        );
                        Some(Seen::Judged {
                            verdict,
                            evidence,
                            sticks: Some(sticks),
                            clip,
                            motion_ms,
                            still_ms: first_still_ms,
                            judged_ms: t,
                        })
                    }
                    Some(SettleEvent::Collected) => {
                        last_verdict = None;
                        say_status("empty", &mut status);
                        None
                    }
                    Some(SettleEvent::PickedUpBeforeCall) => {
                        clips.abandon();
                        say_status("empty", &mut status);
                        Some(Seen::PickedUpBeforeCall { at_ms: t })
                    }
                    None => None,
                })
            })();
            match judged {
                Ok(Some(s)) => {
                    let _ = seen.send(s);
                }
                Ok(None) => {}
                Err(e) => eprintln!("yutstation: vision: frame at {t} ms skipped: {e}"),
            }
        }
        if last_live.is_none_or(|l| t >= l + LIVE_EVERY_MS) {
            last_live = Some(t);
            let cal_now = setup
                .detector
                .as_ref()
                .map(|d| &d.calibration)
                .or(cal.calibration.as_ref());
            if let Ok(pic) = overlay::annotate(&frame.image, cal_now, last_verdict.as_ref())
                .and_then(|m| overlay::jpeg(&m, 800, 75))
            {
                live.send_replace(Some(pic.into()));
            }
        }
        newest = Some(frame.image);
    }
}

/// The stick set's name in the journal: its profile's file name (a set is
/// taught into a profile of its own), or `demo` for the demo's rendered set.
fn set_name(setup: &VisionSetup) -> String {
    setup
        .profile_path
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().trim_end_matches(".toml").to_string())
        .unwrap_or_else(|| "demo".into())
}

fn reply(ok: bool, message: impl Into<String>, checks: Vec<Check>) -> CalibrateReply {
    CalibrateReply {
        ok,
        message: message.into(),
        checks,
    }
}

fn check(name: &str, ok: bool, detail: String) -> Check {
    Check {
        name: name.into(),
        ok,
        detail,
    }
}

/// Light and focus of a picture, as checks a set-up crew can read.
fn picture_checks(img: &Mat) -> opencv::Result<Vec<Check>> {
    let mut grey = Mat::default();
    imgproc::cvt_color_def(img, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let mean = opencv::core::mean_def(&grey)?[0];
    let mut lap = Mat::default();
    imgproc::laplacian_def(&grey, &mut lap, opencv::core::CV_64F)?;
    let mut m = Vector::<f64>::new();
    let mut sd = Vector::<f64>::new();
    opencv::core::mean_std_dev_def(&lap, &mut m, &mut sd)?;
    let sharp = sd.get(0)?.powi(2);
    Ok(vec![
        check(
            "light",
            (60.0..=230.0).contains(&mean),
            format!("mean grey {mean:.0} of 255 (60–230 is good)"),
        ),
        check(
            "focus",
            sharp >= 20.0,
            format!("sharpness {sharp:.0} (20 or more is good)"),
        ),
    ])
}

fn calibrate_step(
    setup: &mut VisionSetup,
    cal: &mut Calibrating,
    newest: Option<&Mat>,
    step: CalibrateStep,
    mat: Option<String>,
) -> CalibrateReply {
    let Some(frame) = newest else {
        return reply(
            false,
            "no camera picture yet: check the camera",
            vec![check("camera", false, "no camera frame yet".into())],
        );
    };
    let mut checks = match picture_checks(frame) {
        Ok(c) => c,
        Err(e) => return reply(false, format!("cannot read the picture: {e}"), vec![]),
    };
    match step {
        CalibrateStep::Empty => {
            let spec: MatSpec = match mat.as_deref().unwrap_or("circle:160").parse() {
                Ok(s) => s,
                Err(e) => return reply(false, e, checks),
            };
            match calibrate(frame, spec) {
                Ok(c) => {
                    let px = c.px_per_cm_at_centre();
                    checks.push(check(
                        "mat",
                        true,
                        format!("{} found, {px:.1} px/cm at the centre", c.mat),
                    ));
                    let note: String = yut_vision::calibrate::calibration_notes(&c, frame)
                        .unwrap_or_else(|e| vec![format!("the exposure could not be checked: {e}")])
                        .iter()
                        .map(|n| format!("; note: {n}"))
                        .collect();
                    *cal = Calibrating {
                        calibration: Some(c),
                        empty: Some(frame.clone()),
                        ..Calibrating::default()
                    };
                    reply(
                        true,
                        format!("mat found: now lay all four sticks flat face up on the mat, then press capture{note}"),
                        checks,
                    )
                }
                Err(e) => {
                    checks.push(check("mat", false, e.to_string()));
                    reply(false, format!("calibration refused: {e}"), checks)
                }
            }
        }
        CalibrateStep::Front | CalibrateStep::Back | CalibrateStep::Marked => {
            if cal.calibration.is_none() {
                return reply(false, "capture the empty mat first", checks);
            }
            let (slot, next) = match step {
                CalibrateStep::Front => (
                    &mut cal.front,
                    "now turn all four sticks round face up, then press capture",
                ),
                CalibrateStep::Back => (
                    &mut cal.back,
                    "now turn only the marked stick flat face up (the other three round face up), then press capture",
                ),
                _ => (&mut cal.marked, "all pictures taken: press save"),
            };
            *slot = Some(frame.clone());
            reply(true, next, checks)
        }
        CalibrateStep::Save => save_profile(setup, cal, checks),
    }
}

fn save_profile(setup: &mut VisionSetup, cal: &Calibrating, checks: Vec<Check>) -> CalibrateReply {
    let (Some(c), Some(empty), Some(front), Some(back), Some(marked)) = (
        &cal.calibration,
        &cal.empty,
        &cal.front,
        &cal.back,
        &cal.marked,
    ) else {
        return reply(
            false,
            "capture the empty mat and the three stick pictures first",
            checks,
        );
    };
    let classifier = match files::load_classifier(&setup.model_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("yutstation: loading the appearance model: {e}");
            return reply(
                false,
                "the appearance model cannot be loaded: see the station's log",
                checks,
            );
        }
    };
    // A round mat's map is the tilt teaching picked (`yut_vision::with_taught_tilt`).
    let (taught, c) = match yut_vision::teach(c, empty, &[[front, back, marked]], Some(&classifier))
    {
        Ok(t) => (t.taught, t.calibration),
        Err(e) => return reply(false, format!("teaching refused: {e}"), checks),
    };
    let mut message = String::from("profile taught");
    let note = yut_vision::teach_notes(taught.readability.unwrap_or(1.0), &taught, &c);
    if let Some(path) = &setup.profile_path {
        // The reply goes to a page: it names the file, not where it lies.
        let name = path.file_name().map_or_else(
            || "the profile".into(),
            |n| n.to_string_lossy().into_owned(),
        );
        match files::save_profile(path, c.clone(), Some(taught.clone()), empty) {
            Ok(_) => message = format!("profile saved as {name}"),
            Err(e) => {
                eprintln!("yutstation: saving the profile: {e}");
                return reply(
                    false,
                    format!("the profile {name} cannot be saved: see the station's log"),
                    checks,
                );
            }
        }
    }
    match Detector::new(c, taught, empty.clone(), classifier) {
        Ok(d) => {
            setup.detector = Some(d);
            let note: String = note.iter().map(|n| format!("; note: {n}")).collect();
            reply(
                true,
                format!("{message}; the station now judges with it{note}"),
                checks,
            )
        }
        Err(e) => reply(false, format!("cannot build the detector: {e}"), checks),
    }
}

/// The referee called a throw: where the station reads with its own taught
/// reader and still holds the throw's sticks, learn what the call settles and
/// keep it in the profile.
fn learn(
    setup: &mut VisionSetup,
    recent: &std::collections::VecDeque<Recent>,
    evidence: &EvidenceRef,
    called: ThrowResult,
    from: &str,
) {
    let Some(det) = setup.detector.as_mut() else {
        return;
    };
    let Some(own) = det.taught.taught_reader.as_mut() else {
        return;
    };
    let Some(throw) = recent.iter().find(|r| &r.evidence == evidence) else {
        return;
    };
    let learned =
        yut_vision::taught_reader::learn_call(own, &throw.sticks, &throw.reading, called, from);
    if learned == 0 {
        return;
    }
    eprintln!("yutstation: learned {learned} sticks' faces from the referee's call on {from}");
    if let Some(path) = &setup.profile_path {
        if let Err(e) = files::update_taught(path, &det.taught) {
            eprintln!("yutstation: what was learned is not kept in the profile: {e}");
        }
    }
}
