//! `yutstation stats DATA_DIR` and the replay clips' `journal export --clips`,
//! `journal clips` and `journal prune-clips`, on journals written through the
//! library.

use std::process::{Command, Output};
use yut_match::{Action, Entry, MatchEvent, Verdict};
use yut_rules::yut::ThrowResult;
use yutstation::journal::{EvidenceStore, Journal};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .expect("run the station binary")
}

fn text(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn stats_flag_a_marked_stick_that_lands_flat_far_more_often() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    for e in yut_insight::simulate::entries([0.9, 0.5, 0.5, 0.5], 150, 3) {
        j.append(&e).unwrap();
    }
    drop(j);
    let out = text(run(&["stats", path, "--line-playouts", "50"]));
    assert!(out.contains("sticks read 150 (counted)"), "{out}");
    assert!(out.contains("시험 윷: 150 throws"), "{out}");
    assert!(
        out.contains("FLAG: the marked stick differs from its three siblings"),
        "{out}"
    );
    assert!(
        out.contains("by thrower:") && out.contains("시험 윷 / 청1"),
        "{out}"
    );
    assert!(out.contains("win chances over game"), "{out}");

    let csv = text(run(&["stats", path, "--csv", "-"]));
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("group,set,mat,thrower,throws,marked_up,marked_share"));
    let set = lines.next().unwrap();
    assert!(set.starts_with("set,\"시험 윷\",\"\",\"\",150,"), "{set}");
    assert!(set.ends_with(&format!(
        "MarkedVsSiblings,{}",
        set.rsplit(',').next().unwrap()
    )));
    assert_eq!(
        header.split(',').count(),
        set.split(',').count(),
        "one cell per column"
    );

    // A bad expected share is the user's to fix: status 2, one line.
    let out = run(&["stats", path, "--expected-share", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn clips_are_exported_then_pruned_and_stills_stay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    let still = j.put_evidence(b"still picture").unwrap();
    let clip = j.put_evidence(b"a clip's bytes").unwrap();
    j.append(&Entry::NewGame {
        at_ms: 1,
        setup: yutstation::station::core::default_setup(),
    })
    .unwrap();
    j.append(&Entry::Event(MatchEvent::new(2, Action::Start)))
        .unwrap();
    let verdict = Verdict {
        evidence: vec![still.clone()],
        clip: Some(clip.clone()),
        ..Verdict::entered(ThrowResult::Gae)
    };
    j.append(&Entry::Event(MatchEvent::new(3, Action::Throw { verdict })))
        .unwrap();
    drop(j);

    let listed = text(run(&["journal", "clips", path]));
    assert!(
        listed.contains("1 throws, 1 with a clip, 1 clips on disk"),
        "{listed}"
    );
    assert!(listed.contains("a day of play"), "{listed}");

    // Nothing exported yet: nothing pruned.
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().to_str().unwrap();
    let pruned = text(run(&[
        "journal",
        "prune-clips",
        path,
        "--exported",
        out_path,
    ]));
    assert!(pruned.starts_with("0 clip(s) pruned"), "{pruned}");

    text(run(&[
        "journal", "export", path, "--game", "1", "--clips", out_path,
    ]));
    let copy = out_dir.path().join("game-1-throw-1.webm");
    assert_eq!(std::fs::read(&copy).unwrap(), b"a clip's bytes");
    let pruned = text(run(&[
        "journal",
        "prune-clips",
        path,
        "--exported",
        out_path,
    ]));
    assert!(pruned.starts_with("1 clip(s) pruned"), "{pruned}");

    let store = EvidenceStore::new(dir.path().join("evidence"));
    assert!(!store.contains(&clip), "the clip is gone");
    assert!(store.contains(&still), "the still stays");
    let (j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        j.log()
            .current()
            .unwrap()
            .throws()
            .next()
            .unwrap()
            .verdict
            .clip,
        Some(clip),
        "the journal keeps the reference"
    );
    let listed = text(run(&["journal", "clips", path]));
    assert!(listed.contains("pruned or missing"), "{listed}");
}
