//! The pages in a real browser: headless Chromium driven over WebDriver
//! (chromedriver + fantoccini) against the web server in front of the test stand-in
//! station (`tests/common`). Screenshots go to `target/screenshots/`.
//!
//! Skips (prints why, passes) when chromium or chromedriver is not installed;
//! `.ci/run` installs both (scripts/debian-packages.txt).

#[path = "common/browser.rs"]
mod browser;
mod common;

use browser::{click, shot, text, type_into, until, Driver};
use common::{command, login, StandIn};
use fantoccini::Locator;
use serde_json::json;
use std::time::{Duration, Instant};
use yut_match::{EvidenceRef, Verdict};
use yut_rules::yut::ThrowResult;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn referee_console_and_display_in_a_browser() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let s = StandIn::start().await;
    s.show(&common::rendered_jpeg(11));
    let c = driver.client().await;

    // Wrong PIN refused, right PIN logs in.
    c.goto(&s.url("/console")).await.unwrap();
    until(&c, "login form", "!document.getElementById('login').hidden").await;
    type_into(&c, "#login-who", "김심판").await;
    type_into(&c, "#login-pin", "0000").await;
    click(&c, "#login-go").await;
    let refused = until(
        &c,
        "wrong PIN",
        "document.getElementById('login-error').textContent",
    )
    .await;
    assert_eq!(refused, "wrong PIN");
    type_into(&c, "#login-pin", common::PIN).await;
    click(&c, "#login-go").await;
    until(
        &c,
        "console",
        "!document.getElementById('app').hidden && !document.body.classList.contains('offline')",
    )
    .await;

    // New game with the pre-filled setup form, then start.
    click(&c, "#setup-box summary").await;
    click(&c, "#new-game").await;
    until(
        &c,
        "a game",
        "document.getElementById('status').textContent.includes('시작 전')",
    )
    .await;
    assert_eq!(
        s.state()["setup"]["teams"][0]["throwers"][1]["name"],
        "이두리"
    );
    click(&c, "#start").await;
    until(
        &c,
        "started",
        "document.getElementById('status').textContent.includes('차례')",
    )
    .await;

    // A manual throw (윷, so the team throws again).
    c.find(Locator::Css("#manual-result"))
        .await
        .unwrap()
        .select_by_value("yut")
        .await
        .unwrap();
    type_into(&c, "#manual-reason", "카메라 가림").await;
    click(&c, "#manual").await;
    until(
        &c,
        "manual throw",
        "document.getElementById('call-word').textContent === '윷'",
    )
    .await;

    // A camera throw the station is unsure of: it waits for the referee.
    let hash = s.put_evidence(&common::rendered_jpeg(12));
    s.camera
        .send(Verdict {
            result: Some(ThrowResult::Gae),
            confidence: Some(0.58),
            evidence: vec![EvidenceRef::try_from(hash.clone()).unwrap()],
            flags: vec!["on_line".into()],
            height_mm: None,
            ..Default::default()
        })
        .await
        .unwrap();
    until(
        &c,
        "awaiting call",
        "document.getElementById('call-flags').textContent.includes('on_line')",
    )
    .await;
    assert_eq!(s.state()["match"]["awaiting_call"], 2);
    let thumb = c
        .find(Locator::Css("#evidence"))
        .await
        .unwrap()
        .attr("src")
        .await
        .unwrap();
    assert_eq!(thumb.as_deref(), Some(format!("/evidence/{hash}").as_str()));
    until(&c, "thumbnail and live view decoded", "document.getElementById('evidence').naturalWidth === 320 && document.getElementById('live').naturalWidth === 320").await;
    shot(&c, "console-awaiting-call").await;
    // Online all along: no reconnect, no badge.
    let link = c
        .execute(
            "return [YS.closes.length, getComputedStyle(document.getElementById('badge')).display];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(link, json!([0, "none"]));

    // A refusal is shown as one line: 낙 without a reason.
    click(&c, "#call-nak").await;
    let line = until(&c, "refusal", "document.getElementById('message').className === 'error' && document.getElementById('message').textContent").await;
    assert_eq!(
        line,
        "calling 낙 needs a reason (which stick left the mat, a foul, ...)"
    );

    // Confirm the station's reading of throw 2 (the throw number is pre-filled).
    click(&c, "#confirm").await;
    until(
        &c,
        "confirmed",
        "document.getElementById('call-word').textContent === '개'",
    )
    .await;
    assert_eq!(s.state()["match"]["game"]["pending"], json!(["yut", "gae"]));

    // Override throw 1: 윷 → 모.
    type_into(&c, "#throw-no", "1").await;
    c.find(Locator::Css("#override-result"))
        .await
        .unwrap()
        .select_by_value("mo")
        .await
        .unwrap();
    type_into(&c, "#override-reason", "영상 재확인").await;
    click(&c, "#override").await;
    until(
        &c,
        "override",
        "document.getElementById('call-word').textContent === '모'",
    )
    .await;
    let state = s.state();
    assert_eq!(state["match"]["game"]["pending"], json!(["mo", "gae"]));
    assert_eq!(state["match"]["overrides"][0]["to"], "mo");

    // Move by tapping: 모 from waiting lands on the 모 corner (a green target).
    until(
        &c,
        "targets",
        "document.querySelector('circle.station.target[data-id=mo]')",
    )
    .await;
    shot(&c, "console-moves").await;
    click(&c, "circle.station[data-id=mo]").await;
    until(
        &c,
        "moved",
        "document.querySelector('g.stack[data-team=\"0\"][data-station=mo]')",
    )
    .await;
    assert_eq!(
        s.state()["match"]["game"]["teams"][0]["board"],
        json!({ "mo": 1 })
    );
    let log = until(
        &c,
        "throws list",
        "document.getElementById('throws').textContent.includes('대기 → 모')",
    )
    .await;
    assert_eq!(log, json!(true));
    shot(&c, "console-after-move").await;

    // The display shows it: the piece, the last call, the turn; read-only.
    c.goto(&s.url("/display")).await.unwrap();
    until(
        &c,
        "display",
        "document.querySelector('g.stack[data-team=\"0\"][data-station=mo]')",
    )
    .await;
    assert_eq!(text(&c, "#call-word").await, "모!");
    assert_eq!(
        c.find_all(Locator::Css("svg.board circle.station"))
            .await
            .unwrap()
            .len(),
        29
    );
    assert!(c.find_all(Locator::Css("button")).await.unwrap().is_empty());
    assert!(text(&c, "#pending").await.contains('개'));
    shot(&c, "display").await;

    // It redraws soon after a change: a move sent over the API.
    let token = login(s.addr, "부심").await;
    let t0 = Instant::now();
    let (status, body) = command(
        s.addr,
        &token,
        json!({ "kind": "move", "result": "gae", "from": "waiting", "to": "gae" }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    until(
        &c,
        "display redraw",
        "document.querySelector('g.stack[data-team=\"0\"][data-station=gae]')",
    )
    .await;
    let redraw = t0.elapsed();
    eprintln!(
        "display redrawn {} ms after the command (upper bound: includes WebDriver polling)",
        redraw.as_millis()
    );
    assert!(redraw < Duration::from_millis(1000), "{redraw:?}");

    // The calibration page (same tab: the console's login carries over) relays
    // each step's reply with its checks.
    c.goto(&s.url("/calibrate")).await.unwrap();
    until(
        &c,
        "calibrate",
        "document.querySelectorAll('#stepper li').length === 5",
    )
    .await;
    click(&c, "#stepper li[data-step=empty]").await;
    click(&c, "#take").await;
    let checks = until(
        &c,
        "checks",
        "document.getElementById('checks').textContent",
    )
    .await;
    // The real checks on the camera's picture (a thrown, not an empty, mat at
    // 320×240: light and focus pass, the mat is refused with what to fix).
    let checks = checks.as_str().unwrap();
    for part in ["✓ light:", "✓ focus:", "✗ mat:"] {
        assert!(checks.contains(part), "{checks}");
    }
    until(
        &c,
        "live view",
        "document.getElementById('live').naturalWidth === 320",
    )
    .await;
    shot(&c, "calibrate").await;

    // English labels on request.
    c.goto(&s.url("/display?lang=en")).await.unwrap();
    until(
        &c,
        "english",
        "document.getElementById('turn').textContent.includes('turn')",
    )
    .await;
    shot(&c, "display-en").await;

    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn display_shows_reconnecting_and_recovers_after_a_restart() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let s = StandIn::start().await;
    let token = login(s.addr, "김심판").await;
    for cmd in [json!({ "kind": "new_game" }), json!({ "kind": "start" })] {
        assert_eq!(command(s.addr, &token, cmd).await.0, 200);
    }
    let c = driver.client().await;
    c.goto(&s.url("/display")).await.unwrap();
    until(&c, "online", "document.getElementById('turn').textContent.includes('청팀') && !document.body.classList.contains('offline')").await;

    // The station goes away: the badge shows.
    let stopped = s.stop().await;
    until(&c, "badge", "document.body.classList.contains('offline') && getComputedStyle(document.getElementById('badge')).display !== 'none'").await;
    shot(&c, "display-reconnecting").await;

    // It comes back on the same data directory: the page reconnects by itself and
    // shows the same game, without a reload.
    c.execute("window.__sameDocument = true; return true;", vec![])
        .await
        .unwrap();
    let s = StandIn::start_again(stopped).await;
    until(&c, "back online", "!document.body.classList.contains('offline') && document.getElementById('turn').textContent.includes('청팀')").await;
    assert_eq!(
        c.execute("return window.__sameDocument === true;", vec![])
            .await
            .unwrap(),
        json!(true)
    );
    assert_eq!(s.state()["match"]["started"], true);
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gostop_page_scores_tapped_cards() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let s = StandIn::start().await;
    let c = driver.client().await;
    c.goto(&s.url("/gostop")).await.unwrap();
    until(
        &c,
        "grid",
        "document.querySelectorAll('#grid button.card').length === 48",
    )
    .await;
    for card in ["1광", "3광", "8광", "2열", "4열", "8열"] {
        click(&c, &format!("button.card[data-card='{card}']")).await;
    }
    click(&c, "button[data-tap-as='1']").await;
    click(&c, "button.card[data-card='1피1']").await;
    click(&c, "#score").await;
    let total = until(
        &c,
        "settlement",
        "document.getElementById('total') && document.getElementById('total').textContent",
    )
    .await;
    // The same numbers as the pure scorer.
    let sheet = json!({
        "format": "gostop-score/1", "preset": "tongilan", "players": ["갑", "을", "병"],
        "winner": "갑",
        "captured": { "갑": ["1광", "3광", "8광", "2열", "4열", "8열"], "을": ["1피1"], "병": [] },
        "go": 0, "shakes": 0
    });
    let report = yut_rules::gostop::Report::of(
        &yut_rules::gostop::Sheet::parse(&sheet.to_string()).unwrap(),
    );
    assert!(
        total
            .as_str()
            .unwrap()
            .contains(&report.total_paid.to_string()),
        "{total} vs {}",
        report.total_paid
    );
    let points = text(&c, "#points").await;
    for line in &report.points.lines {
        assert!(
            points.contains(line.article),
            "{points} lacks {}",
            line.article
        );
    }
    shot(&c, "gostop").await;
    // A card given twice cannot happen on the grid, but a winner below the points
    // needed is refused with the scorer's one line.
    click(&c, "#clear").await;
    click(&c, "#score").await;
    let msg = until(
        &c,
        "refusal",
        "document.getElementById('message').textContent",
    )
    .await;
    assert!(msg.as_str().unwrap().contains("below the"), "{msg}");
    c.close().await.unwrap();
}

/// Before anyone logs in, the console shows the login box and nothing else: none
/// of its controls is drawn under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_draws_only_the_login_before_anyone_logs_in() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let s = StandIn::start().await;
    let c = driver.client().await;
    c.goto(&s.url("/console")).await.unwrap();
    until(&c, "login form", "!document.getElementById('login').hidden").await;
    let drawn = c
        .execute(
            "return [...document.querySelectorAll('#app button, #app input, #app select, #board')]
                .filter((e) => e.getClientRects().length > 0).map((e) => e.id || e.tagName);",
            vec![],
        )
        .await
        .unwrap();
    shot(&c, "console-before-login").await;
    assert_eq!(drawn, json!([]), "controls drawn before login");
    let login_shown = c
        .execute(
            "return document.getElementById('login-go').getClientRects().length > 0;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(login_shown, json!(true));
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_replays_a_throw_and_stats_show_the_sticks() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let s = StandIn::start().await;
    let token = login(s.addr, "김심판").await;
    for cmd in [json!({ "kind": "new_game" }), json!({ "kind": "start" })] {
        assert_eq!(command(s.addr, &token, cmd).await.0, 200);
    }
    // A camera throw with its sticks read and its replay clip.
    let still = s.put_evidence(&common::rendered_jpeg(13));
    let clip = s.put_evidence(&common::replay_clip());
    s.camera
        .send(Verdict {
            result: Some(ThrowResult::Gae),
            confidence: Some(0.98),
            evidence: vec![EvidenceRef::try_from(still).unwrap()],
            sticks: Some(yut_match::SticksRead {
                set: "공식 윷 1".into(),
                mat: "circle:160".into(),
                faces: "RMFR".into(),
            }),
            clip: Some(EvidenceRef::try_from(clip.clone()).unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    let c = driver.client().await;
    c.goto(&s.url("/console")).await.unwrap();
    until(&c, "login form", "!document.getElementById('login').hidden").await;
    type_into(&c, "#login-who", "김심판").await;
    type_into(&c, "#login-pin", common::PIN).await;
    click(&c, "#login-go").await;
    // The throw is shown; its clip loads and decodes in the browser.
    until(
        &c,
        "replay",
        "!document.getElementById('replay-box').hidden && document.getElementById('replay').readyState >= 2",
    )
    .await;
    assert_eq!(
        c.execute(
            "const v = document.getElementById('replay'); return [v.getAttribute('src'), v.videoWidth, v.duration > 1];",
            vec![]
        )
        .await
        .unwrap(),
        json!([format!("/clip/{clip}"), 640, true])
    );
    // Slow motion plays on; a frame step moves by one frame; the end is the call.
    click(&c, "#replay-quarter").await;
    until(
        &c,
        "slow motion",
        "document.getElementById('replay').currentTime > 0.1 && document.getElementById('replay').playbackRate === 0.25",
    )
    .await;
    click(&c, "#replay-end").await;
    until(
        &c,
        "the end",
        "(() => { const v = document.getElementById('replay'); return v.paused && Math.abs(v.currentTime - v.duration) < 0.01; })()",
    )
    .await;
    click(&c, "#replay-back").await;
    until(
        &c,
        "a frame back",
        "(() => { const v = document.getElementById('replay'); return Math.abs(v.duration - v.currentTime - 1 / 15) < 0.01; })()",
    )
    .await;
    shot(&c, "console-replay").await;

    // The statistics page: the set's shares, and the line over the game.
    c.goto(&s.url("/stats")).await.unwrap();
    let sets = until(
        &c,
        "stick sets",
        "document.getElementById('sets').textContent.includes('공식 윷 1') && document.getElementById('sets').textContent",
    )
    .await;
    // One throw read: the marked stick flat (1 of 1), one plain stick of three.
    let sets = sets.as_str().unwrap();
    assert!(sets.contains("100.0%") && sets.contains("33.3%"), "{sets}");
    until(
        &c,
        "win line",
        "document.querySelector('#line path.win-line') && document.querySelector('#line path.win-line').getAttribute('d').length > 10",
    )
    .await;
    shot(&c, "stats").await;

    // The display shows the chances, small.
    c.goto(&s.url("/display")).await.unwrap();
    let chances = until(
        &c,
        "chances",
        "document.getElementById('chances').textContent.includes('%') && document.getElementById('chances').textContent",
    )
    .await;
    assert!(chances.as_str().unwrap().contains("청팀"), "{chances}");
    shot(&c, "display-chances").await;
    c.close().await.unwrap();
}
