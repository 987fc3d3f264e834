//! The station's link to the tournament office over MQTT (`docs/tournament.md`): it
//! publishes every journal entry (QoS 1, with its journal id and the id before it)
//! and a retained summary of the mat, keeps a retained presence with a last will,
//! and receives the office's acknowledgements and the mat's next assignment.
//!
//! The outbox is the journal itself: the link holds every entry the core has
//! durably appended, and after any loss (the broker gone, the link cut, the office
//! restarted) sends again, in order, everything after what the office acknowledged.
//! The office records an entry once (by id), so sending twice is harmless and
//! nothing is counted twice. A station cut off keeps judging and journaling; only
//! this thread notices.
//!
//! Shell: one thread with its own single-threaded async runtime and `rumqttc`.

use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Packet, QoS};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, watch};
use yut_match::{Entry, MatchLog, Millis};
use yut_tournament::wire::{self, AckMsg, AssignmentMsg, EventMsg, OnlineMsg};
use yut_tournament::MatNo;

/// Where and as which mat to connect.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    pub host: String,
    pub port: u16,
    pub mat: MatNo,
    /// The MQTT keep-alive: the broker declares the station gone (its last will)
    /// after one and a half of these without a word.
    pub keep_alive: Duration,
}

impl LinkConfig {
    pub fn new(broker: &str, mat: MatNo) -> anyhow::Result<LinkConfig> {
        let (host, port) = broker
            .rsplit_once(':')
            .and_then(|(h, p)| Some((h.to_string(), p.parse().ok()?)))
            .ok_or_else(|| anyhow::anyhow!("broker `{broker}`: give it as HOST:PORT"))?;
        Ok(LinkConfig {
            host,
            port,
            mat,
            keep_alive: Duration::from_secs(2),
        })
    }
}

/// How the link stands, for the console's status bar and the load test.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LinkStatus {
    pub mat: MatNo,
    pub connected: bool,
    /// A line for the status bar: `connected`, `cut off: …`.
    pub broker: String,
    /// The newest journal id handed to the link.
    pub last_id: i64,
    /// What the office has acknowledged.
    pub acked: i64,
    /// How often the link reconnected.
    pub reconnects: u32,
}

/// What the station's core hands the link.
enum Out {
    Entry(i64, Entry),
    Health { now: Millis, line: String },
}

/// The cloneable side the station's core holds.
#[derive(Clone)]
pub struct LinkPort {
    out: mpsc::UnboundedSender<Out>,
    pub status: watch::Receiver<LinkStatus>,
    pub assignment: watch::Receiver<Option<AssignmentMsg>>,
}

impl LinkPort {
    /// An entry durably appended with journal id `id`.
    pub fn entry(&self, id: i64, entry: &Entry) {
        let _ = self.out.send(Out::Entry(id, entry.clone()));
    }

    /// The station's time and health line, for the mat's summary.
    pub fn health(&self, now: Millis, line: String) {
        let _ = self.out.send(Out::Health { now, line });
    }

    /// The assigned game's setup, while the station has not yet registered a game
    /// for that fixture.
    pub fn pending_setup(&self, log: &MatchLog) -> Option<yut_match::MatchSetup> {
        let a = self.assignment.borrow();
        let fixture = a.as_ref()?.fixture.as_ref()?;
        if log
            .games
            .iter()
            .any(|g| g.setup().fixture.as_ref() == Some(fixture))
        {
            return None;
        }
        a.as_ref()?.setup.clone()
    }
}

/// The running link; dropping it (or [`MatLink::stop`]) says goodbye to the broker.
pub struct MatLink {
    port: LinkPort,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    /// Round-trip times (ms) from an entry's first sending to the office's
    /// acknowledgement of it, for the load test.
    pub latencies: Arc<Mutex<Vec<u32>>>,
}

