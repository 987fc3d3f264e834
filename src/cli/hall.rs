//! `yutstation demo --mats N`: a whole tournament on one machine (a local Mosquitto,
//! the office as its own process, N rendered stations in this one), optionally with
//! faults (the broker killed twice, one station cut off, the office killed with
//! SIGKILL); and `yutstation office load`: simulated stations without rendering,
//! to measure the office (`docs/tournament.md`, "Figures").
//!
//! Shell: processes, threads, sockets, the terminal.

use super::office::{office_stream, print_standings, rebuild};
use super::station::demo_look;
use anyhow::Context;
use clap::Args;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use yut_match::{Entry, MatchLog};
use yut_tournament::roster::{sample_teams, to_csv};
use yutstation::capture::Clock;
use yutstation::journal::Journal;
use yutstation::office::broker::{free_port, LocalBroker};
use yutstation::office::store::OfficeJournal;
use yutstation::station::core::default_setup;
use yutstation::station::eyes::VisionSetup;
use yutstation::station::mqtt::{LinkConfig, MatLink};
use yutstation::station::run::{Autopilot, Options, Station};
use yutstation::station::sim_camera::SimCamera;

/// The tournament part of `demo`.
pub struct HallDemo {
    pub mats: u32,
    pub teams: usize,
    pub headless: bool,
    pub faults: bool,
    pub pieces: u8,
    pub seed: u64,
    pub width: u32,
    pub height: u32,
    pub model: PathBuf,
    pub data: PathBuf,
    pub office_listen: SocketAddr,
    pub pin: String,
}

/// The office as a child process, so it can be killed as a crash would.
struct OfficeProcess {
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
}

impl OfficeProcess {
    fn start(args: Vec<String>, log: PathBuf) -> anyhow::Result<OfficeProcess> {
        let mut p = OfficeProcess {
            args,
            log,
            child: None,
        };
        p.restart()?;
        Ok(p)
    }

    fn restart(&mut self) -> anyhow::Result<()> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)?;
        let child = Command::new(std::env::current_exe()?)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("cannot start the office")?;
        self.child = Some(child);
        Ok(())
    }

    /// SIGKILL: no goodbye, no flush.
    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }
}

impl Drop for OfficeProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// GET a JSON document over plain HTTP/1.1 (the office's API on this machine).
pub fn get_json(addr: SocketAddr, path: &str) -> anyhow::Result<Value> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .ok_or_else(|| anyhow::anyhow!("no HTTP body from {addr}{path}"))?;
    Ok(serde_json::from_str(body)?)
}

fn wait_for_office(addr: SocketAddr) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match get_json(addr, "/api/tournament") {
            Ok(v) => return Ok(v),
            Err(e) if Instant::now() > deadline => {
                return Err(e.context(format!("the office did not answer on {addr}")))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// A TCP relay between one station and the broker that can be cut: while cut it
/// swallows every byte both ways (a dead network, not a refused connection);
/// when the cut ends, connections from during the cut are closed.
struct CutRelay {
    port: u16,
    cut: Arc<AtomicBool>,
    epoch: Arc<AtomicU64>,
}

impl CutRelay {
    fn start(rt: &tokio::runtime::Handle, broker_port: u16) -> anyhow::Result<CutRelay> {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let cut: Arc<AtomicBool> = Arc::default();
        let epoch: Arc<AtomicU64> = Arc::default();
        let (c, e) = (cut.clone(), epoch.clone());
        rt.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("a listener");
            while let Ok((inbound, _)) = listener.accept().await {
                let (c, e) = (c.clone(), e.clone());
                tokio::spawn(async move {
                    let born = e.load(Ordering::SeqCst);
                    let Ok(outbound) =
                        tokio::net::TcpStream::connect(("127.0.0.1", broker_port)).await
                    else {
                        return;
                    };
                    let (mut ir, mut iw) = inbound.into_split();
                    let (mut or, mut ow) = outbound.into_split();
                    let mut a = [0u8; 16384];
                    let mut b = [0u8; 16384];
                    let mut tick = tokio::time::interval(Duration::from_millis(100));
                    use tokio::io::{AsyncReadExt, AsyncWriteExt};
                    loop {
                        if e.load(Ordering::SeqCst) != born {
                            return;
                        }
                        tokio::select! {
                            n = ir.read(&mut a) => match n {
                                Ok(0) | Err(_) => return,
                                Ok(n) => if !c.load(Ordering::SeqCst) && ow.write_all(&a[..n]).await.is_err() { return },
                            },
                            n = or.read(&mut b) => match n {
                                Ok(0) | Err(_) => return,
                                Ok(n) => if !c.load(Ordering::SeqCst) && iw.write_all(&b[..n]).await.is_err() { return },
                            },
                            _ = tick.tick() => {}
                        }
                    }
                });
            }
        });
        Ok(CutRelay { port, cut, epoch })
    }

    fn set_cut(&self, cut: bool) {
        self.cut.store(cut, Ordering::SeqCst);
        if !cut {
            self.epoch.fetch_add(1, Ordering::SeqCst);
        }
    }
}

