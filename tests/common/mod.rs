//! TEST SCAFFOLDING: a small stand-in for the station core, built from real parts,
//! so the web server can be tested before the real core (`station::run`) is wired
//! to it. It owns a real `journal::Journal` in a temporary directory, turns each
//! `Request::Command` into an entry with the real `station::command::to_entry`,
//! appends it (the real rules check it), and publishes the state JSON of
//! `docs/station-api.md`. A test can also inject camera throws (with evidence) and
//! live frames. Calibration requests are answered as "no camera".
//!
//! At merge the tests switch to the real core; nothing here is part of the product.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use yutstation::journal::{Entry, EvidenceStore, Journal};
use yutstation::referee::{Action, MatchEvent, MatchSetup, Player, Posture, TeamSetup, Verdict};
use yutstation::station::{command, CalibrateReply, Check, Command, Hub, Published, Request};

pub const PIN: &str = "4821";

/// The line-up a `new_game` without a setup registers.
pub fn default_setup() -> MatchSetup {
    let team = |name: &str, people: [&str; 4]| TeamSetup {
        name: name.into(),
        throwers: vec![
            Player::thrower(people[0], Posture::Seated, 95),
            Player::thrower(people[1], Posture::Standing, 100),
            Player::thrower(people[2], Posture::Seated, 92),
        ],
        placer: Player::placer(people[3]),
    };
    MatchSetup::new([
        team("청팀", ["김하나", "이두리", "박세나", "최코치"]),
        team("홍팀", ["정하늘", "강바다", "조이슬", "윤코치"]),
    ])
}

