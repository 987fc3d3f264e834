//! `yutstation journal show|export` on a journal written through the library.

use std::process::{Command, Output};
use yut_match::synth;
use yut_rules::yut::GameRecord;
use yutstation::journal::Journal;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .expect("run the station binary")
}

#[test]
fn show_and_export_read_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    // Until the first game is over and the second has started.
    while j.log().games.len() < 2 {
        let e = synth::next_entry(j.log(), 11);
        j.append(&e).unwrap();
    }
    let games = j.log().games.clone();
    let total = j.entries().0.len();
    drop(j);

    let out = run(&["journal", "show", path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("new game: 청 [청1, 청2, 청3 | placer 청 감독]"),
        "{text}"
    );
    assert!(text.contains("#1 by 청1 (청) throw: seen"), "{text}");
    assert!(text.contains("move "));
    assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), total);
    assert!(text.contains("game 2: 청 vs 홍"));

    let out = run(&["journal", "export", path, "--game", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let record = GameRecord::parse(&text).expect("a strict yut-record/1");
    assert_eq!(record, games[0].game_record());
    assert_eq!(&record.replay().unwrap(), games[0].game());
    assert!(games[0].is_over(), "game 1 was played to the end");

    // The engine's own replay of the exported file ends where the journal does.
    let file = dir.path().join("game1.json");
    std::fs::write(&file, &text).unwrap();
    let out = run(&["game", "replay", file.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replayed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        replayed,
        serde_json::to_value(games[0].game().summary()).unwrap()
    );
    assert_eq!(replayed["phase"], "over");

    let out = run(&["journal", "export", path, "--game", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no game 3") && err.contains("1..=2"), "{err}");

    let missing = dir.path().join("nowhere");
    let out = run(&["journal", "show", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("no journal in"));
}