struct RunningMat {
    mat: u32,
    station: Station,
    link: MatLink,
    dir: PathBuf,
}

fn mat_of(view: &Value, mat: u32) -> Option<&Value> {
    view["mats"]
        .as_array()?
        .iter()
        .find(|m| m["mat"].as_u64() == Some(mat as u64))
}

/// Wait until `pred(view)` holds; how long it took, or `None` after `limit`.
fn time_until(
    addr: SocketAddr,
    limit: Duration,
    pred: impl Fn(&Value) -> bool,
) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(v) = get_json(addr, "/api/tournament") {
            if pred(&v) {
                return Some(start.elapsed());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

pub fn run_hall_demo(d: HallDemo) -> anyhow::Result<()> {
    let started = Instant::now();
    std::fs::create_dir_all(&d.data)?;
    let rt = tokio::runtime::Runtime::new()?;
    let mut broker = LocalBroker::start(&d.data.join("broker"), None)?;
    let teams_csv = d.data.join("teams.csv");
    std::fs::write(&teams_csv, to_csv(&sample_teams(d.teams)))?;
    let office_dir = d.data.join("office");
    let office_args: Vec<String> = [
        "office",
        "--data",
        &office_dir.display().to_string(),
        "--broker",
        &broker.address(),
        "--listen",
        &d.office_listen.to_string(),
        "--pin",
        &d.pin,
        "--mats",
        &d.mats.to_string(),
        "--teams",
        &teams_csv.display().to_string(),
        "--pieces",
        &d.pieces.to_string(),
        "--seed",
        &d.seed.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut office = OfficeProcess::start(office_args, d.data.join("office.log"))?;
    wait_for_office(d.office_listen)?;
    println!(
        "yutstation demo: {} teams on {} mats; broker {} (log {}), office pid {} (log {}); data in {}",
        d.teams,
        d.mats,
        broker.address(),
        d.data.join("broker/mosquitto.log").display(),
        office.pid().unwrap_or(0),
        d.data.join("office.log").display(),
        d.data.display()
    );
    println!(
        "hall screen: http://{0}/tournament   office console: http://{0}/office (PIN {1})",
        d.office_listen, d.pin
    );
    // The station that will be cut off talks to the broker through a relay.
    let cut_mat = 3.min(d.mats);
    let relay = if d.faults {
        Some(CutRelay::start(rt.handle(), broker.port)?)
    } else {
        None
    };
    let mut mats = Vec::new();
    for mat in 1..=d.mats {
        let (look, detector) = demo_look(d.seed * 100 + mat as u64, d.width, d.height, &d.model)?;
        let clock = if d.headless {
            Clock::virtual_now()
        } else {
            Clock::Wall
        };
        let port = match &relay {
            Some(r) if mat == cut_mat => r.port,
            _ => broker.port,
        };
        let link = MatLink::spawn(LinkConfig::new(&format!("127.0.0.1:{port}"), mat)?)?;
        let dir = d.data.join(format!("mat-{mat}"));
        let mut station = Station::start_linked(
            Options {
                new_journal: false,
                data_dir: dir.clone(),
                clock: clock.clone(),
                vision: VisionSetup {
                    detector: Some(detector),
                    profile_path: None,
                    model_path: d.model.clone(),
                },
                pin: d.pin.clone(),
                default_setup: default_setup(),
                sensor: None,
                print_calls: false,
                autopilot: Some(Autopilot {
                    seed: d.seed + mat as u64,
                    run_games: false,
                    delay_ms: if d.headless { 0 } else { 2500 },
                }),
            },
            Some(link.port()),
        )?;
        let camera = SimCamera::new(
            look,
            d.seed * 1000 + mat as u64,
            clock,
            station.gate.clone(),
            station.truths.clone(),
        )
        .idle_wait(Duration::from_millis(40));
        station.attach_source(Box::new(camera))?;
        if !d.headless {
            let addr = SocketAddr::from(([127, 0, 0, 1], 8080 + mat as u16));
            let hub = station.hub.clone();
            rt.spawn(async move {
                match tokio::net::TcpListener::bind(addr).await {
                    Ok(l) => {
                        let _ = yutstation::station::server::serve(hub, l).await;
                    }
                    Err(e) => eprintln!("yutstation: mat {mat}: cannot serve pages on {addr}: {e}"),
                }
            });
            println!("mat {mat}: display http://{addr}/display   console http://{addr}/console");
        }
        mats.push(RunningMat {
            mat,
            station,
            link,
            dir,
        });
    }
    println!(
        "{} stations started in {:.1} s; playing",
        d.mats,
        started.elapsed().as_secs_f64()
    );
    let play_start = Instant::now();
    // The faults, by seconds after play starts.
    let mut faults: Vec<(u64, &str)> = if d.faults {
        vec![(20, "broker"), (35, "cut"), (60, "office"), (100, "broker")]
    } else {
        vec![]
    };
    let mut cut_until: Option<Instant> = None;
    // Ctrl-C stops the stations, the office and the broker in order.
    let interrupted: Arc<AtomicBool> = Arc::default();
    let flag = interrupted.clone();
    rt.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::SeqCst);
        }
    });
    let mut report: Vec<String> = Vec::new();
    let mut decided_seen = 0usize;
    let mut last_view = Value::Null;
    let mut finished = false;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        if let Ok(v) = get_json(d.office_listen, "/api/tournament") {
            let decided: Vec<&Value> = v["bracket"]
                .as_array()
                .map(|b| {
                    b.iter()
                        .filter(|f| !f["outcome"].is_null() && f["outcome"]["how"]["kind"] != "bye")
                        .collect()
                })
                .unwrap_or_default();
            if decided.len() != decided_seen {
                decided_seen = decided.len();
                println!(
                    "[{:>5.0} s] {} of {} fixtures decided",
                    play_start.elapsed().as_secs_f64(),
                    decided_seen,
                    v["bracket"].as_array().map_or(0, |b| b.len())
                );
            }
            let done = v["complete"].as_bool() == Some(true);
            last_view = v;
            if done && faults.is_empty() && cut_until.is_none() {
                finished = true;
                break;
            }
        }
        if let Some(until) = cut_until {
            if Instant::now() >= until {
                if let Some(r) = &relay {
                    r.set_cut(false);
                }
                cut_until = None;
                let back = time_until(d.office_listen, Duration::from_secs(60), |v| {
                    mat_of(v, cut_mat).is_some_and(|m| m["presence"] == "online")
                });
                let line = format!(
                    "mat {cut_mat} reconnected: shown online on the board after {}",
                    fmt_delay(back)
                );
                println!("FAULT {line}");
                report.push(line);
            }
        }
        let t = play_start.elapsed().as_secs();
        if let Some(&(at, what)) = faults.first() {
            if t < at {
                continue;
            }
            faults.remove(0);
            match what {
                "broker" => {
                    broker.kill();
                    let seen = time_until(d.office_listen, Duration::from_secs(15), |v| {
                        v["broker"] != "connected"
                    });
                    let line = format!(
                        "broker killed (SIGKILL) at {t} s: the board said the office was cut off after {}",
                        fmt_delay(seen)
                    );
                    println!("FAULT {line}");
                    report.push(line);
                    std::thread::sleep(Duration::from_secs(3));
                    broker.restart()?;
                    let back = time_until(d.office_listen, Duration::from_secs(30), |v| {
                        v["broker"] == "connected"
                            && v["mats"].as_array().is_some_and(|ms| {
                                ms.iter().filter(|m| m["presence"] == "online").count()
                                    >= (d.mats as usize)
                                        .saturating_sub(cut_until.is_some() as usize)
                            })
                    });
                    let line = format!(
                        "broker restarted after 3 s: office and every mat back on the board after {}",
                        fmt_delay(back)
                    );
                    println!("FAULT {line}");
                    report.push(line);
                }
                "cut" => {
                    if let Some(r) = &relay {
                        r.set_cut(true);
                        cut_until = Some(Instant::now() + Duration::from_secs(120));
                        let seen = time_until(d.office_listen, Duration::from_secs(30), |v| {
                            mat_of(v, cut_mat).is_some_and(|m| m["presence"] == "cut off")
                        });
                        let line = format!(
                            "mat {cut_mat} cut off from the broker at {t} s for 120 s: shown cut off on the board after {}",
                            fmt_delay(seen)
                        );
                        println!("FAULT {line}");
                        report.push(line);
                    }
                }
                _ => {
                    office.kill();
                    let line = format!("office killed (SIGKILL) at {t} s, restarted at once");
                    println!("FAULT {line}");
                    report.push(line);
                    office.restart()?;
                    let back = time_until(d.office_listen, Duration::from_secs(60), |v| {
                        v["broker"] == "connected"
                    });
                    let line = format!("office back on the board after {}", fmt_delay(back));
                    println!("FAULT {line}");
                    report.push(line);
                }
            }
        }
        if d.headless && play_start.elapsed() > Duration::from_secs(40 * 60) {
            anyhow::bail!("the tournament did not finish within 40 minutes");
        }
    }
    let play_secs = play_start.elapsed().as_secs_f64();
    if finished && !d.headless {
        println!(
            "tournament finished: the pages stay up; Ctrl-C to stop (http://{}/tournament)",
            d.office_listen
        );
        while !interrupted.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // Let the last acknowledgements arrive, then stop the stations.
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline
        && mats.iter().any(|m| {
            let s = m.link.port().status.borrow().clone();
            s.acked < s.last_id
        })
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let throws: u64 = mats
        .iter()
        .map(|m| m.station.tally.borrow().throws as u64)
        .sum();
    let auto_wrong: u64 = mats
        .iter()
        .map(|m| m.station.tally.borrow().auto_wrong as u64)
        .sum();
    let mut dirs = BTreeMap::new();
    for m in mats {
        dirs.insert(m.mat, m.dir.clone());
        m.link.stop();
        m.station.stop();
    }
    office.kill();
    drop(broker);
    if !finished {
        println!(
            "\nstopped before the end; the journals stay in {}",
            d.data.display()
        );
        return Ok(());
    }
    println!(
        "\ntournament finished: {} teams, {} mats, {throws} rendered throws ({auto_wrong} called wrong automatically) in {play_secs:.0} s of play",
        d.teams, d.mats
    );
    if !report.is_empty() {
        println!("faults:");
        for r in &report {
            println!("  {r}");
        }
    }
    verify(&office_dir, &dirs, &last_view)
}

