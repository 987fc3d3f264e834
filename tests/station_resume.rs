//! Kill the station mid-game (SIGKILL) and start it again on the same data
//! directory: the same game resumes, every acknowledged action is there, and the
//! clocks read on (they include the time the station was down: ADR 0050).

mod process;

use process::{free_addr, http, wait_listening};
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

fn command(addr: SocketAddr, token: &str, command: Value) -> Value {
    let (status, body) = http(
        addr,
        "POST",
        "/api/command",
        Some(token),
        &json!({ "command": command }),
    );
    assert_eq!(status, 200, "{command}: {body}");
    body
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
