//! `yut-height-sim`: a throw-height sensor that speaks `yut-height/1` on a
//! pseudo-terminal, so the station (and its tests) can be exercised end to end
//! without hardware.
//!
//! The device itself ([`model::DeviceModel`]) is pure; [`spawn`] runs it in real time
//! on a pty pair, following a [`Step`] script: throws with known apex heights,
//! noise, dropped bytes, garbage, corrupted lines, silences and unplugs. With
//! [`SimOptions::link`] set, the current pty is always reachable through one stable
//! symlink, the way udev's `/dev/serial/by-id/...` names a USB adapter, so an unplug
//! followed by a replug lands on the same path with a new pty behind it.

pub mod model;
pub mod script;

pub use model::{Arc, DeviceConfig, DeviceModel};
pub use script::{parse_script, Step};

use serialport::{SerialPort, TTYPort};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc as Shared;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How to run the simulator.
#[derive(Debug, Clone, Default)]
pub struct SimOptions {
    pub device: DeviceConfig,
    /// A stable symlink to the current pty (replaced on every replug).
    pub link: Option<PathBuf>,
    /// Run the script again and again instead of idling after it.
    pub repeat: bool,
}

/// What happened, with real times, for tests to compare the station's view against.
#[derive(Debug, Clone, PartialEq)]
pub enum SimEvent {
    /// The device is plugged in and talking at `path` (the pty; see also `link`).
    Plugged {
        path: PathBuf,
        at: Instant,
    },
    /// A throw: its arc's apex in mm and when it began, peaked and ended.
    Throw {
        apex_mm: f64,
        release_mm: f64,
        start: Instant,
        apex: Instant,
        end: Instant,
    },
    Unplugged {
        at: Instant,
    },
    /// The script has run to its end (once per pass).
    ScriptDone {
        at: Instant,
    },
}

/// A running simulator. Dropping it stops the device and removes its symlink.
pub struct SimHandle {
    stop: Shared<AtomicBool>,
    thread: Option<JoinHandle<io::Result<()>>>,
    events: Receiver<SimEvent>,
    first_path: PathBuf,
    link: Option<PathBuf>,
    inject: Sender<Step>,
}

impl SimHandle {
    /// Run `step` as soon as the script (if any) has ended: a live-driven device,
    /// for a station demo whose throws happen when the match says so.
    pub fn inject(&self, step: Step) {
        let _ = self.inject.send(step);
    }

    /// Where the station should open the device: the symlink if one was asked for,
    /// otherwise the first pty's path.
    pub fn path(&self) -> &Path {
        self.link.as_deref().unwrap_or(&self.first_path)
    }

    /// Wait for the next event, at most `timeout`.
    pub fn next_event(&self, timeout: Duration) -> Option<SimEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Stop the device and wait for its thread.
    pub fn stop(mut self) -> io::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> io::Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        let result = match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("simulator panicked"))),
            None => Ok(()),
        };
        if let Some(link) = &self.link {
            let _ = std::fs::remove_file(link);
        }
        result
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// A pty pair; the slave end stays open here so the master never sees a hang-up
/// while no station has the port open.
struct Pty {
    master: TTYPort,
    _slave: TTYPort,
    path: PathBuf,
}

fn plug(link: Option<&Path>) -> io::Result<Pty> {
    let (master, slave) = TTYPort::pair().map_err(io::Error::other)?;
    let path = PathBuf::from(
        slave
            .name()
            .ok_or_else(|| io::Error::other("pty without a name"))?,
    );
    if let Some(link) = link {
        // Replace atomically, as udev does: a station retrying never sees a half state.
        let tmp = link.with_extension("new");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&path, &tmp)?;
        std::fs::rename(&tmp, link)?;
    }
    Ok(Pty {
        master,
        _slave: slave,
        path,
    })
}

/// Start the simulator in a thread. Returns once the first pty exists.
pub fn spawn(options: SimOptions, script: Vec<Step>) -> io::Result<SimHandle> {
    let pty = plug(options.link.as_deref())?;
    let first_path = pty.path.clone();
    let stop = Shared::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let _ = tx.send(SimEvent::Plugged {
        path: pty.path.clone(),
        at: Instant::now(),
    });
    let link = options.link.clone();
    let (inject, injected) = mpsc::channel();
    let thread = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("yut-height-sim".into())
            .spawn(move || Runner::new(options, pty, tx, stop).run(&script, injected))?
    };
    Ok(SimHandle {
        stop,
        thread: Some(thread),
        events: rx,
        first_path,
        link,
        inject,
    })
}

struct Runner {
    options: SimOptions,
    device: DeviceModel,
    pty: Option<Pty>,
    booted: Instant,
    next_tick: Instant,
    events: Sender<SimEvent>,
    stop: Shared<AtomicBool>,
    out: Vec<u8>,
}

impl Runner {
    fn new(
        options: SimOptions,
        pty: Pty,
        events: Sender<SimEvent>,
        stop: Shared<AtomicBool>,
    ) -> Self {
        let now = Instant::now();
        Runner {
            device: DeviceModel::new(options.device.clone()),
            options,
            pty: Some(pty),
            booted: now,
            next_tick: now,
            events,
            stop,
            out: Vec::new(),
        }
    }