fn fmt_delay(d: Option<Duration>) -> String {
    match d {
        Some(d) => format!("{:.1} s", d.as_secs_f64()),
        None => "NEVER (not within the limit)".into(),
    }
}

/// The floors: the final standings equal those rebuilt from the stations'
/// journals, and every station's journal reached the office once and whole.
fn verify(
    office_dir: &Path,
    stations: &BTreeMap<u32, PathBuf>,
    last_view: &Value,
) -> anyhow::Result<()> {
    let (office, problems) = OfficeJournal::open(office_dir)?;
    for p in problems {
        println!("office journal: {p}");
    }
    print_standings("final standings (office):", office.state());
    let entries = office.entries()?;
    let rebuilt = rebuild(&entries, stations)?;
    let standings_equal = rebuilt.standings() == office.state().standings();
    let bracket_equal =
        serde_json::to_value(rebuilt.bracket())? == serde_json::to_value(office.state().bracket())?;
    println!(
        "standings rebuilt from the {} station journals: {}",
        stations.len(),
        if standings_equal {
            "equal"
        } else {
            "DIFFERENT"
        }
    );
    println!(
        "bracket rebuilt from the station journals: {}",
        if bracket_equal { "equal" } else { "DIFFERENT" }
    );
    let mut whole = true;
    for (mat, dir) in stations {
        let (journal, _) = Journal::open(dir)?;
        let (recs, _) = journal.entries();
        let station: Vec<(i64, Entry)> = recs.into_iter().map(|r| (r.id, r.entry)).collect();
        let at_office = office_stream(&entries, *mat);
        let same = station == at_office;
        whole &= same;
        println!(
            "  mat {mat}: station journal {} entries, office {} entries: {}",
            station.len(),
            at_office.len(),
            if same {
                "identical, in order"
            } else {
                "DIFFERENT"
            }
        );
    }
    println!(
        "station entries recorded by the office since its last start: {}, duplicates ignored: {}",
        last_view["received"], last_view["duplicates"]
    );
    let complete = office.state().is_complete();
    if standings_equal && bracket_equal && whole && complete {
        println!("every event reached the office exactly once; the bracket is right");
        Ok(())
    } else {
        anyhow::bail!("the tournament's record does not check out (see above)")
    }
}

