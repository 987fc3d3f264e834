//! Journal tests on real SQLite files in temporary directories.

use super::head::{hex, unhex};
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
    // A row this version cannot read but chained as the station chains (a newer
    // version's, say): reported and skipped, and the journal goes on.
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    let before: String = conn
        .query_row("SELECT chain FROM events WHERE id = 2", [], |r| r.get(0))
        .unwrap();
    let chain = super::store::link(&unhex(&before).unwrap(), 3, 2, 1, b"not json");
    conn.execute(
        "INSERT INTO events (at_ms, game, body, chain) VALUES (2, 1, 'not json', ?1)",
        [hex(&chain)],
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

/// A copy of a data directory's files as they are now (the journal may be open:
/// its write-ahead log is copied as the station left it).
fn snapshot(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.path().join(e.file_name())).unwrap();
        }
    }
    to
}

fn wal(dir: &Path) -> std::path::PathBuf {
    dir.join(format!("{DB_FILE}-wal"))
}

/// A journal of `n` events whose events are all in its write-ahead log still (as
/// a killed station leaves it), its ids, and the directory.
fn killed_with(n: usize) -> (tempfile::TempDir, Vec<i64>) {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    let ids = fill(&mut j, n);
    let copy = snapshot(dir.path());
    drop(j);
    assert!(std::fs::metadata(wal(copy.path())).unwrap().len() > 0);
    (copy, ids)
}

fn lost(problems: &[Problem]) -> Vec<(i64, i64)> {
    problems
        .iter()
        .filter_map(|p| match p {
            Problem::Lost { from, to, .. } => Some((*from, *to)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_second_station_on_the_same_data_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 3);
    let err = Journal::open(dir.path())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("in use by another station")
            && err.contains(&format!("process {}", std::process::id()))
            && !err.contains('\n'),
        "{err}"
    );
    // Reading is not writing: `journal show` reads a running station's journal.
    let (reader, problems) = Journal::inspect(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(reader.entries().0.len(), 3);
    assert!(reader.refuses_writing().is_some());
    drop(j);
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(j.append(&synth::next_entry(j.log(), 3)).unwrap(), 4);
}

#[test]
fn a_database_truncated_or_deleted_is_lost_not_new() {
    for damage in ["truncate", "delete", "delete with its log"] {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(dir.path()).unwrap();
        fill(&mut j, 40);
        drop(j);
        let db = dir.path().join(DB_FILE);
        match damage {
            "truncate" => std::fs::OpenOptions::new()
                .write(true)
                .open(&db)
                .unwrap()
                .set_len(0)
                .unwrap(),
            _ => std::fs::remove_file(&db).unwrap(),
        }
        for open in [Journal::open, Journal::inspect] {
            let err = open(dir.path()).err().expect("refused").to_string();
            assert!(
                err.contains("is lost, not new")
                    && err.contains("40 acknowledged events")
                    && err.contains("#40")
                    && err.contains("--new-journal")
                    && !err.contains('\n'),
                "{damage}: {err}"
            );
        }
        // Nothing was written in the attempt: it is refused again, the same way.
        assert!(Journal::open(dir.path()).is_err());
        assert_eq!(db.exists(), damage == "truncate");
    }
    // A damaged head beside an empty database: no telling new from lost.
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 5);
    drop(j);
    std::fs::remove_file(dir.path().join(DB_FILE)).unwrap();
    std::fs::write(dir.path().join(HEAD_FILE), b"scrambled").unwrap();
    let err = Journal::open(dir.path())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("cannot be told from a lost one"), "{err}");

    // The write-ahead log kept without its database is a lost journal too (even
    // one from before the head record existed).
    let (dir, _) = killed_with(20);
    std::fs::remove_file(dir.path().join(DB_FILE)).unwrap();
    std::fs::remove_file(dir.path().join(HEAD_FILE)).unwrap();
    let err = Journal::open(dir.path())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("write-ahead log"), "{err}");
    assert!(wal(dir.path()).exists(), "the log is kept");
}

