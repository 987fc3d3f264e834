//! The sensor link end to end over real pseudo-terminals: the simulator
//! (`yut-height-sim`) on the master side, the station's `SensorLink` opening the
//! slave with the `serialport` crate, exactly as it opens a USB adapter.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use yut_height_sim::{parse_script, spawn, DeviceConfig, SimEvent, SimHandle, SimOptions};
use yut_rules::yut::ThrowResult;
use yut_sensor::{apex_in_window, HeightCheck, HeightRule, LinkState, Unmeasured};
use yutstation::sensor::{LinkConfig, SensorLink, StationClock};

/// The bound on the apex error.
const APEX_TOLERANCE_MM: f64 = 10.0;

struct Throw {
    apex_mm: f64,
    start: Instant,
    end: Instant,
}

fn sim(script: &str, device: DeviceConfig, link: Option<PathBuf>) -> SimHandle {
    let steps = parse_script(script).unwrap();
    spawn(
        SimOptions {
            device,
            link,
            repeat: false,
        },
        steps,
    )
    .expect("open a pseudo-terminal")
}

/// A link to `sim` that has completed its handshake.
fn connected(sim: &SimHandle) -> (StationClock, SensorLink) {
    let clock = StationClock::new();
    let link = SensorLink::spawn(quick_config(sim.path()), clock);
    wait_for(&link, "the handshake", Duration::from_secs(5), |h| {
        h.state == LinkState::Live
    });
    (clock, link)
}

fn quick_config(path: impl Into<PathBuf>) -> LinkConfig {
    let mut c = LinkConfig::new(path);
    c.backoff_max = Duration::from_millis(400);
    c.silence_timeout = Duration::from_millis(1_200);
    c
}

/// Collect the simulator's throws until its script ends.
fn run_script(sim: &SimHandle, limit: Duration) -> (Vec<Throw>, Vec<SimEvent>) {
    let deadline = Instant::now() + limit;
    let mut throws = Vec::new();
    let mut others = Vec::new();
    while Instant::now() < deadline {
        match sim.next_event(Duration::from_millis(100)) {
            Some(SimEvent::Throw {
                apex_mm,
                start,
                end,
                ..
            }) => throws.push(Throw {
                apex_mm,
                start,
                end,
            }),
            Some(SimEvent::ScriptDone { .. }) => return (throws, others),
            Some(other) => others.push(other),
            None => {}
        }
    }
    panic!("the simulator's script did not finish within {limit:?}");
}

fn wait_for(
    link: &SensorLink,
    what: &str,
    limit: Duration,
    ok: impl Fn(&yut_sensor::LinkHealth) -> bool,
) {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if ok(&link.health()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "{what} did not happen within {limit:?}: {:?}",
        link.health()
    );
}

/// The apex the station measures for a throw, and its error against the script.
fn measured_error(link: &SensorLink, clock: &StationClock, throw: &Throw) -> f64 {
    // The camera's window: first motion a little before release, at rest a little
    // after the sticks land.
    let (start, end) = (clock.at(throw.start) - 150, clock.at(throw.end) + 400);
    let apex = apex_in_window(&link.readings(start, end), start, end)
        .unwrap_or_else(|| panic!("no apex for the throw to {} mm", throw.apex_mm));
    let err = apex.height_mm - throw.apex_mm;
    println!(
        "throw to {:.0} mm: measured {:.1} mm from {} readings (fitted: {}), error {err:+.1} mm",
        throw.apex_mm, apex.height_mm, apex.samples, apex.fitted
    );
    err
}

