//! Crash safety of the journal: a child station appends events as fast as it can,
//! printing `ID DIGEST` after each acknowledged append, and is killed with SIGKILL
//! at random moments, 200 times over the same data directory. After every kill the
//! journal must hold every acknowledged event, fold without problems to the same
//! state as an independent replay, and that state at the last acknowledged event
//! must be the one the child reported.
//!
//! After every kill a copy of the data directory, as the child left it, is also
//! damaged at random (the database or its write-ahead log truncated, deleted, or
//! bytes flipped at random places; the head record deleted) and opened: every
//! acknowledged event is there, or its loss is reported (the journal refuses to
//! start, or names what is missing and takes no new event). Never silent: a copy
//! opened without a blocking problem holds every acknowledged event and folds to
//! the state the child acknowledged, and a new event never reuses an id.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use yut_match::{digest, synth, MatchLog};
use yutstation::journal::{Journal, Problem, DB_FILE, HEAD_FILE};

const KILLS: usize = 200;

#[test]
fn killed_at_random_moments_the_journal_keeps_every_acknowledged_event() {
    let dir = tempfile::tempdir().unwrap();
    let seed = 20261201;
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut acked: Vec<(i64, String)> = Vec::new();
    let mut mid_append_kills = 0;
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();

    for round in 0..KILLS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_yutstation"))
            .args(["journal", "append-bench"])
            .arg(dir.path())
            .args(["--seed", &round.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the station binary");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // Half the kills come after a few acknowledgements (the child is then in
        // its append loop), the others after a random delay that may fall anywhere,
        // start-up and the opening fold included.
        let mut lines = Vec::new();
        if rng.gen_bool(0.5) {
            let want = rng.gen_range(1..=6);
            while lines.len() < want {
                match rx.recv_timeout(Duration::from_secs(10)) {
                    Ok(l) => lines.push(l),
                    Err(_) => panic!("round {round}: the child stopped acknowledging"),
                }
            }
            std::thread::sleep(Duration::from_micros(rng.gen_range(0..3000)));
            mid_append_kills += 1;
        } else {
            std::thread::sleep(Duration::from_micros(rng.gen_range(0..15_000)));
        }
        child.kill().expect("SIGKILL the child");
        let status = child.wait().unwrap();
        assert!(!status.success(), "round {round}: the child was not killed");
        reader.join().unwrap();
        lines.extend(rx.try_iter());
        for line in lines {
            let (id, digest) = line.split_once(' ').expect("ID DIGEST");
            acked.push((id.parse().unwrap(), digest.to_string()));
        }

        // A damaged copy of what the child left, before the restart below
        // checkpoints its write-ahead log.
        let (kind, outcome) = damage_and_check(dir.path(), &acked, &mut rng, round);
        *outcomes.entry(format!("{kind}: {outcome}")).or_default() += 1;

        // Restart from the same directory.
        let (j, problems) = Journal::open(dir.path()).unwrap();
        assert!(problems.is_empty(), "round {round}: {problems:?}");
        let (entries, problems) = j.entries();
        assert!(problems.is_empty());
        let ids: Vec<i64> = entries.iter().map(|r| r.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase");
        assert!(
            entries.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
            "timestamps increase"
        );
        for (id, _) in &acked {
            assert!(
                ids.binary_search(id).is_ok(),
                "round {round}: acknowledged event #{id} is lost"
            );
        }
        // Every throw's evidence blob is there and intact.
        for game in &j.log().games {
            for hash in game.evidence() {
                j.evidence(hash).expect("evidence written before its event");
            }
        }
        // An independent replay, and the state the child saw at its last ack.
        let mut replay = MatchLog::default();
        let last_acked = acked.last().map(|a| a.0);
        let mut at_last_ack = None;
        for rec in &entries {
            replay
                .apply(&rec.entry)
                .expect("every stored entry replays");
            if Some(rec.id) == last_acked {
                at_last_ack = Some(digest(&replay));
            }
        }
        assert_eq!(
            *j.log(),
            replay,
            "round {round}: restart differs from replay"
        );
        if let Some((id, digest)) = acked.last() {
            assert_eq!(
                at_last_ack.as_deref(),
                Some(digest.as_str()),
                "round {round}: state at acknowledged #{id} differs from the child's"
            );
        }
    }
    let (j, _) = Journal::open(dir.path()).unwrap();
    let total = j.entries().0.len();
    eprintln!(
        "{KILLS} kills ({mid_append_kills} in the append loop), {} acknowledged of {total} stored events, {:.1} s",
        acked.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(acked.len() >= KILLS / 2, "the children did append");
    for (what, n) in &outcomes {
        eprintln!("  damaged copy, {what}: {n}");
    }
}

const DAMAGE: [&str; 9] = [
    "database truncated",
    "database deleted",
    "database bytes flipped",
    "log truncated",
    "log deleted",
    "log bytes flipped",
    "log header flipped",
    "log last frame flipped",
    "head deleted",
];

/// Copy `dir`, damage the copy one way at random, open it as a station would and
/// check that no acknowledged event is lost in silence. The kind of damage and
/// what came of it.
fn damage_and_check(
    dir: &std::path::Path,
    acked: &[(i64, String)],
    rng: &mut SmallRng,
    round: usize,
) -> (&'static str, &'static str) {
    let copy = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), copy.path().join(e.file_name())).unwrap();
        }
    }
    let db = copy.path().join(DB_FILE);
    let wal = copy.path().join(format!("{DB_FILE}-wal"));
    let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut kind = DAMAGE[rng.gen_range(0..DAMAGE.len())];
    if kind.starts_with("log") && len(&wal) <= 32 + 24 {
        kind = DAMAGE[rng.gen_range(0..3)]; // no log to damage this time
    }
    let target = if kind.starts_with("log") { &wal } else { &db };
    let size = len(target);
    let frame = 24 + 4096;
    match kind {
        "database truncated" | "log truncated" => {
            let at = rng.gen_range(0..size.max(1));
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .unwrap();
            f.set_len(at).unwrap();
        }
        "database deleted" | "log deleted" => std::fs::remove_file(target).unwrap(),
        "head deleted" => std::fs::remove_file(copy.path().join(HEAD_FILE)).unwrap(),
        _ => {
            let at = match kind {
                "log header flipped" => rng.gen_range(0..32),
                "log last frame flipped" => {
                    let frames = (size - 32) / frame;
                    32 + (frames - 1) * frame + rng.gen_range(0..frame)
                }
                _ => rng.gen_range(0..size.max(1)),
            };
            flip(target, at, rng.gen_range(1..=16));
        }
    }

    let (j, problems) = match Journal::open(copy.path()) {
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "round {round}, {kind}: {line}");
            return (kind, "refused to start");
        }
        Ok(opened) => opened,
    };
    let present: std::collections::BTreeSet<i64> = j.entries().0.iter().map(|r| r.id).collect();
    let missing: Vec<i64> = acked
        .iter()
        .map(|a| a.0)
        .filter(|id| !present.contains(id))
        .collect();
    let blocking = problems.iter().any(Problem::blocks_writing);
    if !missing.is_empty() {
        let covered = |id: i64| {
            problems.iter().any(|p| match p {
                Problem::Lost { from, to, .. } => (*from..=*to).contains(&id),
                Problem::Damaged { .. } | Problem::Altered { .. } => true,
                _ => false,
            })
        };
        let silent: Vec<i64> = missing.iter().copied().filter(|&id| !covered(id)).collect();
        assert!(
            silent.is_empty(),
            "round {round}, {kind}: acknowledged events {silent:?} lost in silence ({problems:?})"
        );
    }
    if !blocking {
        // Nothing reported that matters: the journal is the one acknowledged.
        assert!(missing.is_empty(), "round {round}, {kind}");
        if let Some((last, want)) = acked.last() {
            let mut replay = MatchLog::default();
            for rec in j.entries().0 {
                replay.apply(&rec.entry).unwrap();
                if rec.id == *last {
                    assert_eq!(
                        &digest(&replay),
                        want,
                        "round {round}, {kind}: acknowledged state changed in silence"
                    );
                }
            }
        }
    }
    // Ids are never reused: the journal takes a new event after every id it gave,
    // or none at all.
    let mut j = j;
    let next = synth::next_entry(j.log(), 99);
    match j.append(&next) {
        Ok(id) => {
            assert!(
                !blocking,
                "round {round}, {kind}: wrote into a broken journal"
            );
            let top = acked.iter().map(|a| a.0).max().unwrap_or(0);
            assert!(
                id > top,
                "round {round}, {kind}: id {id} reused (acknowledged up to {top})"
            );
        }
        Err(_) => assert!(blocking, "round {round}, {kind}: refused {problems:?}"),
    }
    let outcome = match (missing.is_empty(), blocking) {
        (true, false) => "nothing lost",
        (true, true) => "damage reported, nothing lost",
        (false, _) => "loss reported",
    };
    (kind, outcome)
}

fn flip(path: &std::path::Path, at: u64, n: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    for b in bytes.iter_mut().skip(at as usize).take(n) {
        *b ^= 0xa5;
    }
    std::fs::write(path, bytes).unwrap();
}
