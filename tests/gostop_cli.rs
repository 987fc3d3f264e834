//! `yutstation gostop score|simulate`, run as a built binary on sheets in a temp dir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn yutstation(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .expect("run yutstation")
}

fn sample(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gostop")
        .join(name)
        .display()
        .to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn sheet(winner_cards: &str, other_cards: &str, go: u32) -> String {
    let ids = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    serde_json::json!({
        "format": "gostop-score/1",
        "preset": "tongilan",
        "players": ["갑", "을", "병"],
        "winner": "갑",
        "captured": { "갑": ids(winner_cards), "을": ids(other_cards) },
        "go": go,
        "shakes": 0
    })
    .to_string()
}

#[test]
fn score_prints_a_breakdown_citing_articles() {
    let out = yutstation(&["gostop", "score", &sample("tongilan-pibak-threego.json")]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "winner 을",
        "[제2장 5조]",
        "멍텅 x2 [제2장 4조]",
        "쓰리고 x2 [제2장 9조]",
        "흔들이 x2 [제2장 10조]",
        "피박 (피 4 < 6) x2 [제2장 6조]",
        "pays 176",
        "pays 88",
        "total paid to 을: 264",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from\n{text}");
    }
}

#[test]
fn score_json_is_the_documented_settlement() {
    let out = yutstation(&["gostop", "score", &sample("common-matgo.json"), "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "gostop-settlement/1");
    assert_eq!(v["preset"], "common");
    assert_eq!(v["winner"], "갑");
    assert_eq!(v["needed"], 7);
    assert_eq!(v["points"]["total"], 12);
    assert_eq!(v["base"], 13);
    let lines = v["points"]["lines"].as_array().unwrap();
    assert!(lines.iter().all(|l| l["article"] == "common"));
    let loser = &v["losers"][0];
    assert_eq!(loser["player"], "을");
    let kinds: Vec<&str> = loser["multipliers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["gwangbak", "gobak"]);
    assert_eq!(loser["pays"], 52);
    assert_eq!(v["total_paid"], 52);
}

#[test]
fn the_rules_page_sample_scores_8_from_each_loser() {
    let out = yutstation(&["gostop", "score", &sample("tongilan-sample.json"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total_paid"], 16);
}

#[test]
fn impossible_sheets_exit_2_with_one_line_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<&str> = yut_rules::gostop::Card::ALL
        .iter()
        .map(|c| c.id())
        .collect();
    let cases = [
        (
            "twice.json",
            sheet("1광 3광 8광", "3광", 0),
            "card 3광 appears twice (갑 and 을)",
        ),
        (
            "unknown.json",
            sheet("1광 3광 8광 13광", "", 0),
            "unknown card id \"13광\" in 갑's pile",
        ),
        (
            "many.json",
            sheet(&all.join(" "), "1광", 0),
            "49 cards captured, more than the 48 of a deck",
        ),
        (
            "below.json",
            sheet("1광 3광 12광", "", 0),
            "winner 갑 has 2 points, below the 3 needed",
        ),
        (
            "below-go.json",
            sheet("1광 3광 8광", "", 2),
            "winner 갑 has 3 points, below the 5 needed",
        ),
        (
            "broken.json",
            "{\"format\": ".to_string(),
            "not a gostop-score/1 sheet",
        ),
    ];
    for (name, text, expected) in cases {
        let path = write(dir.path(), name, &text);
        let out = yutstation(&["gostop", "score", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{name}: one line, got {err:?}");
        assert!(err.contains(expected), "{name}: {err:?} lacks {expected:?}");
        assert!(err.contains(name), "{name}: names the file: {err:?}");
        assert!(out.stdout.is_empty());
    }
    let missing = dir.path().join("missing.json");
    let out = yutstation(&["gostop", "score", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn simulate_is_reproducible_and_reports_a_rate() {
    let run = || {
        let out = yutstation(&[
            "gostop",
            "simulate",
            "--seed",
            "7",
            "--players",
            "4",
            "--hands",
            "200",
            "--json",
        ]);
        assert!(out.status.success(), "{out:?}");
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["hands_per_second"].as_f64().unwrap() > 0.0);
        let obj = v.as_object_mut().unwrap();
        obj.remove("seconds");
        obj.remove("hands_per_second");
        v
    };
    let a = run();
    assert_eq!(a, run(), "same seed, same hands");
    assert_eq!(a["hands"], 200);
    let ended: u64 = [
        "stops",
        "draws",
        "misdeals",
        "four_card",
        "five_gwang",
        "three_seolsa",
    ]
    .iter()
    .map(|k| a[k].as_u64().unwrap())
    .sum();
    assert_eq!(ended, 200);
    assert!(a["sit_outs"].as_u64().unwrap() > 0, "one of four sits out");

    let out = yutstation(&[
        "gostop",
        "simulate",
        "--seed",
        "1",
        "--players",
        "3",
        "--hands",
        "20",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("20 hands, 3 players"), "{text}");
    assert!(
        text.contains("(in 0 hands with a sit-out)"),
        "nobody sits out at 3: {text}"
    );
    assert!(text.contains("hands simulated per second"), "{text}");
}

#[test]
fn simulate_refuses_a_table_of_six() {
    let out = yutstation(&["gostop", "simulate", "--seed", "1", "--players", "6"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("seats 2 to 5"), "{err}");
}
