//! The throw-height sensor's serial link, the station's shell around the pure
//! `yut_sensor` (alignment, the apex and height rule, the line receiver).
//!
//! One thread owns the serial port, opens it, greets the device,
//! feeds what arrives to the pure [`Receiver`], and reopens the port with backoff
//! when the device goes away. Everyone else reads a snapshot.
//!
//! The station never waits on the sensor: with no port, an unplugged device or a
//! device of the wrong version, [`SensorLink::check_throw`] says
//! [`Unmeasured`] and the throw is judged on the camera alone.

use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver as ChannelRx, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use yut_height_protocol::{encode, Body, Key, Message, MAX_LINE};
use yut_sensor::align::StationMs;
use yut_sensor::apex::{
    apex_in_window, check_height, HeightCheck, HeightRule, TimedHeight, Unmeasured,
};
use yut_sensor::receiver::{LinkEvent, LinkHealth, LinkState, Receiver};

/// The station's monotonic clock: milliseconds since an epoch shared by everything
/// that stamps events (camera frames, sensor readings), so their times compare.
#[derive(Debug, Clone, Copy)]
pub struct StationClock {
    epoch: Instant,
}

impl StationClock {
    pub fn new() -> Self {
        StationClock {
            epoch: Instant::now(),
        }
    }

    pub fn now(&self) -> StationMs {
        self.at(Instant::now())
    }

    /// Station time of an `Instant` (for example one reported by the simulator).
    pub fn at(&self, instant: Instant) -> StationMs {
        if instant >= self.epoch {
            instant.duration_since(self.epoch).as_millis() as StationMs
        } else {
            -(self.epoch.duration_since(instant).as_millis() as StationMs)
        }
    }
}

impl Default for StationClock {
    fn default() -> Self {
        Self::new()
    }
}

/// Exponential backoff between attempts to open the port.
#[derive(Debug, Clone)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(min: Duration, max: Duration) -> Self {
        Backoff {
            min,
            max,
            next: min,
        }
    }

    /// The wait before the next attempt; each call doubles the following one, up to
    /// the maximum.
    pub fn next_delay(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(self.max);
        d
    }

    /// A connection worked: start again from the minimum.
    pub fn reset(&mut self) {
        self.next = self.min;
    }
}

/// How to run the link.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    pub path: PathBuf,
    pub baud: u32,
    /// No line for this long on a live link: the device is gone or hung; reopen.
    pub silence_timeout: Duration,
    /// No `HELLO` for this long after opening: give up on this attempt.
    pub handshake_timeout: Duration,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// Readings older than this are forgotten.
    pub history: Duration,
}

impl LinkConfig {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        LinkConfig {
            path: path.into(),
            baud: 115_200,
            silence_timeout: Duration::from_millis(3_000),
            handshake_timeout: Duration::from_millis(2_000),
            backoff_min: Duration::from_millis(100),
            backoff_max: Duration::from_secs(5),
            history: Duration::from_secs(60),
        }
    }
}

/// What the link thread shares with the station.
#[derive(Debug, Default)]
struct LinkShared {
    health: LinkHealth,
    readings: VecDeque<TimedHeight>,
    device_apexes: VecDeque<(StationMs, u16)>,
    /// Station times at which the link went down and came back up; a throw window
    /// that overlaps a down period is not judged.
    outages: VecDeque<(StationMs, Option<StationMs>)>,
}

/// A running sensor link. Dropping it stops the thread and closes the port.
pub struct SensorLink {
    shared: Arc<Mutex<LinkShared>>,
    stop: Arc<AtomicBool>,
    commands: Sender<(Key, Option<u32>)>,
    thread: Option<JoinHandle<()>>,
    clock: StationClock,
}

impl SensorLink {
    /// Start the link thread. It never fails: a missing port is retried with backoff
    /// and shows as `disconnected` in [`SensorLink::health`].
    pub fn spawn(config: LinkConfig, clock: StationClock) -> SensorLink {
        let shared = Arc::new(Mutex::new(LinkShared::default()));
        shared
            .lock()
            .unwrap()
            .outages
            .push_back((clock.now(), None));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let thread = {
            let shared = shared.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("sensor-link".into())
                .spawn(move || Worker::new(config, clock, shared, stop, rx).run())
                .expect("spawn the sensor link thread")
        };
        SensorLink {
            shared,
            stop,
            commands: tx,
            thread: Some(thread),
            clock,
        }
    }

