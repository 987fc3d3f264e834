//! The shell: start the station's tasks and join them with channels.
//!
//! ```text
//! source thread ──frames──▶ vision thread ──Seen──▶ core thread ──▶ watch<Published> ──▶ web server
//!   (camera, video,            (tracker,              (journal,                 ▲
//!    rendered footage)          detector)              match, clock)   requests ┘ (commands, calibration)
//! ```
//!
//! The core thread owns the journal: every change is checked by the fold, written
//! durably, then published. It holds no rules of its own; it asks `journal`,
//! `referee` and [`super::core`].

use super::command::{self, signed, Command};
use super::core::{self as decide, throw_gate, ThrowGate};
use super::eyes::{self, Ask, Seen, VisionInput, VisionSetup};
use super::hub::{Hub, Published, Request};
use super::insight::{self, Insight};
use super::mqtt::LinkPort;
use super::sim_camera::RenderedThrow;
use super::view::{self, Health};
use crate::capture::{Clock, FrameSource};
use crate::journal::{EvidenceStore, Journal};
use crate::sensor::SensorLink;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::sync::watch;
use yut_match::{Action, MatchEvent, MatchSetup, Millis};
use yut_match::{Entry, MatchLog};
use yut_rules::yut::{Phase, ThrowResult};
use yut_sensor::HeightRule;

/// The demo's stand-ins: who plays the placer and the referee when nobody does.
#[derive(Debug, Clone)]
pub struct Autopilot {
    pub seed: u64,
    /// Register and start a game by itself (and the next one when a game ends).
    pub run_games: bool,
    /// How long the stand-ins wait before acting (ms of station time), so a person
    /// at the console can act first. 0 on a virtual clock.
    pub delay_ms: Millis,
}

/// How to run a station.
pub struct Options {
    pub data_dir: PathBuf,
    /// Start a new journal, setting the old one aside (`--new-journal`).
    pub new_journal: bool,
    pub clock: Clock,
    pub vision: VisionSetup,
    /// The referee PIN.
    pub pin: String,
    pub default_setup: MatchSetup,
    pub sensor: Option<SensorLink>,
    /// Print every call in the terminal.
    pub print_calls: bool,
    pub autopilot: Option<Autopilot>,
}

/// A running station.
pub struct Station {
    pub hub: Hub,
    /// The match's throw gate (for a rendered camera).
    pub gate: watch::Receiver<ThrowGate>,
    /// Rendered truths go here (for a rendered camera).
    pub truths: mpsc::Sender<RenderedThrow>,
    /// What the demo's scorekeeper counted so far.
    pub tally: watch::Receiver<Tally>,
    /// The win chances and stick fairness, as the insight task works them out.
    pub insight: watch::Receiver<Arc<Insight>>,
    core_tx: mpsc::Sender<CoreMsg>,
    /// What the vision thread sends the core (see [`Station::sightings`]).
    seen: mpsc::Sender<Seen>,
    threads: Vec<JoinHandle<()>>,
    frames: Option<SyncSender<VisionInput>>,
    /// Tells the capture thread to stop.
    stopping: Arc<std::sync::atomic::AtomicBool>,
    /// Each capture thread's end (its sender drops when it returns).
    capture_ended: Vec<std::sync::mpsc::Receiver<()>>,
    clock: Clock,
    asks: Option<mpsc::Sender<Ask>>,
    /// Set by the core when the station has been set up: the capture thread
    /// then locks the camera's controls.
    lock_controls: Arc<std::sync::atomic::AtomicBool>,
}

/// The demo's count of calls against the rendered truth.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub throws: u32,
    /// Called automatically and right / wrong (a silent error).
    pub auto_right: u32,
    pub auto_wrong: u32,
    /// Sent to the referee (and called by the stand-in).
    pub referred: u32,
    /// The camera made no call (the stand-in entered the throw by hand).
    pub missed: u32,
    pub games_finished: u32,
    /// Calls refused by the rules (should stay 0).
    pub refused: u32,
}

enum CoreMsg {
    Request(Request),
    /// The insight task has new win chances.
    Insight,
    Seen(Seen),
    Truth(RenderedThrow),
    Stop,
}

