//! The vision's measuring commands as a person runs them: stored measurements
//! (`--dump`, `--from-dump`) give the same figures as the rendering run, and a
//! model can be trained from them; the station finds its model from any folder.

use std::process::Command;

fn yutstation(args: &[&str]) -> String {
    yutstation_in(env!("CARGO_MANIFEST_DIR"), args).0
}

/// Run in folder `dir`; stdout and stderr of a run that succeeded.
fn yutstation_in(dir: impl AsRef<std::path::Path>, args: &[&str]) -> (String, String) {
    let out = run_in(dir, args);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(out.status.success(), "{args:?} failed: {text}{err}");
    (text, err)
}

/// Run in the crate's folder a command that must be refused; its stderr.
fn refused(args: &[&str]) -> String {
    let out = run_in(env!("CARGO_MANIFEST_DIR"), args);
    assert!(!out.status.success(), "{args:?} was not refused");
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn run_in(dir: impl AsRef<std::path::Path>, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("yutstation runs")
}

fn line<'a>(text: &'a str, starts: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(starts))
        .unwrap_or_else(|| panic!("no line starting {starts:?} in:\n{text}"))
}

#[test]
fn stored_measurements_judge_like_the_rendering_run_and_train_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump");
    let d = dump.to_str().unwrap();
    let small = ["--width", "640", "--height", "400", "--sequences", "0"];
    let mut args = vec![
        "eval",
        "--throws",
        "16",
        "--looks",
        "1",
        "--look-offset",
        "500",
    ];
    args.extend(small);
    args.extend(["--dump", d]);
    let rendered = yutstation(&args);
    let stored = yutstation(&["eval", "--from-dump", d]);
    assert!(stored.contains("stored: 1 looks"), "{stored}");
    for figure in [
        "unambiguous throws called right",
        "silent errors",
        "ambiguous throws referred",
    ] {
        assert_eq!(
            line(&rendered, figure),
            line(&stored, figure),
            "features recomputed from the stored patches must judge alike"
        );
    }
    assert!(line(&stored, "true front").contains("read front"));
    // How far off the calibration puts sticks near the mat's edge, by shape.
    assert!(line(&stored, "sticks within").contains("mat's edge, placed in from it"));

    let model = dir.path().join("model.yml");
    let train = |net: &[&str]| {
        let mut args = vec!["train", "--from-dump", d, "--out", model.to_str().unwrap()];
        args.extend(["--trees", "5"]);
        args.extend(net);
        yutstation(&args)
    };
    let trained = train(&["--net-iterations", "30"]);
    assert!(trained.contains("trained on"), "{trained}");
    // The picture net is written beside the forest and read with it.
    let net = dir.path().join("model-net.yml");
    assert!(net.exists(), "{trained}");
    let again = yutstation(&["eval", "--from-dump", d, "--model", model.to_str().unwrap()]);
    assert!(again.contains("stored: 1 looks"), "{again}");
    // A forest alone: the old net must not be read with a new forest.
    let alone = train(&["--net-hidden", "0"]);
    assert!(!net.exists(), "{alone}");

    // The stick reader's inputs for its trainer, one row per found stick.
    let export = dir.path().join("reader-inputs");
    let exported = yutstation(&[
        "train",
        "--from-dump",
        d,
        "--export-reader",
        export.to_str().unwrap(),
    ]);
    assert!(exported.contains("from 1 looks"), "{exported}");
    for f in [
        "stick_planes.npy",
        "stick_geo.npy",
        "stick_label.npy",
        "stick_look.npy",
        "stick_meta.npy",
        "look_taught.npy",
        "look_seed.npy",
    ] {
        assert!(export.join(f).exists(), "{f}: {exported}");
    }
}

