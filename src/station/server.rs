//! The station's web server (`docs/station-api.md`, `yutstation-ws/1`): the pages,
//! the JSON API, the WebSocket, login. A thin shell over a [`Hub`]: it holds no game
//! logic, only forwards commands and relays what the station publishes.
//!
//! Every viewer follows the hub's `watch` of the newest state, so a slow client is
//! never queued for: when it catches up it is sent the newest state, not a backlog.
//!
//! What a client may send is bounded ([`Limits`]): the time to send a request's head
//! and its body, their sizes, the connections open at once, a WebSocket message.
//! Every error the API answers is `{"error": "one line"}` (`docs/station-api.md`),
//! those of the HTTP layer itself included, and none names a path of the machine.

use super::auth::{self, LoginError, PinGate, Tokens};
use super::board_view::board_view;
use super::command::Command;
use super::hub::{CalibrateStep, Hub, Published};
use axum::body::{Body, Bytes};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{header, Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Deserialize;
use serde_json::json;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;
use tower::ServiceExt;
use yut_match::EvidenceRef;
use yut_rules::gostop::{Card, Kind, Report, Sheet};
use yut_vision::calibrate::MatSpec;

/// The API name sent in every `hello`.
pub const API: &str = "yutstation-ws/1";

/// How often a viewer is sent the state when nothing changes (the heartbeat).
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// A client that takes longer than this to accept one message is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// Commands of one referee socket waiting for the station; more are refused.
const COMMAND_QUEUE: usize = 32;

/// The largest WebSocket message a client may send (a command is far smaller).
const MAX_WS_MESSAGE: usize = 64 * 1024;

/// The HTTP layer's read buffer: a request head larger than this is refused by
/// the layer itself (431), before the [`Limits`] are checked.
const MAX_BUF: usize = 64 * 1024;

/// What a client may send, and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// To send a request's head (a connection kept open between requests included).
    pub header_timeout: Duration,
    /// To send a request's body once its head is in.
    pub body_timeout: Duration,
    /// A request's body.
    pub max_body: usize,
    /// A request's head: the path and the headers together.
    pub max_head: usize,
    /// Headers in one request.
    pub max_headers: usize,
    /// Connections open at once; more are closed as they come.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_body: 64 * 1024,
            max_head: 16 * 1024,
            max_headers: 64,
            max_connections: 1024,
        }
    }
}

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
    serve_with(hub, listener, Limits::default()).await
}

/// [`serve`] with other [`Limits`].
pub async fn serve_with(
    hub: Hub,
    listener: tokio::net::TcpListener,
    limits: Limits,
) -> std::io::Result<()> {
    serve_router(router_with(hub, limits), listener, limits).await
}

/// Serve `app` on `listener` with the connection [`Limits`] (read timeouts, a
/// cap on connections and buffers, JSON for the HTTP layer's own errors), each
/// request carrying the client's address (`ConnectInfo`). The station's pages
/// and the tournament office's both run on it.
pub async fn serve_router(
    app: Router,
    listener: tokio::net::TcpListener,
    limits: Limits,
) -> std::io::Result<()> {
    let open = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    loop {
        let (stream, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: wait rather than spin.
                eprintln!("yutstation: accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            continue; // too many open: this one is closed as it comes
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(remote));
                    app.clone().oneshot(request.map(Body::new))
                });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(MAX_BUF)
                .serve_connection(TokioIo::new(JsonHttpErrors::new(stream)), service)
                .with_upgrades();
            let _ = connection.await;
            drop(permit);
        });
    }
}

/// The routes, for [`serve`] (and for embedding in a bigger router; the PIN limit
/// then counts every client as one unless the server inserts `ConnectInfo`).
pub fn router(hub: Hub) -> Router {
    router_with(hub, Limits::default())
}

