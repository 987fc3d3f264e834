//! The station's vision commands: calibrate, teach, detect, watch. A thin shell:
//! it reads and writes files, keeps time, and calls `yut_vision`, where every
//! algorithm lives. The developers' commands (eval, train, simulate) are parsed
//! here and run by `yut_lab`.

use crate::cli::InputError;
use anyhow::Result;
use clap::{Args, Subcommand};
use opencv::core::Mat;
use opencv::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use yut_lab::{load_classifier, read_image, write_image, EvalArgs, SimulateArgs, TrainArgs};
use yut_rules::yut::ThrowResult;
use yut_vision::calibrate::{calibrate_with_lens, Calibration, MatSpec, Shape};
use yut_vision::files::{self, DEFAULT_MODEL};
use yut_vision::geometry::{Homography, Lens, MatMap};
use yut_vision::lens::{find_target, fit_lens, LensRecord, LensTarget, Paper, ViewCollector};
use yut_vision::profile::Made;
use yut_vision::profile::Profile;
use yut_vision::settle::{self, SettleEvent, Tracker};
use yut_vision::{self, Detector, ThrowReading};
use yutstation::capture::Clock;

#[derive(Subcommand)]
pub enum VisionCommand {
    /// Find the mat in a picture of the empty mat and write a station profile.
    Calibrate(CalibrateArgs),
    /// Learn a stick set from three pictures and store it in the profile.
    Teach(TeachArgs),
    /// Judge still pictures of throws: one JSON object per line per image.
    Detect(DetectArgs),
    /// Follow a stream of frames (an image folder), calling each throw once.
    Watch(WatchArgs),
    /// Measure the vision on generated throws in held-out looks (or a photo set).
    Eval(EvalArgs),
    /// Train the default stick appearance model on generated throws.
    Train(TrainArgs),
    /// Write generated pictures (empty mat, teach pictures, throws, truth).
    Simulate(SimulateArgs),
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CalibrateArgs {
    /// The lens target to print, or the lens from pictures of it.
    #[command(subcommand)]
    what: Option<CalibrateWhat>,
    /// Picture of the empty mat.
    #[arg(long, required = true)]
    image: Option<PathBuf>,
    /// The mat: circle:DIAMETER_CM or square:SIDE_CM.
    #[arg(long, required = true)]
    mat: Option<String>,
    /// Profile to write (TOML); the empty picture is stored beside it.
    #[arg(long, required = true)]
    out: Option<PathBuf>,
    /// Fallback: the mat's four corners in pixels, clockwise from the top-left
    /// (square), or its rim's top, right, bottom and left points (circle):
    /// x1,y1,x2,y2,x3,y3,x4,y4.
    #[arg(long)]
    corners: Option<String>,
    /// The lens calibrated on the target (`calibrate lens`), applied before
    /// the mat's outline is fitted. Without it the outline's own bend gives
    /// one radial term.
    #[arg(long, conflicts_with = "corners")]
    lens: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum CalibrateWhat {
    /// Write the printable lens target: a ChArUco board at true scale, as PDF
    /// or SVG (by the file's extension), its dimensions printed on it.
    Target {
        /// The paper: A3 (30 mm squares) or A2 (45 mm squares).
        #[arg(long, default_value = "A3")]
        size: String,
        /// The file to write: NAME.pdf or NAME.svg.
        #[arg(long)]
        out: PathBuf,
    },
    /// Calibrate the lens from pictures of the printed target (a folder of
    /// them, or a live camera): the lens file for `calibrate --lens`.
    Lens {
        /// A folder of pictures of the target (PNG or JPEG).
        #[arg(long, required_unless_present = "camera", conflicts_with = "camera")]
        images: Option<PathBuf>,
        /// A camera to take the pictures from (0 = the first camera).
        #[arg(long)]
        camera: Option<i32>,
        /// The paper the target was printed on (A3 or A2).
        #[arg(long, default_value = "A3")]
        size: String,
        /// The lens file to write (TOML).
        #[arg(long)]
        out: PathBuf,
        /// With --camera: how many pictures to take.
        #[arg(long, default_value_t = 12)]
        pictures: usize,
    },
}

#[derive(Args)]
pub struct TeachArgs {
    #[arg(long)]
    profile: PathBuf,
    /// All four sticks flat face up. Repeat `--front`, `--back` and
    /// `--marked` for more shots (the sticks moved and turned, shot again):
    /// each teaches the station more of how its sticks look.
    #[arg(long, required = true)]
    front: Vec<PathBuf>,
    /// All four sticks round face up, in the same places.
    #[arg(long, required = true)]
    back: Vec<PathBuf>,
    /// Only the marked stick flat face up.
    #[arg(long, required = true)]
    marked: Vec<PathBuf>,
    /// The appearance model, to report how clearly it reads the taught sticks.
    #[arg(long, default_value = DEFAULT_MODEL)]
    model: PathBuf,
}

#[derive(Args)]
pub struct DetectArgs {
    #[arg(long)]
    profile: PathBuf,
    /// Pictures to judge.
    #[arg(required = true)]
    images: Vec<PathBuf>,
    /// One JSON object per line (the default prints a short line per image).
    #[arg(long)]
    json: bool,
    /// Write evidence pictures (outlines and readings) into this folder.
    #[arg(long)]
    annotate: Option<PathBuf>,
    /// The appearance model.
    #[arg(long, default_value = DEFAULT_MODEL)]
    model: PathBuf,
}

#[derive(Args)]
pub struct WatchArgs {
    #[arg(long)]
    profile: PathBuf,
    /// A folder of frames (sorted by name), a video file, or a camera (`camera:0`).
    source: String,
    /// Frame rate of a folder's frames (video files carry their own).
    #[arg(long, default_value_t = 30)]
    fps: u64,
    #[arg(long, default_value = DEFAULT_MODEL)]
    model: PathBuf,
    #[arg(long)]
    json: bool,
    /// Print each frame's motion and presence (tuning).
    #[arg(long)]
    verbose: bool,
}

pub fn run(cmd: VisionCommand) -> Result<()> {
    // The timing floors are for one core: keep OpenCV to one thread.
    opencv::core::set_num_threads(1)?;
    match cmd {
        VisionCommand::Calibrate(a) => run_calibrate(a),
        VisionCommand::Teach(a) => run_teach(a),
        VisionCommand::Detect(a) => run_detect(a),
        VisionCommand::Watch(a) => run_watch(a),
        VisionCommand::Eval(a) => yut_lab::eval::run(a),
        VisionCommand::Train(a) => yut_lab::train::run(a),
        VisionCommand::Simulate(a) => yut_lab::simulate::run(a),
    }
}

fn load_profile(path: &Path) -> Result<(Profile, Mat)> {
    Ok(files::load_profile(path).map_err(|e| InputError(e.to_string()))?)
}

fn detector(profile: &Path, model: &Path) -> Result<Detector> {
    Ok(files::load_detector(profile, model).map_err(|e| InputError(e.to_string()))?)
}

fn parse_corners(s: &str, spec: &MatSpec, w: u32, h: u32) -> Result<Calibration> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            InputError(format!(
                "--corners `{s}`: expected eight numbers x1,y1,...,x4,y4"
            ))
        })?;
    if v.len() != 8 {
        return Err(InputError(format!(
            "--corners `{s}`: expected eight numbers, got {}",
            v.len()
        ))
        .into());
    }
    let src: [[f64; 2]; 4] = std::array::from_fn(|i| [v[2 * i], v[2 * i + 1]]);
    let hs = spec.size_cm / 2.0;
    let dst = match spec.shape {
        Shape::Square => [[-hs, hs], [hs, hs], [hs, -hs], [-hs, -hs]],
        Shape::Circle => [[0.0, hs], [hs, 0.0], [0.0, -hs], [-hs, 0.0]],
    };
    let hm = Homography::from_points(&src, &dst)
        .ok_or_else(|| InputError("--corners: three of the points lie on one line".into()))?;
    let map = MatMap {
        lens: Lens::none(w, h),
        h: hm,
    };
    let outline = (0..64)
        .map(|i| {
            let t = i as f64 / 64.0 * std::f64::consts::TAU;
            let p = match spec.shape {
                Shape::Circle => [hs * t.cos(), hs * t.sin()],
                Shape::Square => {
                    let c = t.cos() / t.cos().abs().max(t.sin().abs());
                    let s2 = t.sin() / t.cos().abs().max(t.sin().abs());
                    [hs * c, hs * s2]
                }
            };
            map.to_px(p)
        })
        .collect();
    Ok(Calibration {
        mat: *spec,
        width: w,
        height: h,
        map,
        outline_px: outline,
        round: None,
    })
}

