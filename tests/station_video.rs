//! `yutstation station --video FILE --profile P`: a crew calibrates and teaches with
//! the command line, the station plays a real video file (MJPG AVI written here from
//! rendered frames) at its own frame rate, and the throw in it is judged and
//! journaled with its evidence, as a camera's would be.

mod process;

use opencv::core::Size;
use opencv::imgcodecs;
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};
use process::{free_addr, http, wait_listening};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn yutstation(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
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

#[test]
fn a_video_file_is_judged_like_a_camera() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ds = d.to_str().unwrap();
    yutstation(&[
        "simulate",
        "--look",
        "1900032",
        "--throws",
        "0",
        "--sequence",
        "1",
        "--width",
        "640",
        "--height",
        "360",
        "--out",
        ds,
    ]);
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
    let video = write_video(d, 40);

    let addr: SocketAddr = free_addr();
    let mut station = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "station",
            "--pin",
            "1357",
            "--profile",
            p,
            "--listen",
            &addr.to_string(),
            "--data",
        ])
        .arg(d.join("data"))
        .arg("--video")
        .arg(&video)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_listening(addr);
    let t = Instant::now();
    let (_, login) = http(
        addr,
        "POST",
        "/api/login",
        None,
        &json!({"pin": "1357", "who": "심판"}),
    );
    let token = login["token"].as_str().unwrap().to_string();
    for c in [json!({"kind": "new_game"}), json!({"kind": "start"})] {
        let (status, body) = http(
            addr,
            "POST",
            "/api/command",
            Some(&token),
            &json!({ "command": c }),
        );
        assert_eq!(status, 200, "{body}");
    }
    // The throw comes 4 s into the video; wait for its call.
    let state = loop {
        let (_, s) = http(addr, "GET", "/api/state", None, &Value::Null);
        if s["last_call"].is_object() || t.elapsed() > Duration::from_secs(60) {
            break s;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
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