/// A station set up and run from a folder of its own (not the repository
/// root) still reads with the shipped model: without it every throw would go
/// to the referee. A model named on purpose that is not there is an error.
/// A crew that moves and turns the sticks and shoots again teaches a station
/// that reads with its own taught reader more of its sticks; the further
/// shots are stored with the look, so the stored look is judged as the
/// station was taught. World look 1 200 036 (painted-colour round faces) reads
/// with its taught reader, and its second shot changes how it reads its
/// throws of touching sticks (1 200 000, used here until the stick reader
/// learned the wider world, ADR 0126, reads with the models now). The
/// stored world look is counted by its family, and `--leave-out` keeps it
/// out of judging (`eval`) and of learning (`train`).
#[test]
fn further_teaching_shots_are_stored_and_judged_with_the_look() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump");
    let rendered = |shots: &str, dump: Option<&str>| {
        let mut args = vec![
            "eval",
            "--world",
            "--throws",
            "12",
            "--looks",
            "1",
            "--look-offset",
            "200036",
            "--sequences",
            "0",
            "--teach-shots",
            shots,
        ];
        if let Some(d) = dump {
            args.extend(["--dump", d]);
        }
        yutstation(&args)
    };
    let touching = "Touching";
    let two_shots = rendered("2", dump.to_str());
    let one_shot = rendered("1", None);
    assert_ne!(
        line(&two_shots, touching),
        line(&one_shot, touching),
        "the second shot must change what this station's taught reader knows"
    );
    let d = dump.to_str().unwrap();
    let stored = yutstation(&["eval", "--from-dump", d]);
    assert_eq!(line(&stored, touching), line(&two_shots, touching));

    // Stored world looks are counted by their family as the rendering run
    // counted them, and a family can be left out of judging and of learning.
    let family_line = |text: &str| {
        let mut lines = text.lines().skip_while(|l| !l.contains("by family"));
        lines.nth(1).map(str::to_string)
    };
    let rendered_family = family_line(&two_shots).expect("a family line");
    let family = rendered_family.split_whitespace().next().unwrap();
    let by_family = yutstation(&["eval", "--from-dump", d, "--world"]);
    assert_eq!(family_line(&by_family), Some(rendered_family.clone()));
    let other = ["oiled", "stained"]
        .into_iter()
        .find(|f| *f != family)
        .unwrap();
    let kept = yutstation(&["eval", "--from-dump", d, "--world", "--leave-out", other]);
    assert!(kept.contains("stored: 1 looks"), "{kept}");
    let left = yutstation(&["eval", "--from-dump", d, "--world", "--leave-out", family]);
    assert!(left.contains("stored: 0 looks"), "{left}");
    let export = |leave_out: &str| {
        let out = dir.path().join(format!("export-without-{leave_out}"));
        yutstation(&[
            "train",
            "--world",
            "--leave-out",
            leave_out,
            "--from-dump",
            d,
            "--export-reader",
            out.to_str().unwrap(),
        ])
    };
    assert!(export(other).contains("from 1 looks"));
    assert!(export(family).contains("from 0 looks"));

    let none = refused(&["eval", "--world", "--teach-shots", "0"]);
    assert!(none.contains("teach-shots"), "{none}");
}