fn run_calibrate(a: CalibrateArgs) -> Result<()> {
    match a.what {
        Some(CalibrateWhat::Target { size, out }) => return write_target(&size, &out),
        Some(CalibrateWhat::Lens {
            images,
            camera,
            size,
            out,
            pictures,
        }) => return calibrate_lens(images.as_deref(), camera, &size, &out, pictures),
        None => {}
    }
    let (Some(image), Some(mat), Some(out)) = (a.image, a.mat, a.out) else {
        return Err(InputError("calibrate needs --image, --mat and --out".into()).into());
    };
    let spec: MatSpec = mat.parse().map_err(InputError)?;
    let img = read_image(&image)?;
    let lens = match &a.lens {
        Some(path) => {
            let record = files::load_lens(path).map_err(|e| InputError(e.to_string()))?;
            if (record.width, record.height) != (img.cols(), img.rows()) {
                return Err(InputError(format!(
                    "the lens {} was calibrated at {}×{} but {} is {}×{}: use the same camera mode",
                    path.display(),
                    record.width,
                    record.height,
                    image.display(),
                    img.cols(),
                    img.rows()
                ))
                .into());
            }
            Some(record)
        }
        None => None,
    };
    let cal = match &a.corners {
        Some(c) => {
            if spec.size_cm < 150.0 {
                return Err(InputError(format!(
                    "the mat is {} cm: the rules need at least 150 cm (use a bigger mat)",
                    spec.size_cm
                ))
                .into());
            }
            parse_corners(c, &spec, img.cols() as u32, img.rows() as u32)?
        }
        None => calibrate_with_lens(&img, spec, lens.map(|l| l.model))
            .map_err(|e| InputError(format!("calibration refused: {e}")))?,
    };
    let made = Made {
        at: yutstation::text::utc_text(Clock::Wall.now()),
        by: "yutstation calibrate".into(),
        lens: lens_words(&cal, lens.as_ref(), a.corners.is_some()),
    };
    let profile = files::save_profile_made(&out, cal, None, &img, Some(made))
        .map_err(|e| InputError(e.to_string()))?;
    let c = profile.calibration;
    println!(
        "calibrated: {} mat, {:.1} px/cm at the centre; lens: {}; profile {}",
        c.mat,
        c.px_per_cm_at_centre(),
        profile.made.as_ref().map_or("", |m| m.lens.as_str()),
        out.display()
    );
    for note in yut_vision::calibrate::calibration_notes(&c, &img)? {
        println!("note: {note}");
    }
    Ok(())
}

