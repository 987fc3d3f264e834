//! Kill the station mid-game (SIGKILL) and start it again on the same data
//! directory: the same game resumes, every acknowledged action is there, and the
//! clocks read on (they include the time the station was down: ADR 0050).

mod process;

use process::{command, free_addr, http, wait_listening};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const PIN: &str = "2468";

fn start(data: &std::path::Path, addr: SocketAddr) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(["station", "--no-camera", "--pin", PIN, "--listen"])
        .arg(addr.to_string())
        .arg("--data")
        .arg(data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(addr);
    child
}

fn state(addr: SocketAddr) -> Value {
    http(addr, "GET", "/api/state", None, &Value::Null).1
}

fn login(addr: SocketAddr) -> String {
    let (status, body) = http(
        addr,
        "POST",
        "/api/login",
        None,
        &json!({"pin": PIN, "who": "심판 김"}),
    );
    assert_eq!(status, 200, "{body}");
    body["token"].as_str().unwrap().to_string()
}

#[test]
fn a_station_killed_mid_game_resumes_the_same_game_with_its_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    let mut station = start(dir.path(), addr);
    let token = login(addr);
    command(addr, &token, json!({"kind": "new_game"}));
    command(addr, &token, json!({"kind": "start"}));
    // A few throws and moves, as the referee enters them with the camera off.
    for result in ["gae", "yut", "do", "geol"] {
        command(
            addr,
            &token,
            json!({"kind": "manual_throw", "result": result, "reason": "camera off"}),
        );
        loop {
            let s = state(addr);
            let legal = &s["match"]["game"]["legal"];
            if s["match"]["game"]["phase"] != "move" {
                break;
            }
            let mv = &legal[0];
            command(
                addr,
                &token,
                json!({"kind": "move", "result": mv["result"], "from": mv["from"], "to": mv["to"]}),
            );
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let before = state(addr);
    let acked = before["match"]["items"].as_array().unwrap().len();
    assert!(acked >= 6, "{before}");

    station.kill().unwrap(); // SIGKILL: no chance to tidy up
    station.wait().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let mut station = start(dir.path(), addr);
    let after = state(addr);

    assert_eq!(after["game_number"], before["game_number"], "the same game");
    assert_eq!(
        after["match"]["items"], before["match"]["items"],
        "nothing lost"
    );
    assert_eq!(
        after["match"]["game"], before["match"]["game"],
        "the same board"
    );
    assert_eq!(after["match"]["lineups"], before["match"]["lineups"]);
    // Clocks: the game clock ran on through the crash, by exactly the time between
    // the two readings.
    let clock = |s: &Value| s["match"]["game_clock_ms"].as_i64().unwrap();
    let now = |s: &Value| s["now_ms"].as_i64().unwrap();
    assert!(clock(&before) > 0);
    let ran = clock(&after) - clock(&before);
    let elapsed = now(&after) - now(&before);
    assert!(elapsed >= 1500, "{elapsed}");
    assert!(
        (ran - elapsed).abs() <= 2,
        "clock ran {ran} ms in {elapsed} ms"
    );
    assert_eq!(
        after["match"]["throw_clock"]["limit_ms"],
        before["match"]["throw_clock"]["limit_ms"]
    );

    // The game goes on: the old token died with the process, a new login works.
    let token = login(addr);
    let s = state(addr);
    if s["match"]["game"]["phase"] == "throw" {
        command(
            addr,
            &token,
            json!({"kind": "manual_throw", "result": "do", "reason": "camera off"}),
        );
    }
    let later = state(addr);
    assert!(later["match"]["items"].as_array().unwrap().len() > acked);
    station.kill().unwrap();
    station.wait().unwrap();
}

/// Run the station where it must refuse to start: its exit status and stderr.
fn refused_start(
    data: &std::path::Path,
    extra: &[&str],
    env_pin: Option<&str>,
) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_yutstation"));
    cmd.args(["station", "--no-camera", "--listen"])
        .arg(free_addr().to_string())
        .arg("--data")
        .arg(data)
        .args(extra)
        .env_remove("YUTSTATION_PIN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(pin) = env_pin {
        cmd.env("YUTSTATION_PIN", pin);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the station started with {extra:?} (env PIN {env_pin:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_second_station_on_the_same_data_is_refused_and_a_new_journal_is_explicit() {
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    let mut station = start(dir.path(), addr);
    let token = login(addr);
    let first = command(addr, &token, json!({"kind": "new_game"}))["journal_id"]
        .as_i64()
        .unwrap();
    command(addr, &token, json!({"kind": "start"}));

    let (code, err) = refused_start(dir.path(), &["--pin", PIN], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("in use by another station") && err.trim().lines().count() == 1,
        "{err}"
    );
    station.kill().unwrap();
    station.wait().unwrap();

    // The database emptied behind the station's back: lost, not a new journal.
    let db = dir.path().join("journal.sqlite3");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&db)
        .unwrap()
        .set_len(0)
        .unwrap();
    let (code, err) = refused_start(dir.path(), &["--pin", PIN], None);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("lost, not new") && err.contains("--new-journal"),
        "{err}"
    );

    // Starting afresh is a decision: the old files are kept, the ids go on.
    let mut station = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args([
            "station",
            "--no-camera",
            "--new-journal",
            "--pin",
            PIN,
            "--listen",
        ])
        .arg(addr.to_string())
        .arg("--data")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(addr);
    assert_eq!(state(addr)["game_number"], 0);
    let token = login(addr);
    let id = command(addr, &token, json!({"kind": "new_game"}))["journal_id"]
        .as_i64()
        .unwrap();
    assert!(id > first + 1, "id {id} reused");
    let aside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("set-aside-")
        })
        .collect();
    assert_eq!(aside.len(), 1);
    assert!(aside[0].join("journal.sqlite3").exists() && aside[0].join("journal.head").exists());
    station.kill().unwrap();
    station.wait().unwrap();
}

#[test]
fn a_pin_of_fewer_than_four_digits_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    for pin in ["", "    ", "7", "123", "12 34", "abcd", "１２３４"] {
        let (code, err) = refused_start(dir.path(), &["--pin", pin], None);
        assert_eq!(code, Some(2), "--pin {pin:?}: {err}");
        assert!(
            err.contains("PIN") && err.contains("4") && err.trim().lines().count() == 1,
            "{err}"
        );
    }
    let (code, err) = refused_start(dir.path(), &[], Some(""));
    assert_eq!(code, Some(2), "an empty YUTSTATION_PIN: {err}");
}
