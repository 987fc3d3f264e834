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
use opencv::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use yut_match::{EvidenceRef, Millis};
use yut_rules::yut::ThrowResult;
use yut_vision::calibrate::{calibrate_with_lens, Calibration, MatSpec};
use yut_vision::files;
use yut_vision::lens::{self, LensRecord, LensTarget, ViewCollector};
use yut_vision::moved;
use yut_vision::profile::Made;
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
    /// The camera no longer sees the mat as the profile says (bumped,
    /// zoomed, the light changed): the station stopped calling by itself.
    CameraMoved { at_ms: Millis, reason: String },
    /// A re-check set the station up again where the camera now stands.
    CameraBack { message: String },
    /// The live camera's controls, as they are now (from the capture thread).
    Controls(Vec<super::view::ControlState>),
}

/// What the vision task is asked from outside its frame stream.
pub enum Ask {
    Calibrate {
        step: CalibrateStep,
        /// Who asked (the name given at login), for the profile's record.
        by: String,
        mat: Option<String>,
        /// The camera's height above the mat as the crew measured it (cm),
        /// to check the mat's size against.
        camera_height_cm: Option<f64>,
        reply: oneshot::Sender<CalibrateReply>,
    },
    /// The referee called the throw whose evidence is `evidence`: a station
    /// reading with its own taught reader learns the faces the call settles
    /// (`yut_vision::taught_reader::learn_call`), every station the finer
    /// look's record (`yut_vision::finer_look`), and keeps them in its profile.
    Learn {
        evidence: EvidenceRef,
        called: ThrowResult,
        from: String,
    },
}

