//! What the tournament tests share: a real Mosquitto on a free port, the real
//! office (the `yutstation office` binary, so it can be killed with SIGKILL),
//! stations that play whatever the office assigns them (the match machine, a real
//! SQLite journal and the real MQTT link; no camera), and JSON over HTTP.
#![allow(dead_code)]

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use yut_match::Entry;
use yutstation::journal::Journal;
use yutstation::office::broker::{free_port, LocalBroker};
use yutstation::station::mqtt::{LinkConfig, MatLink};

pub const BIN: &str = env!("CARGO_BIN_EXE_yutstation");

pub fn broker(dir: &Path) -> LocalBroker {
    LocalBroker::start(&dir.join("broker"), None)
        .expect("mosquitto starts (scripts/setup.sh installs Debian's mosquitto)")
}

/// The office as a child process.
pub struct Office {
    pub listen: SocketAddr,
    pub data: PathBuf,
    args: Vec<String>,
    child: Option<Child>,
}

impl Office {
    pub fn start(dir: &Path, broker: &LocalBroker, teams: usize, extra: &[&str]) -> Office {
        let csv = dir.join("teams.csv");
        std::fs::write(
            &csv,
            yut_tournament::roster::to_csv(&yut_tournament::sample_teams(teams)),
        )
        .unwrap();
        let listen = SocketAddr::from(([127, 0, 0, 1], free_port().unwrap()));
        let data = dir.join("office");
        let mut args: Vec<String> = [
            "office",
            "--data",
            &data.display().to_string(),
            "--broker",
            &broker.address(),
            "--listen",
            &listen.to_string(),
            "--pin",
            "2468",
            "--teams",
            &csv.display().to_string(),
            "--pieces",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut o = Office {
            listen,
            data,
            args,
            child: None,
        };
        o.restart();
        o
    }

    pub fn restart(&mut self) {
        self.child = Some(
            Command::new(BIN)
                .args(&self.args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while get(self.listen, "/api/tournament").is_none() {
            assert!(Instant::now() < deadline, "the office did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    pub fn state(&self) -> Value {
        get(self.listen, "/api/tournament").expect("the office answers")
    }

    /// Wait until `pred` holds on the office's state.
    pub fn until(&self, what: &str, limit: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(v) = get(self.listen, "/api/tournament") {
                if pred(&v) {
                    return v;
                }
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Office {
    fn drop(&mut self) {
        self.kill();
    }
}

pub fn get(addr: SocketAddr, path: &str) -> Option<Value> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).to_string();
    serde_json::from_str(text.split_once("\r\n\r\n")?.1).ok()
}

/// Fixtures decided by play (not byes).
pub fn decided(v: &Value) -> usize {
    v["bracket"].as_array().map_or(0, |b| {
        b.iter()
            .filter(|f| !f["outcome"].is_null() && f["outcome"]["how"]["kind"] != "bye")
            .count()
    })
}

/// A station without a camera: it accepts the office's assignments and plays them
/// to the end (one entry every `every`), journaling each entry in a real SQLite
/// journal before handing it to the real MQTT link.
pub struct PlayingStation {
    pub mat: u32,
    pub dir: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    pub link: Option<MatLink>,
}

impl PlayingStation {
    pub fn start(dir: &Path, broker_addr: &str, mat: u32, every: Duration) -> PlayingStation {
        let dir = dir.join(format!("mat-{mat}"));
        let link = MatLink::spawn(LinkConfig::new(broker_addr, mat).unwrap()).unwrap();
        let port = link.port();
        let stop: Arc<AtomicBool> = Arc::default();
        let s = stop.clone();
        let d = dir.clone();
        let thread = std::thread::spawn(move || {
            let (mut journal, _) = Journal::open(&d).unwrap();
            for rec in journal.entries().0 {
                port.entry(rec.id, &rec.entry);
            }
            let mut now = journal.log().last_at + 1000;
            while !s.load(Ordering::Relaxed) {
                now += 500;
                let log = journal.log();
                let entry = match port.pending_setup(log) {
                    Some(setup) if log.current().is_none_or(|g| g.is_over()) => {
                        Some(Entry::NewGame { at_ms: now, setup })
                    }
                    _ => yut_tournament::play::next_play(log, mat as u64, now),
                };
                if let Some(e) = entry {
                    let id = journal.append(&e).unwrap();
                    port.entry(id, &e);
                }
                std::thread::sleep(every);
            }
        });
        PlayingStation {
            mat,
            dir,
            stop,
            thread: Some(thread),
            link: Some(link),
        }
    }

    /// Stop playing and say goodbye to the broker.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        if let Some(l) = self.link.take() {
            l.stop();
        }
    }

    /// Wait until the office has acknowledged everything this station journaled.
    pub fn wait_acked(&self, limit: Duration) {
        let link = self.link.as_ref().expect("running");
        let deadline = Instant::now() + limit;
        loop {
            let s = link.port().status.borrow().clone();
            if s.acked == s.last_id {
                return;
            }
            assert!(Instant::now() < deadline, "mat {}: {s:?}", self.mat);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for PlayingStation {
    fn drop(&mut self) {
        self.stop();
    }
}
