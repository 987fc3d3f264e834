//! The reference firmware (`firmware-bridge/firmware/`), built and checked from
//! `cargo test`:
//! - its pure C (LiDAR frames, apex, protocol, device logic) is compiled with the
//!   host's gcc and its unit tests run;
//! - conformance: the C device's output for a simulated throw (with a damaged
//!   LiDAR frame and a clock about to wrap), and its answers to commands encoded
//!   here in Rust, all decode with this crate;
//! - the AVR image is built with Debian's gcc-avr/avr-libc and must fit an
//!   ATmega328P (skipped, saying so, where avr-gcc is not installed).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use yut_height_protocol::{
    decode_line, encode, Body, Frame, Key, LineFramer, Message, MAX_LINE, PROTOCOL,
};

fn firmware_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware")
}

fn build_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn make(target: &str, build: &Path) -> std::process::Output {
    Command::new("make")
        .arg("-C")
        .arg(firmware_dir())
        .arg(target)
        .arg(format!("BUILD={}", build.display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run make (install build-essential): {e}"))
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

#[test]
fn host_unit_tests_pass_and_output_conforms() {
    let build = build_dir("firmware-host");
    let out = make("test", &build);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "firmware host tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    println!("{}", stdout.lines().last().unwrap_or_default());

    // Commands from the station, encoded by this crate.
    let mut commands = Vec::new();
    for (seq, body) in [
        (40, Body::HelloRequest),
        (
            41,
            Body::Set {
                key: Key::Lens,
                value: 55,
            },
        ),
        (42, Body::Get { key: Key::Lens }),
        (
            43,
            Body::Set {
                key: Key::Apex,
                value: 7,
            },
        ),
    ] {
        let mut buf = [0u8; MAX_LINE];
        let n = encode(
            &Message {
                seq,
                time_ms: 0,
                body,
            },
            &mut buf,
        )
        .unwrap();
        commands.extend_from_slice(&buf[..n]);
    }
    commands.extend_from_slice(b"$YH,44,0,SET,lens,1*00\r\n"); // bad checksum

    let mut child = Command::new(build.join("test_host"))
        .arg("--emit")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&commands).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());

    let mut framer = LineFramer::new();
    let mut lines = Vec::new();
    for &b in &out.stdout {
        match framer.push(b) {
            Some(Frame::Line(l)) => lines.push(l.to_vec()),
            Some(other) => panic!("firmware output broke framing: {other:?}"),
            None => {}
        }
    }
    assert_eq!(framer.garbage_bytes(), 0);
    let msgs: Vec<Message<'_>> = lines
        .iter()
        .map(|l| decode_line(l).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(l))))
        .collect();

    // Sequence numbers count up by one, times run across the 2^32 wrap.
    for pair in msgs.windows(2) {
        assert_eq!(pair[1].seq, pair[0].seq.wrapping_add(1));
    }
    assert!(
        msgs.iter().any(|m| m.time_ms > 4_000_000_000) && msgs.iter().any(|m| m.time_ms < 1_000)
    );
    match msgs[0].body {
        Body::Hello(h) => assert_eq!((h.proto, h.sensor), (PROTOCOL, "TF-Luna")),
        other => panic!("first line is not HELLO: {other:?}"),
    }
    let heights: Vec<u16> = msgs
        .iter()
        .filter_map(|m| match m.body {
            Body::Sample { height_mm, .. } => height_mm,
            _ => None,
        })
        .collect();
    let best = *heights.iter().max().unwrap();
    assert!((1705..=1712).contains(&best), "highest sample {best}");
    let apex: Vec<_> = msgs
        .iter()
        .filter_map(|m| match m.body {
            Body::Apex { height_mm, .. } => Some(height_mm),
            _ => None,
        })
        .collect();
    assert_eq!(apex, vec![best], "one pass, its apex = the highest reading");
    let answers: Vec<_> = msgs
        .iter()
        .filter(|m| matches!(m.body, Body::Ack { .. } | Body::Error { .. }))
        .map(|m| m.body)
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert!(matches!(
        answers[0],
        Body::Ack {
            ref_seq: 41,
            key: Key::Lens,
            value: 55
        }
    ));
    assert!(matches!(
        answers[1],
        Body::Ack {
            ref_seq: 42,
            key: Key::Lens,
            value: 55
        }
    ));
    assert!(matches!(
        answers[2],
        Body::Error {
            ref_seq: Some(43),
            ..
        }
    ));
    assert!(matches!(answers[3], Body::Error { ref_seq: None, .. }));
    assert_eq!(
        msgs.iter()
            .filter(|m| matches!(m.body, Body::Hello(_)))
            .count(),
        2,
        "boot hello and the answer to HELLO"
    );
}

#[test]
fn avr_image_builds_and_fits_an_atmega328p() {
    if !have("avr-gcc") {
        eprintln!("SKIPPED: avr-gcc not found; install gcc-avr avr-libc binutils-avr (scripts/debian-packages.txt) to build the firmware image");
        return;
    }
    let build = build_dir("firmware-avr");
    let out = make("avr", &build);
    assert!(
        out.status.success(),
        "AVR build failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let hex = std::fs::read_to_string(build.join("yut-height.hex")).unwrap();
    assert!(hex.starts_with(':') && hex.trim_end().ends_with(":00000001FF"));
    // avr-size: text data bss. Flash 32 KiB less the 2 KiB bootloader; RAM 2 KiB,
    // of which at least 512 bytes must stay free for the stack.
    let size = Command::new("avr-size")
        .arg(build.join("yut-height.elf"))
        .output()
        .unwrap();
    let size = String::from_utf8_lossy(&size.stdout);
    let numbers: Vec<u32> = size
        .lines()
        .find(|l| l.contains("yut-height.elf"))
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|n| n.parse().unwrap())
        .collect();
    let (text, data, bss) = (numbers[0], numbers[1], numbers[2]);
    println!(
        "AVR image: flash {} B, static RAM {} B",
        text + data,
        data + bss
    );
    assert!(text + data <= 30 * 1024);
    assert!(data + bss <= 2048 - 512);
}
