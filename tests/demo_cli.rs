//! `yutstation demo` as a person runs it: pages served, the simulated height sensor
//! on a pseudo-terminal, rendered throws in real time; `--throws 1` stops it after the
//! first call, and a data directory that does not exist yet is created.

mod process;

use process::{free_addr, http};
use serde_json::Value;
use std::process::Command;

#[test]
fn the_demo_serves_the_pages_and_calls_a_throw() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("new/data");
    let addr = free_addr();
    let child = Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "demo", "--throws", "1", "--width", "640", "--height", "360", "--listen",
        ])
        .arg(addr.to_string())
        .arg("--data")
        .arg(&data)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // While it runs, the display page and the state are served.
    process::wait_listening(addr);
    let (status, _) = http(addr, "GET", "/display", None, &Value::Null);
    assert_eq!(status, 200);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("throw 1 "), "{stdout}");
    assert!(data.join("journal.sqlite3").is_file());
}
