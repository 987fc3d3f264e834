//! The running office: one core thread owns the office's journal and the tournament
//! folded from it; an MQTT task brings it the stations' entries, presence and
//! summaries and carries its acknowledgements and assignments out; the web server
//! reads the newest published view and sends the console's commands.
//!
//! ```text
//! broker ──entries, presence, summaries──▶ core thread ──▶ watch<view> ──▶ /tournament, /office
//!        ◀──acks, assignments─────────────  (journal,       ◀── console commands
//!                                            fold, plan)
//! ```
//!
//! The core takes what has arrived in one batch, folds and writes it in one
//! transaction (one fsync), and only then acknowledges it to the stations: an
//! acknowledged entry is on disk. Decisions (assignments) are journaled before
//! they are sent.
//!
//! Shell: threads, channels, MQTT, SQLite through [`super::store`].

use super::store::OfficeJournal;
use super::view::{self, Live, MatLive};
use crate::station::mqtt::unix_ms;
use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Packet, QoS};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, watch};
use yut_match::MatchOptions;
use yut_tournament::wire::{self, AckMsg, AssignmentMsg, EventMsg, MatSummary, OnlineMsg};
use yut_tournament::{Format, MatNo, OfficeEntry};

/// A console command (`POST /api/office/command`, `docs/tournament.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OfficeCommand {
    /// Register the teams from the roster CSV, with the format and the pieces each
    /// team plays with.
    Import {
        csv: String,
        format: Format,
        #[serde(default)]
        pieces_per_team: Option<u8>,
    },
    Draw {
        seed: u64,
    },
    Assign {
        fixture: String,
        mat: MatNo,
    },
    Unassign {
        fixture: String,
        reason: String,
    },
    Forfeit {
        fixture: String,
        loser: usize,
        reason: String,
    },
    Correct {
        fixture: String,
        winner: Option<usize>,
        reason: String,
    },
}

/// What the web server asks of the core.
pub struct Request {
    pub by: String,
    pub command: OfficeCommand,
    pub reply: oneshot::Sender<Result<(), String>>,
}

/// How to run the office.
pub struct OfficeOptions {
    pub data_dir: PathBuf,
    /// `HOST:PORT` of the MQTT broker.
    pub broker: String,
    /// Mats shown on the board even before their stations speak (1..=mats).
    pub mats: u32,
    /// Send fixtures to free mats without waiting for the console.
    pub auto_assign: bool,
    /// Register and draw at start, if the journal is new.
    pub initial: Option<(Vec<yut_tournament::Team>, Format, MatchOptions, u64)>,
}

/// The running office's seam to its web server.
#[derive(Clone)]
pub struct OfficeHub {
    /// The newest view (`docs/tournament.md`, "The board's state"), as JSON.
    pub view: watch::Receiver<(u64, Arc<str>)>,
    pub requests: tokio::sync::mpsc::Sender<Request>,
    pub pin: Arc<str>,
}

impl OfficeHub {
    pub async fn command(&self, by: &str, command: OfficeCommand) -> Result<(), String> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request {
                by: by.into(),
                command,
                reply,
            })
            .await
            .map_err(|_| "the office is shutting down".to_string())?;
        answer
            .await
            .map_err(|_| "the office is shutting down".to_string())?
    }
}

enum Msg {
    Connected,
    Lost(String),
    Publish { topic: String, payload: Vec<u8> },
    Request(Request),
}