#[test]
fn handshake_apex_and_height_rule() {
    let sim = sim(
        "wait 400\nthrow 1650\nwait 300\nthrow 1320\nwait 300\nthrow 1880 900\nwait 500\n",
        DeviceConfig::default(),
        None,
    );
    let (clock, link) = connected(&sim);
    let dev = link.health().device.unwrap();
    assert_eq!(
        (dev.proto.as_str(), dev.firmware.as_str(), dev.rate_hz),
        ("yut-height/1", "yh-sim/0.1.0", 100)
    );

    let (throws, _) = run_script(&sim, Duration::from_secs(20));
    assert_eq!(throws.len(), 3);
    std::thread::sleep(Duration::from_millis(100));
    let mut worst: f64 = 0.0;
    for t in &throws {
        let err = measured_error(&link, &clock, t);
        worst = worst.max(err.abs());
        assert!(
            err.abs() <= APEX_TOLERANCE_MM,
            "apex error {err:.1} mm for {}",
            t.apex_mm
        );
    }
    println!("largest apex error (clean link): {worst:.1} mm");

    // The rule against a registered shoulder height of 150 cm.
    let rule = HeightRule::default();
    let window = |t: &Throw| (clock.at(t.start) - 150, clock.at(t.end) + 400);
    let (s, e) = window(&throws[0]);
    match link.check_throw(s, e, 150, rule) {
        HeightCheck::Pass { margin_cm, .. } => {
            assert!((margin_cm - 15.0).abs() <= 1.0, "{margin_cm}")
        }
        other => panic!("1650 mm against 150 cm: {other:?}"),
    }
    let (s, e) = window(&throws[1]);
    let low = link.check_throw(s, e, 150, rule);
    match low {
        HeightCheck::Violation { margin_cm, .. } => {
            assert!((margin_cm - 18.0).abs() <= 1.0, "{margin_cm}")
        }
        other => panic!("1320 mm against 150 cm: {other:?}"),
    }
    assert_eq!(low.proposal(), Some(ThrowResult::Nak));
    // A window with nothing in the beam is not judged.
    let (_, e) = window(&throws[2]);
    assert_eq!(
        link.check_throw(e + 100, e + 300, 150, rule),
        HeightCheck::Unmeasured(Unmeasured::NothingInBeam)
    );
    let h = link.health();
    assert_eq!(
        (h.checksum_errors, h.torn_lines, h.seq_gaps),
        (0, 0, 0),
        "{h:?}"
    );
    assert!(h.last_heartbeat_ms.is_some());
}

#[test]
fn damaged_lines_are_counted_and_skipped() {
    let sim = sim(
        "wait 300\ngarbage 300\ncorrupt 6\nwait 200\ntear 4\nwait 200\ndrop 0.004\nthrow 1700\nwait 300\ndrop 0\ngarbage 50\nthrow 1500 1100\nwait 1200\n",
        DeviceConfig {
            noise_mm: 4.0,
            seed: 7,
            ..DeviceConfig::default()
        },
        None,
    );
    let (clock, link) = connected(&sim);
    let (throws, _) = run_script(&sim, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(100));
    let h = link.health();
    println!("health after damage: {h:?}");
    assert_eq!(h.state, LinkState::Live, "damage must not drop the link");
    assert!(
        h.checksum_errors >= 6,
        "corrupted lines fail their checksum: {h:?}"
    );
    assert!(h.garbage_bytes >= 300, "garbage bytes counted: {h:?}");
    assert!(
        h.seq_gaps >= 1 && h.lines_lost >= h.seq_gaps,
        "gaps counted: {h:?}"
    );
    assert!(h.torn_lines >= 4, "torn lines counted: {h:?}");
    assert!(h.lines_ok > 300);
    let mut worst: f64 = 0.0;
    for t in &throws {
        let err = measured_error(&link, &clock, t);
        worst = worst.max(err.abs());
        assert!(
            err.abs() <= APEX_TOLERANCE_MM,
            "apex error {err:.1} mm on a noisy link"
        );
    }
    println!("largest apex error (damaged link): {worst:.1} mm");
}

