//! The live API (`docs/station-api.md`) over real HTTP and WebSocket, against the
//! web server in front of the test stand-in station (`tests/common`).

mod common;

use common::{command, http, http_bytes, login, StandIn, PIN};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;
use yut_match::{EvidenceRef, Verdict};
use yut_rules::yut::ThrowResult;

async fn get_json(s: &StandIn, path: &str) -> (u16, Value) {
    let (status, body) = http(s.addr, "GET", path, &[], "").await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn pages_and_board_are_served() {
    let s = StandIn::start().await;
    for (path, marker) in [
        ("/display", "전광판"),
        ("/console", "심판 콘솔"),
        ("/calibrate", "카메라 보정"),
        ("/gostop", "고스톱"),
        ("/station.js", "yutstation-ws/1"),
    ] {
        let (status, body) = http(s.addr, "GET", path, &[], "").await;
        assert_eq!(status, 200, "{path}");
        assert!(body.contains(marker), "{path} lacks {marker}");
    }
    let (status, board) = get_json(&s, "/api/board").await;
    assert_eq!(status, 200);
    assert_eq!(board["stations"].as_array().unwrap().len(), 29);
    assert_eq!(board["links"].as_array().unwrap().len(), 31);
    let (status, state) = get_json(&s, "/api/state").await;
    assert_eq!(status, 200);
    assert_eq!(state["game_number"], 0);
    assert!(state["match"].is_null());
}

#[tokio::test]
async fn wrong_pins_are_refused_then_rate_limited() {
    let s = StandIn::start().await;
    let try_pin = |pin: &'static str| {
        let addr = s.addr;
        async move {
            let body = json!({ "pin": pin, "who": "김심판" }).to_string();
            let (status, body) = http(addr, "POST", "/api/login", &[], &body).await;
            (status, serde_json::from_str::<Value>(&body).unwrap())
        }
    };
    for _ in 0..4 {
        let (status, body) = try_pin("0000").await;
        assert_eq!((status, body["error"].as_str()), (401, Some("wrong PIN")));
    }
    let (status, body) = try_pin("0000").await;
    assert_eq!(status, 429);
    assert_eq!(body["error"], "too many wrong PINs: try again in 30 s");
    // Locked: even the right PIN waits.
    assert_eq!(try_pin(PIN).await.0, 429);
    // A name is required.
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/login",
        &[],
        &json!({ "pin": PIN, "who": " " }).to_string(),
    )
    .await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn commands_need_a_token_and_refusals_are_one_line() {
    let s = StandIn::start().await;
    let (status, _) = command(s.addr, "forged", json!({ "kind": "start" })).await;
    assert_eq!(status, 401);
    let token = login(s.addr, "김심판").await;
    let (status, body) = command(s.addr, &token, json!({ "kind": "start" })).await;
    assert_eq!(status, 409);
    let reason = body["error"].as_str().unwrap();
    assert!(reason.contains("no game has begun"), "{reason}");
    let (status, body) = command(s.addr, &token, json!({ "kind": "new_game" })).await;
    assert_eq!(status, 200, "{body}");
    let first = body["journal_id"].as_i64().unwrap();
    let (status, body) = command(s.addr, &token, json!({ "kind": "start" })).await;
    assert_eq!(
        (status, body["journal_id"].as_i64()),
        (200, Some(first + 1))
    );
    let (status, body) = command(
        s.addr,
        &token,
        json!({ "kind": "manual_throw", "result": "gae", "reason": "" }),
    )
    .await;
    assert_eq!(status, 409);
    let reason = body["error"].as_str().unwrap();
    assert!(
        reason.contains("reason") && !reason.contains('\n'),
        "{reason}"
    );
    let (status, body) = command(s.addr, &token, json!({ "kind": "fly" })).await;
    assert_eq!(status, 422, "{body}");
    // What was accepted is in the state, signed by who sent it.
    let state = s.state();
    assert_eq!(state["game_number"], 1);
    assert_eq!(state["match"]["started"], true);
    let (_, via_http) = get_json(&s, "/api/state").await;
    assert_eq!(via_http, state);
}