/// How the lens of a calibration was found, in words for `profile show`.
pub fn lens_words(cal: &Calibration, lens: Option<&LensRecord>, corners: bool) -> String {
    match lens {
        Some(l) => l.summary(),
        None if corners => "none (corners given by hand)".into(),
        None => format!(
            "one radial term, k {:.3}, fitted from the mat's outline (no lens target)",
            cal.map.lens.k
        ),
    }
}

fn write_target(size: &str, out: &Path) -> Result<()> {
    let paper: Paper = size.parse().map_err(InputError)?;
    let target = LensTarget::new(paper)?;
    let bytes = match out.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("pdf") => target.pdf(),
        Some(e) if e.eq_ignore_ascii_case("svg") => target.svg().into_bytes(),
        _ => {
            return Err(InputError(format!(
                "{}: the target is written as PDF or SVG: name the file NAME.pdf or NAME.svg",
                out.display()
            ))
            .into())
        }
    };
    std::fs::write(out, bytes)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
    let [pw, ph] = paper.size_mm();
    println!(
        "lens target: {} ({pw:.0} × {ph:.0} mm), {}×{} squares of {:.1} mm; print it at 100 % (no 'fit to page') and check a square measures {:.1} mm: {}",
        paper,
        yut_vision::lens::SQUARES[0],
        yut_vision::lens::SQUARES[1],
        target.square_mm,
        target.square_mm,
        out.display()
    );
    Ok(())
}

/// The pictures in a folder, by name.
fn pictures_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| InputError(format!("cannot read the folder {}: {e}", dir.display())))?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg"))
        })
        .collect();
    out.sort();
    Ok(out)
}

