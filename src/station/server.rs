//! The station's web server (`docs/station-api.md`, `yutstation-ws/1`): the pages,
//! the JSON API, the WebSocket, login. A thin shell over a [`Hub`]: it holds no game
//! logic, only forwards commands and relays what the station publishes.
//!
//! Every viewer follows the hub's `watch` of the newest state, so a slow client is
//! never queued for: when it catches up it is sent the newest state, not a backlog.

use super::auth::{self, LoginError, PinGate, Tokens};
use super::board_view::board_view;
use super::command::Command;
use super::hub::{CalibrateStep, Hub, Published};
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use yut_match::EvidenceRef;
use yut_rules::gostop::{Card, Kind, Report, Sheet};

/// The API name sent in every `hello`.
pub const API: &str = "yutstation-ws/1";

/// How often a viewer is sent the state when nothing changes (the heartbeat).
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// A client that takes longer than this to accept one message is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// Commands of one referee socket waiting for the station; more are refused.
const COMMAND_QUEUE: usize = 32;

struct ServerShared {
    hub: Hub,
    gate: Mutex<PinGate>,
    tokens: Mutex<Tokens>,
    /// The monotonic clock the PIN limiter runs on.
    started: Instant,
    board_json: String,
    cards_json: String,
}

type App = Arc<ServerShared>;

/// Serve the pages and the API on `listener` until the task is dropped.
pub async fn serve(hub: Hub, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(listener, router(hub)).await
}

/// The routes, for [`serve`] (and for embedding in a bigger router).
pub fn router(hub: Hub) -> Router {
    let shared = Arc::new(ServerShared {
        gate: Mutex::new(PinGate::new(&hub.pin)),
        hub,
        tokens: Mutex::new(Tokens::default()),
        started: Instant::now(),
        board_json: serde_json::to_string(&board_view()).expect("the board serialises"),
        cards_json: cards_json(),
    });
    Router::new()
        .route("/", get(|| async { Redirect::to("/display") }))
        .route(
            "/display",
            get(|| page(include_str!("../../web/display.html"))),
        )
        .route(
            "/console",
            get(|| page(include_str!("../../web/console.html"))),
        )
        .route(
            "/calibrate",
            get(|| page(include_str!("../../web/calibrate.html"))),
        )
        .route(
            "/gostop",
            get(|| page(include_str!("../../web/gostop.html"))),
        )
        .route("/stats", get(|| page(include_str!("../../web/stats.html"))))
        .route("/api/stats", get(stats))
        .route("/clip/{hash}", get(clip))
        .route(
            "/station.js",
            get(|| asset("text/javascript", include_str!("../../web/station.js"))),
        )
        .route(
            "/station.css",
            get(|| asset("text/css", include_str!("../../web/station.css"))),
        )
        .route("/api/state", get(state))
        .route("/api/board", get(board))
        .route("/api/live.jpg", get(live))
        .route("/evidence/{hash}", get(evidence))
        .route("/api/login", post(login))
        .route("/api/command", post(command))
        .route("/api/ws", get(ws))
        .route("/api/calibrate/{step}", post(calibrate))
        .route("/api/gostop/score", post(gostop_score))
        .route("/api/gostop/cards", get(gostop_cards))
        .with_state(shared)
}

async fn page(html: &'static str) -> Response {
    ([(header::CACHE_CONTROL, "no-cache")], Html(html)).into_response()
}

async fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn json_text(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// A refusal as the API words it: a status and `{"error": "one line"}`.
#[derive(Debug)]
struct Refusal(StatusCode, String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

fn error(status: StatusCode, message: impl std::fmt::Display) -> Response {
    Refusal(status, message.to_string()).into_response()
}

fn refuse(status: StatusCode, message: impl std::fmt::Display) -> Refusal {
    Refusal(status, message.to_string())
}

async fn state(State(app): State<App>) -> Response {
    let published = app.hub.published.borrow().clone();
    json_text(StatusCode::OK, published.state_json.to_string())
}

async fn board(State(app): State<App>) -> Response {
    json_text(StatusCode::OK, app.board_json.clone())
}

async fn gostop_cards(State(app): State<App>) -> Response {
    json_text(StatusCode::OK, app.cards_json.clone())
}

/// The 48 cards in deck order, for the `/gostop` grid.
fn cards_json() -> String {
    let cards: Vec<_> = Card::ALL
        .iter()
        .map(|c| {
            let kind = match c.kind() {
                Kind::Gwang => "gwang",
                Kind::Yeol => "yeol",
                Kind::Tti => "tti",
                Kind::Pi => "pi",
                Kind::SsangPi => "ssang_pi",
            };
            json!({ "id": c.id(), "month": c.month().number(), "kind": kind })
        })
        .collect();
    serde_json::to_string(&json!({ "cards": cards })).expect("cards serialise")
}

async fn live(State(app): State<App>) -> Response {
    let frame = app.hub.live.borrow().clone();
    match frame {
        Some(jpeg) => (
            [
                (header::CONTENT_TYPE, "image/jpeg"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            Bytes::from_owner(jpeg),
        )
            .into_response(),
        None => error(StatusCode::NOT_FOUND, "no camera frame yet"),
    }
}

async fn evidence(State(app): State<App>, Path(hash): Path<String>) -> Response {
    let hash = match EvidenceRef::try_from(hash) {
        Ok(h) => h,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let store = app.hub.evidence.clone();
    let read = tokio::task::spawn_blocking(move || store.get(&hash)).await;
    match read {
        Ok(Ok(bytes)) => (
            [
                (header::CONTENT_TYPE, "image/jpeg"),
                // Content-addressed: the same name never changes.
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            bytes,
        )
            .into_response(),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            error(StatusCode::NOT_FOUND, "no such evidence")
        }
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

/// The win chances, the line over the game and the stick fairness
/// (`docs/station-api.md`, "Statistics").
async fn stats(State(app): State<App>) -> Response {
    let insight = app.hub.insight.borrow().clone();
    json_text(
        StatusCode::OK,
        serde_json::to_string(&*insight).expect("the statistics serialise"),
    )
}

/// A throw's replay clip by hash (WebM); a clip pruned after export is gone.
/// Byte ranges are served as asked: a browser seeks a video (frame steps, the
/// end) only where the server answers ranges.
async fn clip(State(app): State<App>, Path(hash): Path<String>, headers: HeaderMap) -> Response {
    let hash = match EvidenceRef::try_from(hash) {
        Ok(h) => h,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let store = app.hub.evidence.clone();
    let read = tokio::task::spawn_blocking(move || store.get(&hash)).await;
    match read {
        Ok(Ok(bytes)) => {
            let len = bytes.len();
            let common = [
                (header::CONTENT_TYPE, super::clip::CLIP_MIME.to_string()),
                (
                    header::CACHE_CONTROL,
                    "public, max-age=31536000, immutable".to_string(),
                ),
                (header::ACCEPT_RANGES, "bytes".to_string()),
            ];
            match byte_range(&headers, len) {
                Some(Ok((from, to))) => (
                    StatusCode::PARTIAL_CONTENT,
                    common,
                    [(header::CONTENT_RANGE, format!("bytes {from}-{to}/{len}"))],
                    bytes[from..=to].to_vec(),
                )
                    .into_response(),
                Some(Err(())) => (
                    StatusCode::RANGE_NOT_SATISFIABLE,
                    [(header::CONTENT_RANGE, format!("bytes */{len}"))],
                )
                    .into_response(),
                None => (common, bytes).into_response(),
            }
        }
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => error(
            StatusCode::NOT_FOUND,
            "no such clip (clips may be pruned after export)",
        ),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

/// The one byte range of a `Range: bytes=…` header, inclusive, within `len`
/// bytes (`Err` when it lies outside); `None` without one (or with several: the
/// whole body is sent).
fn byte_range(headers: &HeaderMap, len: usize) -> Option<Result<(usize, usize), ()>> {
    let spec = headers
        .get(header::RANGE)?
        .to_str()
        .ok()?
        .strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (from, to) = match (a.trim(), b.trim()) {
        ("", suffix) => {
            let n: usize = suffix.parse().ok()?;
            (len.saturating_sub(n), len.checked_sub(1)?)
        }
        (from, "") => (from.parse().ok()?, len.checked_sub(1)?),
        (from, to) => (
            from.parse().ok()?,
            to.parse::<usize>().ok()?.min(len.checked_sub(1)?),
        ),
    };
    Some(if from <= to && to < len {
        Ok((from, to))
    } else {
        Err(())
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    pin: String,
    who: String,
}

/// Parse a JSON body, refusing with 422 and serde's one-line reason.
fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refusal> {
    serde_json::from_slice(body).map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, e))
}

async fn login(State(app): State<App>, body: Bytes) -> Result<Response, Refusal> {
    let login: Login = parse(&body)?;
    let who = auth::check_name(&login.who)
        .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, e))?
        .to_string();
    let now = app.started.elapsed().as_millis() as u64;
    let checked = app.gate.lock().expect("gate lock").check(&login.pin, now);
    match checked {
        Ok(()) => {
            let token = app.tokens.lock().expect("token lock").issue(&who);
            Ok(Json(json!({ "token": token, "who": who })).into_response())
        }
        Err(e @ LoginError::Locked { .. }) => Err(refuse(StatusCode::TOO_MANY_REQUESTS, e)),
        Err(e) => Err(refuse(StatusCode::UNAUTHORIZED, e)),
    }
}

/// The name behind the request's bearer token, or the 401 to answer.
fn referee(app: &ServerShared, headers: &HeaderMap) -> Result<String, Refusal> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(auth::bearer);
    token
        .and_then(|t| {
            app.tokens
                .lock()
                .expect("token lock")
                .who(t)
                .map(String::from)
        })
        .ok_or_else(|| {
            refuse(
                StatusCode::UNAUTHORIZED,
                "log in first: this needs a referee token",
            )
        })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandBody {
    command: Command,
}

async fn command(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let who = referee(&app, &headers)?;
    let body: CommandBody = parse(&body)?;
    match app.hub.command(&who, body.command).await {
        Ok(journal_id) => Ok(Json(json!({ "journal_id": journal_id })).into_response()),
        Err(reason) => Err(refuse(StatusCode::CONFLICT, reason)),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CalibrateBody {
    #[serde(default)]
    mat: Option<String>,
}

async fn calibrate(
    State(app): State<App>,
    Path(step): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let who = referee(&app, &headers)?;
    let step: CalibrateStep = serde_json::from_value(json!(step)).map_err(|_| {
        refuse(
            StatusCode::NOT_FOUND,
            format!("no calibration step {step:?} (empty, front, back, marked, save)"),
        )
    })?;
    let body: CalibrateBody = if body.iter().all(u8::is_ascii_whitespace) {
        CalibrateBody::default()
    } else {
        parse(&body)?
    };
    Ok(Json(app.hub.calibrate(&who, step, body.mat).await).into_response())
}

async fn gostop_score(body: Bytes) -> Result<Response, Refusal> {
    let text = String::from_utf8_lossy(&body);
    let sheet = Sheet::parse(&text).map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    Ok(Json(Report::of(&sheet)).into_response())
}

#[derive(Deserialize)]
struct WsQuery {
    token: Option<String>,
}

async fn ws(
    State(app): State<App>,
    Query(query): Query<WsQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let who = match query.token.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(token) => match app.tokens.lock().expect("token lock").who(token) {
            Some(who) => Some(who.to_string()),
            None => {
                return error(
                    StatusCode::UNAUTHORIZED,
                    "unknown token: log in again (tokens end when the station restarts)",
                )
            }
        },
    };
    let hub = app.hub.clone();
    upgrade.on_upgrade(move |socket| session(socket, hub, who))
}

/// What a session sends besides states: command replies.
enum Reply {
    Ack { re: u64, journal_id: i64 },
    Refused { re: u64, reason: String },
}

#[derive(Deserialize)]
struct ClientMessage {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    command: Option<serde_json::Value>,
}

/// The `state` message for `published`; the state JSON is spliced in as it is, so
/// it is serialised once for all viewers.
fn state_message(id: u64, published: &Published) -> String {
    format!(
        r#"{{"type":"state","id":{id},"seq":{},"state":{}}}"#,
        published.seq,
        if published.state_json.is_empty() {
            "null"
        } else {
            &published.state_json
        }
    )
}

/// One WebSocket client, viewer (`who` is `None`) or referee.
async fn session(socket: WebSocket, hub: Hub, who: Option<String>) {
    let (mut sink, mut stream) = socket.split();
    let mut published = hub.published.clone();
    let (reply_tx, mut reply_rx) = mpsc::channel::<Reply>(COMMAND_QUEUE);
    // A referee's commands go to the station one at a time, in the order sent.
    let (queue, mut queued) = mpsc::channel::<(u64, Command)>(COMMAND_QUEUE);
    if let Some(who) = who.clone() {
        let hub = hub.clone();
        tokio::spawn(async move {
            while let Some((re, command)) = queued.recv().await {
                let reply = match hub.command(&who, command).await {
                    Ok(journal_id) => Reply::Ack { re, journal_id },
                    Err(reason) => Reply::Refused { re, reason },
                };
                if reply_tx.send(reply).await.is_err() {
                    return; // the session is gone
                }
            }
        });
    }
    let mut id = 0u64;
    let mut next_id = || {
        id += 1;
        id
    };
    macro_rules! send {
        ($text:expr) => {{
            let text: String = $text;
            match tokio::time::timeout(SEND_TIMEOUT, sink.send(Message::Text(text.into()))).await {
                Ok(Ok(())) => {}
                _ => return,
            }
        }};
    }
    let role = if who.is_some() { "referee" } else { "viewer" };
    send!(json!({ "type": "hello", "id": next_id(), "api": API, "role": role }).to_string());
    let current = published.borrow_and_update().clone();
    send!(state_message(next_id(), &current));
    // The call already made when the viewer came is in the state it was sent.
    let mut call_sent = current.call_seq;
    let mut heartbeat =
        tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            changed = published.changed() => {
                if changed.is_err() {
                    return; // the station is gone
                }
                let newest = published.borrow_and_update().clone();
                send!(state_message(next_id(), &newest));
                match &newest.call_json {
                    Some(call) if newest.call_seq != call_sent => {
                        call_sent = newest.call_seq;
                        send!(format!(
                            r#"{{"type":"call","id":{},"seq":{},"call":{call}}}"#,
                            next_id(),
                            newest.call_seq
                        ));
                    }
                    _ => {}
                }
                heartbeat.reset();
            }
            _ = heartbeat.tick() => {
                let newest = published.borrow().clone();
                send!(state_message(next_id(), &newest));
            }
            Some(reply) = reply_rx.recv() => {
                send!(reply_message(next_id(), reply));
            }
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => continue, // pings are answered by the library
                };
                let refused = match read_command(who.is_some(), text.as_str()) {
                    Ok((re, command)) => queue.try_send((re, command)).err().map(|_| Reply::Refused {
                        re,
                        reason: format!("more than {COMMAND_QUEUE} commands wait: wait for their replies"),
                    }),
                    Err(refused) => Some(refused),
                };
                if let Some(refused) = refused {
                    send!(reply_message(next_id(), refused));
                }
            }
        }
    }
}

fn reply_message(id: u64, reply: Reply) -> String {
    match reply {
        Reply::Ack { re, journal_id } => {
            json!({ "type": "ack", "id": id, "re": re, "journal_id": journal_id })
        }
        Reply::Refused { re, reason } => {
            json!({ "type": "refused", "id": id, "re": re, "reason": reason })
        }
    }
    .to_string()
}

/// A client message as a command with its id, or the refusal to send back at once.
fn read_command(referee: bool, text: &str) -> Result<(u64, Command), Reply> {
    let message: ClientMessage = serde_json::from_str(text).map_err(|e| Reply::Refused {
        re: 0,
        reason: format!("not a yutstation-ws/1 message: {e}"),
    })?;
    let re = message.id.unwrap_or(0);
    let refuse = |reason: String| Reply::Refused { re, reason };
    if message.kind != "command" {
        return Err(refuse(format!(
            "unknown message type {:?}: clients send only \"command\"",
            message.kind
        )));
    }
    if !referee {
        return Err(refuse(
            "viewers cannot send commands: connect with ?token= from /api/login".into(),
        ));
    }
    match message.command.map(serde_json::from_value) {
        Some(Ok(command)) => Ok((re, command)),
        Some(Err(e)) => Err(refuse(format!("not a command: {e}"))),
        None => Err(refuse("a command message needs a \"command\"".into())),
    }
}