impl Station {
    /// Open the journal, start the vision and core threads. Frames come from
    /// [`Station::attach_source`].
    pub fn start(opts: Options) -> anyhow::Result<Station> {
        Station::start_linked(opts, None)
    }

    /// [`Station::start`] with a link to the tournament office: every entry the core
    /// appends (and every one already in the journal) goes to `link`, the stand-ins
    /// accept the office's assignments, and the link's state is in the station's
    /// health (`docs/tournament.md`).
    pub fn start_linked(opts: Options, link: Option<LinkPort>) -> anyhow::Result<Station> {
        super::auth::check_pin(&opts.pin)?;
        let (journal, problems) = if opts.new_journal {
            let (journal, problems, aside) = Journal::open_new(&opts.data_dir)?;
            if let Some(aside) = aside {
                eprintln!(
                    "yutstation: a new journal; the old one is kept in {}",
                    aside.display()
                );
            }
            (journal, problems)
        } else {
            Journal::open(&opts.data_dir)?
        };
        if let Some(port) = &link {
            for rec in journal.entries().0 {
                port.entry(rec.id, &rec.entry);
            }
        }
        let evidence = Arc::new(EvidenceStore::new(opts.data_dir.join("evidence")));
        let mut health = Health::default();
        for p in &problems {
            health.problem(p.to_string());
            eprintln!("yutstation: {p}");
        }
        if journal.refuses_writing().is_some() {
            health.journal = if problems
                .iter()
                .any(|p| matches!(p, crate::journal::Problem::Damaged { .. }))
            {
                "read-only: the journal is damaged".into()
            } else {
                "read-only: acknowledged events are missing or changed".into()
            };
        }
        health.sensor = if opts.sensor.is_some() {
            "connecting".into()
        } else {
            "none".into()
        };
        let now = opts.clock.now().max(journal.log().last_at);
        let (published_tx, published) = watch::channel(Arc::new(Published::default()));
        let (gate_tx, gate) = watch::channel(throw_gate(journal.log(), now));
        let (tally_tx, tally) = watch::channel(Tally::default());
        let (live_tx, live) = watch::channel(None);
        let (requests_tx, mut requests_rx) = tokio::sync::mpsc::channel::<Request>(64);
        let (core_tx, core_rx) = mpsc::channel::<CoreMsg>();
        let (seen_tx, seen_rx) = mpsc::channel::<Seen>();
        let (asks_tx, asks_rx) = mpsc::channel::<Ask>();
        let (frames_tx, frames_rx) = mpsc::sync_channel::<VisionInput>(1);
        let (truth_tx, truth_rx) = mpsc::channel::<RenderedThrow>();
        let mut threads = Vec::new();
        if opts.vision.detector.is_some() {
            health.vision = "empty".into();
        }

        // Forward the web server's requests, the vision's sightings and the rendered
        // truths to the core, which reads one channel.
        forward(
            "requests",
            std::iter::from_fn(move || requests_rx.blocking_recv()),
            core_tx.clone(),
            CoreMsg::Request,
        )?;
        forward("seen", seen_rx, core_tx.clone(), CoreMsg::Seen)?;
        let seen = seen_tx.clone();
        forward("truths", truth_rx, core_tx.clone(), CoreMsg::Truth)?;
        // The insight task: win chances and stick fairness, off the core thread.
        let fairness = insight::fairness_config(&opts.data_dir).unwrap_or_else(|e| {
            health.problem(format!("{e}; the defaults are used"));
            Default::default()
        });
        let (logs_tx, logs_rx) = mpsc::channel::<Arc<MatchLog>>();
        let (insight_tx, insight_rx) = watch::channel(Arc::new(Insight::default()));
        let wake = std::sync::Mutex::new(core_tx.clone());
        threads.push(
            std::thread::Builder::new()
                .name("insight".into())
                .spawn(move || {
                    insight::run(logs_rx, fairness, insight_tx, || {
                        if let Ok(core) = wake.lock() {
                            let _ = core.send(CoreMsg::Insight);
                        }
                    })
                })?,
        );
        let setup = opts.vision;
        let stopping: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let stop_vision = stopping.clone();
        threads.push(
            std::thread::Builder::new()
                .name("vision".into())
                .spawn(move || {
                    eyes::run(setup, frames_rx, asks_rx, seen_tx, live_tx, stop_vision)
                })?,
        );
        let lock_controls: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let mut core = Core {
            lock_controls: lock_controls.clone(),
            journal,
            clock: opts.clock.clone(),
            seq: 0,
            health,
            default_setup: opts.default_setup,
            published: published_tx,
            gate: gate_tx,
            tally: tally_tx,
            asks: asks_tx.clone(),
            sensor: opts.sensor,
            print_calls: opts.print_calls,
            autopilot: opts.autopilot.map(|a| Pilot {
                rng: StdRng::seed_from_u64(a.seed),
                cfg: a,
                since: now,
            }),
            truths: VecDeque::new(),
            last_call_key: None,
            last_call: None,
            motion_ms: None,
            logs: logs_tx,
            insight: insight_rx.clone(),
            appended: 0,
            sent_logs: None,
            link,
        };
        core.publish(true);
        threads.push(
            std::thread::Builder::new()
                .name("core".into())
                .spawn(move || core.run(core_rx))?,
        );
        Ok(Station {
            hub: Hub {
                published,
                requests: requests_tx,
                live,
                evidence,
                pin: opts.pin.into(),
                insight: insight_rx.clone(),
            },
            gate,
            truths: truth_tx,
            tally,
            insight: insight_rx,
            core_tx,
            seen,
            threads,
            frames: Some(frames_tx),
            stopping,
            capture_ended: Vec::new(),
            clock: opts.clock,
            asks: Some(asks_tx),
            lock_controls,
        })
    }