#[test]
fn recovers_after_the_device_disappears_and_returns() {
    let dir = std::env::temp_dir().join(format!("yut-sensor-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link_path = dir.join("yut-height");
    let sim = sim(
        "wait 600\nunplug 1200\nwait 800\nthrow 1600\nwait 300\nsilence 2000\nwait 1500\nthrow 1450\nwait 600\n",
        DeviceConfig::default(),
        Some(link_path.clone()),
    );
    let clock = StationClock::new();
    let link = SensorLink::spawn(quick_config(&link_path), clock);
    wait_for(&link, "the handshake", Duration::from_secs(5), |h| {
        h.state == LinkState::Live
    });
    // Watch the states the link goes through while the script runs.
    let watcher = {
        let deadline = Instant::now() + Duration::from_secs(25);
        let mut seen = Vec::new();
        let mut throws = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "the script did not finish");
            let state = link.health().state;
            if seen.last() != Some(&state) {
                seen.push(state);
            }
            match sim.next_event(Duration::from_millis(20)) {
                Some(SimEvent::Throw {
                    apex_mm,
                    start,
                    end,
                    ..
                }) => throws.push(Throw {
                    apex_mm,
                    start,
                    end,
                }),
                Some(SimEvent::ScriptDone { .. }) => break (seen, throws),
                _ => {}
            }
        }
    };
    let (seen, throws) = watcher;
    std::thread::sleep(Duration::from_millis(100));
    println!("link states: {seen:?}");
    assert!(seen.contains(&LinkState::Disconnected), "{seen:?}");
    let h = link.health();
    assert_eq!(h.state, LinkState::Live, "{h:?}");
    assert!(
        h.reconnects >= 2,
        "unplug and silence each reconnect: {h:?}"
    );
    // Throws after each recovery are measured; a window across an outage is not.
    for t in &throws {
        let err = measured_error(&link, &clock, t);
        assert!(
            err.abs() <= APEX_TOLERANCE_MM,
            "apex error {err:.1} mm after a reconnect"
        );
    }
    let early = clock.at(Instant::now()) - 20_000;
    assert_eq!(
        link.check_throw(early, clock.now(), 140, HeightRule::default()),
        HeightCheck::Unmeasured(Unmeasured::LinkDown)
    );
    drop(link);
    drop(sim);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_station_runs_without_a_sensor() {
    let clock = StationClock::new();
    let link = SensorLink::spawn(quick_config("/nonexistent/yut-height-sensor"), clock);
    std::thread::sleep(Duration::from_millis(300));
    let h = link.health();
    assert_eq!(h.state, LinkState::Disconnected);
    let err = h.last_error.unwrap();
    assert!(
        err.contains("no sensor at /nonexistent/yut-height-sensor"),
        "{err}"
    );
    assert!(!err.contains('\n'));
    assert_eq!(
        link.check_throw(0, clock.now(), 140, HeightRule::default()),
        HeightCheck::Unmeasured(Unmeasured::LinkDown)
    );
    let started = Instant::now();
    link.stop();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "stopping must not wait out the backoff"
    );
}

#[test]
fn monitor_command_shows_the_device_and_a_pass() {
    let sim = sim(
        "wait 800\nthrow 1600\nwait 3000\n",
        DeviceConfig::default(),
        None,
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(["sensor", "monitor"])
        .arg(sim.path())
        .args(["--for", "3.5", "--set", "lens=40"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("connected: yut-height/1 firmware yh-sim/0.1.0"),
        "{stdout}"
    );
    assert!(stdout.contains("pass: apex 1"), "{stdout}");
    assert!(stdout.contains(" live "), "{stdout}");

    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_yutstation"))
        .args(["sensor", "monitor", "/dev/null", "--for", "nan"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn apex_from_a_coarse_noisy_sensor() {
    // A TF-Luna left in cm mode (10 mm steps) with 8 mm of noise: the worst case
    // the height rule's tolerance has to absorb.
    let sim = sim(
        "wait 300\nthrow 1580\nwait 300\nthrow 1745 1050\nwait 400\n",
        DeviceConfig {
            noise_mm: 8.0,
            resolution_mm: 10,
            seed: 11,
            ..DeviceConfig::default()
        },
        None,
    );
    let (clock, link) = connected(&sim);
    let (throws, _) = run_script(&sim, Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(100));
    let mut worst: f64 = 0.0;
    for t in &throws {
        let err = measured_error(&link, &clock, t);
        worst = worst.max(err.abs());
        assert!(
            err.abs() <= APEX_TOLERANCE_MM,
            "apex error {err:.1} mm from a coarse sensor"
        );
    }
    println!("largest apex error (10 mm steps, 8 mm noise): {worst:.1} mm");
}
