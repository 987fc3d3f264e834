//! `yutstation sensor monitor PORT`: live readings and link health, for setting up
//! the throw-height sensor (is it plugged in, does it see the sticks, is the line
//! clean?).
//!
//! Shell: the serial port and the terminal.

use crate::cli::InputError;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use yut_height_protocol::Key;
use yut_sensor::{apex_in_window, LinkState, StationMs};
use yutstation::sensor::{LinkConfig, SensorLink, StationClock};

#[derive(Subcommand)]
pub enum SensorCommand {
    /// Print live heights, each pass's apex and the link's health twice a second.
    Monitor(MonitorArgs),
}

#[derive(Args)]
pub struct MonitorArgs {
    /// Serial port of the sensor (e.g. /dev/ttyUSB0, or the simulator's link).
    pub port: PathBuf,
    /// Stop after this many seconds (default: run until interrupted).
    #[arg(long = "for", value_name = "SECONDS")]
    pub for_secs: Option<f64>,
    /// Baud rate.
    #[arg(long, default_value_t = 115_200)]
    pub baud: u32,
    /// Change a device setting once connected, e.g. `--set lens=40` (rate, lens,
    /// ceil, minstr, apex, hb). May be repeated.
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

pub fn run(command: SensorCommand) -> anyhow::Result<()> {
    match command {
        SensorCommand::Monitor(args) => monitor(args),
    }
}

fn parse_setting(s: &str) -> Result<(Key, u32), InputError> {
    let bad = || {
        InputError(format!(
            "--set {s:?}: expected KEY=VALUE with KEY one of rate, lens, ceil, minstr, apex, hb"
        ))
    };
    let (k, v) = s.split_once('=').ok_or_else(bad)?;
    let key = Key::from_token(k.trim()).ok_or_else(bad)?;
    let value: u32 = v.trim().parse().map_err(|_| bad())?;
    let (lo, hi) = key.range();
    if !(lo..=hi).contains(&value) {
        return Err(InputError(format!(
            "--set {s}: {k} must be within {lo}..={hi}"
        )));
    }
    Ok((key, value))
}

fn monitor(args: MonitorArgs) -> anyhow::Result<()> {
    let run_for = match args.for_secs {
        Some(s) if !(s.is_finite() && s >= 0.0) => {
            return Err(InputError(format!("--for {s}: expected a number of seconds >= 0")).into())
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    let settings = args
        .set
        .iter()
        .map(|s| parse_setting(s))
        .collect::<Result<Vec<_>, _>>()?;
    let clock = StationClock::new();
    let mut config = LinkConfig::new(&args.port);
    config.baud = args.baud;
    let link = SensorLink::spawn(config, clock);
    println!(
        "sensor monitor: {} at {} baud",
        args.port.display(),
        args.baud
    );

    let started = Instant::now();
    let mut settings_sent = false;
    let mut last_state = None;
    let mut shown_until: StationMs = clock.now();
    let mut pass: Option<(StationMs, StationMs)> = None;
    let mut prev_samples = 0u64;
    let tick = Duration::from_millis(500);
    loop {
        let elapsed = started.elapsed();
        let remaining = run_for.map(|d| d.saturating_sub(elapsed));
        if remaining == Some(Duration::ZERO) {
            break;
        }
        std::thread::sleep(remaining.map_or(tick, |r| r.min(tick)));
        let elapsed = started.elapsed();
        let now = clock.now();
        let health = link.health();
        if last_state != Some(health.state) {
            match (&health.state, &health.device) {
                (LinkState::Live, Some(dev)) => println!(
                    "connected: {} firmware {} sensor {} at {} Hz",
                    dev.proto, dev.firmware, dev.sensor, dev.rate_hz
                ),
                (state, _) => println!(
                    "{}{}",
                    state.as_str(),
                    health
                        .last_error
                        .as_deref()
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                ),
            }
            last_state = Some(health.state);
        }
        if health.state == LinkState::Live && !settings_sent {
            for &(key, value) in &settings {
                link.set(key, value);
            }
            settings_sent = true;
        }
        // Passes through the beam: a run of readings with a target.
        for r in link.readings(shown_until + 1, now) {
            shown_until = r.station_ms;
            match (r.height_mm, pass) {
                (Some(_), None) => pass = Some((r.station_ms, r.station_ms)),
                (Some(_), Some((from, _))) => pass = Some((from, r.station_ms)),
                (None, Some((from, to))) => {
                    pass = None;
                    let readings = link.readings(from, to);
                    if let Some(apex) = apex_in_window(&readings, from, to) {
                        let device = link
                            .device_apexes(from, now)
                            .first()
                            .map(|(_, mm)| format!(", device says {mm} mm"))
                            .unwrap_or_default();
                        println!(
                            "pass: apex {:.0} mm from {} readings over {} ms{}",
                            apex.height_mm,
                            apex.samples,
                            to - from,
                            device
                        );
                    }
                }
                (None, None) => {}
            }
        }
        let rate = (health.samples - prev_samples) as f64 / tick.as_secs_f64();
        prev_samples = health.samples;
        let height = match health.last_height_mm {
            Some(mm) => format!("{mm:>5} mm"),
            None => "    - mm".to_string(),
        };
        let hb = health
            .last_heartbeat_ms
            .map(|t| format!("{:.1} s ago", (now - t) as f64 / 1000.0))
            .unwrap_or_else(|| "never".into());
        println!(
            "{:>6.1}s {:<12} height {height} | {rate:>5.0}/s | heartbeat {hb} | checksum errors {} torn {} malformed {} unknown types {} gaps {} (lost {}) garbage {} B | sensor faults {} | reconnects {}",
            elapsed.as_secs_f64(),
            health.state.as_str(),
            health.checksum_errors,
            health.torn_lines,
            health.malformed,
            health.unknown_types,
            health.seq_gaps,
            health.lines_lost,
            health.garbage_bytes,
            health.sensor_faults,
            health.reconnects,
        );
    }
    let health = link.health();
    link.stop();
    if health.state != LinkState::Live {
        if let Some(e) = health.last_error {
            println!("last problem: {e}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_refuse_nonsense() {
        assert_eq!(parse_setting("lens=40").unwrap(), (Key::Lens, 40));
        assert!(parse_setting("rate=999").unwrap_err().0.contains("1..=250"));
        assert!(parse_setting("colour=3").is_err());
        assert!(parse_setting("rate").is_err());
    }
}