/// Start the office's core thread and its MQTT task (on `rt`).
pub fn start(
    opts: OfficeOptions,
    pin: &str,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<OfficeHub> {
    let (mut journal, problems) = OfficeJournal::open(&opts.data_dir)?;
    for p in &problems {
        eprintln!("yutstation office: {p}");
    }
    if journal.is_empty() {
        if let Some((teams, format, options, seed)) = opts.initial.clone() {
            journal.append(OfficeEntry::Register {
                at_ms: unix_ms(),
                teams,
                format,
                options,
            })?;
            journal.append(OfficeEntry::Draw {
                at_ms: unix_ms(),
                seed,
            })?;
        }
    }
    let (host, port) = opts
        .broker
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
        .ok_or_else(|| anyhow::anyhow!("broker `{}`: give it as HOST:PORT", opts.broker))?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut mqtt = MqttOptions::new(
        format!("yutstation-office-{}", std::process::id()),
        host,
        port,
    );
    mqtt.set_keep_alive(Duration::from_secs(2));
    mqtt.set_clean_session(true);
    mqtt.set_max_packet_size(1 << 20, 1 << 20);
    mqtt.set_inflight(1000);
    mqtt.set_last_will(LastWill::new(
        wire::office_online_topic(),
        serde_json::to_vec(&OnlineMsg {
            v: wire::VERSION,
            online: false,
        })
        .expect("serialises"),
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut eventloop) = AsyncClient::new(mqtt, 65_536);
    eventloop.set_network_options(crate::station::mqtt::quick_network());
    let to_core = tx.clone();
    rt.spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = to_core.send(Msg::Connected);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let _ = to_core.send(Msg::Publish {
                        topic: p.topic,
                        payload: p.payload.to_vec(),
                    });
                }
                Ok(_) => {}
                Err(e) => {
                    if to_core.send(Msg::Lost(e.to_string())).is_err() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    });
    let (req_tx, mut req_rx) = tokio::sync::mpsc::channel::<Request>(64);
    let to_core = tx.clone();
    rt.spawn(async move {
        while let Some(r) = req_rx.recv().await {
            if to_core.send(Msg::Request(r)).is_err() {
                return;
            }
        }
    });
    let live = Live {
        mats: (1..=opts.mats).map(|m| (m, MatLive::default())).collect(),
        broker: "connecting".into(),
        problems,
        ..Live::default()
    };
    let (view_tx, view_rx) = watch::channel((0, Arc::from("{}")));
    let mut core = Core {
        journal,
        client,
        live,
        auto_assign: opts.auto_assign,
        connected: false,
        sent_assignment: BTreeMap::new(),
        view: view_tx,
        seq: 0,
        latencies: Vec::new(),
    };
    core.publish_view();
    std::thread::Builder::new()
        .name("office-core".into())
        .spawn(move || core.run(rx))?;
    Ok(OfficeHub {
        view: view_rx,
        requests: req_tx,
        pin: pin.into(),
    })
}

struct Core {
    journal: OfficeJournal,
    client: AsyncClient,
    live: Live,
    auto_assign: bool,
    connected: bool,
    /// The assignment last published to each mat (retained): the fixture or none.
    sent_assignment: BTreeMap<MatNo, Option<String>>,
    view: watch::Sender<(u64, Arc<str>)>,
    seq: u64,
    /// Publish-to-journaled times (ms) of recent station entries.
    latencies: Vec<u32>,
}

/// Entries taken in one batch at most (one transaction).
const BATCH: usize = 2000;

/// The shortest time between two published views.
const VIEW_EVERY: Duration = Duration::from_millis(100);

impl Core {
    fn run(mut self, rx: mpsc::Receiver<Msg>) {
        let mut last_view = Instant::now();
        let mut dirty = false;
        loop {
            let wait = if dirty {
                VIEW_EVERY
            } else {
                Duration::from_millis(200)
            };
            let first = match rx.recv_timeout(wait) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            let mut msgs: Vec<Msg> = first.into_iter().collect();
            while msgs.len() < BATCH {
                match rx.try_recv() {
                    Ok(m) => msgs.push(m),
                    Err(_) => break,
                }
            }
            dirty |= self.batch(msgs);
            // At most ten views a second (each is the whole board), and one a second
            // when nothing changes (the clocks move).
            let since = last_view.elapsed();
            if (dirty && since >= VIEW_EVERY) || since >= Duration::from_millis(1000) {
                self.publish_view();
                last_view = Instant::now();
                dirty = false;
            }
        }
    }