fn router_with(hub: Hub, limits: Limits) -> Router {
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
        .route("/api/logout", post(logout))
        .route("/api/command", post(command))
        .route("/api/ws", get(ws))
        .route("/api/calibrate/{step}", post(calibrate))
        .route("/api/gostop/score", post(gostop_score))
        .route("/api/gostop/cards", get(gostop_cards))
        .fallback(|| async {
            error(
                StatusCode::NOT_FOUND,
                "nothing here: see docs/station-api.md",
            )
        })
        .method_not_allowed_fallback(|| async {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "this path does not take that method: see docs/station-api.md",
            )
        })
        .with_state(shared)
        .layer(middleware::from_fn_with_state(limits, guard))
}

/// Every request: its head within the limits, its body read whole within the time
/// and size allowed, and an error answer of any handler or extractor made JSON.
async fn guard(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let head: usize = parts.uri.to_string().len()
        + parts
            .headers
            .iter()
            .map(|(k, v)| k.as_str().len() + v.len() + 4)
            .sum::<usize>();
    if parts.headers.len() > limits.max_headers || head > limits.max_head {
        return closing(error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!(
                "the request's head is too large: at most {} headers and {} KiB",
                limits.max_headers,
                limits.max_head / 1024
            ),
        ));
    }
    let too_big = || {
        closing(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request's body is larger than {} KiB",
                limits.max_body / 1024
            ),
        ))
    };
    let promised = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if promised.is_some_and(|n| n > limits.max_body as u64) {
        return too_big();
    }
    let bytes = match tokio::time::timeout(
        limits.body_timeout,
        axum::body::to_bytes(body, limits.max_body),
    )
    .await
    {
        Err(_) => {
            return closing(error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request's body did not arrive within {} s",
                    limits.body_timeout.as_secs_f64()
                ),
            ))
        }
        Ok(Err(e)) => {
            let over = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            return if over {
                too_big()
            } else {
                closing(error(
                    StatusCode::BAD_REQUEST,
                    "the request's body could not be read",
                ))
            };
        }
        Ok(Ok(bytes)) => bytes,
    };
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    as_json_error(response).await
}

/// An error answer that is not JSON yet (an extractor's rejection, say) as the
/// API's `{"error": …}`; anything else as it is.
async fn as_json_error(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if status.as_u16() < 400 || is_json {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().replace('\n', " "))
        .unwrap_or_default();
    let line = if text.is_empty() {
        status.canonical_reason().unwrap_or("refused").to_string()
    } else {
        text
    };
    error(status, line)
}

