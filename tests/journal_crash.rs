//! Crash safety of the journal: a child station appends events as fast as it can,
//! printing `ID DIGEST` after each acknowledged append, and is killed with SIGKILL
//! at random moments, 200 times over the same data directory. After every kill the
//! journal must hold every acknowledged event, fold without problems to the same
//! state as an independent replay, and that state at the last acknowledged event
//! must be the one the child reported.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use yut_match::{digest, MatchLog};
use yutstation::journal::Journal;

const KILLS: usize = 200;

#[test]
fn killed_at_random_moments_the_journal_keeps_every_acknowledged_event() {
    let dir = tempfile::tempdir().unwrap();
    let seed = 20261201;
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut acked: Vec<(i64, String)> = Vec::new();
    let mut mid_append_kills = 0;

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
}