    /// The channel the vision thread reports on. Another judge (a second camera's
    /// vision, or a test standing in for the vision) may report on it too.
    pub fn sightings(&self) -> mpsc::Sender<Seen> {
        self.seen.clone()
    }

    /// Feed frames from `source` on a thread of their own until it ends.
    pub fn attach_source(&mut self, mut source: Box<dyn FrameSource>) -> anyhow::Result<()> {
        let frames = self
            .frames
            .clone()
            .ok_or_else(|| anyhow::anyhow!("the station is stopping"))?;
        let block = self.clock.is_virtual();
        let core_tx = self.core_tx.clone();
        let what = source.describe();
        let stopping = self.stopping.clone();
        let lock = self.lock_controls.clone();
        let _ = core_tx.send(CoreMsg::Seen(Seen::Status("camera ok")));
        let _ = core_tx.send(CoreMsg::Seen(Seen::Controls(source.controls())));
        eprintln!("yutstation: frames from {what}");
        // Not joined at stop: a device read may block; the thread ends at its next
        // frame (it sees `stopping`) or with the process. `stop` waits a moment
        // for it, so a source still decoding or rendering with OpenCV does not
        // meet OpenCV's teardown at exit.
        let (ended_tx, ended_rx) = std::sync::mpsc::channel::<()>();
        self.capture_ended.push(ended_rx);
        std::thread::Builder::new()
            .name("capture".into())
            .spawn(move || loop {
                let _ended = &ended_tx;
                if stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                if lock.swap(false, std::sync::atomic::Ordering::SeqCst) {
                    let states = source.lock_controls();
                    let _ = core_tx.send(CoreMsg::Seen(Seen::Controls(states)));
                }
                match source.next_frame() {
                    Ok(Some(frame)) => {
                        let input = VisionInput::Frame(frame);
                        if block {
                            if frames.send(input).is_err() {
                                return;
                            }
                        } else {
                            // A live camera never waits for the vision: a frame that
                            // finds the vision busy is dropped, the next one is fresher.
                            match frames.try_send(input) {
                                Ok(()) | Err(TrySendError::Full(_)) => {}
                                Err(TrySendError::Disconnected(_)) => return,
                            }
                        }
                    }
                    Ok(None) => {
                        let _ = frames.send(VisionInput::End(None));
                        return;
                    }
                    Err(e) => {
                        let _ = frames.send(VisionInput::End(Some(e.to_string())));
                        return;
                    }
                }
            })?;
        Ok(())
    }

    /// Stop every thread (the journal is already durable).
    pub fn stop(mut self) {
        let _ = self.core_tx.send(CoreMsg::Stop);
        self.stopping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.frames = None;
        self.asks = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        for ended in self.capture_ended.drain(..) {
            let _ = ended.recv_timeout(std::time::Duration::from_secs(3));
        }
    }
}