    /// Handle one batch; true when the view changed.
    fn batch(&mut self, msgs: Vec<Msg>) -> bool {
        let mut changed = false;
        let mut station_entries: Vec<OfficeEntry> = Vec::new();
        let mut sent_at: Vec<u64> = Vec::new();
        let mut requests = Vec::new();
        let mut reconnected = false;
        for m in msgs {
            match m {
                Msg::Connected => {
                    self.connected = true;
                    self.live.broker = "connected".into();
                    reconnected = true;
                    changed = true;
                }
                Msg::Lost(e) => {
                    if self.connected {
                        eprintln!("yutstation office: cut off from the broker ({e})");
                        self.live.broker_lost_since = Some(unix_ms());
                    }
                    self.connected = false;
                    self.live.broker = format!("cut off: {e}");
                    changed = true;
                }
                Msg::Publish { topic, payload } => {
                    changed |= self.incoming(&topic, &payload, &mut station_entries, &mut sent_at)
                }
                Msg::Request(r) => requests.push(r),
            }
        }
        if reconnected {
            self.live.broker_lost_since = None;
            self.greet();
        }
        if !station_entries.is_empty() {
            let mats: BTreeSet<MatNo> = station_entries
                .iter()
                .filter_map(|e| match e {
                    OfficeEntry::Station { mat, .. } => Some(*mat),
                    _ => None,
                })
                .collect();
            match self.journal.append_all(station_entries) {
                Ok(results) => {
                    let now = unix_ms();
                    let mut gaps = BTreeSet::new();
                    for (r, sent) in results.iter().zip(&sent_at) {
                        match r {
                            Ok(()) => {
                                self.latencies.push(now.saturating_sub(*sent) as u32);
                                self.live.received += 1;
                            }
                            Err(yut_tournament::OfficeError::Duplicate { .. }) => {
                                self.live.duplicates += 1
                            }
                            Err(yut_tournament::OfficeError::Gap { mat, .. }) => {
                                gaps.insert(*mat);
                            }
                            Err(e) => eprintln!("yutstation office: {e}"),
                        }
                    }
                    if self.latencies.len() > 100_000 {
                        self.latencies.drain(..50_000);
                    }
                    for mat in mats {
                        self.ack(mat, gaps.contains(&mat));
                    }
                    changed = true;
                }
                Err(e) => eprintln!("yutstation office: {e}; the stations will send again"),
            }
        }
        for r in requests {
            let result = self.command(&r.by, r.command);
            if result.is_ok() {
                changed = true;
            }
            let _ = r.reply.send(result);
        }
        if self.plan() {
            changed = true;
        }
        self.sync_assignments();
        changed
    }

    fn incoming(
        &mut self,
        topic: &str,
        payload: &[u8],
        entries: &mut Vec<OfficeEntry>,
        sent_at: &mut Vec<u64>,
    ) -> bool {
        let Some((mat, leaf)) = wire::parse_mat_topic(topic) else {
            return false;
        };
        let live = self.live.mats.entry(mat).or_default();
        match leaf {
            wire::EVENT => match serde_json::from_slice::<EventMsg>(payload) {
                Ok(m) if m.v == wire::VERSION && m.mat == mat => {
                    entries.push(OfficeEntry::Station {
                        at_ms: unix_ms(),
                        mat,
                        id: m.id,
                        prev: m.prev,
                        entry: m.entry,
                    });
                    sent_at.push(m.sent_unix_ms);
                    false
                }
                Ok(_) | Err(_) => {
                    self.live.problem(format!(
                        "mat {mat}: an event message of another version or shape was ignored"
                    ));
                    true
                }
            },
            wire::ONLINE => {
                let online = serde_json::from_slice::<OnlineMsg>(payload)
                    .map(|m| m.online)
                    .unwrap_or(false);
                if live.online != Some(online) {
                    live.online = Some(online);
                    live.since_unix_ms = unix_ms();
                    if !online {
                        eprintln!("yutstation office: mat {mat} is cut off");
                    }
                }
                true
            }
            wire::SUMMARY => {
                if let Ok(s) = serde_json::from_slice::<MatSummary>(payload) {
                    live.summary = Some(s);
                    live.summary_unix_ms = unix_ms();
                }
                true
            }
            _ => false,
        }
    }

    /// On every (re)connection: subscribe, say the office is here, tell every mat
    /// what the office holds (and to send the rest), and restore the retained
    /// assignments (a restarted broker has forgotten them).
    fn greet(&mut self) {
        for leaf in [wire::EVENT, wire::ONLINE, wire::SUMMARY] {
            let _ = self
                .client
                .try_subscribe(format!("{}/mat/+/{leaf}", wire::ROOT), QoS::AtLeastOnce);
        }
        let _ = self.client.try_publish(
            wire::office_online_topic(),
            QoS::AtLeastOnce,
            true,
            serde_json::to_vec(&OnlineMsg {
                v: wire::VERSION,
                online: true,
            })
            .expect("serialises"),
        );
        let mats: Vec<MatNo> = self
            .journal
            .state()
            .mats
            .keys()
            .chain(self.live.mats.keys())
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for mat in mats {
            self.ack(mat, true);
        }
        self.sent_assignment.clear();
    }