#[test]
fn a_station_run_from_another_folder_reads_with_the_shipped_model() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    yutstation_in(
        here,
        &[
            "simulate", "--look", "1000500", "--throws", "3", "--width", "640", "--height", "400",
            "--out", "look",
        ],
    );
    let mat: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(here.join("look/mat.json")).unwrap())
            .unwrap();
    let spec = format!("{}:{}", mat["shape"].as_str().unwrap(), mat["size_cm"]);
    yutstation_in(
        here,
        &[
            "calibrate",
            "--image",
            "look/empty.png",
            "--mat",
            &spec,
            "--out",
            "p.toml",
        ],
    );
    let (_, taught) = yutstation_in(
        here,
        &[
            "teach",
            "--profile",
            "p.toml",
            "--front",
            "look/teach_front.png",
            "--back",
            "look/teach_back.png",
            "--marked",
            "look/teach_marked.png",
        ],
    );
    assert!(!taught.contains("no appearance model"), "{taught}");
    // The taught sticks are kept beside the profile as a picture, for the
    // stick reader.
    assert!(here.join("p.taught.png").exists());
    let profile = std::fs::read_to_string(here.join("p.toml")).unwrap();
    assert!(
        profile.contains("taught_image = \"p.taught.png\""),
        "{profile}"
    );
    // How clearly the station told its taught faces apart is kept (ADR 0058).
    assert!(
        profile.lines().any(|l| l.starts_with("readability = ")),
        "{profile}"
    );
    // What the profile holds, for a person.
    let (shown, _) = yutstation_in(here, &["profile", "show", "p.toml"]);
    assert!(shown.contains("mat: "), "{shown}");
    assert!(
        shown.contains("faces read by: the appearance models"),
        "{shown}"
    );
    assert!(
        shown.contains("finer look at sticks found in pieces: not tried yet"),
        "{shown}"
    );
    // What the referee's calls taught is shown, and forgotten on request:
    // here the finer look's record (ADR 0127), written as a station keeps it.
    let (nothing, _) = yutstation_in(here, &["profile", "forget", "p.toml"]);
    assert!(nothing.contains("nothing to forget"), "{nothing}");
    let mut with_record = std::fs::read_to_string(here.join("p.toml")).unwrap();
    with_record.push_str("\n[sticks.finer_look]\nagreed = 3\ndisagreed = 0\n");
    std::fs::write(here.join("p.toml"), with_record).unwrap();
    let (shown, _) = yutstation_in(here, &["profile", "show", "p.toml"]);
    assert!(
        shown.contains("finer look at sticks found in pieces: taken: the referee called as it did 3 times, never otherwise"),
        "{shown}"
    );
    let (forgot, _) = yutstation_in(here, &["profile", "forget", "p.toml"]);
    assert!(
        forgot.contains("forgot the finer look's record"),
        "{forgot}"
    );
    let (shown, _) = yutstation_in(here, &["profile", "show", "p.toml"]);
    assert!(shown.contains("not tried yet"), "{shown}");
    // A shot needs its three pictures.
    let out = run_in(
        here,
        &[
            "teach",
            "--profile",
            "p.toml",
            "--front",
            "look/teach_front.png",
            "--front",
            "look/teach_front.png",
            "--back",
            "look/teach_back.png",
            "--marked",
            "look/teach_marked.png",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("each shot needs its three pictures"),
        "{out:?}"
    );
    let throws: Vec<String> = (1..=3).map(|k| format!("look/throws/{k:04}.png")).collect();
    let mut args = vec!["detect", "--profile", "p.toml", "--json"];
    args.extend(throws.iter().map(String::as_str));
    let (elsewhere, warned) = yutstation_in(here, &args);
    assert!(!warned.contains("no appearance model"), "{warned}");
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/models/stick-appearance.yml");
    args.extend(["--model", model]);
    let (named, _) = yutstation_in(here, &args);
    let results = |out: &str| -> Vec<(String, f64)> {
        out.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["result"].to_string(), v["confidence"].as_f64().unwrap())
            })
            .collect()
    };
    assert_eq!(
        results(&elsewhere),
        results(&named),
        "the same model must read"
    );
    assert_eq!(results(&elsewhere).len(), 3);

    // A batch judges every picture: one that is missing and one that is not a
    // picture are each reported, the others still judged, and the status says
    // the input needs fixing (2).
    std::fs::write(here.join("not-a-picture.png"), b"text").unwrap();
    let batch = run_in(
        here,
        &[
            "detect",
            "--profile",
            "p.toml",
            "--json",
            &throws[0],
            "missing.png",
            "not-a-picture.png",
            &throws[1],
        ],
    );
    let (out, err) = (
        String::from_utf8_lossy(&batch.stdout),
        String::from_utf8_lossy(&batch.stderr),
    );
    assert_eq!(batch.status.code(), Some(2), "{out}{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0]["result"].is_string() && lines[3]["result"].is_string(),
        "{out}"
    );
    assert_eq!(lines[1]["image"], "missing.png");
    assert!(
        lines[1]["error"].as_str().unwrap().contains("missing.png"),
        "{out}"
    );
    assert!(lines[2]["error"].is_string(), "{out}");
    assert!(
        err.contains("missing.png") && err.contains("not-a-picture.png"),
        "{err}"
    );
    assert!(err.contains("2 of 4 pictures"), "{err}");

    // A profile taught before the stick reader (and before its readability
    // was kept) still reads, without it.
    let old_profile: String = profile
        .replace("taught_image = \"p.taught.png\"\n", "")
        .lines()
        .filter(|l| !l.starts_with("readability = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(here.join("old.toml"), old_profile).unwrap();
    let old = run_in(here, &["detect", "--profile", "old.toml", &throws[0]]);
    assert!(old.status.success());
    let note = String::from_utf8_lossy(&old.stderr);
    assert!(note.contains("teach the sticks again"), "{note}");
    // A damaged taught picture: one line that says what to do.
    let picture = std::fs::read(here.join("p.taught.png")).unwrap();
    std::fs::write(here.join("p.taught.png"), b"not a picture").unwrap();
    let damaged = run_in(here, &["detect", "--profile", "p.toml", &throws[0]]);
    assert_eq!(damaged.status.code(), Some(2));
    let err = String::from_utf8_lossy(&damaged.stderr);
    assert!(
        err.contains("p.taught.png") && err.contains("teach the sticks again"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    std::fs::write(here.join("p.taught.png"), picture).unwrap();

    args.pop();
    args.push("no-such-model.yml");
    let missing = run_in(here, &args);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("no-such-model.yml: no such file"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// `train --validation` renders only the looks kept for validation: a range
/// that reaches past them (into the training looks) is refused before any
/// rendering, with a message that says so.
#[test]
fn validation_looks_past_the_validation_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("val");
    let err = refused(&[
        "train",
        "--validation",
        "--first-look",
        "50",
        "--looks",
        "20",
        "--dump",
        d.to_str().unwrap(),
        "--dump-only",
    ]);
    assert!(
        err.contains("reaches past them into the training looks"),
        "{err}"
    );
    assert!(!d.exists() || std::fs::read_dir(&d).unwrap().next().is_none());
}

/// The per-stick CSV (and the experiments' bars and readings) come only from
/// stored looks: asked for in a rendering run, which would write nothing,
/// `eval` refuses before rendering and names what is missing.
#[test]
fn eval_refuses_a_csv_without_stored_looks() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sticks.csv");
    let err = refused(&[
        "eval",
        "--throws",
        "4",
        "--looks",
        "1",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(err.contains("--from-dump"), "{err}");
    assert!(!csv.exists());
}

/// A mat size that is no size is refused before any picture is read, as bad input.
#[test]
fn calibrate_refuses_a_mat_size_that_is_no_size() {
    for mat in ["circle:NaN", "circle:inf", "square:1e30", "circle:-160"] {
        let out = run_in(
            env!("CARGO_MANIFEST_DIR"),
            &[
                "calibrate",
                "--image",
                "no-such.png",
                "--mat",
                mat,
                "--out",
                "/nonexistent/p.toml",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mat}: {err}");
        assert!(
            err.contains("mat size") && err.trim().lines().count() == 1,
            "{mat}: {err}"
        );
    }
}

/// `simulate --world` writes the wider world's look that a figure of `eval
/// --world` names, not the training world's look of the same seed, so an
/// engineer can see what the station saw.
#[test]
fn simulate_writes_the_world_look_eval_names() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let seed = 1_400_349u64;
    let world = yut_sim::Look::world(seed, 320, 200);
    let seed_arg = seed.to_string();
    let common = [
        "--look", &seed_arg, "--throws", "1", "--width", "320", "--height", "200",
    ];
    for (out, world_flag) in [("world", true), ("training", false)] {
        let mut args = vec!["simulate"];
        args.extend(common);
        args.extend(["--out", out]);
        if world_flag {
            args.push("--world");
        }
        let (said, _) = yutstation_in(here, &args);
        assert!(said.contains(&seed_arg), "{said}");
    }
    let (said, _) = yutstation_in(
        here,
        &[
            "simulate", "--world", "--look", &seed_arg, "--throws", "0", "--width", "320",
            "--height", "200", "--out", "again",
        ],
    );
    assert!(said.contains(&world.mat_arg()), "{said}");
    let picture = |d: &str, f: &str| std::fs::read(here.join(d).join(f)).unwrap();
    // The same seed draws another world: its sticks and mat differ.
    assert_ne!(
        picture("world", "teach_back.png"),
        picture("training", "teach_back.png")
    );
    // And the world's look is drawn the same each time.
    assert_eq!(
        picture("world", "teach_back.png"),
        picture("again", "teach_back.png")
    );
}