/// A judged throw kept for what the referee's call may teach: its evidence's
/// hash, its measured sticks and the station's reading of them, and what the
/// call tells of the finer look (`yut_vision::finer_look`).
struct Recent {
    evidence: EvidenceRef,
    sticks: Vec<yut_vision::Measured>,
    reading: ThrowReading,
    /// The finer look's call, where the station took it and called it.
    finer_call: Option<ThrowResult>,
    /// The frame, where the throw is a trial of the finer look: it is looked
    /// at once the referee calls the throw, off the call's path.
    trial_frame: Option<opencv::core::Mat>,
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

/// The set-up wizard in progress: what it has taken so far. Nothing of it
/// touches the station's profile until the crew saves (or re-checks).
#[derive(Default)]
struct Calibrating {
    /// The lens target's pictures, and the lens fitted to them.
    lens_views: ViewCollector,
    lens: Option<LensRecord>,
    calibration: Option<Calibration>,
    empty: Option<Mat>,
    /// The teaching shot being taken: flat faces, round faces, marked.
    shot: [Option<Mat>; 3],
    /// The shots taken and taught from.
    shots: Vec<[Mat; 3]>,
    /// What the shots taught, and the station that would judge with it.
    trial: Option<(yut_vision::Teaching, Detector)>,
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
    // The profile's outline and empty mat, each frame checked against them.
    let fit_setup_for = |setup: &VisionSetup| {
        setup.detector.as_ref().and_then(|d| {
            settle::small_grey(&d.empty)
                .and_then(|e| moved::SetUp::new(&d.calibration, &e))
                .ok()
        })
    };
    let mut fit_setup = fit_setup_for(&setup);
    let mut watch = moved::Watch::default();
    // Why the station stopped calling by itself, while it has.
    let mut unfit: Option<String> = None;
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
                Ask::Calibrate {
                    step,
                    by,
                    mat,
                    camera_height_cm,
                    reply,
                } => {
                    let ask = StepAsk {
                        step,
                        by: &by,
                        mat,
                        camera_height_cm,
                    };
                    let answer = calibrate_step(&mut setup, &mut cal, newest.as_ref(), ask);
                    let new_profile = matches!(step, CalibrateStep::Save | CalibrateStep::Recheck);
                    if answer.ok && new_profile {
                        empty_mat = setup
                            .detector
                            .as_ref()
                            .and_then(|d| settle::empty_mat(&d.empty).ok());
                        fit_setup = fit_setup_for(&setup);
                        watch = moved::Watch::default();
                        tracker = tracker_for(&setup);
                        prev = None;
                        let message = answer.message.clone();
                        let _ = seen.send(if unfit.take().is_some() {
                            Seen::CameraBack { message }
                        } else {
                            Seen::ProfileChanged { message }
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
        if setup.detector.is_some() && unfit.is_none() {
            clips.frame(t, &frame.image);
        }
        if let (Some(det), Some(empty_mat), None) = (&setup.detector, &empty_mat, &unfit) {
            let judged = (|| -> opencv::Result<Option<Seen>> {
                let small = settle::small_grey(&frame.image)?;
                // Does the camera still see the mat as it was set up? Checked
                // on every frame; a frame that does not fit is never judged.
                if let Some(fs) = &fit_setup {
                    let fit = fs.fit(&small)?;
                    if let Some(why) = watch.update(&fit) {
                        let reason = why.to_string();
                        unfit = Some(reason.clone());
                        clips.abandon();
                        last_verdict = None;
                        say_status("stopped: the camera moved", &mut status);
                        return Ok(Some(Seen::CameraMoved { at_ms: t, reason }));
                    }
                    if fit.unfit().is_some() {
                        prev = Some(small);
                        return Ok(None);
                    }
                }
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
                        let judged = det.judge_frame(&frame.image)?;
                        let (sticks, verdict) = (judged.sticks, judged.reading);
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
                        recent.push_back(Recent {
                            evidence: hash_of(&evidence),
                            sticks,
                            reading: verdict.clone(),
                            finer_call: judged.finer_call,
                            trial_frame: judged.finer_on_trial.then(|| frame.image.clone()),
                        });
                        if recent.len() > RECENT {
                            recent.pop_front();
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
            // The wizard's mat while it sets one up, else the profile's.
            let cal_now = cal
                .calibration
                .as_ref()
                .or(setup.detector.as_ref().map(|d| &d.calibration));
            let pic = overlay::annotate(&frame.image, cal_now, last_verdict.as_ref())
                .and_then(|m| match &unfit {
                    Some(_) => overlay::banner(&m, "CAMERA MOVED: re-check at /calibrate"),
                    None => Ok(m),
                })
                .and_then(|m| overlay::jpeg(&m, 800, 75));
            if let Ok(pic) = pic {
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
        next: None,
        picture: None,
    }
}

/// A refusal that keeps everything as it was: the wizard's earlier steps and
/// the station's profile.
fn refuse(message: impl Into<String>, checks: Vec<Check>) -> CalibrateReply {
    reply(false, message, checks)
}

/// A step done: what it found, and the step to go to next.
fn done(
    message: impl Into<String>,
    checks: Vec<Check>,
    next: CalibrateStep,
    picture: Option<String>,
) -> CalibrateReply {
    CalibrateReply {
        ok: true,
        message: message.into(),
        checks,
        next: Some(next),
        picture,
    }
}

fn check(name: &str, ok: bool, detail: String) -> Check {
    Check {
        name: name.into(),
        ok,
        detail,
    }
}

/// Under this sharpness (the variance of the picture's Laplacian) a wizard
/// step refuses the picture as blurred; 20 or more is good. A picture blurred
/// by a Gaussian of 4 pixels reads about 1, the rendered halls 20 and more.
const FOCUS_REFUSED: f64 = 5.0;

/// The sharpness of a picture (the variance of its Laplacian).
fn sharpness(img: &Mat) -> opencv::Result<f64> {
    let mut grey = Mat::default();
    imgproc::cvt_color_def(img, &mut grey, imgproc::COLOR_BGR2GRAY)?;
    let mut lap = Mat::default();
    imgproc::laplacian_def(&grey, &mut lap, opencv::core::CV_64F)?;
    let mut m = Vector::<f64>::new();
    let mut sd = Vector::<f64>::new();
    opencv::core::mean_std_dev_def(&lap, &mut m, &mut sd)?;
    Ok(sd.get(0)?.powi(2))
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

/// One wizard step as asked.
struct StepAsk<'a> {
    step: CalibrateStep,
    by: &'a str,
    mat: Option<String>,
    camera_height_cm: Option<f64>,
}

/// How far the camera's measured height may differ from the one the mat's
/// size implies before the size is doubted: a mat entered 160 cm for 180
/// puts the camera an eighth lower than it is.
const HEIGHT_AGREE: f64 = 0.08;

/// The paper the wizard's lens target is printed on is told by its squares'
/// size, not asked: both papers' boards are found, and the one that shows
/// more corners is the one held up.
fn find_any_target(frame: &Mat) -> Result<(LensTarget, lens::TargetView), lens::LensError> {
    let mut best: Option<(LensTarget, lens::TargetView)> = None;
    let mut first_err = None;
    for paper in [lens::Paper::A3, lens::Paper::A2] {
        let target = LensTarget::new(paper)?;
        match lens::find_target(&target, frame) {
            Ok(v) => {
                if best
                    .as_ref()
                    .is_none_or(|b| v.corners.len() > b.1.corners.len())
                {
                    best = Some((target, v));
                }
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    best.ok_or_else(|| first_err.unwrap_or(lens::LensError::NoTarget))
}

fn calibrate_step(
    setup: &mut VisionSetup,
    cal: &mut Calibrating,
    newest: Option<&Mat>,
    ask: StepAsk,
) -> CalibrateReply {
    let Some(frame) = newest else {
        return refuse(
            "no camera picture yet: check the camera is plugged in and on",
            vec![check("camera", false, "no camera frame yet".into())],
        );
    };
    let mut checks = match picture_checks(frame) {
        Ok(c) => c,
        Err(e) => return refuse(format!("cannot read the picture: {e}"), vec![]),
    };
    // A blurred picture is refused before anything is taken from it (the
    // lens step judges the target's own edges).
    let sharp = sharpness(frame).unwrap_or(f64::MAX);
    if ask.step != CalibrateStep::Lens
        && ask.step != CalibrateStep::LensFit
        && sharp < FOCUS_REFUSED
    {
        return refuse(
            format!("the picture is blurred (sharpness {sharp:.0}, 20 or more is good): focus the camera on the mat, clean its lens, and hold it still"),
            checks,
        );
    }
    match ask.step {
        CalibrateStep::Lens => match find_any_target(frame) {
            Ok((_, view)) => {
                let corners = view.corners.len();
                let kept = cal.lens_views.offer(view);
                let n = cal.lens_views.views.len();
                checks.push(check("target", true, format!("{corners} corners found")));
                if !kept {
                    return refuse(
                        format!("the target is where an earlier picture had it: move it somewhere new ({})", cal.lens_views.hint()),
                        checks,
                    );
                }
                let next = if n >= lens::MIN_VIEWS
                    && lens::uncovered_edge(&cal.lens_views.views).is_none()
                {
                    CalibrateStep::LensFit
                } else {
                    CalibrateStep::Lens
                };
                done(
                    format!("picture {n} of the target kept: {}", cal.lens_views.hint()),
                    checks,
                    next,
                    None,
                )
            }
            Err(e) => {
                checks.push(check("target", false, e.to_string()));
                refuse(e.to_string(), checks)
            }
        },
        CalibrateStep::LensFit => {
            let views = &cal.lens_views.views;
            // Any paper's board fits the same lens: its squares' size only
            // scales the target's distance.
            let fit = LensTarget::new(lens::Paper::A3).and_then(|t| lens::fit_lens(&t, views));
            match fit {
                Ok(fit) => {
                    let record = LensRecord::of(&fit);
                    checks.push(check("lens", true, record.summary()));
                    cal.lens = Some(record);
                    // A new lens: the mat must be found again through it.
                    cal.calibration = None;
                    cal.trial = None;
                    done(
                        format!(
                            "lens calibrated (reprojection error {:.2} px): now put the target away, clear the mat and take the empty mat",
                            record.rms_px
                        ),
                        checks,
                        CalibrateStep::Empty,
                        None,
                    )
                }
                Err(e) => {
                    checks.push(check("lens", false, e.to_string()));
                    refuse(format!("lens calibration refused: {e}"), checks)
                }
            }
        }
        CalibrateStep::Empty => {
            let spec: MatSpec = match ask.mat.as_deref().unwrap_or("circle:160").parse() {
                Ok(s) => s,
                Err(e) => return refuse(e, checks),
            };
            if let Some(l) = &cal.lens {
                if (l.width, l.height) != (frame.cols(), frame.rows()) {
                    return refuse(
                        format!("the camera's picture is {}×{} but the lens was calibrated at {}×{}: calibrate the lens again in this mode", frame.cols(), frame.rows(), l.width, l.height),
                        checks,
                    );
                }
            }
            match calibrate_with_lens(frame, spec, cal.lens.map(|l| l.model)) {
                Ok(c) => {
                    let px = c.px_per_cm_at_centre();
                    if let (Some(measured), Some(implied)) =
                        (ask.camera_height_cm, c.camera_height())
                    {
                        if (implied / measured - 1.0).abs() > HEIGHT_AGREE {
                            let msg = format!(
                                "the mat's size does not fit what the camera sees: a {} mat would put the camera {implied:.0} cm above it, but it was measured at {measured:.0} cm; measure the mat and enter its size again",
                                c.mat
                            );
                            checks.push(check("mat size", false, msg.clone()));
                            return refuse(msg, checks);
                        }
                        checks.push(check(
                            "mat size",
                            true,
                            format!("fits: the camera {implied:.0} cm above the mat, {measured:.0} cm measured"),
                        ));
                    }
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
                    cal.calibration = Some(c);
                    cal.empty = Some(frame.clone());
                    cal.shot = Default::default();
                    cal.shots.clear();
                    cal.trial = None;
                    done(
                        format!("mat found (its outline is drawn on the picture): now lay all four sticks flat face up on the mat, apart, then take the picture{note}"),
                        checks,
                        CalibrateStep::Front,
                        None,
                    )
                }
                Err(e) => {
                    checks.push(check("mat", false, e.to_string()));
                    refuse(format!("the mat was not taken: {e}"), checks)
                }
            }
        }
        CalibrateStep::Front | CalibrateStep::Back | CalibrateStep::Marked => {
            if cal.calibration.is_none() {
                return refuse("take the empty mat first", checks);
            }
            let (i, next, say) = match ask.step {
                CalibrateStep::Front => (
                    0,
                    CalibrateStep::Back,
                    "now turn all four sticks round face up, in the same places, then take the picture",
                ),
                CalibrateStep::Back => (
                    1,
                    CalibrateStep::Marked,
                    "now turn only the marked stick flat face up (the other three round face up), then take the picture",
                ),
                _ => (2, CalibrateStep::Throw, ""),
            };
            if i > 0 && cal.shot[..i].iter().any(Option::is_none) {
                return refuse(
                    "take the sticks' pictures in order: flat faces first",
                    checks,
                );
            }
            cal.shot[i] = Some(frame.clone());
            if i < 2 {
                return done(say, checks, next, None);
            }
            teach_trial(setup, cal, checks)
        }
        CalibrateStep::Throw => {
            let Some((_, det)) = &cal.trial else {
                return refuse("teach the sticks first", checks);
            };
            let verdict = match det.detect(frame) {
                Ok(v) => v,
                Err(e) => return refuse(format!("the throw could not be judged: {e}"), checks),
            };
            let picture = overlay::annotate(frame, Some(&det.calibration), Some(&verdict))
                .and_then(|m| overlay::jpeg(&m, 960, 80))
                .ok()
                .map(|j| data_url(&j));
            if verdict.sticks.is_empty() {
                return refuse(
                    "no sticks on the mat: throw the four sticks, wait until they lie still, then take the picture",
                    checks,
                );
            }
            let said = match verdict.result {
                Some(r) => format!(
                    "test throw: {} ({}), called by the camera",
                    r.korean(),
                    r.id()
                ),
                None => format!(
                    "test throw: it would go to the referee ({}; best guess {})",
                    verdict
                        .reasons
                        .iter()
                        .map(|r| format!("{r:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    verdict.best_guess.korean()
                ),
            };
            done(
                format!(
                    "{said}: if that is right, save; if not, shoot the sticks again or throw again"
                ),
                checks,
                CalibrateStep::Save,
                picture,
            )
        }
        CalibrateStep::Save => save_profile(setup, cal, ask.by, checks),
        CalibrateStep::Recheck => recheck(setup, frame, ask.by, checks),
        CalibrateStep::Done => refuse("nothing to do: the set-up is done", checks),
    }
}

/// A picture as a `data:` URL for the page.
fn data_url(jpeg: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::from("data:image/jpeg;base64,");
    for chunk in jpeg.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Teach from every shot taken (the newest just completed): the sticks of
/// the newest shot outlined with their faces as the taught station reads
/// them. A shot teaching refuses is dropped; the shots before it stay.
fn teach_trial(
    setup: &VisionSetup,
    cal: &mut Calibrating,
    mut checks: Vec<Check>,
) -> CalibrateReply {
    let (Some(c), Some(empty)) = (&cal.calibration, &cal.empty) else {
        return refuse("take the empty mat first", checks);
    };
    let [Some(f), Some(b), Some(m)] = std::mem::take(&mut cal.shot) else {
        return refuse(
            "take the sticks' pictures in order: flat faces first",
            checks,
        );
    };
    cal.shots.push([f, b, m]);
    let classifier = match files::load_classifier(&setup.model_path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("yutstation: loading the appearance model: {e}");
            cal.shots.pop();
            return refuse(
                "the appearance model cannot be loaded: see the station's log",
                checks,
            );
        }
    };
    let shots: Vec<[&Mat; 3]> = cal.shots.iter().map(|[f, b, m]| [f, b, m]).collect();
    let teaching = match yut_vision::teach(c, empty, &shots, Some(&classifier)) {
        Ok(t) => t,
        Err(e) => {
            cal.shots.pop();
            let kept = match cal.shots.len() {
                0 => String::new(),
                n => format!(" (the {n} shots before it are kept)"),
            };
            checks.push(check("sticks", false, e.to_string()));
            return refuse(format!("this shot was not taught{kept}: {e}"), checks);
        }
    };
    let det = match Detector::new(
        teaching.calibration.clone(),
        teaching.taught.clone(),
        empty.clone(),
        classifier,
    ) {
        Ok(d) => d,
        Err(e) => return refuse(format!("cannot build the detector: {e}"), checks),
    };
    // The newest shot's three pictures side by side, each stick outlined
    // with its face as the taught station reads it.
    let picture = (|| -> opencv::Result<String> {
        let last = cal.shots.last().expect("just pushed");
        let mut row = Vector::<Mat>::new();
        for pic in last {
            let v = det.detect(pic)?;
            let m = overlay::annotate(pic, Some(&det.calibration), Some(&v))?;
            let mut small = Mat::default();
            imgproc::resize(
                &m,
                &mut small,
                opencv::core::Size::new(0, 0),
                0.5,
                0.5,
                imgproc::INTER_AREA,
            )?;
            row.push(small);
        }
        let mut all = Mat::default();
        opencv::core::hconcat(&row, &mut all)?;
        Ok(data_url(&overlay::jpeg(&all, 1500, 80)?))
    })()
    .ok();
    let read = teaching.taught.readability.unwrap_or(1.0);
    checks.push(check(
        "sticks",
        true,
        format!(
            "{:.1} × {:.1} cm; taught sticks read at {:.0} % or better",
            teaching.taught.length_cm,
            teaching.taught.width_cm,
            read * 100.0
        ),
    ));
    let notes: String = yut_vision::teach_notes(read, &teaching.taught, &teaching.calibration)
        .iter()
        .map(|n| format!("; note: {n}"))
        .collect();
    let n = cal.shots.len();
    cal.trial = Some((teaching, det));
    done(
        format!("taught from {n} shot{}: each stick is outlined with its face as read. To teach more, move and turn the sticks and shoot again (flat faces first); else throw the sticks for a test throw{notes}", if n == 1 { "" } else { "s" }),
        checks,
        CalibrateStep::Throw,
        picture,
    )
}

fn save_profile(
    setup: &mut VisionSetup,
    cal: &mut Calibrating,
    by: &str,
    checks: Vec<Check>,
) -> CalibrateReply {
    let (Some((teaching, _)), Some(empty)) = (&cal.trial, &cal.empty) else {
        return refuse("take the empty mat and teach the sticks first", checks);
    };
    let c = teaching.calibration.clone();
    let taught = teaching.taught.clone();
    let mut message = String::from("profile taught");
    let note = yut_vision::teach_notes(taught.readability.unwrap_or(1.0), &taught, &c);
    if let Some(path) = &setup.profile_path {
        // The reply goes to a page: it names the file, not where it lies.
        let name = path.file_name().map_or_else(
            || "the profile".into(),
            |n| n.to_string_lossy().into_owned(),
        );
        let made = Made {
            at: crate::text::utc_text(wall_ms()),
            by: format!(
                "the /calibrate wizard (by {}), {} teaching shot{}",
                by,
                cal.shots.len(),
                if cal.shots.len() == 1 { "" } else { "s" }
            ),
            lens: match &cal.lens {
                Some(l) => l.summary(),
                None => format!(
                    "one radial term, k {:.3}, fitted from the mat's outline (no lens target)",
                    c.map.lens.k
                ),
            },
        };
        match files::save_profile_made(path, c.clone(), Some(taught.clone()), empty, Some(made)) {
            Ok(_) => message = format!("profile saved as {name}"),
            Err(e) => {
                eprintln!("yutstation: saving the profile: {e}");
                return refuse(
                    format!("the profile {name} cannot be saved: see the station's log; the station keeps judging as before"),
                    checks,
                );
            }
        }
    }
    let (_, det) = cal.trial.take().expect("checked above");
    setup.detector = Some(det);
    *cal = Calibrating {
        lens: cal.lens,
        ..Calibrating::default()
    };
    let note: String = note.iter().map(|n| format!("; note: {n}")).collect();
    done(
        format!("{message}; the station now judges with it{note}"),
        checks,
        CalibrateStep::Done,
        None,
    )
}

/// After the camera moved: find the mat again where the camera now stands,
/// through the profile's lens, keep the taught sticks, and take this
/// picture as the new empty mat. Refused (the station staying stopped, the
/// profile as it was) where the mat is not found or is not empty.
fn recheck(
    setup: &mut VisionSetup,
    frame: &Mat,
    by: &str,
    mut checks: Vec<Check>,
) -> CalibrateReply {
    let Some(det) = &setup.detector else {
        return refuse(
            "there is no profile to re-check: set the station up first",
            checks,
        );
    };
    let old = &det.calibration;
    let c = match calibrate_with_lens(frame, old.mat, old.map.lens.model) {
        Ok(c) => c,
        Err(e) => {
            checks.push(check("mat", false, e.to_string()));
            return refuse(
                format!("the re-check did not find the mat: {e}; the station stays stopped"),
                checks,
            );
        }
    };
    let round = c.round.is_some();
    checks.push(check(
        "mat",
        true,
        format!(
            "{} found again, {:.1} px/cm at the centre",
            c.mat,
            c.px_per_cm_at_centre()
        ),
    ));
    let old = setup.detector.take().expect("checked above");
    let Detector {
        taught, classifier, ..
    } = old;
    if let Some(path) = &setup.profile_path {
        let made = Made {
            at: crate::text::utc_text(wall_ms()),
            by: format!("a re-check at /calibrate (by {by}) after the camera moved"),
            lens: "the lens as it was calibrated".into(),
        };
        if let Err(e) =
            files::save_profile_made(path, c.clone(), Some(taught.clone()), frame, Some(made))
        {
            eprintln!("yutstation: saving the re-checked profile: {e}");
            checks.push(check(
                "profile",
                false,
                "not saved: see the station's log".into(),
            ));
        }
    }
    match Detector::new(c, taught, frame.clone(), classifier) {
        Ok(d) => {
            setup.detector = Some(d);
            let round = if round {
                " A round mat's tilt is read from taught sticks: teach them again at /calibrate for the best placement near its edge."
            } else {
                ""
            };
            done(
                format!("re-checked: the mat is where the camera now sees it, and this picture is the empty mat; the station calls by itself again (if the light changed, teach the sticks again).{round}"),
                checks,
                CalibrateStep::Done,
                None,
            )
        }
        Err(e) => refuse(format!("cannot build the detector: {e}"), checks),
    }
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The referee called a throw: where the station still holds the throw,
/// learn what the call tells (the finer look's record; where the station reads
/// with its own taught reader, the faces the call settles) and keep it in the
/// profile.
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
    let Some(throw) = recent.iter().find(|r| &r.evidence == evidence) else {
        return;
    };
    let before = det.taught.finer_look;
    let turned = det
        .learn_finer_look(throw.finer_call, throw.trial_frame.as_ref(), called)
        .unwrap_or_else(|e| {
            eprintln!("yutstation: the finer look at {from} failed: {e}");
            false
        });
    let mut changed = before != det.taught.finer_look;
    if turned {
        eprintln!(
            "yutstation: after the referee's call on {from}, the finer look at sticks found in pieces is {}",
            det.taught.finer_look
        );
    }
    if let Some(own) = det.taught.taught_reader.as_mut() {
        let learned =
            yut_vision::taught_reader::learn_call(own, &throw.sticks, &throw.reading, called, from);
        if learned > 0 {
            eprintln!(
                "yutstation: learned {learned} sticks' faces from the referee's call on {from}"
            );
            changed = true;
        }
    }
    if !changed {
        return;
    }
    if let Some(path) = &setup.profile_path {
        if let Err(e) = files::update_taught(path, &det.taught) {
            eprintln!("yutstation: what was learned is not kept in the profile: {e}");
        }
    }
}