#[derive(Args)]
pub struct LoadArgs {
    /// Simulated stations.
    #[arg(long, default_value_t = 64)]
    pub stations: u32,
    /// Time between two entries of one station (ms). A real mat makes about one
    /// entry every 3 s (a throw, a move, now and then a call).
    #[arg(long, default_value_t = 1000)]
    pub interval_ms: u64,
    /// How long to measure (after a 5 s warm-up).
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Pieces per team.
    #[arg(long, default_value_t = 4)]
    pub pieces: u8,
}

/// Utime + stime of a process in seconds, and its resident and peak memory (kB).
fn proc_usage(pid: u32) -> Option<(f64, u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = 100.0; // USER_HZ on Linux
    let cpu = (f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / ticks;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Some((cpu, kb("VmRSS:"), kb("VmHWM:")))
}

fn percentile(v: &mut [u32], q: f64) -> u32 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

pub fn run_load(a: LoadArgs) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("yutstation-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut broker = LocalBroker::start(&dir.join("broker"), None)?;
    let teams_csv = dir.join("teams.csv");
    std::fs::write(&teams_csv, to_csv(&sample_teams(2 * a.stations as usize)))?;
    let listen = SocketAddr::from(([127, 0, 0, 1], free_port()?));
    let args: Vec<String> = [
        "office",
        "--data",
        &dir.join("office").display().to_string(),
        "--broker",
        &broker.address(),
        "--listen",
        &listen.to_string(),
        "--pin",
        "0000",
        "--mats",
        &a.stations.to_string(),
        "--teams",
        &teams_csv.display().to_string(),
        "--pieces",
        &a.pieces.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut office = OfficeProcess::start(args, dir.join("office.log"))?;
    wait_for_office(listen)?;
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let mut links = Vec::new();
    let mut threads = Vec::new();
    for mat in 1..=a.stations {
        let link = MatLink::spawn(LinkConfig::new(&broker.address(), mat)?)?;
        let port = link.port();
        let (stop, sent) = (stop.clone(), sent.clone());
        let interval = Duration::from_millis(a.interval_ms);
        threads.push(std::thread::spawn(move || {
            let mut log = MatchLog::default();
            let mut id = 0i64;
            let mut now: u64 = 1_000;
            // Spread the stations over the interval.
            std::thread::sleep(interval.mul_f64(mat as f64 / 97.0 % 1.0));
            while !stop.load(Ordering::Relaxed) {
                let t0 = Instant::now();
                now += interval.as_millis() as u64;
                port.health(now, "simulated station".into());
                let entry = match port.pending_setup(&log) {
                    Some(setup) if log.current().is_none_or(|g| g.is_over()) => {
                        Some(Entry::NewGame { at_ms: now, setup })
                    }
                    _ => yut_tournament::play::next_play(&log, mat as u64, now),
                };
                if let Some(e) = entry {
                    if log.apply(&e).is_ok() {
                        id += 1;
                        port.entry(id, &e);
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if let Some(rest) = interval.checked_sub(t0.elapsed()) {
                    std::thread::sleep(rest);
                }
            }
        }));
        links.push(link);
    }
    println!(
        "load: {} simulated stations, one entry every {} ms each, through Mosquitto {} to the office (pid {})",
        a.stations,
        a.interval_ms,
        broker.address(),
        office.pid().unwrap_or(0)
    );
    std::thread::sleep(Duration::from_secs(5));
    for l in &links {
        l.latencies.lock().expect("not poisoned").clear();
    }
    let office_pid = office.pid().unwrap_or(0);
    let broker_pid = broker.pid().unwrap_or(0);
    let (o0, _, _) = proc_usage(office_pid).unwrap_or_default();
    let (b0, _, _) = proc_usage(broker_pid).unwrap_or_default();
    let sent0 = sent.load(Ordering::Relaxed);
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(a.seconds));
    let wall = t0.elapsed().as_secs_f64();
    let (o1, rss, hwm) = proc_usage(office_pid).unwrap_or_default();
    let (b1, brss, _) = proc_usage(broker_pid).unwrap_or_default();
    let sent1 = sent.load(Ordering::Relaxed);
    let view = get_json(listen, "/api/tournament").unwrap_or(Value::Null);
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let mut rtt: Vec<u32> = links
        .iter()
        .flat_map(|l| l.latencies.lock().expect("not poisoned").clone())
        .collect();
    let acked: i64 = links.iter().map(|l| l.port().status.borrow().acked).sum();
    let last: i64 = links.iter().map(|l| l.port().status.borrow().last_id).sum();
    println!(
        "entries published in {wall:.0} s: {} ({:.1} per second); acknowledged samples {}",
        sent1 - sent0,
        (sent1 - sent0) as f64 / wall,
        rtt.len()
    );
    println!(
        "station → office journaled → acknowledgement back at the station: median {} ms, p99 {} ms, max {} ms",
        percentile(&mut rtt, 0.5),
        percentile(&mut rtt, 0.99),
        rtt.iter().max().copied().unwrap_or(0)
    );
    println!(
        "station publish → office journaled (office's view, recent): median {} ms, p99 {} ms",
        view["latency"]["median_ms"], view["latency"]["p99_ms"]
    );
    println!(
        "office CPU {:.1} % of one core, memory {} MB resident (peak {} MB); broker CPU {:.1} %, {} MB",
        100.0 * (o1 - o0) / wall,
        rss / 1024,
        hwm / 1024,
        100.0 * (b1 - b0) / wall,
        brss / 1024
    );
    println!(
        "the board's state (/api/tournament, sent to each hall screen on a change, at most 10 a second): {} kB",
        view.to_string().len() / 1024
    );
    println!(
        "acknowledged at the end: {acked} of {last} entries; fixtures decided: {}",
        view["bracket"]
            .as_array()
            .map_or(0, |b| b.iter().filter(|f| !f["outcome"].is_null()).count())
    );
    for l in links {
        l.stop();
    }
    office.kill();
    broker.kill();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