/// A running stand-in station with the real web server in front of it.
pub struct StandIn {
    pub addr: SocketAddr,
    pub hub: Hub,
    /// Throws "seen by the camera": the verdict is journaled as a throw.
    pub camera: mpsc::Sender<Verdict>,
    pub live: watch::Sender<Option<Arc<[u8]>>>,
    /// When each seq was published (for latency measurements).
    pub published_at: Arc<Mutex<Vec<(u64, Instant)>>>,
    pub dir: tempfile::TempDir,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl StandIn {
    /// A new station on a fresh data directory and a free port.
    pub async fn start() -> StandIn {
        let dir = tempfile::tempdir().expect("temp dir");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        StandIn::launch(dir, listener).await
    }

    async fn launch(dir: tempfile::TempDir, listener: tokio::net::TcpListener) -> StandIn {
        let (journal, problems) = Journal::open(dir.path()).expect("journal opens");
        assert!(problems.is_empty(), "{problems:?}");
        let (published_tx, published) = watch::channel(Arc::new(Published::default()));
        let (requests, requests_rx) = mpsc::channel(64);
        let (camera, camera_rx) = mpsc::channel(16);
        let (live, live_rx) = watch::channel(None);
        let published_at = Arc::new(Mutex::new(Vec::new()));
        let hub = Hub {
            published,
            requests,
            live: live_rx,
            evidence: Arc::new(EvidenceStore::new(dir.path().join("evidence"))),
            pin: PIN.into(),
        };
        let mut core = Core {
            journal,
            seq: 0,
            last_call: None,
            out: published_tx,
            published_at: published_at.clone(),
        };
        core.publish(None);
        let addr = listener.local_addr().unwrap();
        let server = yutstation::station::server::serve(hub.clone(), listener);
        let tasks = vec![
            tokio::spawn(core.run(requests_rx, camera_rx)),
            tokio::spawn(async move {
                let _ = server.await;
            }),
        ];
        StandIn {
            addr,
            hub,
            camera,
            live,
            published_at,
            dir,
            tasks,
        }
    }

    /// Stop the station and its server (as if killed), keeping its data directory;
    /// [`StandIn::start_again`] brings it back on the same address.
    pub async fn stop(self) -> (tempfile::TempDir, SocketAddr) {
        for task in &self.tasks {
            task.abort();
        }
        for task in self.tasks {
            let _ = task.await;
        }
        (self.dir, self.addr)
    }

    /// Start again on a stopped station's data directory and address.
    pub async fn start_again((dir, addr): (tempfile::TempDir, SocketAddr)) -> StandIn {
        let deadline = Instant::now() + Duration::from_secs(5);
        let listener = loop {
            match tokio::net::TcpListener::bind(addr).await {
                Ok(l) => break l,
                Err(e) if Instant::now() > deadline => panic!("rebind {addr}: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        StandIn::launch(dir, listener).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Store an evidence blob as the camera would, before its throw.
    pub fn put_evidence(&self, bytes: &[u8]) -> String {
        self.hub.evidence.put(bytes).unwrap().to_string()
    }

    /// The newest published state.
    pub fn state(&self) -> Value {
        serde_json::from_str(&self.hub.published.borrow().state_json).unwrap()
    }
}

struct Core {
    journal: Journal,
    seq: u64,
    last_call: Option<Value>,
    out: watch::Sender<Arc<Published>>,
    published_at: Arc<Mutex<Vec<(u64, Instant)>>>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

impl Core {
    async fn run(
        mut self,
        mut requests: mpsc::Receiver<Request>,
        mut camera: mpsc::Receiver<Verdict>,
    ) {
        loop {
            tokio::select! {
                request = requests.recv() => match request {
                    None => return,
                    Some(Request::Command { by, command, reply }) => {
                        let _ = reply.send(self.command(&by, &command));
                    }
                    Some(Request::Calibrate { step, reply, .. }) => {
                        let _ = reply.send(CalibrateReply {
                            ok: false,
                            message: format!("{step:?}: the test stand-in has no camera"),
                            checks: vec![Check {
                                name: "camera".into(),
                                ok: false,
                                detail: "no camera frame".into(),
                            }],
                        });
                    }
                },
                Some(verdict) = camera.recv() => {
                    let mut event = MatchEvent::new(self.now(), Action::Throw { verdict });
                    event.by = Some("camera".into());
                    if self.journal.append(&Entry::Event(event)).is_ok() {
                        let call = self.call_of_last_throw();
                        self.publish(call);
                    }
                }
            }
        }
    }

    /// The station's clock, never behind the journal.
    fn now(&self) -> u64 {
        now_ms().max(self.journal.station().last_at)
    }

    fn command(&mut self, by: &str, command: &Command) -> Result<i64, String> {
        let entry = command::to_entry(
            command,
            self.journal.station().current(),
            &default_setup(),
            by,
            self.now(),
        )
        .map_err(|e| e.to_string())?;
        let id = self.journal.append(&entry).map_err(|e| e.to_string())?;
        let call = match command {
            Command::Call { throw, .. } | Command::Confirm { throw } => self.call_of(*throw),
            Command::ManualThrow { .. } => self.call_of_last_throw(),
            Command::NewGame { .. } => {
                self.last_call = None;
                None
            }
            _ => None,
        };
        self.publish(call);
        Ok(id)
    }

    fn call_of_last_throw(&self) -> Option<Value> {
        let game = self.journal.station().current()?;
        let n = game.throws().last()?.number;
        self.call_of(n)
    }

    /// The `last_call` object of `docs/station-api.md` for throw `n`.
    fn call_of(&self, n: u32) -> Option<Value> {
        let game = self.journal.station().current()?;
        let t = game.throws().find(|t| t.number == n)?;
        let result = t.effective();
        Some(json!({
            "throw": t.number,
            "team": t.team,
            "thrower": t.thrower,
            "result": result,
            "korean": result.map(|r| r.korean()),
            "source": match &t.call {
                None => json!("waiting"),
                Some(c) => serde_json::to_value(c.by).unwrap(),
            },
            "best_guess": t.verdict.result,
            "confidence": t.verdict.confidence,
            "flags": t.verdict.flags,
            "evidence": t.verdict.evidence,
            "height_mm": null,
            "at_ms": t.at_ms,
        }))
    }

    fn publish(&mut self, call: Option<Value>) {
        if call.is_some() {
            self.last_call = call.clone();
        }
        self.seq += 1;
        let station = self.journal.station();
        let now = self.now();
        let state = json!({
            "now_ms": now,
            "seq": self.seq,
            "game_number": station.game_number(),
            "setup": station.current().map(|g| g.setup()),
            "match": station.current().map(|g| g.snapshot(now)),
            "last_call": self.last_call,
            "station": {
                "camera": "none",
                "sensor": "none",
                "vision": "off",
                "journal": "ok",
                "problems": [],
            },
        });
        let published = Published {
            seq: self.seq,
            state_json: state.to_string().into(),
            call_json: call.map(|c| c.to_string().into()),
        };
        self.published_at
            .lock()
            .unwrap()
            .push((self.seq, Instant::now()));
        self.out.send_replace(Arc::new(published));
    }
}

/// A plain HTTP/1.1 request over TCP (no client library needed): status and body.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("response in time")
        .unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (status, String::from_utf8_lossy(&body).to_string())
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 4 + size..];
    }
    out
}

/// Log in over the API; the token.
pub async fn login(addr: SocketAddr, who: &str) -> String {
    let (status, body) = http(
        addr,
        "POST",
        "/api/login",
        &[],
        &json!({ "pin": PIN, "who": who }).to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["token"].as_str().unwrap().to_string()
}

/// Send a command over the API: status and body.
pub async fn command(addr: SocketAddr, token: &str, command: Value) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (status, body) = http(
        addr,
        "POST",
        "/api/command",
        &[("Authorization", &auth)],
        &json!({ "command": command }).to_string(),
    )
    .await;
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

/// A rendered throw (the synthetic camera of `src/sim`) as JPEG: a real picture for
/// the live view and for evidence.
pub fn rendered_jpeg(seed: u64) -> Vec<u8> {
    use opencv::core::Vector;
    use opencv::prelude::VectorToVec;
    use yutstation::sim::{render, throw_scene, Look};
    let look = Look::random(seed, 320, 240);
    let (scene, _) = throw_scene(&look, seed, None);
    let mat = render(&look, &scene).to_bgr_mat().expect("a BGR picture");
    let mut jpeg = Vector::<u8>::new();
    opencv::imgcodecs::imencode(".jpg", &mat, &mut jpeg, &Vector::new()).expect("JPEG encodes");
    jpeg.to_vec()
}
