//! The office's pages in headless Chromium (as `tests/station_browser.rs` drives
//! the station's): the console logs in with the PIN and assigns a fixture, a
//! station accepts and plays it, the hall screen shows the mat live (its board,
//! score and last call), a real station's referee accepts the office's next match on
//! the station's console, a forfeit from the office's console decides that fixture in
//! the bracket, and a station that goes away shows as cut off.
//!
//! Skips (prints why, passes) when chromium or chromedriver is not installed.

#[path = "common/browser.rs"]
mod browser;
mod hall;

use browser::{click, shot, type_into as fill, Driver};
use fantoccini::Client;
use hall::{broker, Office, PlayingStation};
use serde_json::Value;
use std::time::Duration;
use yutstation::capture::Clock;
use yutstation::station::eyes::VisionSetup;
use yutstation::station::mqtt::{LinkConfig, MatLink};
use yutstation::station::run::{Options, Station};

/// The office's pages answer more slowly than the station's: each wait
/// here allows 20 s.
async fn until(c: &Client, what: &str, script: &str) -> Value {
    browser::until_for(c, what, script, Duration::from_secs(20)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_office_console_and_the_hall_screen_in_a_browser() {
    let Some(driver) = Driver::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path());
    let office = Office::start(dir.path(), &broker, 4, &["--manual", "--mats", "2"]);
    // Slow enough that the game is still on when the hall screen looks.
    let mut playing =
        PlayingStation::start(dir.path(), &broker.address(), 1, Duration::from_millis(150));
    let base = format!("http://{}", office.listen);
    let c = driver.client_named("console").await;

    // The console: a wrong PIN is refused, the right one lets the office assign.
    c.goto(&format!("{base}/office")).await.unwrap();
    fill(&c, "#name", "본부 김").await;
    fill(&c, "#pin", "0000").await;
    click(&c, "#login button").await;
    until(
        &c,
        "the refusal",
        "document.getElementById('msg').className === 'err'",
    )
    .await;
    fill(&c, "#pin", "2468").await;
    click(&c, "#login button").await;
    until(&c, "the desk", "!document.getElementById('desk').hidden").await;
    fill(&c, "#fixture", "K1-1").await;
    fill(&c, "#mat", "1").await;
    click(&c, "#assign").await;
    until(
        &c,
        "the assignment",
        "document.getElementById('msg').textContent === 'done: assign'",
    )
    .await;

    // The hall screen: mat 1 live with its board, score and last call.
    let hall = driver.client_named("hall").await;
    hall.goto(&format!("{base}/tournament")).await.unwrap();
    let teams = until(
        &hall,
        "mat 1 playing",
        "(() => { const m = document.querySelector('.mat[data-mat=\"1\"]'); \
           return m && m.querySelector('.call').textContent.includes('throw') && m.querySelector('.score').textContent; })()",
    )
    .await;
    assert!(teams.as_str().unwrap().contains("Team 01"), "{teams}");
    until(
        &hall,
        "pieces or a board",
        "document.querySelectorAll('.mat[data-mat=\"1\"] svg.mini circle.st').length === 29",
    )
    .await;
    shot(&hall, "tournament-hall").await;

    // A real station on mat 2 (no camera): its referee accepts the office's match
    // on the station's console.
    let link = MatLink::spawn(LinkConfig::new(&broker.address(), 2).unwrap()).unwrap();
    let real = Station::start_linked(
        Options {
            new_journal: false,
            data_dir: dir.path().join("real-mat-2"),
            clock: Clock::Wall,
            vision: VisionSetup {
                detector: None,
                profile_path: None,
                model_path: "models/stick-appearance.yml".into(),
            },
            pin: "1357".into(),
            default_setup: yutstation::station::core::default_setup(),
            sensor: None,
            print_calls: false,
            autopilot: None,
        },
        Some(link.port()),
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let station_addr = listener.local_addr().unwrap();
    let server = tokio::spawn(yutstation::station::server::serve(
        real.hub.clone(),
        listener,
    ));
    fill(&c, "#fixture", "K1-2").await;
    fill(&c, "#mat", "2").await;
    click(&c, "#assign").await;
    until(
        &c,
        "the second assignment",
        "document.getElementById('msg').textContent === 'done: assign'",
    )
    .await;
    let referee = driver.client_named("referee").await;
    referee
        .goto(&format!("http://{station_addr}/console"))
        .await
        .unwrap();
    until(
        &referee,
        "login form",
        "!document.getElementById('login').hidden",
    )
    .await;
    fill(&referee, "#login-who", "김심판").await;
    fill(&referee, "#login-pin", "1357").await;
    click(&referee, "#login-go").await;
    let next = until(
        &referee,
        "the office's next match",
        "!document.getElementById('accept').hidden && document.getElementById('next-match').textContent",
    )
    .await;
    assert!(next.as_str().unwrap().contains("K1-2"), "{next}");
    shot(&referee, "tournament-station-accept").await;
    click(&referee, "#accept").await;
    until(
        &referee,
        "the accepted game",
        "document.getElementById('accept').hidden",
    )
    .await;
    until(
        &hall,
        "mat 2 on the board with K1-2",
        "(() => { const m = document.querySelector('.mat[data-mat=\"2\"]'); return m && m.querySelector('.fx').textContent === 'K1-2' && m.textContent.includes('Team 02'); })()",
    )
    .await;

    // A forfeit from the console decides K1-2 at once.
    fill(&c, "#fixture", "K1-2").await;
    c.execute("document.getElementById('side').value = '1'", vec![])
        .await
        .unwrap();
    fill(&c, "#reason", "did not come to the mat").await;
    click(&c, "#forfeit").await;
    until(
        &c,
        "the forfeit",
        "document.getElementById('msg').textContent === 'done: forfeit'",
    )
    .await;
    until(
        &hall,
        "K1-2 decided in the bracket",
        "(() => { const f = document.querySelector('.fixture[data-fixture=\"K1-2\"]'); return f && f.querySelector('.won') && f.textContent.includes('forfeit'); })()",
    )
    .await;
    shot(&c, "tournament-office").await;

    // The station goes away: the board says so.
    playing.stop();
    until(
        &hall,
        "mat 1 cut off",
        "document.querySelector('.mat[data-mat=\"1\"]').classList.contains('cut')",
    )
    .await;
    shot(&hall, "tournament-cut-off").await;
    c.close().await.unwrap();
    hall.close().await.unwrap();
    referee.close().await.unwrap();
    server.abort();
    real.stop();
    link.stop();
}
