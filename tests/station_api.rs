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
    assert!(body.contains("empty, front, back, marked, save"));
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
