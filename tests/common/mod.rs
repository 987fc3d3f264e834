//! The station for the web tests: the real station (`station::run::Station`: the
//! core thread, the SQLite journal, the vision thread) with the real web server in
//! front of it, on a fresh data directory and a free port. What a camera would
//! supply comes from real parts too: pictures go through a real frame source into
//! the vision thread (the live view), and a camera throw is reported on the vision's
//! own channel to the core, as the vision thread reports one.
#![allow(dead_code)]

use opencv::prelude::*;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use yut_match::{MatchSetup, Player, Posture, TeamSetup, Verdict};
use yutstation::capture::{CaptureError, Clock, Frame, FrameSource};
use yutstation::station::eyes::{Seen, VisionSetup};
use yutstation::station::run::{Options, Station};
use yutstation::station::Hub;

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

/// A running station with the real web server in front of it.
pub struct StandIn {
    pub addr: SocketAddr,
    pub hub: Hub,
    /// Camera throws: each verdict is reported to the core as a judged throw.
    pub camera: ThrowReporter,
    /// When each seq was published (for latency measurements).
    pub published_at: Arc<Mutex<Vec<(u64, Instant)>>>,
    pub dir: tempfile::TempDir,
    picture: Arc<Mutex<Option<opencv::core::Mat>>>,
    /// Tells the pictures' source the stand-in is stopping ([`Still`]).
    closed: Arc<AtomicBool>,
    station: Option<Station>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// Reports camera throws the way the vision thread does.
pub struct ThrowReporter {
    sightings: std::sync::mpsc::Sender<Seen>,
    evidence: Arc<yutstation::journal::EvidenceStore>,
}

impl ThrowReporter {
    /// Report a throw: its reading, confidence, flags (as reasons the referee must
    /// decide) and evidence (an image already stored, by hash).
    pub async fn send(&self, v: Verdict) -> Result<(), String> {
        use yut_vision::{self, Face, Placement, Reason, StickReading};
        let evidence = match v.evidence.first() {
            Some(h) => self.evidence.get(h).map_err(|e| e.to_string())?,
            None => vec![],
        };
        let reasons = v
            .flags
            .iter()
            .map(|f| match f.as_str() {
                "on_edge" => Reason::OnEdge,
                "leaning" => Reason::Leaning,
                "stick_count" => Reason::StickCount,
                "mark_unclear" => Reason::MarkUnclear,
                "low_confidence" => Reason::LowConfidence,
                _ => Reason::OnLine,
            })
            .collect::<Vec<_>>();
        let best = v.result.expect("a reading");
        let stick = StickReading {
            center_px: [100.0, 100.0],
            center_cm: [0.0, 0.0],
            angle_deg: 0.0,
            face: Face::Front,
            marked: false,
            placement: Placement::OnMat,
            confidence: v.confidence.unwrap_or(1.0) as f64,
            doubts: vec![],
        };
        let verdict = yut_vision::ThrowReading {
            result: reasons.is_empty().then_some(best),
            best_guess: best,
            confidence: v.confidence.unwrap_or(1.0) as f64,
            reasons,
            sticks: vec![stick; 4],
        };
        let clip = match &v.clip {
            Some(h) => Some(self.evidence.get(h).map_err(|e| e.to_string())?),
            None => None,
        };
        let now = Clock::Wall.now();
        self.sightings
            .send(Seen::Judged {
                verdict,
                evidence,
                sticks: v.sticks.clone(),
                clip,
                motion_ms: now - 500,
                still_ms: now - 60,
                judged_ms: now,
            })
            .map_err(|e| e.to_string())
    }
}

/// Shows whatever picture the test set, ten times a second, like a camera would.
struct Still {
    picture: Arc<Mutex<Option<opencv::core::Mat>>>,
    /// Set when the stand-in stops: with no picture shown the source would
    /// wait for one forever, and its thread outlive the station.
    closed: Arc<AtomicBool>,
}

impl FrameSource for Still {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        std::thread::sleep(Duration::from_millis(100));
        loop {
            if self.closed.load(Ordering::SeqCst) {
                return Ok(None);
            }
            if let Some(m) = self.picture.lock().unwrap().as_ref() {
                return Ok(Some(Frame {
                    image: m.try_clone()?,
                    at_ms: Clock::Wall.now(),
                }));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    fn describe(&self) -> String {
        "test pictures".into()
    }
}

/// A test that ends without [`StandIn::stop`] still stops its station: left
/// running, its threads met OpenCV's teardown at the process's exit, and the
/// test process of `station_api` once died there with SIGSEGV after all its
/// tests had passed (as the capture thread did before the station's stop
/// waited for it).
impl Drop for StandIn {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.closed.store(true, Ordering::SeqCst);
        if let Some(st) = self.station.take() {
            st.stop();
        }
    }
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
        let mut station = Station::start(Options {
            data_dir: dir.path().to_path_buf(),
            new_journal: false,
            clock: Clock::Wall,
            vision: VisionSetup {
                detector: None,
                profile_path: None,
                model_path: "no-model".into(),
            },
            pin: PIN.into(),
            default_setup: default_setup(),
            sensor: None,
            print_calls: false,
            autopilot: None,
        })
        .expect("the station starts");
        let picture = Arc::new(Mutex::new(None));
        let hub = station.hub.clone();
        let published_at = Arc::new(Mutex::new(Vec::new()));
        let mut watcher = hub.published.clone();
        let stamps = published_at.clone();
        let addr = listener.local_addr().unwrap();
        let server = yutstation::station::server::serve(hub.clone(), listener);
        let tasks = vec![
            tokio::spawn(async move {
                while watcher.changed().await.is_ok() {
                    let seq = watcher.borrow_and_update().seq;
                    let mut v = stamps.lock().unwrap();
                    if v.last().is_none_or(|(s, _)| *s != seq) {
                        v.push((seq, Instant::now()));
                    }
                }
            }),
            tokio::spawn(async move {
                let _ = server.await;
            }),
        ];
        let camera = ThrowReporter {
            sightings: station.sightings(),
            evidence: hub.evidence.clone(),
        };
        let closed = Arc::new(AtomicBool::new(false));
        let pictures = Still {
            picture: picture.clone(),
            closed: closed.clone(),
        };
        station.attach_source(Box::new(pictures)).unwrap();
        // Settle before the test begins: the station publishes its camera coming up.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let state: Value = serde_json::from_str(&hub.published.borrow().state_json).unwrap();
            if state["station"]["camera"] == "ok" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the station's camera never came up"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        StandIn {
            addr,
            hub,
            camera,
            published_at,
            dir,
            picture,
            closed,
            station: Some(station),
            tasks,
        }
    }

