//! The calibration kit on the command line, as a crew runs it: the printable
//! lens target, the lens from rendered pictures of it (a k1 = −0.2 lens), the
//! mat calibrated through that lens, `profile show` saying how the profile
//! was made, and the refusals: pictures without the target, a blurred one,
//! a profile format this station does not know.

use opencv::core::Vector;
use opencv::imgcodecs;
use std::path::Path;
use std::process::Command;
use yut_sim::SheetPose;
use yut_sim::{render, render_sheet, Look, HELD_OUT_LOOK_BASE};
use yut_vision::lens::Paper;
use yutstation::station::sim_crew::target_sheet;

fn run(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("yutstation runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (ok, out, err) = run(dir, args);
    assert!(ok, "{args:?} failed: {out}{err}");
    out
}

/// Refused with status 2 (bad input a person can fix); its stderr.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn save(path: &Path, img: &opencv::core::Mat) {
    assert!(imgcodecs::imwrite(&path.to_string_lossy(), img, &Vector::new()).unwrap());
}

/// A 1280 × 720 picture at half size (640 × 360).
fn half_size(img: &opencv::core::Mat) -> opencv::core::Mat {
    let mut small = opencv::core::Mat::default();
    opencv::imgproc::resize(
        img,
        &mut small,
        opencv::core::Size::new(640, 360),
        0.0,
        0.0,
        opencv::imgproc::INTER_AREA,
    )
    .unwrap();
    small
}

/// A picture for the set-up guide: half size, JPEG at quality 85.
fn save_guide_picture(path: &Path, img: &opencv::core::Mat) {
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 85]);
    assert!(imgcodecs::imwrite(&path.to_string_lossy(), &half_size(img), &params).unwrap());
}

/// A held-out look with a square mat, seen through a k1 = −0.2 lens.
fn barrel_look() -> Look {
    (1..100)
        .map(|s| {
            let mut l = Look::random(HELD_OUT_LOOK_BASE + s, 1280, 720);
            l.camera.k1 = -0.2;
            l
        })
        .find(|l| l.mat_shape == yut_sim::MatShape::Square)
        .unwrap()
}

#[test]
fn a_crew_prints_the_target_calibrates_the_lens_and_the_mat_and_reads_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The target, PDF and SVG at true scale.
    ok(
        d,
        &["calibrate", "target", "--size", "A2", "--out", "target.pdf"],
    );
    let pdf = std::fs::read(d.join("target.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-1.4"));
    assert!(String::from_utf8_lossy(&pdf).contains("/MediaBox [0 0 1683.780 1190.551]"));
    ok(
        d,
        &["calibrate", "target", "--size", "A3", "--out", "target.svg"],
    );
    let svg = std::fs::read_to_string(d.join("target.svg")).unwrap();
    assert!(svg.contains("width=\"420mm\" height=\"297mm\""));
    let e = refused(
        d,
        &["calibrate", "target", "--size", "A4", "--out", "t.pdf"],
    );
    assert!(e.contains("expected A3 or A2"), "{e}");

    // Ten pictures of the A2 target through the lens, and the empty mat.
    let look = barrel_look();
    let sheet = target_sheet(Paper::A2).unwrap();
    std::fs::create_dir(d.join("target")).unwrap();
    for (i, pose) in SheetPose::crew_holds(&look.camera).iter().enumerate() {
        let img = render_sheet(&look, &sheet, pose, i as u64)
            .to_bgr_mat()
            .unwrap();
        save(&d.join(format!("target/{i:02}.png")), &img);
    }
    let empty = render(&look, &yut_sim::empty_scene(&look))
        .to_bgr_mat()
        .unwrap();
    save(&d.join("empty.png"), &empty);

    // Only the empty mat: no target, refused in words.
    std::fs::create_dir(d.join("none")).unwrap();
    save(&d.join("none/empty.png"), &empty);
    let e = refused(
        d,
        &[
            "calibrate",
            "lens",
            "--images",
            "none",
            "--size",
            "A2",
            "--out",
            "l.toml",
        ],
    );
    assert!(e.contains("no lens target in the picture"), "{e}");
    assert!(e.contains("0 pictures of the target are not enough"), "{e}");

    let out = ok(
        d,
        &[
            "calibrate",
            "lens",
            "--images",
            "target",
            "--size",
            "A2",
            "--out",
            "lens.toml",
        ],
    );
    let k1: f64 = out
        .split("k1 ")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no k1 in {out}"));
    assert!((k1 + 0.2).abs() < 0.005, "{out}");
    let mat = look.mat_arg();
    ok(
        d,
        &[
            "calibrate",
            "--image",
            "empty.png",
            "--mat",
            &mat,
            "--lens",
            "lens.toml",
            "--out",
            "station.toml",
        ],
    );
    let shown = ok(d, &["profile", "show", "station.toml"]);
    assert!(shown.contains("(format 3)"), "{shown}");
    assert!(shown.contains("by yutstation calibrate"), "{shown}");
    assert!(
        shown.contains("lens: calibrated on 10 pictures of the lens target"),
        "{shown}"
    );
    assert!(shown.contains("sticks: not taught yet"), "{shown}");

    // A profile of a format from a newer station: refused, saying so.
    let text = std::fs::read_to_string(d.join("station.toml")).unwrap();
    std::fs::write(
        d.join("newer.toml"),
        text.replace("version = 3", "version = 7"),
    )
    .unwrap();
    let e = refused(d, &["profile", "show", "newer.toml"]);
    assert!(
        e.contains("profile format 7 is newer than this yutstation reads"),
        "{e}"
    );
    // A lens from another camera mode is refused.
    save(&d.join("small.png"), &half_size(&empty));
    let e = refused(
        d,
        &[
            "calibrate",
            "--image",
            "small.png",
            "--mat",
            &mat,
            "--lens",
            "lens.toml",
            "--out",
            "s.toml",
        ],
    );
    assert!(e.contains("was calibrated at 1280×720"), "{e}");
}