fn calibrate_lens(
    images: Option<&Path>,
    camera: Option<i32>,
    size: &str,
    out: &Path,
    pictures: usize,
) -> Result<()> {
    let paper: Paper = size.parse().map_err(InputError)?;
    let target = LensTarget::new(paper)?;
    let mut collector = ViewCollector::default();
    match (images, camera) {
        (Some(dir), _) => {
            let paths = pictures_in(dir)?;
            if paths.is_empty() {
                return Err(
                    InputError(format!("no pictures (PNG or JPEG) in {}", dir.display())).into(),
                );
            }
            for path in paths {
                let img = read_image(&path)?;
                match find_target(&target, &img) {
                    Ok(view) => {
                        println!("{}: {} corners", path.display(), view.corners.len());
                        collector.views.push(view);
                    }
                    Err(e) => eprintln!("yutstation: {}: {e}", path.display()),
                }
            }
        }
        (None, Some(index)) => {
            let mut source = yutstation::capture::open(&format!("camera:{index}"), 30, Clock::Wall)
                .map_err(|e| InputError(e.to_string()))?;
            println!(
                "hold the printed target under the camera; {}",
                collector.hint()
            );
            let started = Instant::now();
            let mut last = Instant::now();
            while collector.views.len() < pictures {
                if started.elapsed().as_secs() > 300 {
                    eprintln!(
                        "yutstation: five minutes are up: fitting the {} pictures taken",
                        collector.views.len()
                    );
                    break;
                }
                let Some(frame) = source.next_frame().map_err(|e| InputError(e.to_string()))?
                else {
                    break;
                };
                // About one picture a second: time to move the target.
                if last.elapsed().as_millis() < 800 {
                    continue;
                }
                last = Instant::now();
                if let Ok(view) = find_target(&target, &frame.image) {
                    if collector.offer(view) {
                        println!(
                            "picture {} of {pictures} taken; {}",
                            collector.views.len(),
                            collector.hint()
                        );
                    }
                }
            }
        }
        (None, None) => {
            return Err(InputError("give --images DIR or --camera N".into()).into());
        }
    }
    let fit = fit_lens(&target, &collector.views)
        .map_err(|e| InputError(format!("lens calibration refused: {e}")))?;
    let record = LensRecord::of(&fit);
    files::save_lens(out, &record).map_err(|e| InputError(e.to_string()))?;
    println!("lens: {}; written to {}", record.summary(), out.display());
    Ok(())
}

