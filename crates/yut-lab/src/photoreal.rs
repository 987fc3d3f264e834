//! `eval --photoreal DIR`: a photo set laid out as `empty.jpg`, the three teach
//! pictures, `throws/` and `truth.jsonl` calibrated, taught and judged as a crew
//! would set up a station, with its calls counted against the truth.
//!
//! Not pure: it reads the photo set and prints the report.

use crate::eval::EvalTally;
use crate::{load_classifier, read_image, say, InputError};
use anyhow::Result;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::time::Instant;
use yut_rules::yut::ThrowResult;
use yut_vision::calibrate::{calibrate, MatSpec};
use yut_vision::{self, Detector};

#[derive(serde::Deserialize)]
struct PhotoTruth {
    image: String,
    result: ThrowResult,
    ambiguous: bool,
    sticks: Vec<PhotoStick>,
}

#[derive(serde::Deserialize)]
struct PhotoStick {
    face: String,
    #[allow(dead_code)]
    marked: bool,
    center_px: [f64; 2],
}

#[derive(serde::Deserialize)]
struct MatJson {
    shape: String,
    size_cm: f64,
}

pub fn run(dir: &Path, model: &Path, verbose: bool) -> Result<()> {
    let mat: MatJson = serde_json::from_str(
        &std::fs::read_to_string(dir.join("mat.json"))
            .map_err(|e| InputError(format!("{}: {e}", dir.join("mat.json").display())))?,
    )?;
    let spec: MatSpec = format!("{}:{}", mat.shape, mat.size_cm)
        .parse()
        .map_err(InputError)?;
    let find = |stem: &str| -> PathBuf {
        let jpg = dir.join(format!("{stem}.jpg"));
        if jpg.exists() {
            jpg
        } else {
            dir.join(format!("{stem}.png"))
        }
    };
    let empty = read_image(&find("empty"))?;
    let cal =
        calibrate(&empty, spec).map_err(|e| InputError(format!("calibration refused: {e}")))?;
    let img = |n: &str| read_image(&find(n));
    let refused = |e: yut_vision::TeachError| InputError(format!("teaching refused: {e}"));
    let classifier = load_classifier(model)?;
    // As `teach` does: refused if unreadable, the mark head checked.
    let checked_by = (!classifier.is_taught_rule()).then_some(&classifier);
    let yut_vision::Teaching {
        taught,
        calibration: cal,
        ..
    } = yut_vision::teach(
        &cal,
        &empty,
        &[[
            &img("teach_front")?,
            &img("teach_back")?,
            &img("teach_marked")?,
        ]],
        checked_by,
    )
    .map_err(refused)?;
    println!(
        "photoreal: calibrated (lens k {:.3}), taught sticks {:.1} × {:.1} cm",
        cal.map.lens.k, taught.length_cm, taught.width_cm
    );
    if taught.shadows_trimmed {
        println!("photoreal: the sticks' shadows are left out (coloured shadows)");
    }
    if verbose {
        if let Some(r) = &taught.taught_reader {
            for (face, examples) in [("front", &r.front), ("back", &r.back)] {
                for e in examples {
                    println!(
                        "  taught {face}: width {:.2}, own look {}",
                        e.width,
                        rounded(&e.look, 1)
                    );
                }
            }
        }
    }
    let det = Detector::new(cal, taught, empty, classifier)?;
    let truth_text = std::fs::read_to_string(dir.join("truth.jsonl"))?;
    let mut tally = EvalTally::default();
    let (mut faces_right, mut faces_total, mut found_total) = (0, 0, 0);
    let bar = ProgressBar::new(truth_text.lines().count() as u64);
    // The slowest frame judged (ms, picture), so it can be timed again alone.
    let mut slowest: Option<(f64, String)> = None;
    for line in truth_text.lines().filter(|l| !l.trim().is_empty()) {
        let t: PhotoTruth = serde_json::from_str(line)?;
        let frame = read_image(&dir.join(&t.image))?;
        let start = Instant::now();
        let v = det.detect(&frame)?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let ok = tally.add(t.result, t.ambiguous, &v, ms);
        if slowest.as_ref().is_none_or(|(worst, _)| ms > *worst) {
            slowest = Some((ms, t.image.clone()));
        }
        // Per-stick faces, matched by nearest centre.
        for ts in &t.sticks {
            if ts.face == "ambiguous" {
                continue;
            }
            faces_total += 1;
            if let Some(s) = v.sticks.iter().min_by(|a, b| {
                let d = |s: &yut_vision::StickReading| {
                    (s.center_px[0] - ts.center_px[0]).hypot(s.center_px[1] - ts.center_px[1])
                };
                d(a).total_cmp(&d(b))
            }) {
                if (s.center_px[0] - ts.center_px[0]).hypot(s.center_px[1] - ts.center_px[1]) < 30.0
                {
                    found_total += 1;
                    let f = match s.face {
                        yut_vision::Face::Front => "front",
                        yut_vision::Face::Back => "back",
                        yut_vision::Face::Unsure => "unsure",
                    };
                    if f == ts.face {
                        faces_right += 1;
                    }
                }
            }
        }
        if verbose && !ok {
            say(
                &bar,
                format!(
                    "{}: truth {} (ambiguous {}) → {} best {} reasons {:?} sticks {:?}",
                    t.image,
                    t.result,
                    t.ambiguous,
                    v.result_id(),
                    v.best_guess,
                    v.reasons,
                    v.sticks
                        .iter()
                        .map(|s| (s.face, (s.confidence * 100.0).round(), s.placement))
                        .collect::<Vec<_>>()
                ),
            );
            // Its sticks under it, not above: the line before names the throw.
            print_sticks(&det, &frame, &t, &bar)?;
        }
        bar.inc(1);
    }
    bar.finish();
    tally.print(&format!(
        "photoreal: {} throws from {}",
        tally.total,
        dir.display()
    ));
    println!("  sticks found (within 30 px): {found_total}/{faces_total}; faces read right: {faces_right}/{faces_total}");
    if let Some((ms, image)) = slowest {
        println!("  slowest frame: {image}, {ms:.1} ms");
    }
    Ok(())
}