struct Pilot {
    cfg: Autopilot,
    rng: StdRng,
    /// When the match last changed: the stand-ins wait `delay_ms` after it.
    since: Millis,
}

struct Core {
    /// Tells the capture thread to lock the camera's controls.
    lock_controls: Arc<std::sync::atomic::AtomicBool>,
    journal: Journal,
    clock: Clock,
    seq: u64,
    health: Health,
    default_setup: MatchSetup,
    published: watch::Sender<Arc<Published>>,
    gate: watch::Sender<ThrowGate>,
    tally: watch::Sender<Tally>,
    asks: mpsc::Sender<Ask>,
    sensor: Option<SensorLink>,
    print_calls: bool,
    autopilot: Option<Pilot>,
    truths: VecDeque<RenderedThrow>,
    last_call_key: Option<(u32, u32, Option<ThrowResult>, &'static str)>,
    /// The newest call as published: the seq that made it, and its JSON.
    last_call: Option<(u64, Arc<str>)>,
    /// When the current throw's sticks were first seen moving (station time).
    motion_ms: Option<Millis>,
    /// The folded journal goes to the insight task after every append.
    logs: mpsc::Sender<Arc<MatchLog>>,
    insight: watch::Receiver<Arc<Insight>>,
    /// Appends so far, and how many the insight task was last sent.
    appended: u64,
    sent_logs: Option<u64>,
    /// The tournament office's link, when the station plays in a tournament.
    link: Option<LinkPort>,
}

/// How long a rendered throw may go without a camera call before the demo's
/// stand-in referee enters it by hand.
const MISSED_AFTER_MS: Millis = 8_000;

impl Core {
    fn now(&self) -> Millis {
        self.clock.now().max(self.journal.log().last_at)
    }