    fn lock(&self) -> MutexGuard<'_, LinkShared> {
        // A panicked writer leaves plain data behind; it is still worth reading.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn clock(&self) -> StationClock {
        self.clock
    }

    pub fn health(&self) -> LinkHealth {
        self.lock().health.clone()
    }

    /// Readings with station times in `[start, end]`.
    pub fn readings(&self, start: StationMs, end: StationMs) -> Vec<TimedHeight> {
        self.lock()
            .readings
            .iter()
            .filter(|r| (start..=end).contains(&r.station_ms))
            .copied()
            .collect()
    }

    /// The firmware's own apex events in `[start, end]`: (station time, mm).
    pub fn device_apexes(&self, start: StationMs, end: StationMs) -> Vec<(StationMs, u16)> {
        self.lock()
            .device_apexes
            .iter()
            .filter(|(t, _)| (start..=end).contains(t))
            .copied()
            .collect()
    }

    /// Judge a throw's height: its window (camera's first motion to the sticks at
    /// rest, station times) against the thrower's registered height in cm.
    pub fn check_throw(
        &self,
        start: StationMs,
        end: StationMs,
        required_cm: u16,
        rule: HeightRule,
    ) -> HeightCheck {
        let shared = self.lock();
        let down = shared
            .outages
            .iter()
            .any(|&(from, to)| from <= end && to.is_none_or(|to| to >= start));
        if down {
            return HeightCheck::Unmeasured(Unmeasured::LinkDown);
        }
        let readings: Vec<_> = shared.readings.iter().copied().collect();
        drop(shared);
        check_height(
            apex_in_window(&readings, start, end).as_ref(),
            required_cm,
            rule,
        )
    }

    /// Ask the device to change a setting; the answer shows in the health's last
    /// error (on refusal) or nowhere (on success).
    pub fn set(&self, key: Key, value: u32) {
        let _ = self.commands.send((key, Some(value)));
    }

    /// Stop the thread and close the port.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for SensorLink {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Why a connection ended.
enum Ended {
    Stopped,
    Lost(String),
    Incompatible,
}

struct Worker {
    config: LinkConfig,
    clock: StationClock,
    shared: Arc<Mutex<LinkShared>>,
    stop: Arc<AtomicBool>,
    commands: ChannelRx<(Key, Option<u32>)>,
    receiver: Receiver,
    seq: u16,
    was_live: bool,
}

impl Worker {
    fn new(
        config: LinkConfig,
        clock: StationClock,
        shared: Arc<Mutex<LinkShared>>,
        stop: Arc<AtomicBool>,
        commands: ChannelRx<(Key, Option<u32>)>,
    ) -> Self {
        Worker {
            config,
            clock,
            shared,
            stop,
            commands,
            receiver: Receiver::new(),
            seq: 0,
            was_live: false,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn publish(&self, events: &mut Vec<LinkEvent>) {
        let now = self.clock.now();
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        shared.health = self.receiver.health.clone();
        let horizon = now - self.config.history.as_millis() as StationMs;
        for event in events.drain(..) {
            match event {
                LinkEvent::Sample(r) => shared.readings.push_back(r),
                LinkEvent::DeviceApex {
                    height_mm,
                    station_ms,
                } => shared.device_apexes.push_back((station_ms, height_mm)),
                _ => {}
            }
        }
        while shared
            .readings
            .front()
            .is_some_and(|r| r.station_ms < horizon)
        {
            shared.readings.pop_front();
        }
        while shared.device_apexes.front().is_some_and(|a| a.0 < horizon) {
            shared.device_apexes.pop_front();
        }
        while shared.outages.len() > 1 && shared.outages[0].1.is_some_and(|to| to < horizon) {
            shared.outages.pop_front();
        }
        let live = self.receiver.health.state == LinkState::Live;
        let open_outage = shared.outages.back().is_some_and(|o| o.1.is_none());
        match (live, open_outage) {
            (true, true) => shared.outages.back_mut().unwrap().1 = Some(now),
            (false, false) => shared.outages.push_back((now, None)),
            _ => {}
        }
    }

    fn set_state(&mut self, state: LinkState, error: Option<String>) {
        self.receiver.health.state = state;
        if error.is_some() {
            self.receiver.health.last_error = error;
        }
        self.publish(&mut Vec::new());
    }

    fn sleep(&self, d: Duration) {
        let until = Instant::now() + d;
        while !self.stopped() && Instant::now() < until {
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(20)));
        }
    }

