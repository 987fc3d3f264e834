//! `yutstation station` and `yutstation demo`: the running station. The wiring
//! lives in `station::run`; this file turns arguments into its options and serves
//! the pages.
//!
//! Shell: it starts the station's threads and its web server.

use super::InputError;
use anyhow::Context;
use clap::Args;
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use yut_lab::station::simulated_detector;
use yut_sim::{Look, HELD_OUT_LOOK_BASE};
use yut_vision::files::{load_classifier, load_detector, DEFAULT_MODEL};
use yutstation::capture::{Clock, FrameSource, VideoSource};
use yutstation::station::auth::check_pin;
use yutstation::station::core::default_setup;
use yutstation::station::eyes::VisionSetup;
use yutstation::station::run::{Autopilot, Options, Station, Tally};
use yutstation::station::sim_camera::SimCamera;

#[derive(Args)]
pub struct StationArgs {
    /// Camera index (0 = the first camera).
    #[arg(long, conflicts_with = "video")]
    pub camera: Option<i32>,
    /// A video file to judge instead of a camera (played at its own frame rate).
    #[arg(long, conflicts_with = "no_camera")]
    pub video: Option<PathBuf>,
    /// Run without a camera: the referee enters every throw at /console.
    #[arg(long, conflicts_with = "camera")]
    pub no_camera: bool,
    /// The station profile (mat calibration and stick set). If it does not exist
    /// yet, the station starts without judging: set it up at /calibrate.
    #[arg(long, default_value = "station.profile.toml")]
    pub profile: PathBuf,
    /// The appearance model.
    #[arg(long, default_value = DEFAULT_MODEL)]
    pub model: PathBuf,
    /// The height sensor's serial port (optional).
    #[arg(long)]
    pub serial: Option<PathBuf>,
    /// Where the pages and the live API are served.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The data directory: the journal and the evidence images.
    #[arg(long, default_value = "station-data")]
    pub data: PathBuf,
    /// Start a new journal in the data directory: the old one (lost, damaged or
    /// finished) is moved into a `set-aside-…` folder there, nothing deleted, and
    /// event ids go on after its last one.
    #[arg(long)]
    pub new_journal: bool,
    /// The referee PIN, 4 to 12 digits (a random one is printed when not given).
    #[arg(long, env = "YUTSTATION_PIN")]
    pub pin: Option<String>,
    /// Play in a tournament: the MQTT broker (HOST:PORT) the office listens on
    /// (`docs/tournament.md`); needs --mat.
    #[arg(long, requires = "mat")]
    pub broker: Option<String>,
    /// This station's mat number in the tournament.
    #[arg(long, requires = "broker")]
    pub mat: Option<u32>,
}

#[derive(Args)]
pub struct DemoArgs {
    /// Run without pages, as fast as the machine allows, and print a summary.
    #[arg(long)]
    pub headless: bool,
    /// Stop after this many throws (headless: default 20).
    #[arg(long)]
    pub throws: Option<u32>,
    /// Seed for the look, the throws and the stand-ins.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The data directory (default: a new temporary one).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The referee PIN for /console (4 to 12 digits).
    #[arg(long, default_value = "0000")]
    pub pin: String,
    #[arg(long, default_value = DEFAULT_MODEL)]
    pub model: PathBuf,
    /// Rendered frame size (width x height). The appearance model was trained and
    /// measured at 1280x720; smaller frames refer more throws to the referee.
    #[arg(long, default_value_t = 1280)]
    pub width: u32,
    #[arg(long, default_value_t = 720)]
    pub height: u32,
    /// A whole tournament on N mats: a local Mosquitto, the office, N rendered
    /// stations (`docs/tournament.md`); frames 640x360 unless --width is given.
    #[arg(long)]
    pub mats: Option<u32>,
    /// Teams in the --mats tournament (single elimination).
    #[arg(long, default_value_t = 16, requires = "mats")]
    pub teams: usize,
    /// Pieces per team in the --mats tournament's games (a small tournament: 2).
    #[arg(long, default_value_t = 2, requires = "mats")]
    pub pieces: u8,
    /// With --mats: kill the broker twice, cut one station off for two minutes and
    /// kill the office once while the tournament plays, and report.
    #[arg(long, requires = "mats")]
    pub faults: bool,
    /// Where the office serves the hall screen and its console (--mats).
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub office_listen: SocketAddr,
    /// Judge the demo's rendered hall with this station profile instead of
    /// setting it up by itself (`calibration/examples/demo-hall.toml` is the
    /// hall of seed 1, made with `calibrate` and `teach`).
    #[arg(long, conflicts_with = "mats")]
    pub profile: Option<PathBuf>,
}