    fn ack(&self, mat: MatNo, resend: bool) {
        let upto = self.journal.state().mats.get(&mat).map_or(0, |f| f.last_id);
        let _ = self.client.try_publish(
            wire::mat_topic(mat, wire::ACK),
            QoS::AtLeastOnce,
            true,
            serde_json::to_vec(&AckMsg {
                v: wire::VERSION,
                upto,
                resend,
            })
            .expect("serialises"),
        );
    }

    fn command(&mut self, by: &str, c: OfficeCommand) -> Result<(), String> {
        let at_ms = unix_ms().max(self.journal.state().last_at);
        let entry = match c {
            OfficeCommand::Import {
                csv,
                format,
                pieces_per_team,
            } => {
                let teams = yut_tournament::parse_csv(&csv).map_err(|e| e.to_string())?;
                let options = MatchOptions {
                    pieces_per_team: pieces_per_team
                        .unwrap_or(MatchOptions::default().pieces_per_team),
                    ..MatchOptions::default()
                };
                OfficeEntry::Register {
                    at_ms,
                    teams,
                    format,
                    options,
                }
            }
            OfficeCommand::Draw { seed } => OfficeEntry::Draw { at_ms, seed },
            OfficeCommand::Assign { fixture, mat } => OfficeEntry::Assign {
                at_ms,
                fixture,
                mat,
            },
            OfficeCommand::Unassign { fixture, reason } => OfficeEntry::Unassign {
                at_ms,
                fixture,
                reason: signed(&reason, by),
            },
            OfficeCommand::Forfeit {
                fixture,
                loser,
                reason,
            } => OfficeEntry::Forfeit {
                at_ms,
                fixture,
                loser,
                reason: signed(&reason, by),
            },
            OfficeCommand::Correct {
                fixture,
                winner,
                reason,
            } => OfficeEntry::Correct {
                at_ms,
                fixture,
                winner,
                reason: signed(&reason, by),
            },
        };
        self.journal
            .state()
            .check(&entry)
            .map_err(|e| e.to_string())?;
        self.journal.append(entry).map_err(|e| e.to_string())
    }

    /// Send fixtures to the mats that are free and connected.
    fn plan(&mut self) -> bool {
        if !self.auto_assign || !self.connected {
            return false;
        }
        let online: BTreeSet<MatNo> = self
            .live
            .mats
            .iter()
            .filter(|(_, l)| l.online == Some(true))
            .map(|(m, _)| *m)
            .collect();
        let plan = self.journal.state().next_assignments(&online);
        if plan.is_empty() {
            return false;
        }
        let at_ms = unix_ms().max(self.journal.state().last_at);
        let entries = plan
            .into_iter()
            .map(|(fixture, mat)| OfficeEntry::Assign {
                at_ms,
                fixture,
                mat,
            })
            .collect();
        match self.journal.append_all(entries) {
            Ok(_) => true,
            Err(e) => {
                eprintln!("yutstation office: {e}");
                false
            }
        }
    }

    /// Publish each mat's retained assignment where it differs from what was sent.
    fn sync_assignments(&mut self) {
        if !self.connected {
            return;
        }
        let busy = self.journal.state().busy_mats();
        let mats: BTreeSet<MatNo> = busy
            .keys()
            .chain(self.live.mats.keys())
            .chain(self.sent_assignment.keys())
            .copied()
            .collect();
        for mat in mats {
            let want = busy.get(&mat).cloned();
            if self.sent_assignment.get(&mat) == Some(&want) {
                continue;
            }
            let setup = want
                .as_ref()
                .and_then(|f| self.journal.state().setup_for(f).ok());
            let msg = AssignmentMsg {
                v: wire::VERSION,
                fixture: want.clone(),
                setup,
            };
            if self
                .client
                .try_publish(
                    wire::mat_topic(mat, wire::ASSIGNMENT),
                    QoS::AtLeastOnce,
                    true,
                    serde_json::to_vec(&msg).expect("serialises"),
                )
                .is_ok()
            {
                self.sent_assignment.insert(mat, want);
            }
        }
    }

    fn publish_view(&mut self) {
        self.seq += 1;
        let recent = self.latencies.len().saturating_sub(20_000);
        self.live.latency = view::Latency::of(&mut self.latencies[recent..].to_vec());
        let json = view::view_json(self.journal.state(), &self.live, self.seq, unix_ms());
        self.view.send_replace((self.seq, json.into()));
    }
}

/// The reason with who gave it; empty stays empty (and is refused by the fold).
fn signed(reason: &str, by: &str) -> String {
    if reason.trim().is_empty() {
        String::new()
    } else {
        format!("{} ({by})", reason.trim())
    }
}