    fn run(mut self) {
        let mut backoff = Backoff::new(self.config.backoff_min, self.config.backoff_max);
        while !self.stopped() {
            let path = self.config.path.clone();
            let port = serialport::new(path.to_string_lossy(), self.config.baud)
                .timeout(Duration::from_millis(50))
                .open();
            let ended = match port {
                Ok(mut port) => {
                    let _ = port.clear(serialport::ClearBuffer::Input);
                    self.session(port.as_mut(), &mut backoff)
                }
                Err(e) => Ended::Lost(format!(
                    "no sensor at {}: {e} (plugged in? right port?)",
                    path.display()
                )),
            };
            match ended {
                Ended::Stopped => break,
                Ended::Incompatible => {
                    self.set_state(LinkState::Incompatible, None);
                    self.sleep(self.config.backoff_max);
                }
                Ended::Lost(why) => {
                    if std::mem::take(&mut self.was_live) {
                        self.receiver.health.reconnects += 1;
                    }
                    self.set_state(LinkState::Disconnected, Some(why));
                    self.sleep(backoff.next_delay());
                }
            }
        }
        self.set_state(LinkState::Disconnected, None);
    }

    fn send(&mut self, port: &mut dyn serialport::SerialPort, body: Body<'_>) -> io::Result<()> {
        let msg = Message {
            seq: self.seq,
            time_ms: self.clock.now().max(0) as u32,
            body,
        };
        self.seq = self.seq.wrapping_add(1);
        let mut buf = [0u8; MAX_LINE];
        let n = encode(&msg, &mut buf).map_err(io::Error::other)?;
        port.write_all(&buf[..n])?;
        port.flush()
    }

    fn session(&mut self, port: &mut dyn serialport::SerialPort, backoff: &mut Backoff) -> Ended {
        self.receiver.reconnected(LinkState::Handshaking);
        self.publish(&mut Vec::new());
        let opened = Instant::now();
        let mut last_hello_request: Option<Instant> = None;
        let mut events = Vec::new();
        let mut buf = [0u8; 512];
        let path = self.config.path.display().to_string();
        loop {
            if self.stopped() {
                return Ended::Stopped;
            }
            let greeted = self.receiver.greeted();
            if !greeted {
                if opened.elapsed() > self.config.handshake_timeout {
                    return Ended::Lost(format!(
                        "the device at {path} did not say HELLO within {} ms: is it a yut-height sensor at {} baud?",
                        self.config.handshake_timeout.as_millis(),
                        self.config.baud
                    ));
                }
                if last_hello_request.is_none_or(|t| t.elapsed() > Duration::from_millis(500)) {
                    last_hello_request = Some(Instant::now());
                    if let Err(e) = self.send(port, Body::HelloRequest) {
                        return Ended::Lost(format!("lost the sensor at {path}: {e}"));
                    }
                }
            } else {
                while let Ok((key, value)) = self.commands.try_recv() {
                    let body = match value {
                        Some(value) => Body::Set { key, value },
                        None => Body::Get { key },
                    };
                    if let Err(e) = self.send(port, body) {
                        return Ended::Lost(format!("lost the sensor at {path}: {e}"));
                    }
                }
            }
            match port.read(&mut buf) {
                Ok(0) => return Ended::Lost(format!("the sensor at {path} closed the line")),
                Ok(n) => {
                    self.receiver.feed(&buf[..n], self.clock.now(), &mut events);
                    if events.iter().any(|e| matches!(e, LinkEvent::Hello(_))) {
                        self.was_live = true;
                        backoff.reset();
                    }
                    let incompatible = events
                        .iter()
                        .any(|e| matches!(e, LinkEvent::Incompatible(_)));
                    self.publish(&mut events);
                    if incompatible {
                        return Ended::Incompatible;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(e) => return Ended::Lost(format!("lost the sensor at {path}: {e}")),
            }
            if greeted {
                let silent_for = self
                    .receiver
                    .health
                    .last_line_ms
                    .map(|t| self.clock.now() - t)
                    .unwrap_or(0);
                if silent_for > self.config.silence_timeout.as_millis() as StationMs {
                    return Ended::Lost(format!(
                        "the sensor at {path} went silent for {silent_for} ms; reopening"
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_resets() {
        let mut b = Backoff::new(Duration::from_millis(100), Duration::from_millis(500));
        let d: Vec<_> = (0..5).map(|_| b.next_delay().as_millis()).collect();
        assert_eq!(d, vec![100, 200, 400, 500, 500]);
        b.reset();
        assert_eq!(b.next_delay().as_millis(), 100);
    }

    #[test]
    fn station_clock_handles_instants_before_its_epoch() {
        let clock = StationClock::new();
        let before = Instant::now() - Duration::from_millis(50);
        assert!(clock.at(before) <= -49);
    }
}