fn random_pin() -> String {
    format!("{:04}", rand::random::<u16>() % 10_000)
}

pub fn run_station(a: StationArgs) -> anyhow::Result<()> {
    if let Some(pin) = &a.pin {
        check_pin(pin).map_err(|e| InputError(e.to_string()))?;
    }
    let clock = Clock::Wall;
    let source: Option<Box<dyn FrameSource>> = match (&a.camera, &a.video) {
        (Some(i), _) => Some(open_camera(*i, &clock)?),
        (None, Some(v)) => Some(Box::new(
            VideoSource::video(v, clock.clone()).map_err(|e| InputError(e.to_string()))?,
        )),
        (None, None) if a.no_camera => None,
        (None, None) => {
            return Err(InputError(
                "give a frame source: --camera N or --video FILE (or --no-camera to enter throws by hand)".into(),
            )
            .into())
        }
    };
    let detector = if source.is_none() {
        None
    } else if a.profile.exists() {
        Some(load_detector(&a.profile, &a.model).map_err(|e| InputError(format!("{e:#}")))?)
    } else {
        eprintln!(
            "yutstation: no profile at {} yet: the station will not judge until the mat and sticks are set up at /calibrate",
            a.profile.display()
        );
        None
    };
    let sensor = a.serial.as_ref().map(|p| {
        yutstation::sensor::SensorLink::spawn(
            yutstation::sensor::LinkConfig::new(p.clone()),
            yutstation::sensor::StationClock::new(),
        )
    });
    let pin = a.pin.clone().unwrap_or_else(random_pin);
    let link = match (&a.broker, a.mat) {
        (Some(broker), Some(mat)) => Some(yutstation::station::mqtt::MatLink::spawn(
            yutstation::station::mqtt::LinkConfig::new(broker, mat)
                .map_err(|e| InputError(e.to_string()))?,
        )?),
        _ => None,
    };
    let options = Options {
        data_dir: a.data.clone(),
        new_journal: a.new_journal,
        clock,
        vision: VisionSetup {
            detector,
            profile_path: Some(a.profile.clone()),
            model_path: a.model.clone(),
        },
        pin: pin.clone(),
        default_setup: default_setup(),
        sensor,
        print_calls: true,
        autopilot: None,
    };
    let mut station = Station::start_linked(options, link.as_ref().map(|l| l.port()))?;
    if let Some(source) = source {
        station.attach_source(source)?;
    }
    if a.pin.is_none() {
        println!("referee PIN: {pin}");
    }
    let served = serve_until_interrupted(station, a.listen, None);
    drop(link);
    served
}

/// Camera `index`: through nokhwa in its MJPEG 1280×720 at 30 fps mode (or
/// the nearest offered), its controls known and locked once set up, where the
/// `camera` feature is built; else through OpenCV's videoio.
fn open_camera(index: i32, clock: &Clock) -> anyhow::Result<Box<dyn FrameSource>> {
    #[cfg(feature = "camera")]
    {
        let want = yutstation::camera::default_format();
        let index = u32::try_from(index)
            .map_err(|_| InputError(format!("camera {index}: expected 0 or more")))?;
        let cam = yutstation::camera_live::LiveCamera::open(index, &want, clock.clone())
            .map_err(|e| InputError(e.to_string()))?;
        Ok(Box::new(cam))
    }
    #[cfg(not(feature = "camera"))]
    {
        Ok(Box::new(
            VideoSource::camera(index, clock.clone()).map_err(|e| InputError(e.to_string()))?,
        ))
    }
}

