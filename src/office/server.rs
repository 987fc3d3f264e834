//! The office's web server: `/tournament` (the hall screen), `/office` (the
//! console, behind the PIN), the board's state as JSON and over a WebSocket, and the
//! console's commands (`docs/tournament.md`, "Pages and API"). A thin shell over an
//! [`OfficeHub`]: it holds no tournament logic.

use super::run::{OfficeCommand, OfficeHub};
use crate::station::auth::{self, PinGate, Tokens};
use crate::station::board_view::board_view;
use crate::station::server::{client, own_json, Limits};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::Extensions;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Shared {
    hub: OfficeHub,
    gate: Mutex<PinGate>,
    tokens: Mutex<Tokens>,
    started: Instant,
    board_json: String,
}

type App = Arc<Shared>;

/// The office's routes.
pub fn router(hub: OfficeHub) -> Router {
    let shared = Arc::new(Shared {
        gate: Mutex::new(PinGate::new(&hub.pin)),
        hub,
        tokens: Mutex::new(Tokens::default()),
        started: Instant::now(),
        board_json: serde_json::to_string(&board_view()).expect("the board serialises"),
    });
    Router::new()
        .route("/", get(|| async { Redirect::to("/tournament") }))
        .route(
            "/tournament",
            get(|| page(include_str!("../../web/tournament.html"))),
        )
        .route(
            "/office",
            get(|| page(include_str!("../../web/office.html"))),
        )
        .route(
            "/tournament.js",
            get(|| async {
                (
                    [
                        (header::CONTENT_TYPE, "text/javascript"),
                        (header::CACHE_CONTROL, "no-cache"),
                    ],
                    include_str!("../../web/tournament.js"),
                )
            }),
        )
        .route("/api/tournament", get(state))
        .route("/api/tournament/ws", get(ws))
        .route("/api/board", get(board))
        .route("/api/office/login", post(login))
        .route("/api/office/command", post(command))
        .with_state(shared)
}

/// Serve until the task is dropped.
pub async fn serve(hub: OfficeHub, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    // The station's connection loop: the same read timeouts, limits and
    // per-client PIN lock-out.
    crate::station::server::serve_router(router(hub), listener, Limits::default()).await
}

async fn page(html: &'static str) -> Response {
    ([(header::CACHE_CONTROL, "no-cache")], Html(html)).into_response()
}

fn json_text(body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

fn refuse(status: StatusCode, message: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": message.to_string() }))).into_response()
}

async fn state(State(app): State<App>) -> Response {
    let view = app.hub.view.borrow().1.clone();
    json_text(view.to_string())
}

async fn board(State(app): State<App>) -> Response {
    json_text(app.board_json.clone())
}

/// Every change, and once a second when nothing changes (the clocks move).
async fn ws(State(app): State<App>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| follow(app, socket))
}

async fn follow(app: App, socket: WebSocket) {
    let (mut tx, mut rx) = socket.split();
    let mut view = app.hub.view.clone();
    let reader = tokio::spawn(async move { while let Some(Ok(_)) = rx.next().await {} });
    loop {
        let body = view.borrow_and_update().1.clone();
        let sent = tokio::time::timeout(
            Duration::from_secs(10),
            tx.send(Message::Text(body.to_string().into())),
        )
        .await;
        if !matches!(sent, Ok(Ok(()))) || reader.is_finished() {
            break;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), view.changed()).await;
    }
    reader.abort();
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    pin: String,
    name: String,
}

async fn login(
    State(app): State<App>,
    headers: HeaderMap,
    extensions: Extensions,
    body: axum::body::Bytes,
) -> Response {
    // Only JSON from the office's own pages (a page elsewhere must not lock
    // the office out), as the station's login.
    if let Err(refusal) = own_json(&headers) {
        return refusal.into_response();
    }
    let l: Login = match serde_json::from_slice(&body) {
        Ok(l) => l,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not a login: {e}")),
    };
    let who = match auth::check_name(&l.name) {
        Ok(w) => w.to_string(),
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    let now = app.started.elapsed().as_millis() as u64;
    let checked = app
        .gate
        .lock()
        .expect("not poisoned")
        .check(client(&extensions), &l.pin, now);
    match checked {
        Ok(()) => {
            let token = app.tokens.lock().expect("not poisoned").issue(&who, now);
            Json(json!({ "token": token, "name": who })).into_response()
        }
        Err(e) => refuse(StatusCode::UNAUTHORIZED, e),
    }
}

async fn command(State(app): State<App>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let who = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(auth::bearer)
        .and_then(|t| {
            let now = app.started.elapsed().as_millis() as u64;
            app.tokens
                .lock()
                .expect("not poisoned")
                .who(t, now)
                .map(str::to_string)
        });
    let Some(who) = who else {
        return refuse(StatusCode::UNAUTHORIZED, "log in with the office PIN first");
    };
    let cmd: OfficeCommand = match serde_json::from_slice(&body) {
        Ok(c) => c,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, format!("not a command: {e}")),
    };
    match app.hub.command(&who, cmd).await {
        Ok(()) => Json(json!({ "ok": true })).into_response(),
        Err(e) => refuse(StatusCode::CONFLICT, e),
    }
}