#[test]
fn a_lost_write_ahead_log_is_reported_with_what_is_missing_and_ids_are_not_reused() {
    let (dir, ids) = killed_with(30);
    std::fs::remove_file(wal(dir.path())).unwrap();
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert_eq!(lost(&problems), vec![(1, 30)], "{problems:?}");
    let line = problems[0].to_string();
    assert!(
        line.contains("30 acknowledged events (#1..=#30) are missing")
            && line.contains(" UTC")
            && line.contains("--new-journal"),
        "{line}"
    );
    // No fork: nothing is written over the gap.
    let err = j.append(&new_game(u64::MAX / 2)).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    drop(j);
    // Starting afresh is explicit; the old files are kept, ids go on.
    let (mut j, problems, aside) = Journal::open_new(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let aside = aside.expect("set aside");
    assert!(aside.join(DB_FILE).is_file() && aside.join(HEAD_FILE).is_file());
    assert_eq!(j.log().games.len(), 0);
    let id = j.append(&new_game(0)).unwrap();
    assert!(id > *ids.last().unwrap(), "id {id} reused");
    drop(j);
    let (_, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn bytes_flipped_in_the_write_ahead_log_lose_the_tail_and_say_so() {
    const FRAME: u64 = 24 + 4096;
    for place in ["header", "middle", "last frame"] {
        let (dir, ids) = killed_with(60);
        let log = wal(dir.path());
        let len = std::fs::metadata(&log).unwrap().len();
        let frames = (len - 32) / FRAME;
        let at = match place {
            "header" => 12,
            "middle" => 32 + frames / 2 * FRAME + 24 + 2000,
            _ => 32 + (frames - 1) * FRAME + 24 + 100,
        };
        flip(&log, at, 8);
        let (mut j, problems) = Journal::open(dir.path()).unwrap();
        let present: Vec<i64> = j.entries().0.iter().map(|r| r.id).collect();
        let missing: Vec<i64> = ids
            .iter()
            .filter(|i| !present.contains(i))
            .copied()
            .collect();
        assert!(!missing.is_empty(), "{place}: the damage lost nothing?");
        let reported = lost(&problems);
        assert!(
            missing
                .iter()
                .all(|m| reported.iter().any(|(a, b)| (a..=b).contains(&m))),
            "{place}: missing {missing:?}, reported {problems:?}"
        );
        assert!(j.append(&new_game(u64::MAX / 2)).is_err(), "{place}");
    }
}

fn flip(path: &Path, at: u64, len: usize) {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut bytes = vec![0; len];
    f.seek(SeekFrom::Start(at)).unwrap();
    f.read_exact(&mut bytes).unwrap();
    for b in &mut bytes {
        *b ^= 0x5a;
    }
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(&bytes).unwrap();
}

#[test]
fn a_changed_event_breaks_the_chain_and_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 20);
    drop(j);
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute_batch(
        "DROP TRIGGER events_no_update;
         UPDATE events SET at_ms = at_ms + 1 WHERE id = 7;",
    )
    .unwrap();
    drop(conn);
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert!(
        problems.contains(&Problem::Altered { id: 7 }),
        "{problems:?}"
    );
    assert!(problems[0]
        .to_string()
        .contains("#7 does not match the chain"));
    assert!(j.append(&new_game(u64::MAX / 2)).is_err());
    drop(j);

    // A row added behind the station's back is not chained: found the same way.
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    j.append(&new_game(0)).unwrap();
    j.append(&ev(1, Action::Start)).unwrap();
    drop(j);
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    let body = serde_json::to_string(&ev(2, Action::Undo)).unwrap();
    conn.execute(
        "INSERT INTO events (at_ms, game, body) VALUES (2, 1, ?1)",
        [body],
    )
    .unwrap();
    drop(conn);
    let (_, problems) = Journal::open(dir.path()).unwrap();
    assert!(
        problems.contains(&Problem::Altered { id: 3 }),
        "{problems:?}"
    );
}

#[test]
fn a_head_behind_the_database_is_no_loss_and_a_missing_head_is_reported() {
    // Killed between the database's commit and the head's write: the head says
    // one event less. That event is there; nothing is reported.
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = Journal::open(dir.path()).unwrap();
    fill(&mut j, 10);
    let head_before = std::fs::read(dir.path().join(HEAD_FILE)).unwrap();
    fill(&mut j, 1);
    drop(j);
    std::fs::write(dir.path().join(HEAD_FILE), head_before).unwrap();
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(fill(&mut j, 1), vec![12]);
    drop(j);

    std::fs::remove_file(dir.path().join(HEAD_FILE)).unwrap();
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert_eq!(problems, vec![Problem::NoHead { unreadable: false }]);
    fill(&mut j, 1);
    drop(j);
    let (_, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "written again: {problems:?}");
}

/// The journal as the station wrote it before the chain (schema version 1).
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS events (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    game  INTEGER NOT NULL,
    body  TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
PRAGMA user_version = 1;
";

#[test]
fn a_journal_from_before_the_chain_is_read_reported_and_chained_from_then_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut folded = yut_match::MatchLog::default();
    {
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        conn.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
        conn.execute_batch(SCHEMA_V1).unwrap();
        for _ in 0..25 {
            let e = synth::next_entry(&folded, 5);
            folded.apply(&e).unwrap();
            conn.execute(
                "INSERT INTO events (at_ms, game, body) VALUES (?1, ?2, ?3)",
                rusqlite::params![
                    e.at_ms() as i64,
                    folded.game_number(),
                    serde_json::to_string(&e).unwrap()
                ],
            )
            .unwrap();
        }
    }
    // Read as it is (no lock, nothing written), reported.
    let (j, problems) = Journal::inspect(dir.path()).unwrap();
    assert_eq!(problems, vec![Problem::Unchained { upto: 25 }]);
    assert_eq!(*j.log(), folded);
    drop(j);
    let (mut j, problems) = Journal::open(dir.path()).unwrap();
    assert_eq!(problems, vec![Problem::Unchained { upto: 25 }]);
    assert!(problems[0]
        .to_string()
        .contains("before the journal was chained"));
    assert_eq!(*j.log(), folded);
    assert_eq!(fill(&mut j, 5), vec![26, 27, 28, 29, 30]);
    drop(j);
    let (j, problems) = Journal::open(dir.path()).unwrap();
    assert!(problems.is_empty(), "chained now: {problems:?}");
    assert_eq!(j.entries().0.len(), 30);
    drop(j);
    // The older events are covered by the chain from now on.
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute_batch("DROP TRIGGER events_no_update; UPDATE events SET game = 9 WHERE id = 3;")
        .unwrap();
    drop(conn);
    let (_, problems) = Journal::open(dir.path()).unwrap();
    assert!(
        problems
            .iter()
            .any(|p| matches!(p, Problem::Altered { .. })),
        "{problems:?}"
    );
}