/// Find a held-out look the station can calibrate, as a crew would pick a hall.
pub(crate) fn demo_look(
    seed: u64,
    width: u32,
    height: u32,
    model: &std::path::Path,
) -> anyhow::Result<(Look, yut_vision::Detector)> {
    let mut last = None;
    for k in 0..20 {
        let look = Look::random(HELD_OUT_LOOK_BASE + 900_000 + seed * 31 + k, width, height);
        match simulated_detector(&look, load_classifier(model)?) {
            Ok(d) => return Ok((look, d)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("tried at least once"))
}

pub fn run_demo(a: DemoArgs) -> anyhow::Result<()> {
    check_pin(&a.pin).map_err(|e| InputError(e.to_string()))?;
    let data = a.data.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("yutstation-demo-{}", std::process::id()))
    });
    if let Some(mats) = a.mats {
        if mats == 0 || a.teams < 2 {
            return Err(
                InputError("--mats needs at least 1 mat and --teams at least 2".into()).into(),
            );
        }
        // Eight rendered stations on a small machine: a quarter of the pixels
        // unless the size is asked for.
        let full = a.width == 1280 && a.height == 720;
        return super::hall::run_hall_demo(super::hall::HallDemo {
            mats,
            teams: a.teams,
            headless: a.headless,
            faults: a.faults,
            pieces: a.pieces,
            seed: a.seed,
            width: if full { 640 } else { a.width },
            height: if full { 360 } else { a.height },
            model: a.model.clone(),
            data,
            office_listen: a.office_listen,
            pin: a.pin.clone(),
        });
    }
    std::fs::create_dir_all(&data)
        .with_context(|| format!("cannot create the data directory {}", data.display()))?;
    let clock = if a.headless {
        Clock::virtual_now()
    } else {
        Clock::Wall
    };
    let (look, detector) = demo_look(a.seed, a.width, a.height, &a.model)?;
    let detector = match &a.profile {
        Some(p) => {
            let d = load_detector(p, &a.model).map_err(|e| InputError(format!("{e:#}")))?;
            if (d.calibration.width, d.calibration.height) != (a.width, a.height) {
                return Err(InputError(format!(
                    "{} was calibrated at {}×{}, the demo renders {}×{}: give --width and --height",
                    p.display(),
                    d.calibration.width,
                    d.calibration.height,
                    a.width,
                    a.height
                ))
                .into());
            }
            d
        }
        None => detector,
    };
    // The simulated height sensor on a pseudo-terminal, read through the real link
    // (real time only: it runs on the wall clock).
    let sensor_sim = if a.headless {
        None
    } else {
        Some(
            yut_height_sim::spawn(
                yut_height_sim::SimOptions {
                    link: Some(data.join("height-sensor")),
                    ..Default::default()
                },
                vec![],
            )
            .context("cannot start the simulated height sensor")?,
        )
    };
    let sensor = sensor_sim.as_ref().map(|sim| {
        yutstation::sensor::SensorLink::spawn(
            yutstation::sensor::LinkConfig::new(sim.path().to_path_buf()),
            yutstation::sensor::StationClock::new(),
        )
    });
    let mut station = Station::start(Options {
        data_dir: data.clone(),
        new_journal: false,
        clock: clock.clone(),
        vision: VisionSetup {
            detector: Some(detector),
            profile_path: None,
            model_path: a.model.clone(),
        },
        pin: a.pin.clone(),
        default_setup: default_setup(),
        sensor,
        print_calls: true,
        autopilot: Some(Autopilot {
            seed: a.seed,
            run_games: true,
            delay_ms: if a.headless { 0 } else { 2500 },
        }),
    })?;
    let mut camera = SimCamera::new(
        look,
        a.seed,
        clock,
        station.gate.clone(),
        station.truths.clone(),
    );
    if let Some(sim) = sensor_sim {
        let sim = std::sync::Mutex::new(sim);
        let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
        camera = camera.on_throw(move |_| {
            // Most throws go well above a seated thrower's shoulder (65 cm); one in
            // fifteen stays low, for the referee to rule on.
            let apex_mm = if rng.gen_bool(1.0 / 15.0) {
                rng.gen_range(420.0..580.0)
            } else {
                rng.gen_range(850.0..1500.0)
            };
            if let Ok(sim) = sim.lock() {
                sim.inject(yut_height_sim::Step::Throw {
                    apex_mm,
                    release_mm: 400.0,
                });
            }
        });
    }
    station.attach_source(Box::new(camera))?;
    println!(
        "yutstation demo: rendered throws on a generated mat, journal in {}",
        data.display()
    );
    if a.headless {
        let want = a.throws.unwrap_or(20);
        let mut tally = station.tally.clone();
        let started = std::time::Instant::now();
        let bar_every = Duration::from_millis(200);
        loop {
            let t = tally.borrow_and_update().clone();
            if t.throws >= want {
                break;
            }
            std::thread::sleep(bar_every);
        }
        let t = tally.borrow().clone();
        let secs = started.elapsed().as_secs_f64();
        let insight = station.insight.borrow().clone();
        station.stop();
        print_summary(&t, secs);
        if let (Some(median), Some(most)) = (insight.update_ms_median, insight.update_ms_max) {
            println!(
                "  win chances: {} updates (the newest position first), median {median:.0} ms, most {most:.0} ms each",
                insight.updates
            );
        }
        return Ok(());
    }
    println!(
        "display: http://{}/display   console: http://{}/console (PIN {})",
        a.listen, a.listen, a.pin
    );
    serve_until_interrupted(station, a.listen, a.throws)
}

