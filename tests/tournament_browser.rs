//! The office's pages in headless Chromium (as `tests/station_browser.rs` drives
//! the station's): the console logs in with the PIN and assigns a fixture, a
//! station accepts and plays it, the hall screen shows the mat live (its board,
//! score and last call), a real station's referee accepts the office's next match on
//! the station's console, a forfeit from the office's console decides that fixture in
//! the bracket, and a station that goes away shows as cut off.
//!
//! Skips (prints why, passes) when chromium or chromedriver is not installed.

mod hall;

use fantoccini::{Client, ClientBuilder, Locator};
use hall::{broker, Office, PlayingStation};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use yutstation::capture::Clock;
use yutstation::station::eyes::VisionSetup;
use yutstation::station::mqtt::{LinkConfig, MatLink};
use yutstation::station::run::{Options, Station};

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

struct Driver {
    child: Child,
    port: u16,
    profile: tempfile::TempDir,
    chromium: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start() -> Option<Driver> {
        let Some(chromium) = which(&["chromium", "chromium-browser", "google-chrome"]) else {
            eprintln!("SKIP: no chromium on PATH (apt-get install chromium chromium-driver)");
            return None;
        };
        let Some(driver) = which(&["chromedriver"]) else {
            eprintln!("SKIP: no chromedriver on PATH (apt-get install chromium-driver)");
            return None;
        };
        for _ in 0..3 {
            let port = yutstation::office::broker::free_port().unwrap();
            let mut child = Command::new(&driver)
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts");
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    // Give it a moment to answer sessions.
                    std::thread::sleep(Duration::from_millis(200));
                    return Some(Driver {
                        child,
                        port,
                        profile: tempfile::tempdir().unwrap(),
                        chromium,
                    });
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("chromedriver did not listen");
    }

    /// A browser with a profile of its own (two cannot share one).
    async fn client(&self, name: &str) -> Client {
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": self.chromium,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--disable-background-networking", "--disable-dev-shm-usage",
                         "--window-size=1400,1000",
                         format!("--user-data-dir={}", self.profile.path().join(name).display())],
            }
        });
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("a browser session")
    }
}

async fn shot(c: &Client, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

async fn until(c: &Client, what: &str, script: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = c
            .execute(&format!("return ({script});"), vec![])
            .await
            .expect("script runs");
        if !v.is_null() && v != json!(false) && v != json!("") {
            return v;
        }
        if Instant::now() > deadline {
            shot(c, &format!("timeout-{}", what.replace(' ', "-"))).await;
            panic!("timed out waiting for {what}: {script}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn fill(c: &Client, css: &str, text: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(text).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
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
    let c = driver.client("console").await;

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
    let hall = driver.client("hall").await;
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
    let referee = driver.client("referee").await;
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