    /// Show `jpeg` to the station's camera (the live view follows).
    pub fn show(&self, jpeg: &[u8]) {
        let m = opencv::imgcodecs::imdecode(
            &opencv::core::Vector::<u8>::from_slice(jpeg),
            opencv::imgcodecs::IMREAD_COLOR,
        )
        .expect("a picture");
        assert!(!m.empty(), "a decodable picture");
        *self.picture.lock().unwrap() = Some(m);
    }

    /// Stop the station and its server (as if killed), keeping its data directory;
    /// [`StandIn::start_again`] brings it back on the same address.
    pub async fn stop(mut self) -> (tempfile::TempDir, SocketAddr) {
        for task in &self.tasks {
            task.abort();
        }
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
        self.closed.store(true, Ordering::SeqCst);
        if let Some(st) = self.station.take() {
            tokio::task::spawn_blocking(move || st.stop())
                .await
                .unwrap();
        }
        (
            std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()),
            self.addr,
        )
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

/// A plain HTTP/1.1 request over TCP (no client library needed): status and body.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (status, body) = request(addr, method, path, headers, body).await;
    (status, String::from_utf8_lossy(&body).to_string())
}

/// A GET whose body is binary (a picture).
pub async fn http_bytes(addr: SocketAddr, path: &str) -> (u16, Vec<u8>) {
    request(addr, "GET", path, &[], "").await
}

async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<u8>) {
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
    (status, body)
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

/// A rendered throw (the synthetic camera of `yut_sim`) as JPEG: a real picture for
/// the live view and for evidence.
pub fn rendered_jpeg(seed: u64) -> Vec<u8> {
    use opencv::core::Vector;
    use opencv::prelude::VectorToVec;
    use yut_sim::{render, throw_scene, Look};
    let look = Look::random(seed, 320, 240);
    let (scene, _) = throw_scene(&look, seed, None);
    let mat = render(&look, &scene).to_bgr_mat().expect("a BGR picture");
    let mut jpeg = Vector::<u8>::new();
    opencv::imgcodecs::imencode(".jpg", &mat, &mut jpeg, &Vector::new()).expect("JPEG encodes");
    jpeg.to_vec()
}

/// A short replay clip made by the station's own clip recorder: a stick
/// sliding across a mat, then its resting picture.
pub fn replay_clip() -> Vec<u8> {
    use opencv::core::{Mat, Point, Scalar, CV_8UC3};
    use opencv::imgproc;
    use yutstation::station::clip::ClipRecorder;
    let picture = |x: i32| {
        let mut m =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC3, Scalar::new(40.0, 90.0, 60.0, 0.0))
                .unwrap();
        imgproc::line(
            &mut m,
            Point::new(x, 200),
            Point::new(x + 120, 260),
            Scalar::new(200.0, 220.0, 240.0, 0.0),
            14,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        m
    };
    let mut clips = ClipRecorder::default();
    for i in 0..10 {
        clips.frame(i * 100, &picture(20));
    }
    clips.throw_started(1000);
    for i in 0..20 {
        clips.frame(1100 + i * 100, &picture(20 + 20 * i as i32));
    }
    clips.finish(&picture(420)).expect("the clip is written")
}