/// Tell the client the connection ends after this answer (its request was not
/// read to the end).
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The HTTP layer answers a request it cannot parse (garbage, a head past its
/// buffer, too many headers) by itself, with an empty body. This stream passes
/// everything through but those answers, which it writes as the API's JSON error.
struct JsonHttpErrors<T> {
    inner: T,
    /// A rewritten answer still to be written, and how much of it was.
    pending: Option<(Vec<u8>, usize)>,
}

impl<T> JsonHttpErrors<T> {
    fn new(inner: T) -> Self {
        JsonHttpErrors {
            inner,
            pending: None,
        }
    }
}

/// The JSON answer for one of the HTTP layer's own empty error answers.
fn rewrite_layer_error(buf: &[u8]) -> Option<Vec<u8>> {
    let (status, reason, line) = match buf.get(..13)? {
        b"HTTP/1.1 400 " => (
            400,
            "Bad Request",
            "not an HTTP/1.1 request this station can read",
        ),
        b"HTTP/1.1 414 " => (414, "URI Too Long", "the request's path is too long"),
        b"HTTP/1.1 431 " => (
            431,
            "Request Header Fields Too Large",
            "the request's head is too large: at most 64 headers and 16 KiB",
        ),
        _ => return None,
    };
    let head = std::str::from_utf8(buf).ok()?;
    let empty = head.ends_with("\r\n\r\n")
        && head.matches("\r\n\r\n").count() == 1
        && head
            .to_ascii_lowercase()
            .contains("\r\ncontent-length: 0\r\n");
    if !empty {
        return None;
    }
    let body = json!({ "error": line }).to_string();
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncWrite + Unpin> JsonHttpErrors<T> {
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some((bytes, done)) = &mut self.pending {
            if *done == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*done..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            *done += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonHttpErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonHttpErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        ready!(self.drain(cx))?;
        if let Some(answer) = rewrite_layer_error(buf) {
            self.pending = Some((answer, 0));
            if let Poll::Ready(Err(e)) = self.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
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
pub(crate) struct Refusal(StatusCode, String);

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
        // The station's log names the file; the client is told what, not where.
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
            eprintln!("yutstation: {e}");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "this evidence is damaged: its bytes no longer match its hash",
            )
        }
        Ok(Err(e)) => {
            eprintln!("yutstation: {e}");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the evidence cannot be read",
            )
        }
        Err(e) => {
            eprintln!("yutstation: reading evidence: {e}");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the evidence cannot be read",
            )
        }
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

/// The monotonic milliseconds the limiter and the tokens run on.
fn now_ms(app: &ServerShared) -> u64 {
    app.started.elapsed().as_millis() as u64
}

/// Logins come as JSON from the station's own pages (or from a program that is no
/// browser page): a form on a page elsewhere cannot lock the referee out or try
/// PINs through the referee's browser.
pub(crate) fn own_json(headers: &HeaderMap) -> Result<(), Refusal> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a login is JSON: send Content-Type: application/json",
        ));
    }
    let foreign = || {
        refuse(
            StatusCode::FORBIDDEN,
            "logins come from this station's own pages",
        )
    };
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes() == b"cross-site")
    {
        return Err(foreign());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let origin = origin.to_str().unwrap_or("");
        let own = host.is_some_and(|host| {
            origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(|o| o.eq_ignore_ascii_case(host))
        });
        if !own {
            return Err(foreign());
        }
    }
    Ok(())
}

