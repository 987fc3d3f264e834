//! The browser tests' driver: headless Chromium over WebDriver (chromedriver +
//! fantoccini), screenshots, and waiting on a page. Included by the browser
//! tests with `#[path]`, so the other tests do not build it.
#![allow(dead_code)]

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// chromedriver, killed when dropped.
pub struct Driver {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
    chromium: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether chromedriver answers its WebDriver status on this port.
pub fn chromedriver_ready(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let request =
        format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if s.write_all(request.as_bytes()).is_err() {
        return false;
    }
    // chromedriver keeps the connection open: read until the answer shows.
    let mut reply = Vec::new();
    let mut chunk = [0u8; 1024];
    while let Ok(n @ 1..) = s.read(&mut chunk) {
        reply.extend_from_slice(&chunk[..n]);
        if String::from_utf8_lossy(&reply).contains("\"ready\":true") {
            return true;
        }
    }
    false
}

impl Driver {
    pub fn start() -> Option<Driver> {
        let Some(chromium) = which(&["chromium", "chromium-browser", "google-chrome"]) else {
            eprintln!("SKIP: no chromium on PATH (apt-get install chromium chromium-driver)");
            return None;
        };
        let Some(driver) = which(&["chromedriver"]) else {
            eprintln!("SKIP: no chromedriver on PATH (apt-get install chromium-driver)");
            return None;
        };
        // A free port is picked by binding port 0 and letting it go, so
        // another test's server can take it before chromedriver binds it:
        // that server then answered the wait below, chromedriver had exited,
        // and the session found nothing listening (CI, once). Wait for
        // chromedriver's own /status, and start it again on another port if
        // it has exited.
        let (child, port) = (0..3)
            .find_map(|_| {
                let port = std::net::TcpListener::bind("127.0.0.1:0")
                    .unwrap()
                    .local_addr()
                    .unwrap()
                    .port();
                let mut child = Command::new(&driver)
                    .arg(format!("--port={port}"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("chromedriver starts");
                let deadline = Instant::now() + Duration::from_secs(20);
                while Instant::now() < deadline {
                    if child.try_wait().unwrap().is_some() {
                        return None;
                    }
                    if chromedriver_ready(port) {
                        return Some((child, port));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                let _ = child.kill();
                let _ = child.wait();
                None
            })
            .expect("chromedriver did not listen");
        Some(Driver {
            child,
            port,
            _profile: tempfile::tempdir().unwrap(),
            chromium,
        })
    }

    pub async fn client(&self) -> Client {
        self.client_in(self._profile.path()).await
    }

    /// Another browser beside the first, with a profile of its own under
    /// `name` (two browsers cannot share one).
    pub async fn client_named(&self, name: &str) -> Client {
        self.client_in(&self._profile.path().join(name)).await
    }

    async fn client_in(&self, profile: &Path) -> Client {
        let profile = format!("--user-data-dir={}", profile.display());
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": self.chromium,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         "--disable-dev-shm-usage", "--window-size=1400,1000", profile],
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

pub fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Wait until `script` (a JS expression) is truthy; its value.
pub async fn until(c: &Client, what: &str, script: &str) -> Value {
    until_for(c, what, script, Duration::from_secs(15)).await
}

/// [`until`], waiting at most `wait`.
pub async fn until_for(c: &Client, what: &str, script: &str, wait: Duration) -> Value {
    let deadline = Instant::now() + wait;
    loop {
        let v = c
            .execute(&format!("return ({script});"), vec![])
            .await
            .expect("script runs");
        if !v.is_null() && v != json!(false) && v != json!("") {
            return v;
        }
        if Instant::now() > deadline {
            let _ = shot(c, &format!("timeout-{}", what.replace(' ', "-"))).await;
            panic!("timed out waiting for {what}: {script}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

pub async fn type_into(c: &Client, css: &str, text: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(text).await.unwrap();
}

pub async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Where the README's screenshots live: made by the browser tests, so they
/// show the pages as they are.
pub fn readme_screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A screenshot for the README (`docs/screenshots/NAME.png`), written where
/// the page looks different from the one kept: a clock or a time on the page
/// alone does not rewrite it, so a test run leaves the checkout clean unless
/// a page changed. The live camera view (`#live-box`) does not count: its
/// picture is whichever frame the page fetched last, a race with the
/// simulated camera (the knocked frame or the one before it, a throw in
/// flight or not), so the kept shot keeps the frame it was made with.
pub async fn readme_shot(c: &Client, name: &str) {
    let png = c.screenshot().await.expect("screenshot");
    let path = readme_screenshots().join(format!("{name}.png"));
    let kept = std::fs::read(&path).unwrap_or_default();
    if !looks_the_same(&kept, &png, live_view_px(c).await) {
        std::fs::write(path, png).unwrap();
    }
}

/// Where the page shows its live camera view, in the screenshot's pixels
/// (x, y, width, height), if it shows one.
async fn live_view_px(c: &Client) -> Option<opencv::core::Rect> {
    let v = c
        .execute(
            "const e = document.getElementById('live-box');
             if (!e || e.offsetParent === null) return null;
             const r = e.getBoundingClientRect(), k = window.devicePixelRatio || 1;
             return [r.left * k, r.top * k, r.width * k, r.height * k].map(Math.round);",
            vec![],
        )
        .await
        .ok()?;
    let n: Vec<i32> = serde_json::from_value(v).ok()?;
    Some(opencv::core::Rect::new(n[0], n[1], n[2], n[3]))
}

/// Whether two encoded pictures are the same size and differ in under 1 % of
/// their pixels (by more than 8 levels in some channel), the pixels in
/// `ignored` left out.
fn looks_the_same(a: &[u8], b: &[u8], ignored: Option<opencv::core::Rect>) -> bool {
    use opencv::core::{Mat, Vector};
    use opencv::prelude::*;
    let decode = |bytes: &[u8]| {
        opencv::imgcodecs::imdecode(&Vector::from_slice(bytes), opencv::imgcodecs::IMREAD_COLOR)
            .ok()
            .filter(|m| !m.empty())
    };
    let (Some(a), Some(b)) = (decode(a), decode(b)) else {
        return false;
    };
    if a.size().ok() != b.size().ok() {
        return false;
    }
    let (mut diff, mut most) = (Mat::default(), Mat::default());
    let (mut c, mut r) = (Mat::default(), Mat::default());
    if opencv::core::absdiff(&a, &b, &mut diff).is_err() {
        return false;
    }
    // The largest channel difference of each pixel.
    let mut channels = Vector::<Mat>::new();
    opencv::core::split(&diff, &mut channels).unwrap();
    opencv::core::max(&channels.get(0).unwrap(), &channels.get(1).unwrap(), &mut c).unwrap();
    opencv::core::max(&c, &channels.get(2).unwrap(), &mut most).unwrap();
    if let Some(area) = ignored {
        let whole = opencv::core::Rect::new(0, 0, most.cols(), most.rows());
        let area = area & whole;
        if area.width > 0 && area.height > 0 {
            Mat::roi_mut(&mut most, area)
                .unwrap()
                .set_to_def(&opencv::core::Scalar::all(0.0))
                .unwrap();
        }
    }
    opencv::imgproc::threshold(&most, &mut r, 8.0, 1.0, opencv::imgproc::THRESH_BINARY).unwrap();
    let changed = opencv::core::count_non_zero(&r).unwrap() as f64;
    changed < 0.01 * (a.rows() * a.cols()) as f64
}