/// `v` with `places` decimals, for people.
fn rounded(v: &[f32], places: i32) -> String {
    let k = 10f32.powi(places);
    format!(
        "{:?}",
        v.iter().map(|x| (x * k).round() / k).collect::<Vec<_>>()
    )
}

/// `--verbose`: each stick found in a throw not called right, against its
/// nearest true stick: its fitted width against a stick lying flat there, its
/// faces as read (and by each reader), and where the taught reader reads,
/// its place on the axis between the taught faces and its own look.
fn print_sticks(
    det: &Detector,
    frame: &opencv::core::Mat,
    t: &PhotoTruth,
    bar: &ProgressBar,
) -> Result<()> {
    let (measured, probs) = det.read(frame)?;
    for (m, p) in measured.iter().zip(&probs) {
        let [x, y] = m.found.center;
        let truth = t
            .sticks
            .iter()
            .min_by(|a, b| {
                let d = |s: &PhotoStick| (s.center_px[0] - x).hypot(s.center_px[1] - y);
                d(a).total_cmp(&d(b))
            })
            .map_or("?", |s| s.face.as_str());
        let mut line = format!(
            "    stick at ({x:.0}, {y:.0}), truth {truth}: width {:.2} ({:.1} px at {:.0}°{}), front/back/neither {}",
            m.width_lying_flat(),
            m.found.width,
            m.found.angle_deg(),
            if m.found.shared { ", shares its blob" } else { "" },
            rounded(&[p.front as f32, p.back as f32, p.neither as f32], 2),
        );
        if let Some([forest, net]) = p.readers {
            let f = |q: [f64; 3]| rounded(&q.map(|v| v as f32), 2);
            line += &format!("; forest {}, net {}", f(forest), f(net));
        }
        if let Some(q) = p.stick {
            line += &format!("; stick reader {}", rounded(&q.map(|v| v as f32), 2));
        }
        if let Some(r) = &det.taught.taught_reader {
            line += &format!(
                "; {}, own look {}",
                crate::eval::taught_place(r, m),
                rounded(&yut_vision::taught_reader::own(&m.features), 1)
            );
        }
        say(bar, line);
    }
    Ok(())
}