/// The address a request came from, as the server saw it (one client for all
/// when the router is served without it).
pub(crate) fn client(extensions: &Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

async fn login(
    State(app): State<App>,
    headers: HeaderMap,
    extensions: Extensions,
    body: Bytes,
) -> Result<Response, Refusal> {
    own_json(&headers)?;
    let login: Login = parse(&body)?;
    let who = auth::check_name(&login.who)
        .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, e))?
        .to_string();
    let now = now_ms(&app);
    let checked = app
        .gate
        .lock()
        .expect("gate lock")
        .check(client(&extensions), &login.pin, now);
    match checked {
        Ok(()) => {
            let token = app.tokens.lock().expect("token lock").issue(&who, now);
            Ok(Json(json!({ "token": token, "who": who })).into_response())
        }
        Err(e @ LoginError::Locked { .. }) => Err(refuse(StatusCode::TOO_MANY_REQUESTS, e)),
        Err(e) => Err(refuse(StatusCode::UNAUTHORIZED, e)),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Logout {
    /// End every token, not only this one.
    #[serde(default)]
    everyone: bool,
}

async fn logout(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let (who, token) = referee_token(&app, &headers)?;
    let logout: Logout = if body.iter().all(u8::is_ascii_whitespace) {
        Logout::default()
    } else {
        parse(&body)?
    };
    let mut tokens = app.tokens.lock().expect("token lock");
    let ended = if logout.everyone {
        tokens.revoke_all()
    } else {
        usize::from(tokens.revoke(&token))
    };
    eprintln!("yutstation: {who} logged out ({ended} token(s) ended)");
    Ok(Json(json!({ "ended": ended })).into_response())
}

/// The name behind the request's bearer token, or the 401 to answer.
fn referee(app: &ServerShared, headers: &HeaderMap) -> Result<String, Refusal> {
    referee_token(app, headers).map(|(who, _)| who)
}

/// The name and the token of the request's bearer token.
fn referee_token(app: &ServerShared, headers: &HeaderMap) -> Result<(String, String), Refusal> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(auth::bearer);
    token
        .and_then(|t| {
            app.tokens
                .lock()
                .expect("token lock")
                .who(t, now_ms(app))
                .map(|who| (who.to_string(), t.to_string()))
        })
        .ok_or_else(|| {
            refuse(
                StatusCode::UNAUTHORIZED,
                "log in first: this needs a referee token (tokens end after 12 hours, at logout and when the station restarts)",
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
    /// The camera's height above the mat, cm, as the crew measured it.
    #[serde(default)]
    camera_height_cm: Option<f64>,
}

async fn calibrate(
    State(app): State<App>,
    Path(step): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Refusal> {
    let who = referee(&app, &headers)?;
    let step: CalibrateStep = serde_json::from_value(json!(step))
        .ok()
        .filter(|s| *s != CalibrateStep::Done)
        .ok_or_else(|| {
            refuse(
                StatusCode::NOT_FOUND,
                format!("no calibration step {step:?} (lens, lens_fit, empty, front, back, marked, throw, save, recheck)"),
            )
        })?;
    let body: CalibrateBody = if body.iter().all(u8::is_ascii_whitespace) {
        CalibrateBody::default()
    } else {
        parse(&body)?
    };
    if let Some(mat) = &body.mat {
        mat.parse::<MatSpec>()
            .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    }
    if let Some(h) = body.camera_height_cm {
        if !(h.is_finite() && (50.0..=1000.0).contains(&h)) {
            return Err(refuse(
                StatusCode::UNPROCESSABLE_ENTITY,
                "camera_height_cm: expected the camera's height above the mat in centimetres, 50 to 1000",
            ));
        }
    }
    Ok(Json(
        app.hub
            .calibrate(&who, step, body.mat, body.camera_height_cm)
            .await,
    )
    .into_response())
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
    // The token is judged first: an ended one is told so, socket or not.
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let referee = match query.token.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        Some(token) => match app.tokens.lock().expect("token lock").who(token, now_ms(&app)) {
            Some(who) => Some((who.to_string(), token.to_string())),
            None => {
                return error(
                    StatusCode::UNAUTHORIZED,
                    "unknown token: log in again (tokens end after 12 hours, at logout and when the station restarts)",
                )
            }
        },
    };
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(rejection) => return rejection.into_response(),
    };
    upgrade
        .max_message_size(MAX_WS_MESSAGE)
        .max_frame_size(MAX_WS_MESSAGE)
        .on_upgrade(move |socket| session(socket, app, referee))
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

/// One WebSocket client, viewer (`referee` is `None`) or referee (the name and
/// the token, checked again for every command: it may have ended since).
async fn session(socket: WebSocket, app: App, referee: Option<(String, String)>) {
    let hub = app.hub.clone();
    let (mut sink, mut stream) = socket.split();
    let mut published = hub.published.clone();
    let (reply_tx, mut reply_rx) = mpsc::channel::<Reply>(COMMAND_QUEUE);
    // A referee's commands go to the station one at a time, in the order sent.
    let (queue, mut queued) = mpsc::channel::<(u64, Command)>(COMMAND_QUEUE);
    let who = referee.as_ref().map(|(who, _)| who.clone());
    if let Some((who, token)) = referee {
        let hub = hub.clone();
        let app = app.clone();
        tokio::spawn(async move {
            while let Some((re, command)) = queued.recv().await {
                let alive = app
                    .tokens
                    .lock()
                    .expect("token lock")
                    .who(&token, now_ms(&app))
                    .is_some();
                let reply = if !alive {
                    Reply::Refused {
                        re,
                        reason: "your login has ended (expired or logged out): log in again".into(),
                    }
                } else {
                    match hub.command(&who, command).await {
                        Ok(journal_id) => Reply::Ack { re, journal_id },
                        Err(reason) => Reply::Refused { re, reason },
                    }
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