fn run_teach(a: TeachArgs) -> Result<()> {
    if a.front.len() != a.back.len() || a.front.len() != a.marked.len() {
        return Err(InputError(format!(
            "each shot needs its three pictures: {} --front, {} --back and {} --marked given",
            a.front.len(),
            a.back.len(),
            a.marked.len()
        ))
        .into());
    }
    let (mut profile, empty) = load_profile(&a.profile)?;
    let pictures = (0..a.front.len())
        .map(|i| {
            Ok([
                read_image(&a.front[i])?,
                read_image(&a.back[i])?,
                read_image(&a.marked[i])?,
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    let shots: Vec<[&Mat; 3]> = pictures.iter().map(|[f, b, m]| [f, b, m]).collect();
    let refused = |e: yut_vision::TeachError| InputError(format!("teaching refused: {e}"));
    let classifier = load_classifier(&a.model)?;
    let t = yut_vision::teach(&profile.calibration, &empty, &shots, Some(&classifier))
        .map_err(refused)?;
    let yut_vision::Teaching {
        taught,
        calibration,
        ..
    } = t;
    // A round mat's map is the tilt teaching picked (`yut_vision::with_taught_tilt`).
    profile.calibration = calibration;
    let worst = taught.readability.unwrap_or(1.0);
    println!(
        "taught: sticks {:.1} × {:.1} cm; mark threshold {:.3} (margin {:.3}); faces read on the taught sticks at {:.0} % or better",
        taught.length_cm,
        taught.width_cm,
        taught.mark_threshold,
        taught.mark_margin,
        worst * 100.0
    );
    for note in yut_vision::teach_notes(worst, &taught, &profile.calibration) {
        println!("note: {note}");
    }
    profile.sticks = Some(taught);
    if let Some(made) = &mut profile.made {
        made.by = format!(
            "{}; sticks taught by yutstation teach at {} ({} shot{})",
            made.by.split("; sticks taught").next().unwrap_or(&made.by),
            yutstation::text::utc_text(Clock::Wall.now()),
            shots.len(),
            if shots.len() == 1 { "" } else { "s" }
        );
    }
    files::write_profile(&a.profile, &mut profile)?;
    Ok(())
}

#[derive(Serialize)]
struct DetectLine<'a> {
    image: String,
    result: String,
    best_guess: ThrowResult,
    confidence: f64,
    reasons: &'a [yut_vision::Reason],
    ms: f64,
    sticks: &'a [yut_vision::StickReading],
}

/// Judge every picture; one that cannot be judged is reported (stderr, and a
/// `{"image", "error"}` line with `--json`) and the batch goes on. The status is the
/// worst of the failures (README, "Exit statuses").
fn run_detect(a: DetectArgs) -> Result<()> {
    let det = detector(&a.profile, &a.model)?;
    if let Some(dir) = &a.annotate {
        std::fs::create_dir_all(dir)?;
    }
    let mut failed = 0;
    let mut io_failed = false;
    for path in &a.images {
        if let Err(e) = detect_one(&det, &a, path) {
            failed += 1;
            io_failed |= e.downcast_ref::<InputError>().is_none();
            let line = format!("{e:#}");
            eprintln!("yutstation: {line}");
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({ "image": path.display().to_string(), "error": line })
                );
            }
        }
    }
    if failed == 0 {
        return Ok(());
    }
    let summary = format!(
        "{failed} of {} pictures could not be judged (each is named above)",
        a.images.len()
    );
    if io_failed {
        Err(anyhow::anyhow!(summary))
    } else {
        Err(InputError(summary).into())
    }
}

fn detect_one(det: &Detector, a: &DetectArgs, path: &Path) -> Result<()> {
    let img = read_image(path)?;
    if img.cols() as u32 != det.calibration.width || img.rows() as u32 != det.calibration.height {
        return Err(InputError(format!(
            "{} is {}×{} but the profile was calibrated at {}×{}: use the same camera mode",
            path.display(),
            img.cols(),
            img.rows(),
            det.calibration.width,
            det.calibration.height
        ))
        .into());
    }
    let t = Instant::now();
    let v = det.detect(&img)?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if a.json {
        let line = DetectLine {
            image: path.display().to_string(),
            result: v.result_id(),
            best_guess: v.best_guess,
            confidence: v.confidence,
            reasons: &v.reasons,
            ms,
            sticks: &v.sticks,
        };
        println!("{}", serde_json::to_string(&line)?);
    } else {
        println!(
            "{}: {} (best guess {}, confidence {:.2}{}) {:.1} ms",
            path.display(),
            v.result_id(),
            v.best_guess,
            v.confidence,
            if v.reasons.is_empty() {
                String::new()
            } else {
                format!(", {}", serde_json::to_string(&v.reasons)?)
            },
            ms
        );
    }
    if let Some(dir) = &a.annotate {
        let out = annotate(&img, &det.calibration, &v)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        write_image(&dir.join(format!("{name}.evidence.jpg")), &out)?;
    }
    Ok(())
}

/// The evidence picture: mat outline, each stick's box and reading, the call.
fn annotate(img: &Mat, cal: &Calibration, v: &ThrowReading) -> Result<Mat> {
    Ok(yutstation::station::overlay::annotate(
        img,
        Some(cal),
        Some(v),
    )?)
}

fn run_watch(a: WatchArgs) -> Result<()> {
    let det = detector(&a.profile, &a.model)?;
    // Files run on a virtual clock (as fast as they decode, with their own timing);
    // a camera runs on the wall clock.
    let mut source = yutstation::capture::open(&a.source, a.fps, Clock::virtual_now())
        .map_err(|e| InputError(e.to_string()))?;
    let empty_mat = settle::empty_mat(&det.empty)?;
    let mut tracker = Tracker::new(det.settle_config());
    let mut prev: Option<settle::Small> = None;
    let mut t0 = None;
    let mut index = 0usize;
    while let Some(frame) = source.next_frame().map_err(|e| InputError(e.to_string()))? {
        let t_ms = frame.at_ms - *t0.get_or_insert(frame.at_ms);
        let img = frame.image;
        let name = format!("{} #{index}", source.describe());
        index += 1;
        let small = settle::small_grey(&img)?;
        let stats = settle::frame_stats(t_ms, &small, prev.as_ref(), &empty_mat)?;
        prev = Some(small);
        if a.verbose {
            eprintln!(
                "{t_ms} ms: motion {:.5} presence {:.5} state {:?}",
                stats.motion,
                stats.presence,
                tracker.state()
            );
        }
        match tracker.update(stats) {
            Some(SettleEvent::Judge { first_still_ms }) => {
                let t = Instant::now();
                let v = det.detect(&img)?;
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                let latency = (t_ms - first_still_ms) as f64 + ms;
                if a.json {
                    println!(
                        "{}",
                        serde_json::json!({"frame": name, "t_ms": t_ms, "result": v.result_id(),
                            "best_guess": v.best_guess, "confidence": v.confidence, "reasons": v.reasons,
                            "latency_ms": latency, "sticks": v.sticks})
                    );
                } else {
                    println!(
                        "{} ms: call {} (best guess {}, confidence {:.2}) {:.0} ms after the sticks stopped",
                        t_ms,
                        v.result_id(),
                        v.best_guess,
                        v.confidence,
                        latency
                    );
                }
            }
            Some(SettleEvent::PickedUpBeforeCall) => {
                eprintln!("{t_ms} ms: warning: sticks picked up before the call");
            }
            Some(SettleEvent::Collected) => println!("{t_ms} ms: collected"),
            Some(SettleEvent::ThrowStarted) | None => {}
        }
    }
    Ok(())
}