impl MatLink {
    pub fn spawn(cfg: LinkConfig) -> std::io::Result<MatLink> {
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (status_tx, status) = watch::channel(LinkStatus {
            mat: cfg.mat,
            broker: "connecting".into(),
            ..LinkStatus::default()
        });
        let (assign_tx, assignment) = watch::channel(None);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel();
        let latencies: Arc<Mutex<Vec<u32>>> = Arc::default();
        let lat = latencies.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mqtt-mat-{}", cfg.mat))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a single-threaded runtime starts");
                rt.block_on(run(cfg, out_rx, status_tx, assign_tx, stop_rx, lat));
            })?;
        Ok(MatLink {
            port: LinkPort {
                out: out_tx,
                status,
                assignment,
            },
            stop: Some(stop_tx),
            thread: Some(thread),
            latencies,
        })
    }

    pub fn port(&self) -> LinkPort {
        self.port.clone()
    }

    /// Say goodbye (presence `false`) and end the thread.
    pub fn stop(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for MatLink {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Small messages go out at once (no Nagle delay), and a connection attempt that
/// meets a dead network gives up after 3 s and tries again.
pub(crate) fn quick_network() -> rumqttc::NetworkOptions {
    let mut n = rumqttc::NetworkOptions::new();
    n.set_tcp_nodelay(true);
    n.set_connection_timeout(3);
    n
}

pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

struct Sent {
    prev: i64,
    entry: Entry,
    first_sent: Option<Instant>,
}

struct LinkState {
    cfg: LinkConfig,
    client: AsyncClient,
    /// Every entry since the station started, by journal id.
    journal: BTreeMap<i64, Sent>,
    log: MatchLog,
    last_id: i64,
    /// Sent up to here on this connection.
    cursor: i64,
    acked: i64,
    /// When the office last moved its acknowledgement (or we last resent).
    progress_at: Instant,
    connected: bool,
    status: watch::Sender<LinkStatus>,
    health: (Millis, String),
    summary_dirty: bool,
    summary_at: Instant,
    latencies: Arc<Mutex<Vec<u32>>>,
}

/// An entry the office has not acknowledged for this long is sent again.
const RESEND_AFTER: Duration = Duration::from_secs(5);
/// At most this many entries are put in the client's queue at once.
const FLUSH_BATCH: usize = 200;

async fn run(
    cfg: LinkConfig,
    mut out_rx: mpsc::UnboundedReceiver<Out>,
    status: watch::Sender<LinkStatus>,
    assignment: watch::Sender<Option<AssignmentMsg>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
    latencies: Arc<Mutex<Vec<u32>>>,
) {
    let mat = cfg.mat;
    let mut opts = MqttOptions::new(format!("yutstation-mat-{mat}"), &cfg.host, cfg.port);
    opts.set_keep_alive(cfg.keep_alive);
    opts.set_clean_session(true);
    opts.set_max_packet_size(1 << 20, 1 << 20);
    opts.set_last_will(LastWill::new(
        wire::mat_topic(mat, wire::ONLINE),
        json(&OnlineMsg {
            v: wire::VERSION,
            online: false,
        }),
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut eventloop) = AsyncClient::new(opts, 1024);
    eventloop.set_network_options(quick_network());
    let (ev_tx, mut ev_rx) = mpsc::unbounded_channel();
    let poller = tokio::spawn(async move {
        loop {
            let ev = eventloop.poll().await;
            let failed = ev.is_err();
            if ev_tx.send(ev.map_err(|e| e.to_string())).is_err() {
                return;
            }
            if failed {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    });
    let mut st = LinkState {
        cfg,
        client,
        journal: BTreeMap::new(),
        log: MatchLog::default(),
        last_id: 0,
        cursor: 0,
        acked: 0,
        progress_at: Instant::now(),
        connected: false,
        status,
        health: (0, String::new()),
        summary_dirty: true,
        summary_at: Instant::now(),
        latencies,
    };
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            _ = &mut stop => break,
            ev = ev_rx.recv() => match ev {
                Some(Ok(Event::Incoming(Packet::ConnAck(_)))) => st.connected_again(),
                Some(Ok(Event::Incoming(Packet::Publish(p)))) => {
                    st.incoming(&p.topic, &p.payload, &assignment)
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => st.lost(e),
                None => break,
            },
            out = out_rx.recv() => match out {
                Some(Out::Entry(id, entry)) => st.push(id, entry),
                Some(Out::Health { now, line }) => {
                    if st.health.1 != line {
                        st.summary_dirty = true;
                    }
                    st.health = (now, line);
                }
                None => break,
            },
            _ = tick.tick() => st.tick(),
        }
    }
    if st.connected {
        let _ = st
            .client
            .publish(
                wire::mat_topic(mat, wire::ONLINE),
                QoS::AtLeastOnce,
                true,
                json(&OnlineMsg {
                    v: wire::VERSION,
                    online: false,
                }),
            )
            .await;
        let _ = st.client.disconnect().await;
        // Let the goodbye reach the broker.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
        while let Ok(Some(Ok(ev))) = tokio::time::timeout_at(deadline, ev_rx.recv()).await {
            if matches!(ev, Event::Outgoing(rumqttc::Outgoing::Disconnect)) {
                break;
            }
        }
    }
    poller.abort();
}

fn json<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("messages serialise")
}

impl LinkState {
    fn topic(&self, leaf: &str) -> String {
        wire::mat_topic(self.cfg.mat, leaf)
    }

    fn report(&self, broker: String) {
        let reconnects = self.status.borrow().reconnects;
        self.status.send_replace(LinkStatus {
            mat: self.cfg.mat,
            connected: self.connected,
            broker,
            last_id: self.last_id,
            acked: self.acked,
            reconnects,
        });
    }

    fn connected_again(&mut self) {
        self.connected = true;
        self.status.send_modify(|s| s.reconnects += 1);
        for leaf in [wire::ACK, wire::ASSIGNMENT] {
            let _ = self
                .client
                .try_subscribe(self.topic(leaf), QoS::AtLeastOnce);
        }
        let _ = self.client.try_publish(
            self.topic(wire::ONLINE),
            QoS::AtLeastOnce,
            true,
            json(&OnlineMsg {
                v: wire::VERSION,
                online: true,
            }),
        );
        // Everything after what the office last acknowledged, again.
        self.cursor = self.acked;
        self.progress_at = Instant::now();
        self.summary_dirty = true;
        self.report("connected".into());
        self.flush();
        self.publish_summary();
    }

    fn lost(&mut self, error: String) {
        if self.connected {
            eprintln!(
                "yutstation: mat {}: cut off from the broker ({error}); judging and journaling go on, entries wait",
                self.cfg.mat
            );
        }
        self.connected = false;
        self.report(format!("cut off: {error}"));
    }

    fn incoming(
        &mut self,
        topic: &str,
        payload: &[u8],
        assignment: &watch::Sender<Option<AssignmentMsg>>,
    ) {
        match wire::parse_mat_topic(topic) {
            Some((m, wire::ACK)) if m == self.cfg.mat => {
                let Ok(ack) = serde_json::from_slice::<AckMsg>(payload) else {
                    return;
                };
                let now = Instant::now();
                if ack.upto > self.acked {
                    let mut lat = self.latencies.lock().expect("not poisoned");
                    for (_, s) in self.journal.range_mut(self.acked + 1..=ack.upto) {
                        if let Some(t) = s.first_sent.take() {
                            lat.push(now.duration_since(t).as_millis() as u32);
                        }
                    }
                }
                if ack.upto > self.acked || ack.resend {
                    // A resend request is the office's word on what it holds, even
                    // below an earlier acknowledgement.
                    self.acked = ack.upto;
                    self.progress_at = now;
                }
                if ack.resend {
                    self.cursor = self.cursor.min(ack.upto);
                    self.flush();
                }
                self.report(if self.connected {
                    "connected".into()
                } else {
                    self.status.borrow().broker.clone()
                });
            }
            Some((m, wire::ASSIGNMENT)) if m == self.cfg.mat => {
                let msg = serde_json::from_slice::<AssignmentMsg>(payload)
                    .ok()
                    .filter(|a| a.fixture.is_some() && a.setup.is_some());
                assignment.send_replace(msg);
            }
            _ => {}
        }
    }

    fn push(&mut self, id: i64, entry: Entry) {
        if id <= self.last_id {
            return;
        }
        let _ = self.log.apply(&entry);
        self.journal.insert(
            id,
            Sent {
                prev: self.last_id,
                entry,
                first_sent: None,
            },
        );
        self.last_id = id;
        self.summary_dirty = true;
        self.flush();
    }

    fn flush(&mut self) {
        if !self.connected {
            return;
        }
        let mut sent = 0;
        let ids: Vec<i64> = self
            .journal
            .range(self.cursor + 1..)
            .take(FLUSH_BATCH)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let s = self.journal.get_mut(&id).expect("listed above");
            let msg = EventMsg {
                v: wire::VERSION,
                mat: self.cfg.mat,
                id,
                prev: s.prev,
                entry: s.entry.clone(),
                sent_unix_ms: unix_ms(),
            };
            let topic = wire::mat_topic(self.cfg.mat, wire::EVENT);
            if self
                .client
                .try_publish(topic, QoS::AtLeastOnce, false, json(&msg))
                .is_err()
            {
                break;
            }
            s.first_sent.get_or_insert_with(Instant::now);
            self.cursor = id;
            sent += 1;
        }
        if sent > 0 && self.acked >= self.cursor - sent {
            self.progress_at = Instant::now();
        }
    }

    fn tick(&mut self) {
        if !self.connected {
            return;
        }
        if self.acked < self.cursor && self.progress_at.elapsed() > RESEND_AFTER {
            // The office has not moved: send again from what it has.
            self.cursor = self.acked;
            self.progress_at = Instant::now();
        }
        self.flush();
        let due = self.summary_at.elapsed() > Duration::from_secs(5)
            || (self.summary_dirty && self.summary_at.elapsed() > Duration::from_millis(250));
        if due {
            self.publish_summary();
        }
    }

    fn publish_summary(&mut self) {
        if !self.connected {
            return;
        }
        let now = self.health.0.max(self.log.last_at);
        let summary = wire::mat_summary(self.cfg.mat, &self.log, now, &self.health.1, self.last_id);
        if self
            .client
            .try_publish(
                self.topic(wire::SUMMARY),
                QoS::AtLeastOnce,
                true,
                json(&summary),
            )
            .is_ok()
        {
            self.summary_dirty = false;
            self.summary_at = Instant::now();
        }
    }
}
