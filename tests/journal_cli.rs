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

/// Names and notes come from people: `journal show` prints them so that none can
/// forge a line or send the terminal an escape, and its times are dates.
#[test]
fn show_prints_names_and_notes_safely_with_readable_times() {
    use yut_match::{Action, MatchEvent, MatchSetup, Player, Posture, TeamSetup};
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    let team = |name: &str, p: &str| TeamSetup {
        name: name.into(),
        throwers: (1..=3)
            .map(|i| Player::thrower(&format!("{p}{i}"), Posture::Standing, 100))
            .collect(),
        placer: Player::placer(&format!("{p}-coach")),
    };
    let at = 1_764_556_800_000; // 2025-12-01 02:40:00 UTC
    j.append(&yut_match::Entry::NewGame {
        at_ms: at,
        setup: MatchSetup::new([
            team("청\n#99       forged line", "a"),
            team("홍\u{1b}[2J\u{1b}[31m", "b"),
        ]),
    })
    .unwrap();
    let mut start = MatchEvent::new(at + 1500, Action::Start);
    start.by = Some("심판\r#100 also forged\u{7}".into());
    start.note = Some("line one\nline two\u{9b}31m".into());
    j.append(&yut_match::Entry::Event(start)).unwrap();
    drop(j);

    let out = run(&["journal", "show", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached the terminal: {text:?}"
    );
    let entries: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(entries.len(), 2, "{text}");
    assert!(entries[0].starts_with("#1 "), "{text}");
    assert!(entries[1].starts_with("#2 "), "{text}");
    assert!(text.contains(r"청\n#99       forged line"), "{text}");
    assert!(text.contains(r"홍\u{1b}[2J"), "{text}");
    assert!(text.contains(r"line one\nline two"), "{text}");
    assert!(
        text.contains("2025-12-01 02:40:01.500"),
        "a date, not hours since 1970: {text}"
    );
}

/// Exit statuses: 2 for input the user can fix (no journal there), 1 for a
/// journal found damaged or lost (what could be read is still printed).
#[test]
fn show_exits_1_on_a_damaged_or_lost_journal_and_2_on_none() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    for _ in 0..20 {
        let e = synth::next_entry(j.log(), 4);
        j.append(&e).unwrap();
    }
    drop(j);
    let path = dir.path().to_str().unwrap();
    let db = dir.path().join(yutstation::journal::DB_FILE);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .unwrap()
        .set_len(0)
        .unwrap();
    for args in [
        &["journal", "show", path][..],
        &["journal", "export", path, "--game", "1"],
    ] {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("lost") && err.lines().count() == 1, "{err}");
    }
}