/// The printed targets in `calibration/` are what `calibrate target` writes
/// today, byte for byte.
#[test]
fn the_targets_in_the_calibration_folder_are_what_the_command_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("calibration");
    for (paper, file) in [(Paper::A3, "target-A3.pdf"), (Paper::A2, "target-A2.pdf")] {
        let made = yut_vision::lens::LensTarget::new(paper).unwrap().pdf();
        let kept = std::fs::read(root.join(file)).unwrap_or_default();
        if kept != made {
            std::fs::write(root.join(file), &made).unwrap();
            panic!("calibration/{file} was stale: written anew, commit it");
        }
    }
}

/// The set-up guide's pictures (`calibration/pictures/`), rendered: a good
/// view, and the views a crew must avoid, each with what calibration says.
#[test]
fn the_set_up_guide_s_pictures_are_rendered_with_what_the_station_says() {
    use yut_vision::calibrate::{calibrate, MatSpec};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("calibration/pictures");
    std::fs::create_dir_all(&dir).unwrap();
    let good = Look::random(HELD_OUT_LOOK_BASE + 900_031, 1280, 720);
    let spec: MatSpec = good.mat_arg().parse().unwrap();
    let mut low = good.clone();
    low.camera.pos[2] *= 0.62;
    let tilted = {
        let mut l = good.clone();
        l.camera = l.camera.retilted(38f64.to_radians(), l.camera.k1);
        l
    };
    let mut glare = good.clone();
    for light in &mut glare.lights {
        light.intensity *= 2.2;
    }
    glare.ambient *= 2.2;
    let mut out = Vec::new();
    for (name, look) in [
        ("good", &good),
        ("too-low", &low),
        ("tilted", &tilted),
        ("glare", &glare),
    ] {
        let img = render(look, &yut_sim::empty_scene(look))
            .to_bgr_mat()
            .unwrap();
        let said = match calibrate(&img, spec) {
            Ok(c) => {
                let notes = yut_vision::calibrate::calibration_notes(&c, &img).unwrap();
                format!(
                    "accepted: {:.1} px/cm at the centre{}",
                    c.px_per_cm_at_centre(),
                    notes
                        .iter()
                        .map(|n| format!("; note: {n}"))
                        .collect::<String>()
                )
            }
            Err(e) => format!("refused: {e}"),
        };
        out.push((name, said));
        save_guide_picture(&dir.join(format!("{name}.jpg")), &img);
    }
    let sheet = target_sheet(Paper::A3).unwrap();
    let pose = SheetPose::crew_holds(&good.camera)[1];
    let img = render_sheet(&good, &sheet, &pose, 1).to_bgr_mat().unwrap();
    save_guide_picture(&dir.join("target.jpg"), &img);
    for (name, said) in &out {
        eprintln!("{name}: {said}");
    }
    // The good view is taken as it is; the others are refused or noted.
    assert!(
        out[0].1.starts_with("accepted") && !out[0].1.contains("note"),
        "{out:?}"
    );
    for bad in &out[1..] {
        assert!(
            bad.1.starts_with("refused") || bad.1.contains("note:"),
            "{out:?}"
        );
    }
}

/// The example profile in `calibration/examples/` is one this station reads,
/// and judges the example throw beside it as the README says: a 도 (one flat
/// face up, the unmarked stick in the middle), called, not referred.
#[test]
fn the_example_profile_judges_the_example_throw() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shown = ok(
        root,
        &["profile", "show", "calibration/examples/demo-hall.toml"],
    );
    assert!(shown.contains("(format 3)"), "{shown}");
    let said = ok(
        root,
        &[
            "detect",
            "--profile",
            "calibration/examples/demo-hall.toml",
            "calibration/examples/throw.jpg",
        ],
    );
    assert!(said.contains("throw.jpg: do (best guess do"), "{said}");
}