fn print_summary(t: &Tally, secs: f64) {
    let pct = |a: u32| {
        if t.throws == 0 {
            0.0
        } else {
            100.0 * a as f64 / t.throws as f64
        }
    };
    println!("\nsummary: {} throws in {secs:.1} s", t.throws);
    println!(
        "  called automatically and right: {} ({:.1}%)",
        t.auto_right,
        pct(t.auto_right)
    );
    println!(
        "  called automatically and WRONG (silent errors): {} ({:.1}%)",
        t.auto_wrong,
        pct(t.auto_wrong)
    );
    println!(
        "  referred to the referee: {} ({:.1}%)",
        t.referred,
        pct(t.referred)
    );
    println!("  missed by the camera (entered by hand): {}", t.missed);
    println!("  games finished: {}", t.games_finished);
    if t.refused > 0 {
        println!("  camera calls refused by the rules: {}", t.refused);
    }
}

fn serve_until_interrupted(
    station: Station,
    listen: SocketAddr,
    stop_after: Option<u32>,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Runtime::new()?;
    let hub = station.hub.clone();
    let mut tally = station.tally.clone();
    let outcome = rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
            InputError(format!(
                "cannot listen on {listen}: {e} (is another station running? use --listen)"
            ))
        })?;
        println!("serving on http://{listen}/display and http://{listen}/console");
        let server = yutstation::station::server::serve(hub, listener);
        let enough = async {
            match stop_after {
                Some(n) => {
                    while tally.borrow_and_update().throws < n {
                        if tally.changed().await.is_err() {
                            break;
                        }
                    }
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            r = server => r.map_err(anyhow::Error::from),
            _ = tokio::signal::ctrl_c() => Ok(()),
            _ = enough => Ok(()),
        }
    });
    station.stop();
    outcome
}
