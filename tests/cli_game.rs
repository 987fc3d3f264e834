//! `yutstation game` and `demo` as a person runs them: the real binary, real files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn yutstation(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn record_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yutstation-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const EXAMPLE: &str = r#"{
  "format": "yut-record/1",
  "teams": ["청", "홍"],
  "pieces_per_team": 4,
  "options": { "thrower_rotation": "per_throw" },
  "events": [
    { "throw": "yut" },
    { "throw": "do" },
    { "move": { "result": "yut", "from": "waiting", "to": "yut" } },
    { "move": { "result": "do", "from": "yut", "to": "mo" } },
    { "throw": "backdo" },
    { "throw": "gae" }
  ]
}"#;

#[test]
fn replay_json_prints_the_documented_state() {
    let dir = scratch("json");
    let file = record_file(&dir, "example.json", EXAMPLE);
    let out = yutstation(&["game", "replay", file.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected = serde_json::json!({
      "phase": "move",
      "turn": "청",
      "pending": ["gae"],
      "throws_owed": 0,
      "teams": [
        { "name": "청", "waiting": 3, "finished": 0, "board": { "mo": 1 } },
        { "name": "홍", "waiting": 4, "finished": 0, "board": {} }
      ],
      "legal": [
        { "result": "gae", "from": "mo", "to": "dwit_gae" },
        { "result": "gae", "from": "mo", "to": "mo_gae" },
        { "result": "gae", "from": "waiting", "to": "gae" }
      ],
      "winner": null
    });
    assert_eq!(printed, expected);
}

#[test]
fn replay_for_people_draws_the_board_in_korean() {
    let dir = scratch("text");
    let file = record_file(&dir, "example.json", EXAMPLE);
    let out = yutstation(&["game", "replay", file.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "참먹이",
        "뒷모",
        "방수기",
        "[청1]",
        "모(mo) → 모개(mo_gae)",
        "개(gae)",
    ] {
        assert!(text.contains(expected), "missing {expected} in\n{text}");
    }
}

#[test]
fn illegal_and_malformed_records_exit_2_with_one_line() {
    let dir = scratch("bad");
    let cases = [
        (
            r#"{"format":"yut-record/1","teams":["청","홍"],"events":[{"throw":"yut"},{"move":{"result":"yut","from":"waiting","to":"yut"}}]}"#,
            "event 1: 청 owes a throw",
        ),
        (
            r#"{"format":"yut-record/1","teams":["청","홍"],"events":[{"throw":"bak"}]}"#,
            "event 0: unknown variant `bak`",
        ),
        (
            r#"{"format":"yut-record/1","teams":["청","홍"],"events":[{"throw":"do"},{"move":{"result":"do","from":"waiting","to":"nowhere"}}]}"#,
            "event 1: unknown station `nowhere`",
        ),
        (
            r#"{"format":"yut-record/9","teams":["청","홍"],"events":[]}"#,
            "wrong format",
        ),
        (
            r#"{"format":"yut-record/1","teams":["청","홍"],"events":[{"throw":"#,
            "not valid JSON",
        ),
    ];
    for (i, (text, phrase)) in cases.iter().enumerate() {
        let file = record_file(&dir, &format!("bad{i}.json"), text);
        let out = yutstation(&["game", "replay", file.to_str().unwrap(), "--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {i}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line, got: {stderr}");
        assert!(
            stderr.contains(phrase),
            "case {i}: `{stderr}` lacks `{phrase}`"
        );
        assert!(out.stdout.is_empty());
    }
    // A file that is not there is input to fix, like a bad one: 2 (docs: README,
    // "Exit statuses").
    let missing = yutstation(&["game", "replay", "/nonexistent/record.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent/record.json")
    );
}

/// `game replay` reads at most 1 MiB: a larger record, or an endless input, is
/// refused at once, as input to fix, without reading it whole.
#[test]
fn replay_reads_a_bounded_input() {
    let dir = scratch("bounded");
    // A valid record made large by the spaces JSON allows.
    let big = format!("{EXAMPLE}{}", " ".repeat(2 << 20));
    let file = record_file(&dir, "big.json", &big);
    let started = std::time::Instant::now();
    for path in [file.to_str().unwrap(), "/dev/zero", dir.to_str().unwrap()] {
        let out = yutstation(&["game", "replay", path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let out = yutstation(&["game", "replay", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than 1 MiB"));
    // Just under the bound, it replays.
    let fits = format!("{EXAMPLE}{}", " ".repeat(1 << 19));
    let file = record_file(&dir, "fits.json", &fits);
    assert!(yutstation(&["game", "replay", file.to_str().unwrap()])
        .status
        .success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn board_json_lists_every_station() {
    let out = yutstation(&["game", "board", "--json"]);
    assert!(out.status.success());
    let board: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let stations = board["stations"].as_array().unwrap();
    assert_eq!(stations.len(), 29);
    let bang = stations.iter().find(|s| s["id"] == "bang").unwrap();
    assert_eq!(bang["name"], "방");
    assert_eq!(bang["forward"], serde_json::json!(["sok_yut", "bangsugi"]));
    let text = yutstation(&["game", "board"]);
    let text = String::from_utf8(text.stdout).unwrap();
    let jji_mo = text
        .lines()
        .find(|l| l.starts_with("찌모(jji_mo)"))
        .unwrap();
    assert!(jji_mo.ends_with("→ 날도(nal_do)"), "{jji_mo}");
    let arrows: Vec<usize> = text
        .lines()
        .map(|l| unicode_width::UnicodeWidthStr::width(l.split('→').next().unwrap()))
        .collect();
    assert!(
        arrows.windows(2).all(|w| w[0] == w[1]),
        "arrows line up: {arrows:?}"
    );
}

#[test]
fn a_random_game_plays_to_the_end_and_its_seed_replays_it() {
    let out = yutstation(&["game", "random", "--seed", "11", "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("경기 종료 (game over)"), "{text}");
    assert!(text.contains("yutstation game random --seed 11"));
    let again = yutstation(&["game", "random", "--seed", "11", "--quiet"]);
    assert_eq!(
        again.stdout,
        text.as_bytes(),
        "a seed replays the same game"
    );
}
