//! A whole tournament over a real Mosquitto: the real office binary, stations that
//! play what they are assigned with real SQLite journals and the real MQTT link.
//! The broker is killed and restarted, the office killed with SIGKILL and
//! restarted, mid-tournament; at the end every station's journal reached the office
//! exactly once and in order, and the standings rebuilt from the stations'
//! journals equal the office's.

mod hall;

use hall::{broker, decided, Office, PlayingStation};
use std::process::Command;
use std::time::Duration;
use yut_match::Entry;
use yutstation::journal::Journal;
use yutstation::office::store::OfficeJournal;

#[test]
fn a_tournament_survives_a_broker_and_an_office_crash_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut broker = broker(dir.path());
    let mut office = Office::start(
        dir.path(),
        &broker,
        8,
        &["--format", "groups:2:2", "--mats", "3"],
    );
    let mut stations: Vec<PlayingStation> = (1..=3)
        .map(|mat| {
            PlayingStation::start(
                dir.path(),
                &broker.address(),
                mat,
                Duration::from_millis(20),
            )
        })
        .collect();
    let long = Duration::from_secs(120);
    office.until("two results", long, |v| decided(v) >= 2);
    office.kill();
    office.restart();
    let mid = office.until("six results", long, |v| decided(v) >= 6);
    assert_eq!(mid["complete"], false, "the faults come mid-tournament");
    broker.kill();
    std::thread::sleep(Duration::from_millis(500));
    broker.restart().unwrap();
    let end = office.until("the final", long, |v| v["complete"] == true);
    for s in &stations {
        s.wait_acked(Duration::from_secs(30));
    }
    // 2 groups of 4 (6 games each), then semi-finals and the final.
    assert_eq!(decided(&end), 15, "{end}");
    assert_eq!(end["standings"].as_array().unwrap().len(), 8);
    for s in &mut stations {
        s.stop();
    }
    office.kill();

    // Every station's journal, whole and in order, at the office: once each.
    let (journal, problems) = OfficeJournal::open(&office.data).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let entries = journal.entries().unwrap();
    let mut args = vec![
        "office".to_string(),
        "standings".into(),
        "--data".into(),
        office.data.display().to_string(),
    ];
    for s in &stations {
        let (station, _) = Journal::open(&s.dir).unwrap();
        let mine: Vec<(i64, Entry)> = station
            .entries()
            .0
            .into_iter()
            .map(|r| (r.id, r.entry))
            .collect();
        let theirs: Vec<(i64, Entry)> = entries
            .iter()
            .filter_map(|e| match e {
                yut_tournament::OfficeEntry::Station { mat, id, entry, .. } if *mat == s.mat => {
                    Some((*id, entry.clone()))
                }
                _ => None,
            })
            .collect();
        assert!(!mine.is_empty(), "mat {} played", s.mat);
        assert_eq!(mine, theirs, "mat {}", s.mat);
        args.push("--station".into());
        args.push(format!("{}={}", s.mat, s.dir.display()));
    }
    // The standings rebuilt from the stations' journals alone equal the office's.
    let out = Command::new(hall::BIN).args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.trim_end().ends_with("equal"), "{text}");
}
