//! The vision's measuring commands as a person runs them: stored measurements
//! (`--dump`, `--from-dump`) give the same figures as the rendering run, and a
//! model can be trained from them.

use std::process::Command;

fn yutstation(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("yutstation runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?} failed: {}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    text
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
}