    fn uptime_ms(&self, at: Instant) -> u64 {
        at.duration_since(self.booted).as_millis() as u64
    }

    fn period(&self) -> Duration {
        Duration::from_micros(1_000_000 / self.device.config().rate_hz.max(1) as u64)
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn run(mut self, script: &[Step], injected: Receiver<Step>) -> io::Result<()> {
        let t = self.uptime_ms(Instant::now());
        self.device.hello(t, &mut self.out);
        self.flush();
        loop {
            for step in script {
                if self.stopped() {
                    return Ok(());
                }
                self.step(step)?;
            }
            let _ = self
                .events
                .send(SimEvent::ScriptDone { at: Instant::now() });
            if !self.options.repeat {
                break;
            }
        }
        while !self.stopped() {
            match injected.try_recv() {
                Ok(step) => self.step(&step)?,
                Err(_) => self.tick_for(Duration::from_millis(20), true),
            }
        }
        Ok(())
    }

    fn step(&mut self, step: &Step) -> io::Result<()> {
        match *step {
            Step::Wait(d) => self.tick_for(d, true),
            Step::Throw {
                apex_mm,
                release_mm,
            } => {
                let now = Instant::now();
                let arc = self.device.throw(self.uptime_ms(now), release_mm, apex_mm);
                let rise = Duration::from_secs_f64(arc.rise_ms() / 1000.0);
                let start = self.booted + Duration::from_millis(arc.start_ms);
                let _ = self.events.send(SimEvent::Throw {
                    apex_mm,
                    release_mm,
                    start,
                    apex: start + rise,
                    end: start + 2 * rise,
                });
                while self.device.throwing() && !self.stopped() {
                    self.tick_for(self.period(), true);
                }
            }
            Step::Garbage(n) => {
                // Line noise: random bytes, never a '$' (that would be a torn line,
                // which `corrupt` and `drop` already make).
                let mut x = 0x9E37_79B9u32 ^ n as u32;
                for _ in 0..n {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let b = (x & 0xff) as u8;
                    self.out.push(if b == b'$' { b'#' } else { b });
                }
                self.flush();
            }
            Step::Corrupt(n) => self.device.corrupt_lines(n),
            Step::Tear(n) => self.device.tear_lines(n),
            Step::Noise(mm) => self.device.set_noise(mm),
            Step::Drop(p) => self.device.set_drop(p),
            Step::Silence(d) => self.tick_for(d, false),
            Step::Unplug(d) => {
                self.pty = None;
                if let Some(link) = &self.options.link {
                    let _ = std::fs::remove_file(link);
                }
                let _ = self.events.send(SimEvent::Unplugged { at: Instant::now() });
                self.sleep(d);
                let pty = plug(self.options.link.as_deref())?;
                let _ = self.events.send(SimEvent::Plugged {
                    path: pty.path.clone(),
                    at: Instant::now(),
                });
                self.pty = Some(pty);
                // USB power cycles the board: a new boot, a new clock, a new hello.
                let mut cfg = self.options.device.clone();
                cfg.seed = cfg.seed.wrapping_add(1);
                self.options.device.seed = cfg.seed;
                self.device = DeviceModel::new(cfg);
                self.booted = Instant::now();
                self.next_tick = self.booted;
                self.device.hello(0, &mut self.out);
                self.flush();
            }
        }
        Ok(())
    }

    fn sleep(&self, d: Duration) {
        let until = Instant::now() + d;
        while !self.stopped() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            std::thread::sleep((until - now).min(Duration::from_millis(20)));
        }
    }

    /// Run sample periods for `d`. A silent device (`talk == false`) is hung: it
    /// says nothing and ignores the station's commands.
    fn tick_for(&mut self, d: Duration, talk: bool) {
        let until = Instant::now() + d;
        while !self.stopped() && Instant::now() < until {
            if self.next_tick < Instant::now() - Duration::from_millis(200) {
                // Fell far behind (a loaded machine): skip ahead rather than burst.
                self.next_tick = Instant::now();
            }
            self.listen_until(self.next_tick, talk);
            if talk {
                let t = self.uptime_ms(self.next_tick);
                self.device.tick(t, &mut self.out);
                self.flush();
            }
            self.next_tick += self.period();
        }
    }

    /// Read the station's commands until `deadline`; answer them if `answer`.
    fn listen_until(&mut self, deadline: Instant, answer: bool) {
        let mut buf = [0u8; 256];
        loop {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            let Some(pty) = self.pty.as_mut() else {
                std::thread::sleep(deadline - now);
                return;
            };
            let _ = pty.master.set_timeout(deadline - now);
            match pty.master.read(&mut buf) {
                Ok(n) if n > 0 && answer => {
                    let t = self.uptime_ms(Instant::now());
                    self.device.receive(t, &buf[..n], &mut self.out);
                    self.flush();
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::TimedOut => return,
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Send what the device produced. A full pty buffer (nobody reading) drops the
    /// bytes, as a UART does.
    fn flush(&mut self) {
        if let Some(pty) = self.pty.as_mut() {
            let _ = pty.master.set_timeout(Duration::from_millis(2));
            let _ = pty.master.write_all(&self.out);
        }
        self.out.clear();
    }
}