    fn run(mut self, rx: mpsc::Receiver<CoreMsg>) {
        let tick = Duration::from_millis(if self.clock.is_virtual() { 5 } else { 250 });
        let mut last_beat = self.now();
        loop {
            let changed = match rx.recv_timeout(tick) {
                Ok(CoreMsg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(CoreMsg::Request(r)) => self.request(r),
                Ok(CoreMsg::Insight) => true,
                Ok(CoreMsg::Seen(s)) => self.seen(s),
                Ok(CoreMsg::Truth(t)) => {
                    self.truths.push_back(t);
                    false
                }
                Err(RecvTimeoutError::Timeout) => false,
            };
            let piloted = self.pilot();
            let now = self.now();
            if changed || piloted {
                self.publish(true);
                last_beat = now;
            } else if now >= last_beat + 1000 {
                // Clocks move: republish with the new time (the same seq).
                self.publish(false);
                last_beat = now;
            }
        }
    }

    fn append(&mut self, entry: Entry) -> Result<i64, String> {
        let id = self.journal.append(&entry).map_err(|e| e.to_string())?;
        self.appended += 1;
        if let Some(link) = &self.link {
            link.entry(id, &entry);
        }
        if let Some(p) = &mut self.autopilot {
            p.since = entry.at_ms();
        }
        self.teach_from_call(&entry);
        Ok(id)
    }

    /// A referee's call, once journaled, is a lesson for the vision: the
    /// throw's evidence names the sticks it was read from.
    fn teach_from_call(&self, entry: &Entry) {
        let Entry::Event(MatchEvent {
            action: Action::Call { throw, result },
            ..
        }) = entry
        else {
            return;
        };
        let log = self.journal.log();
        let Some(game) = log.current() else {
            return;
        };
        let Some(record) = game.throws().find(|t| t.number == *throw) else {
            return;
        };
        if let Some(evidence) = record.verdict.evidence.first() {
            let _ = self.asks.send(Ask::Learn {
                evidence: evidence.clone(),
                called: *result,
                from: format!("game {} throw {}", log.game_number(), throw),
            });
        }
    }

    fn request(&mut self, r: Request) -> bool {
        match r {
            Request::Command { by, command, reply } => {
                let result = self.command(&by, &command);
                // Publish before acknowledging: whoever was told "done" sees it.
                if result.is_ok() {
                    self.publish(true);
                }
                let _ = reply.send(result);
                false
            }
            Request::Calibrate {
                by,
                step,
                mat,
                camera_height_cm,
                reply,
            } => {
                eprintln!("yutstation: calibration step {step:?} by {by}");
                let _ = self.asks.send(Ask::Calibrate {
                    step,
                    by,
                    mat,
                    camera_height_cm,
                    reply,
                });
                false
            }
        }
    }

    fn command(&mut self, by: &str, command: &Command) -> Result<i64, String> {
        let now = self.now();
        let entry = command::to_entry(
            command,
            self.journal.log().current(),
            &self.default_setup,
            by,
            now,
        )
        .map_err(|e| e.to_string())?;
        self.append(entry)
    }

    fn seen(&mut self, s: Seen) -> bool {
        match s {
            Seen::Status(st) => {
                if st == "camera ok" {
                    self.health.camera = "ok".into();
                } else {
                    self.health.vision = st.into();
                    if st == "moving" {
                        self.motion_ms = Some(self.now());
                    }
                }
                true
            }
            Seen::PickedUpBeforeCall { at_ms } => {
                self.health.problem(format!(
                    "{}: the sticks were picked up before the call",
                    crate::text::utc_text(at_ms)
                ));
                true
            }
            Seen::SourceEnded { reason } => {
                match reason {
                    Some(r) => {
                        self.health.camera = format!("lost: {r}");
                        eprintln!("yutstation: {r}");
                    }
                    None => self.health.camera = "ended".into(),
                }
                true
            }
            Seen::ProfileChanged { message } => {
                self.health.vision = "empty".into();
                eprintln!("yutstation: {message}");
                // Set up: the camera's exposure, white balance and focus are
                // kept where they are, so the empty-mat picture stays valid.
                self.lock_controls
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                true
            }
            Seen::Controls(states) => {
                self.health.controls = states;
                true
            }
            Seen::CameraMoved { at_ms, reason } => {
                self.health.vision = "stopped: the camera moved".into();
                self.health.camera_moved = Some(view::CameraMoved {
                    at_ms,
                    reason: reason.clone(),
                });
                self.health.problem(format!(
                    "{}: {reason}; automatic calls stopped: enter throws by hand, and re-check at /calibrate",
                    crate::text::utc_text(at_ms)
                ));
                eprintln!(
                    "yutstation: {reason}; automatic calls stopped until a re-check at /calibrate"
                );
                true
            }
            Seen::CameraBack { message } => {
                self.health.vision = "empty".into();
                self.health.camera_moved = None;
                eprintln!("yutstation: {message}");
                self.lock_controls
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                true
            }
            Seen::Judged {
                verdict,
                evidence,
                sticks,
                clip,
                motion_ms,
                still_ms,
                judged_ms,
            } => self.judged(
                verdict,
                evidence,
                sticks,
                clip,
                (motion_ms, still_ms, judged_ms),
            ),
        }
    }

    fn judged(
        &mut self,
        verdict: yut_vision::ThrowReading,
        evidence: Vec<u8>,
        sticks: Option<yut_match::SticksRead>,
        clip: Option<Vec<u8>>,
        (motion_ms, still_ms, judged_ms): (Millis, Millis, Millis),
    ) -> bool {
        let Some(game) = self.journal.log().current() else {
            self.health
                .problem("a throw was seen but no game is registered".into());
            return true;
        };
        let next = game.next_thrower();
        let evidence = match self.journal.put_evidence(&evidence) {
            Ok(h) => Some(h),
            Err(e) => {
                self.health.problem(format!("evidence not stored: {e}"));
                None
            }
        };
        let height = match (&self.sensor, next) {
            (Some(link), Some(n)) => {
                let required = game
                    .lineup(n.team)
                    .thrower(n.slot)
                    .stance
                    .map(|s| s.height_cm)
                    .unwrap_or(0);
                // The window: from well before the sticks reached the mat to their rest.
                // The sensor stamps on its own monotonic clock: map station time onto it.
                let offset = self.clock.now() as i64 - link.clock().now();
                let start = motion_ms.saturating_sub(3000) as i64 - offset;
                link.check_throw(
                    start,
                    still_ms as i64 - offset,
                    required,
                    HeightRule::default(),
                )
            }
            _ => yut_sensor::check_without_sensor(),
        };
        let mut v = decide::referee_verdict(&verdict, evidence, &height);
        v.sticks = sticks;
        // The clip beside the still: a clip that cannot be stored loses nothing
        // of the call, only the replay.
        v.clip = clip.and_then(|bytes| match self.journal.put_evidence(&bytes) {
            Ok(h) => Some(h),
            Err(e) => {
                self.health.problem(format!("replay clip not stored: {e}"));
                None
            }
        });
        let at = judged_ms.max(self.journal.log().last_at);
        let truth = self.truths.pop_front();
        let entry = Entry::Event(MatchEvent::new(at, Action::Throw { verdict: v.clone() }));
        match self.append(entry) {
            Ok(_) => {
                let mut t = self.tally.borrow().clone();
                t.throws += 1;
                match (v.automatic_call(), truth.as_ref()) {
                    (Some(r), Some(truth)) if r == truth.truth.result => t.auto_right += 1,
                    (Some(_), Some(_)) => t.auto_wrong += 1,
                    (None, _) => t.referred += 1,
                    (Some(_), None) => {}
                }
                self.tally.send_replace(t);
                if let Some(truth) = truth {
                    // The stand-in referee needs the truth until the throw is called.
                    if v.automatic_call().is_none() {
                        self.truths.push_front(truth);
                    }
                }
            }
            Err(e) => {
                let mut t = self.tally.borrow().clone();
                t.refused += 1;
                self.tally.send_replace(t);
                self.health
                    .problem(format!("camera call not recorded: {e}"));
                eprintln!("yutstation: camera call not recorded: {e}");
            }
        }
        true
    }

    /// The demo's stand-ins act when it is their turn and nobody else has.
    fn pilot(&mut self) -> bool {
        let now = self.now();
        let Some(p) = &mut self.autopilot else {
            return false;
        };
        if now < p.since + p.cfg.delay_ms {
            return false;
        }
        let station = self.journal.log();
        let by = "demo".to_string();
        // In a tournament the stand-in referee accepts the office's next match
        // once the mat is free.
        let assigned = self
            .link
            .as_ref()
            .and_then(|l| l.pending_setup(station))
            .filter(|_| station.current().is_none_or(|m| m.is_over()));
        let entry = match station.current() {
            _ if assigned.is_some() => assigned.map(|setup| Entry::NewGame { at_ms: now, setup }),
            None if p.cfg.run_games => Some(Entry::NewGame {
                at_ms: now,
                setup: self.default_setup.clone(),
            }),
            None => None,
            Some(m) if m.is_over() => {
                if p.cfg.run_games && now >= p.since + p.cfg.delay_ms * 3 {
                    Some(Entry::NewGame {
                        at_ms: now,
                        setup: self.default_setup.clone(),
                    })
                } else {
                    None
                }
            }
            Some(m) if !m.started() => (p.cfg.run_games || m.setup().fixture.is_some())
                .then(|| signed(now, &by, Action::Start, String::new())),
            Some(m) if m.timeout_running(now).is_some() => None,
            Some(m) => {
                if m.awaiting_call().is_some() {
                    let truth = self
                        .truths
                        .front()
                        .filter(|t| t.game == station.game_number())
                        .map(|t| t.truth.result);
                    decide::stand_in_call(m, truth).map(|(throw, result)| {
                        signed(
                            now,
                            &by,
                            Action::Call { throw, result },
                            "demo stand-in referee: the rendered truth".into(),
                        )
                    })
                } else if m.game().phase() == Phase::Throw {
                    // A rendered throw the camera never called.
                    let missed = self
                        .truths
                        .front()
                        .filter(|t| now >= t.at_ms + MISSED_AFTER_MS)
                        .map(|t| t.truth.result);
                    missed.map(|result| {
                        signed(
                            now,
                            &by,
                            Action::Throw {
                                verdict: yut_match::Verdict::manual(result),
                            },
                            "the camera made no call: entered by the demo stand-in referee".into(),
                        )
                    })
                } else {
                    decide::auto_move(m.game(), &mut p.rng)
                        .map(|mv| signed(now, &by, Action::Move(mv), String::new()))
                }
            }
        };
        let Some(entry) = entry else { return false };
        let kind = match &entry {
            Entry::Event(MatchEvent {
                action: Action::Call { .. },
                ..
            }) => Some(false),
            Entry::Event(MatchEvent {
                action: Action::Throw { .. },
                ..
            }) => Some(true),
            _ => None,
        };
        let was_over = station.current().is_some_and(|m| m.is_over());
        match self.append(entry) {
            Ok(_) => {
                let mut t = self.tally.borrow().clone();
                match kind {
                    Some(false) => {
                        self.truths.pop_front();
                    }
                    Some(true) => {
                        self.truths.pop_front();
                        t.throws += 1;
                        t.missed += 1;
                    }
                    None => {}
                }
                if !was_over && self.journal.log().current().is_some_and(|m| m.is_over()) {
                    t.games_finished += 1;
                }
                self.tally.send_replace(t);
                true
            }
            Err(e) => {
                self.health.problem(format!("demo: {e}"));
                eprintln!("yutstation: demo stand-in refused: {e}");
                if let Some(p) = &mut self.autopilot {
                    p.since = now;
                }
                true
            }
        }
    }

    /// Publish the state; `change` bumps the sequence number.
    fn publish(&mut self, change: bool) {
        if change {
            self.seq += 1;
        }
        let now = self.now();
        if let Some(link) = &self.sensor {
            let h = link.health();
            self.health.sensor = match (&h.state, &h.last_error) {
                (yut_sensor::LinkState::Live, _) => "ok".into(),
                (state, Some(e)) => format!("{}: {e}", state.as_str()),
                (state, None) => state.as_str().into(),
            };
        }
        if let Some(link) = &self.link {
            let status = link.status.borrow().clone();
            let h = &self.health;
            link.health(
                now,
                format!(
                    "camera {}, vision {}, journal {}",
                    h.camera, h.vision, h.journal
                ),
            );
            self.health.tournament = Some(view::TournamentLink {
                mat: status.mat,
                broker: status.broker,
                unacknowledged: status.last_id - status.acked,
                next: link.pending_setup(self.journal.log()),
            });
        }
        let station = self.journal.log();
        if self.sent_logs != Some(self.appended) {
            self.sent_logs = Some(self.appended);
            let _ = self.logs.send(Arc::new(station.clone()));
        }
        let win = self.insight.borrow().win.clone().map(|mut w| {
            w.current = w.game == station.game_number()
                && w.key == format!("{:016x}", insight::position_key(station));
            w
        });
        let json = view::state_json_with(station, now, self.seq, &self.health, win.as_ref());
        let call = station.current().and_then(view::last_call);
        let key = call
            .as_ref()
            .map(|c| (station.game_number(), c.throw, c.result, c.source));
        if change && key.is_some() && key != self.last_call_key {
            self.last_call_key = key;
            let c = call.expect("key implies a call");
            if self.print_calls {
                print_call(station, &c);
            }
            self.last_call = Some((
                self.seq,
                Arc::from(serde_json::to_string(&c).expect("calls serialise")),
            ));
        }
        self.published.send_replace(Arc::new(Published {
            seq: self.seq,
            state_json: json.into(),
            call_json: self.last_call.as_ref().map(|(_, c)| c.clone()),
            call_seq: self.last_call.as_ref().map_or(0, |(seq, _)| *seq),
        }));
        self.gate.send_if_modified(|g| {
            let new = throw_gate(station, now);
            let differs = *g != new;
            *g = new;
            differs
        });
    }
}

/// Pass everything from `from` to the core until either side closes.
fn forward<T: Send + 'static>(
    name: &str,
    from: impl IntoIterator<Item = T> + Send + 'static,
    to: mpsc::Sender<CoreMsg>,
    wrap: fn(T) -> CoreMsg,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            for item in from {
                if to.send(wrap(item)).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

fn print_call(station: &MatchLog, c: &view::CallView) {
    let team = station
        .current()
        .map(|m| m.team_name(c.team).to_string())
        .unwrap_or_default();
    let conf = c
        .confidence
        .map(|x| format!(", {:.2}", x))
        .unwrap_or_default();
    match c.result {
        Some(r) => println!(
            "throw {} {team} {}: {}! ({}{conf})",
            c.throw,
            c.thrower,
            r.korean(),
            c.source
        ),
        None => println!(
            "throw {} {team} {}: to the referee ({}; best guess {}{conf})",
            c.throw,
            c.thrower,
            c.flags.join(", "),
            c.best_guess.map(|r| r.korean()).unwrap_or("?")
        ),
    }
}
