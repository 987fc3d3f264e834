//! `yutstation station --video FILE --profile P`: a crew calibrates and teaches with
//! the command line, the station plays a real video file (MJPG AVI written here from
//! rendered frames) at its own frame rate, and the throw in it is judged and
//! journaled with its evidence, as a camera's would be. The referee's call on it
//! is a lesson the station keeps in its profile.

mod process;

use opencv::core::Size;
use opencv::imgcodecs;
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};
use process::{command, free_addr, http, wait_listening};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn yutstation(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The rendered frames as a 10 fps MJPG AVI, after `lead` frames of the empty mat
/// (time for the referee to start the game).
fn write_video(dir: &Path, lead: usize) -> std::path::PathBuf {
    let mut frames: Vec<_> = std::fs::read_dir(dir.join("sequence"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    frames.sort();
    let path = dir.join("match.avi");
    let first = imgcodecs::imread(&frames[0].to_string_lossy(), imgcodecs::IMREAD_COLOR).unwrap();
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let mut w = VideoWriter::new(
        &path.to_string_lossy(),
        fourcc,
        10.0,
        Size::new(first.cols(), first.rows()),
        true,
    )
    .unwrap();
    w.set(opencv::videoio::VIDEOWRITER_PROP_QUALITY, 95.0)
        .unwrap();
    for _ in 0..lead {
        w.write(&first).unwrap();
    }
    for f in &frames {
        let m = imgcodecs::imread(&f.to_string_lossy(), imgcodecs::IMREAD_COLOR).unwrap();
        w.write(&m).unwrap();
    }
    w.release().unwrap();
    path
}

/// A look rendered as one throw's frames (`simulate … --sequence 1`), the
/// station calibrated and taught on it with the command line as a crew would:
/// the profile's path.
fn set_up_look(d: &Path, simulate: &[&str]) -> std::path::PathBuf {
    let ds = d.to_str().unwrap();
    let mut args = vec!["simulate", "--throws", "0", "--sequence", "1", "--out", ds];
    args.extend(simulate);
    yutstation(&args);
    let mat: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("mat.json")).unwrap()).unwrap();
    let spec = format!(
        "{}:{}",
        mat["shape"].as_str().unwrap(),
        mat["size_cm"].as_f64().unwrap().floor()
    );
    let profile = d.join("hall.toml");
    let p = profile.to_str().unwrap();
    yutstation(&[
        "calibrate",
        "--image",
        &format!("{ds}/empty.png"),
        "--mat",
        &spec,
        "--out",
        p,
    ]);
    yutstation(&[
        "teach",
        "--profile",
        p,
        "--front",
        &format!("{ds}/teach_front.png"),
        "--back",
        &format!("{ds}/teach_back.png"),
        "--marked",
        &format!("{ds}/teach_marked.png"),
    ]);
    profile
}

/// A station playing the look's video (`write_video`), its game started by a
/// referee; the process, its address and the referee's token.
fn start_station(d: &Path, profile: &Path) -> (std::process::Child, SocketAddr, String) {
    let video = write_video(d, 40);
    let addr: SocketAddr = free_addr();
    let station = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["station", "--pin", "1357", "--profile"])
        .arg(profile)
        .args(["--listen", &addr.to_string(), "--data"])
        .arg(d.join("data"))
        .arg("--video")
        .arg(&video)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(addr);
    let (_, login) = http(
        addr,
        "POST",
        "/api/login",
        None,
        &json!({"pin": "1357", "who": "심판"}),
    );
    let token = login["token"].as_str().unwrap().to_string();
    for c in [json!({"kind": "new_game"}), json!({"kind": "start"})] {
        command(addr, &token, c);
    }
    (station, addr, token)
}

/// The station's state once the throw in the video is called (or after a
/// minute without a call).
fn state_once_called(addr: SocketAddr) -> Value {
    let t = Instant::now();
    loop {
        let (_, s) = http(addr, "GET", "/api/state", None, &Value::Null);
        if s["last_call"].is_object() || t.elapsed() > Duration::from_secs(60) {
            return s;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_video_file_is_judged_like_a_camera() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = set_up_look(
        d,
        &["--look", "1900032", "--width", "640", "--height", "360"],
    );
    let (mut station, addr, _) = start_station(d, &profile);
    // The throw comes 4 s into the video; wait for its call.
    let state = state_once_called(addr);
    station.kill().unwrap();
    station.wait().unwrap();
    let call = &state["last_call"];
    assert!(call.is_object(), "no call: {state}");
    assert_eq!(call["throw"], 1);
    assert!(
        call["source"] == "automatic" || call["source"] == "waiting",
        "{call}"
    );
    assert!(call["best_guess"].is_string(), "{call}");
    let hash = call["evidence"][0].as_str().unwrap();
    let evidence = std::fs::read(d.join("data/evidence").join(&hash[..2]).join(hash)).unwrap();
    assert_eq!(
        &evidence[..2],
        &[0xff, 0xd8],
        "the evidence image is kept (JPEG)"
    );
    assert_eq!(state["station"]["camera"], "ok");
}

/// A station that reads its sticks with its own taught reader (world look
/// 1 200 036: painted round faces the models never learned) learns the faces
/// of the throw the referee calls, and keeps them in its profile: a station
/// started again reads with them. The call is the referee's, confirming the
/// station's reading or, where it referred the throw, calling its best guess.
#[test]
fn the_referees_call_on_a_throw_is_learned_into_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = set_up_look(d, &["--world", "--look", "1200036"]);
    let p = profile.to_str().unwrap();
    let learned = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("learned from the referee's calls"))
            .map(str::to_string)
    };
    let before = yutstation(&["profile", "show", p]);
    assert!(
        before.contains("the station's own taught reader"),
        "the look must read with its taught reader: {before}"
    );
    assert_eq!(
        learned(&before).as_deref(),
        Some("learned from the referee's calls: 0 sticks (0 flat, 0 round)"),
        "{before}"
    );

    let (mut station, addr, token) = start_station(d, &profile);
    let state = state_once_called(addr);
    let call = &state["last_call"];
    assert!(call.is_object(), "no call: {state}");
    let best_guess = call["best_guess"]
        .as_str()
        .expect("a best guess")
        .to_string();
    assert_ne!(
        best_guess, "nak",
        "the look's throw lands on the mat: {call}"
    );
    command(
        addr,
        &token,
        json!({"kind": "call", "throw": 1, "result": best_guess}),
    );
    // The lesson is the station's vision's to take, after the call is
    // journaled: wait for the profile to change.
    let t = Instant::now();
    let after = loop {
        let shown = yutstation(&["profile", "show", p]);
        if learned(&shown) != learned(&before) || t.elapsed() > Duration::from_secs(30) {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    station.kill().unwrap();
    station.wait().unwrap();
    let line = learned(&after).unwrap();
    assert!(
        line.ends_with("the last from game 1 throw 1"),
        "the call's sticks are learned into the profile: {after}"
    );
    let sticks: usize = line
        .trim_start_matches("learned from the referee's calls: ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=4).contains(&sticks), "{line}");
}
