//! The whole station without hardware, on a virtual clock: rendered throws go
//! through the real vision, the match machine and the SQLite journal; the stand-in
//! placer and referee play; every throw's call is checked against the rendered truth
//! and every call keeps its evidence.

use std::time::{Duration, Instant};
use yut_lab::station::simulated_detector;
use yut_match::Action;
use yut_match::Entry;
use yut_sim::{Look, HELD_OUT_LOOK_BASE};
use yut_vision::files::load_classifier;
use yutstation::capture::Clock;
use yutstation::journal::Journal;
use yutstation::station::core::default_setup;
use yutstation::station::eyes::VisionSetup;
use yutstation::station::run::{Autopilot, Options, Station};
use yutstation::station::sim_camera::SimCamera;
use yutstation::station::Command;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models/stick-appearance.yml");

fn station(dir: &std::path::Path, clock: Clock, autopilot: bool) -> (Station, Look) {
    let (look, detector) = (0..20)
        .find_map(|k| {
            let look = Look::random(HELD_OUT_LOOK_BASE + 900_000 + 31 + k, 640, 360);
            let classifier = load_classifier(MODEL.as_ref()).unwrap();
            simulated_detector(&look, classifier)
                .ok()
                .map(|d| (look, d))
        })
        .expect("a look that calibrates");
    let station = Station::start(Options {
        data_dir: dir.to_path_buf(),
        new_journal: false,
        clock,
        vision: VisionSetup {
            detector: Some(detector),
            profile_path: None,
            model_path: MODEL.into(),
        },
        pin: "1234".into(),
        default_setup: default_setup(),
        sensor: None,
        print_calls: false,
        autopilot: autopilot.then_some(Autopilot {
            seed: 5,
            run_games: true,
            delay_ms: 0,
        }),
    })
    .unwrap();
    (station, look)
}

#[test]
fn rendered_throws_are_judged_recorded_with_evidence_and_checked_against_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Clock::virtual_now();
    let (mut st, look) = station(dir.path(), clock.clone(), true);
    let camera = SimCamera::new(look, 5, clock, st.gate.clone(), st.truths.clone());
    st.attach_source(Box::new(camera)).unwrap();
    let started = Instant::now();
    let want = 3;
    while st.tally.borrow().throws < want {
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "no progress: {:?}",
            *st.tally.borrow()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let tally = st.tally.borrow().clone();
    let state: serde_json::Value =
        serde_json::from_str(&st.hub.published.borrow().state_json).unwrap();
    st.stop();
    eprintln!("{tally:?}");
    assert_eq!(
        tally.auto_right + tally.auto_wrong + tally.referred + tally.missed,
        tally.throws
    );
    assert_eq!(tally.refused, 0, "the camera never throws out of turn");
    assert_eq!(tally.missed, 0, "the camera saw every throw");
    assert_eq!(tally.auto_wrong, 0, "no silent errors");
    assert_eq!(state["game_number"], 1);
    assert_eq!(state["station"]["camera"], "ok");

    // The journal on disk holds every camera throw with its evidence image.
    let (journal, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let (entries, _) = journal.entries();
    let throws: Vec<_> = entries
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Event(e) => match &e.action {
                Action::Throw { verdict } => Some(verdict.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(throws.len() as u32 >= want);
    for v in &throws {
        assert_eq!(v.evidence.len(), 1, "{v:?}");
        let jpeg = journal.evidence(&v.evidence[0]).unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8], "a JPEG");
        assert!(v.confidence.is_some());
        // The sticks as read, for the fairness statistics.
        let sticks = v.sticks.as_ref().expect("a camera throw keeps its sticks");
        assert_eq!(sticks.set, "demo");
        // And its replay clip, from release to rest, which decodes.
        let clip = journal.evidence(v.clip.as_ref().expect("a clip")).unwrap();
        let (frames, width, _) = yutstation::station::clip::decode(&clip).unwrap();
        assert!(frames >= 5 && width == 640, "{frames} frames, {width} wide");
    }
}

#[test]
fn referee_commands_are_checked_journaled_with_who_and_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (st, _) = station(dir.path(), Clock::Wall, false);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hub = st.hub.clone();
    rt.block_on(async {
        let refused = hub.command("심판 A", Command::Start {}).await.unwrap_err();
        assert!(refused.contains("no game"), "{refused}");
        hub.command("심판 A", Command::NewGame { setup: None })
            .await
            .unwrap();
        hub.command("심판 A", Command::Start {}).await.unwrap();
        let no_reason = hub
            .command(
                "심판 A",
                Command::ManualThrow {
                    result: yut_rules::yut::ThrowResult::Gae,
                    reason: " ".into(),
                },
            )
            .await
            .unwrap_err();
        assert!(no_reason.contains("reason"), "{no_reason}");
        hub.command(
            "심판 A",
            Command::ManualThrow {
                result: yut_rules::yut::ThrowResult::Gae,
                reason: "camera blocked".into(),
            },
        )
        .await
        .unwrap();
        let illegal = hub.command("심판 A", Command::Undo {}).await.unwrap_err();
        assert!(!illegal.is_empty());
    });
    let state: serde_json::Value =
        serde_json::from_str(&st.hub.published.borrow().state_json).unwrap();
    assert_eq!(state["last_call"]["result"], "gae");
    assert_eq!(
        state["last_call"]["source"], "manual",
        "entered by the referee"
    );
    st.stop();
    let (journal, _) = Journal::open(dir.path()).unwrap();
    let (entries, _) = journal.entries();
    let throw = entries
        .iter()
        .find_map(|r| match &r.entry {
            Entry::Event(e) if matches!(e.action, Action::Throw { .. }) => Some(e.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(throw.by.as_deref(), Some("심판 A"));
    assert_eq!(throw.note.as_deref(), Some("camera blocked"));
}
