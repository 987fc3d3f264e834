//! Journal tests on real SQLite files in temporary directories.

use super::*;
use rusqlite::Connection;
use std::path::Path;
use yut_match::{synth, Entry};
use yut_match::{Action, MatchEvent, MatchSetup, Player, Posture, TeamSetup, Verdict};
use yut_rules::yut::ThrowResult;

fn team(name: &str) -> TeamSetup {
    TeamSetup {
        name: name.into(),
        throwers: (1..=3)
            .map(|i| Player::thrower(&format!("{name}{i}"), Posture::Standing, 90 + i))
            .collect(),
        placer: Player::placer(&format!("{name}-coach")),
    }
}

fn new_game(at_ms: u64) -> Entry {
    Entry::NewGame {
        at_ms,
        setup: MatchSetup::new([team("청"), team("홍")]),
    }
}

fn ev(at_ms: u64, action: Action) -> Entry {
    Entry::Event(MatchEvent::new(at_ms, action))
}

fn fill(j: &mut Journal, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| {
            let e = synth::next_entry(j.log(), 3);
            j.append(&e).unwrap()
        })
        .collect()
}

#[test]
fn appends_survive_a_reopen_with_the_same_state() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty());
    let (mode, sync) = j.settings().unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(sync, 2, "synchronous=FULL");
    let ids = fill(&mut j, 300);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase");
    let station = j.log().clone();
    assert!(station.games.iter().any(|g| g.throws().count() > 0));
    drop(j);
    let (j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(*j.log(), station);
    let (entries, _) = j.entries();
    assert_eq!(entries.iter().map(|r| r.id).collect::<Vec<_>>(), ids);
    assert!(entries.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
}

#[test]
fn refused_entries_are_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    let err = j.append(&ev(5, Action::Start)).unwrap_err();
    assert!(err.to_string().contains("no game"), "{err}");
    j.append(&new_game(10)).unwrap();
    j.append(&ev(20, Action::Start)).unwrap();
    let err = j
        .append(&ev(
            15,
            Action::Throw {
                verdict: Verdict::entered(ThrowResult::Do),
            },
        ))
        .unwrap_err();
    assert!(err.to_string().contains("earlier"), "{err}");
    let err = j.append(&ev(30, Action::Undo)).unwrap_err();
    assert!(err.to_string().contains("undo"), "{err}");
    assert_eq!(j.entries().0.len(), 2);
}

#[test]
fn nothing_can_be_updated_or_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 5);
    drop(j);
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    let upd = conn.execute("UPDATE events SET body = '{}' WHERE id = 2", []);
    assert!(upd.unwrap_err().to_string().contains("append-only"));
    let del = conn.execute("DELETE FROM events", []);
    assert!(del.unwrap_err().to_string().contains("append-only"));
}

#[test]
fn evidence_is_stored_by_content_hash() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    let image = b"\x89PNG fake frame bytes".to_vec();
    let h = j.put_evidence(&image).unwrap();
    assert_eq!(h, hash_of(&image));
    assert_eq!(j.put_evidence(&image).unwrap(), h, "idempotent");
    assert_eq!(j.evidence(&h).unwrap(), image);
    j.append(&new_game(0)).unwrap();
    j.append(&ev(1, Action::Start)).unwrap();
    let verdict = Verdict {
        result: Some(ThrowResult::Gae),
        confidence: Some(0.97),
        evidence: vec![h.clone()],
        flags: vec![],
        height_mm: None,
        ..Default::default()
    };
    j.append(&ev(2, Action::Throw { verdict })).unwrap();
    drop(j);

    // Damage the blob: reading it says so. Remove it: opening reports it, one line,
    // and the game still stands.
    let path = EvidenceStore::new(dir.path().join("evidence")).path_of(&h);
    std::fs::write(&path, b"tampered").unwrap();
    let (j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty());
    let err = j.evidence(&h).unwrap_err().to_string();
    assert!(err.contains("damaged"), "{err}");
    drop(j);
    std::fs::remove_file(&path).unwrap();
    let (j, problems) = Journal::open(dir.path()).unwrap();
    assert_eq!(problems.len(), 1);
    let line = problems[0].to_string();
    assert!(
        line.contains(h.as_str()) && line.contains("missing"),
        "{line}"
    );
    assert!(!line.contains('\n'));
    assert_eq!(
        j.log().current().unwrap().game().pending(),
        &[ThrowResult::Gae]
    );
    assert!(j.evidence(&h).unwrap_err().to_string().contains("missing"));
}

#[test]
fn an_undecodable_row_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    j.append(&new_game(0)).unwrap();
    j.append(&ev(1, Action::Start)).unwrap();
    drop(j);
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute(
        "INSERT INTO events (at_ms, game, body) VALUES (2, 1, 'not json')",
        [],
    )
    .unwrap();
    drop(conn);
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert_eq!(problems.len(), 1);
    assert!(problems[0]
        .to_string()
        .starts_with("journal event #3 cannot be decoded"));
    assert!(j.log().current().unwrap().started());
    // The rest keeps working: new events are appended after it.
    let id = j
        .append(&ev(
            3,
            Action::Throw {
                verdict: Verdict::entered(ThrowResult::Yut),
            },
        ))
        .unwrap();
    assert_eq!(id, 4);
}

fn corrupt(path: &Path, at: u64, len: usize) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&vec![0xA5; len]).unwrap();
}

#[test]
fn a_damaged_database_is_reported_in_one_line() {
    // Garbage over the header: the file is not a database at all.
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 50);
    drop(j);
    corrupt(&dir.path().join(DB_FILE), 0, 100);
    let err = Journal::open(dir.path())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains(DB_FILE) && !err.contains('\n'), "{err}");

    // Garbage over data pages: what can be read is read, the damage is reported
    // and new events are refused rather than written into a broken file.
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 400);
    drop(j);
    let db = dir.path().join(DB_FILE);
    let len = std::fs::metadata(&db).unwrap().len();
    assert!(len > 8192, "checkpointed into the main file: {len}");
    corrupt(&db, len / 2, 3000);
    match Journal::open(dir.path()) {
        Err(e) => assert!(!e.to_string().contains('\n')),
        Ok((mut j, problems)) => {
            assert!(!problems.is_empty(), "the damage is found");
            assert!(problems.iter().all(|p| !p.to_string().contains('\n')));
            if problems
                .iter()
                .any(|p| matches!(p, Problem::Damaged { .. }))
            {
                let err = j.append(&new_game(u64::MAX / 2)).unwrap_err().to_string();
                assert!(err.contains("damaged"), "{err}");
            }
        }
    }
}