#[tokio::test]
async fn evidence_and_live_frames() {
    let s = StandIn::start().await;
    let (status, body) = http(s.addr, "GET", "/api/live.jpg", &[], "").await;
    assert_eq!(
        (status, body.as_str()),
        (404, r#"{"error":"no camera frame yet"}"#)
    );
    s.show(&common::rendered_jpeg(3));
    let deadline = Instant::now() + Duration::from_secs(10);
    let (status, body) = loop {
        let (status, body) = http_bytes(s.addr, "/api/live.jpg").await;
        if status == 200 || Instant::now() > deadline {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status, 200);
    let live = opencv::imgcodecs::imdecode(
        &opencv::core::Vector::<u8>::from_slice(&body),
        opencv::imgcodecs::IMREAD_COLOR,
    )
    .unwrap();
    use opencv::prelude::MatTraitConst;
    assert_eq!(
        (live.cols(), live.rows()),
        (320, 240),
        "the camera picture, as JPEG"
    );

    let hash = s.put_evidence(b"evidence picture");
    let (status, body) = http(s.addr, "GET", &format!("/evidence/{hash}"), &[], "").await;
    assert_eq!((status, body.as_str()), (200, "evidence picture"));
    let (status, _) = http(s.addr, "GET", "/evidence/..%2Fjournal.sqlite3", &[], "").await;
    assert_eq!(status, 400);
    let (status, _) = http(
        s.addr,
        "GET",
        &format!("/evidence/{}", "0".repeat(64)),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = http(
        s.addr,
        "GET",
        &format!("/evidence/{}", "A".repeat(64)),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn calibration_needs_a_token_and_relays_the_reply() {
    let s = StandIn::start().await;
    let (status, _) = http(s.addr, "POST", "/api/calibrate/empty", &[], "{}").await;
    assert_eq!(status, 401);
    let token = login(s.addr, "김심판").await;
    let auth = format!("Bearer {token}");
    let headers = [("Authorization", auth.as_str())];
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/calibrate/empty",
        &headers,
        r#"{"mat":"circle:160"}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["ok"], false);
    assert_eq!(reply["checks"][0]["name"], "camera");
    let (status, _) = http(s.addr, "POST", "/api/calibrate/front", &headers, "").await;
    assert_eq!(status, 200);
    let (status, body) = http(s.addr, "POST", "/api/calibrate/sideways", &headers, "").await;
    assert_eq!(status, 404);
    assert!(body.contains("lens, lens_fit, empty, front, back, marked, throw, save, recheck"));
    // `done` is only ever a reply's next step.
    let (status, _) = http(s.addr, "POST", "/api/calibrate/done", &headers, "").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn gostop_scores_a_sheet_and_refuses_a_bad_one() {
    let s = StandIn::start().await;
    let (status, cards) = get_json(&s, "/api/gostop/cards").await;
    assert_eq!(status, 200);
    let cards = cards["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 48);
    assert_eq!(
        cards[0],
        json!({ "id": "1광", "month": 1, "kind": "gwang" })
    );
    let sheet = json!({
        "format": "gostop-score/1", "preset": "tongilan", "players": ["갑", "을", "병"],
        "winner": "갑",
        "captured": { "갑": ["1광", "3광", "8광", "2열", "4열", "8열"], "을": ["1피1"], "병": [] },
        "go": 0, "shakes": 0
    });
    let (status, body) = http(s.addr, "POST", "/api/gostop/score", &[], &sheet.to_string()).await;
    assert_eq!(status, 200, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    // The same settlement as the pure scorer gives.
    let expected = yut_rules::gostop::Report::of(
        &yut_rules::gostop::Sheet::parse(&sheet.to_string()).unwrap(),
    );
    assert_eq!(report, serde_json::to_value(&expected).unwrap());
    for line in report["points"]["lines"].as_array().unwrap() {
        assert!(!line["article"].as_str().unwrap().is_empty(), "{line}");
    }

    let mut twice = sheet.clone();
    twice["captured"]["을"] = json!(["1광"]);
    let (status, body) = http(s.addr, "POST", "/api/gostop/score", &[], &twice.to_string()).await;
    assert_eq!(status, 422);
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], "card 1광 appears twice (갑 and 을)");
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a message within 5 s")
            .expect("open")
            .expect("no error");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// The next message of `kind`, skipping others (heartbeat states, ...).
async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let m = next_json(ws).await;
        if m["type"] == kind {
            return m;
        }
    }
}

#[tokio::test]
async fn websocket_hello_state_heartbeat_commands_and_calls() {
    let s = StandIn::start().await;
    let ws_url = |q: &str| format!("ws://{}/api/ws{q}", s.addr);
    let (mut viewer, _) = tokio_tungstenite::connect_async(ws_url("")).await.unwrap();
    let hello = next_json(&mut viewer).await;
    assert_eq!(
        hello,
        json!({ "type": "hello", "id": 1, "api": "yutstation-ws/1", "role": "viewer" })
    );
    let first = next_json(&mut viewer).await;
    assert_eq!(
        (first["type"].as_str(), first["id"].as_u64()),
        (Some("state"), Some(2))
    );
    assert_eq!(first["state"]["game_number"], 0);

    // A heartbeat state comes within about a second: the same seq again, with an
    // increasing id. (The station may publish a change of its own first, such as its
    // camera coming up.)
    let t0 = Instant::now();
    let mut prev = first.clone();
    let beat = loop {
        let m = next_json(&mut viewer).await;
        assert_eq!(m["type"], "state");
        assert!(m["id"].as_u64() > prev["id"].as_u64());
        if m["seq"] == prev["seq"] {
            break m;
        }
        prev = m;
    };
    assert!(beat["seq"].as_u64() >= first["seq"].as_u64());
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );

    // Viewers cannot command.
    viewer
        .send(Message::Text(
            json!({ "type": "command", "id": 7, "command": { "kind": "start" } })
                .to_string()
                .into(),
        ))
        .await
        .unwrap();
    let refused = next_of(&mut viewer, "refused").await;
    assert_eq!(refused["re"], 7);
    assert!(refused["reason"]
        .as_str()
        .unwrap()
        .contains("viewers cannot send commands"));

    // A forged token is refused at the door.
    assert!(tokio_tungstenite::connect_async(ws_url("?token=forged"))
        .await
        .is_err());

    let token = login(s.addr, "김심판").await;
    let (mut referee, _) = tokio_tungstenite::connect_async(ws_url(&format!("?token={token}")))
        .await
        .unwrap();
    assert_eq!(next_json(&mut referee).await["role"], "referee");
    // Sent back to back without waiting: they reach the station in order (a start
    // overtaking its new game would be refused).
    for (id, cmd) in [
        (1, json!({ "kind": "new_game" })),
        (2, json!({ "kind": "start" })),
    ] {
        referee
            .send(Message::Text(
                json!({ "type": "command", "id": id, "command": cmd })
                    .to_string()
                    .into(),
            ))
            .await
            .unwrap();
    }
    let mut journal_ids = Vec::new();
    for id in [1, 2] {
        let ack = next_of(&mut referee, "ack").await;
        assert_eq!(ack["re"], id, "{ack}");
        journal_ids.push(ack["journal_id"].as_i64().unwrap());
    }
    assert_eq!(journal_ids[1], journal_ids[0] + 1);
    referee
        .send(Message::Text(
            json!({ "type": "command", "id": 3, "command": { "kind": "undo" } })
                .to_string()
                .into(),
        ))
        .await
        .unwrap();
    let refused = next_of(&mut referee, "refused").await;
    assert_eq!(refused["re"], 3);
    assert!(!refused["reason"].as_str().unwrap().is_empty());

    // A camera throw with evidence: every viewer is sent the state and the call.
    let hash = s.put_evidence(b"throw picture");
    s.camera
        .send(Verdict {
            result: Some(ThrowResult::Mo),
            confidence: Some(0.97),
            evidence: vec![EvidenceRef::try_from(hash.clone()).unwrap()],
            flags: vec![],
            height_mm: None,
            ..Default::default()
        })
        .await
        .unwrap();
    let call = next_of(&mut viewer, "call").await;
    assert_eq!(call["call"]["result"], "mo");
    assert_eq!(call["call"]["korean"], "모");
    assert_eq!(call["call"]["source"], "automatic");
    assert_eq!(call["call"]["evidence"][0], hash.as_str());
    assert_eq!(call["call"]["thrower"], "김하나");
    let state = s.state();
    assert_eq!(state["match"]["game"]["pending"], json!(["mo"]));
    assert_eq!(state["last_call"], call["call"]);
    // Every id a client was sent increases.
    let mut last = call["id"].as_u64().unwrap();
    for _ in 0..2 {
        let m = next_json(&mut viewer).await;
        assert!(m["id"].as_u64().unwrap() > last);
        last = m["id"].as_u64().unwrap();
    }
}

/// Send `request` as it is from a socket bound to `from` (another loopback address
/// is another client); the status, the head and the body of the answer.
async fn raw(addr: std::net::SocketAddr, from: &str, request: &[u8]) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(addr).await.expect("connect");
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer in time")
        .ok();
    let text = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

fn post(addr: std::net::SocketAddr, path: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for h in headers {
        req += h;
        req += "\r\n";
    }
    req += "\r\n";
    req += body;
    req.into_bytes()
}

/// An API error: JSON `{"error": "one line"}` with no path of the server in it.
fn json_error(head: &str, body: &str) -> String {
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "not JSON: {head}\n\n{body}"
    );
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    let line = v["error"].as_str().expect("an error").to_string();
    assert!(
        !line.is_empty() && !line.contains('\n') && !line.contains("/tmp"),
        "{line}"
    );
    line
}

#[tokio::test]
async fn a_locked_out_client_does_not_lock_out_the_referee() {
    let s = StandIn::start().await;
    let pin = |pin: &str| json!({ "pin": pin, "who": "누군가" }).to_string();
    let json = "Content-Type: application/json";
    for _ in 0..5 {
        raw(
            s.addr,
            "127.0.0.2",
            &post(s.addr, "/api/login", &[json], &pin("0000")),
        )
        .await;
    }
    let (status, head, body) = raw(
        s.addr,
        "127.0.0.2",
        &post(s.addr, "/api/login", &[json], &pin(PIN)),
    )
    .await;
    assert_eq!(status, 429, "the guesser is locked: {body}");
    json_error(&head, &body);
    let (status, _, body) = raw(
        s.addr,
        "127.0.0.1",
        &post(s.addr, "/api/login", &[json], &pin(PIN)),
    )
    .await;
    assert_eq!(
        status, 200,
        "the referee at another machine logs in: {body}"
    );
}

#[tokio::test]
async fn logins_are_json_from_the_station_s_own_pages() {
    let s = StandIn::start().await;
    let body = json!({ "pin": PIN, "who": "김심판" }).to_string();
    let own = format!("Origin: http://{}", s.addr);
    for (headers, want) in [
        (vec!["Content-Type: text/plain"], 415),
        (vec!["Content-Type: application/x-www-form-urlencoded"], 415),
        (vec![], 415),
        (
            vec![
                "Content-Type: application/json",
                "Origin: http://evil.example",
            ],
            403,
        ),
        (vec!["Content-Type: application/json", "Origin: null"], 403),
        (
            vec![
                "Content-Type: application/json",
                "Sec-Fetch-Site: cross-site",
            ],
            403,
        ),
        (vec!["Content-Type: application/json", own.as_str()], 200),
        (vec!["Content-Type: application/json; charset=utf-8"], 200),
    ] {
        let (status, head, answer) = raw(
            s.addr,
            "127.0.0.1",
            &post(s.addr, "/api/login", &headers, &body),
        )
        .await;
        assert_eq!(status, want, "{headers:?}: {answer}");
        if want != 200 {
            json_error(&head, &answer);
        }
    }
}

#[tokio::test]
async fn tokens_can_be_revoked_and_names_are_capped() {
    let s = StandIn::start().await;
    let token = login(s.addr, "김심판").await;
    let (status, _) = command(s.addr, &token, json!({ "kind": "new_game" })).await;
    assert_eq!(status, 200);
    let auth = format!("Bearer {token}");
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/logout",
        &[("Authorization", &auth)],
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = command(s.addr, &token, json!({ "kind": "start" })).await;
    assert_eq!(status, 401, "a revoked token acts no more: {body}");
    let (status, _) = http(s.addr, "GET", &format!("/api/ws?token={token}"), &[], "").await;
    assert_eq!(status, 401);
    // Every token at once (a console left logged in somewhere).
    let a = login(s.addr, "김심판").await;
    let b = login(s.addr, "이심판").await;
    let auth = format!("Bearer {a}");
    let (status, body) = http(
        s.addr,
        "POST",
        "/api/logout",
        &[("Authorization", &auth)],
        r#"{"everyone": true}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(command(s.addr, &b, json!({ "kind": "start" })).await.0, 401);

    for who in ["가".repeat(65), "김\n심판".into(), "\u{1b}[31m".into()] {
        let (status, body) = http(
            s.addr,
            "POST",
            "/api/login",
            &[],
            &json!({ "pin": PIN, "who": who }).to_string(),
        )
        .await;
        assert_eq!(status, 422, "{who:?}: {body}");
    }
    login(s.addr, &"가".repeat(64)).await;
}

#[tokio::test]
async fn commands_with_unknown_fields_are_refused_and_a_manual_throw_is_manual() {
    let s = StandIn::start().await;
    let token = login(s.addr, "김심판").await;
    for kind in ["start", "undo", "timeout_end", "new_game"] {
        let (status, body) = command(s.addr, &token, json!({ "kind": kind, "surprise": 1 })).await;
        assert_eq!(status, 422, "{kind}: {body}");
    }
    assert_eq!(
        command(s.addr, &token, json!({ "kind": "new_game" }))
            .await
            .0,
        200
    );
    assert_eq!(
        command(s.addr, &token, json!({ "kind": "start" })).await.0,
        200
    );
    let (status, body) = command(
        s.addr,
        &token,
        json!({ "kind": "manual_throw", "result": "gae", "reason": "the camera was blocked" }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let state = s.state();
    assert_eq!(
        state["last_call"]["source"], "manual",
        "{}",
        state["last_call"]
    );
    let item = &state["match"]["items"][0]["input"]["throw"];
    assert_eq!(item["call"]["by"], "manual", "{item}");
}

#[tokio::test]
async fn every_api_error_is_one_json_shape() {
    let s = StandIn::start().await;
    let get = |path: &str, extra: &str| {
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n",
            s.addr
        )
        .into_bytes()
    };
    let big_header = format!("X-Filler: {}\r\n", "a".repeat(40_000));
    let many_headers: String = (0..150).map(|i| format!("X-H{i}: {i}\r\n")).collect();
    let huge_header = format!("X-Filler: {}\r\n", "a".repeat(600_000));
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        ("no such route", get("/api/nothing", ""), 404),
        (
            "a method the route lacks",
            format!(
                "DELETE /api/state HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                s.addr
            )
            .into_bytes(),
            405,
        ),
        (
            "a body too big",
            post(
                s.addr,
                "/api/gostop/score",
                &["Content-Type: application/json"],
                &" ".repeat(200_000),
            ),
            413,
        ),
        ("a header too big", get("/api/state", &big_header), 431),
        ("too many headers", get("/api/state", &many_headers), 431),
        (
            "a head past the HTTP layer's buffer",
            get("/api/state", &huge_header),
            431,
        ),
        ("not a WebSocket", get("/api/ws", ""), 400),
        (
            "a request line that is no request",
            b"HELLO\r\n\r\n".to_vec(),
            400,
        ),
    ];
    for (what, request, want) in cases {
        let (status, head, body) = raw(s.addr, "127.0.0.1", &request).await;
        assert_eq!(status, want, "{what}: {head}\n\n{body}");
        json_error(&head, &body);
    }
}

#[tokio::test]
async fn damaged_evidence_is_refused_without_the_server_s_paths() {
    let s = StandIn::start().await;
    let hash = s.put_evidence(b"a throw picture");
    let file = s.dir.path().join("evidence").join(&hash[..2]).join(&hash);
    std::fs::write(&file, b"something else").unwrap();
    let (status, head, body) = raw(
        s.addr,
        "127.0.0.1",
        format!(
            "GET /evidence/{hash} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.addr
        )
        .as_bytes(),
    )
    .await;
    assert_eq!(status, 500, "{body}");
    let line = json_error(&head, &body);
    assert!(
        line.contains("damaged") && !line.contains(s.dir.path().to_str().unwrap()),
        "{line}"
    );
}

#[tokio::test]
async fn calibration_refuses_a_mat_size_that_is_no_size() {
    let s = StandIn::start().await;
    let token = login(s.addr, "김심판").await;
    let auth = format!("Bearer {token}");
    for mat in [
        "circle:NaN",
        "circle:inf",
        "square:1e30",
        "circle:-160",
        "circle:0",
    ] {
        let (status, body) = http(
            s.addr,
            "POST",
            "/api/calibrate/empty",
            &[("Authorization", &auth)],
            &json!({ "mat": mat }).to_string(),
        )
        .await;
        assert_eq!(status, 422, "{mat}: {body}");
    }
}

#[tokio::test]
async fn half_sent_requests_are_dropped_in_time() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use yutstation::station::server::{serve_with, Limits};
    let s = StandIn::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = Limits {
        header_timeout: Duration::from_millis(500),
        body_timeout: Duration::from_millis(500),
        ..Limits::default()
    };
    let server = tokio::spawn(serve_with(s.hub.clone(), listener, limits));
    // A head never finished: the connection is closed.
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), half.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "the half-sent head is still open after 5 s");
    assert!(started.elapsed() < Duration::from_secs(3));
    // A body promised and not sent: 408, JSON, in time.
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    slow.write_all(
        b"POST /api/gostop/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n{",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut buf))
        .await
        .expect("the promised body is waited for too long")
        .ok();
    assert!(started.elapsed() < Duration::from_secs(3));
    let text = String::from_utf8_lossy(&buf);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    json_error(head, body);
    server.abort();
}
