//! Simulated journals of sticks with known shares: whole games as a station
//! records them (new game, start, camera throws with the sticks read, the
//! placer's moves), folded as the station folds its journal. They measure how
//! often the fairness flag is raised on unfair sticks, and how often on fair ones.
//!
//! Pure and deterministic given the seed.

use crate::fairness::{FairnessConfig, Monitor};
use crate::reads::throws_read;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use yut_match::{
    Action, Entry, MatchEvent, MatchLog, MatchSetup, Player, Posture, SticksRead, TeamSetup,
    Verdict,
};
use yut_rules::yut::{legal_moves, Phase, ThrowResult};

/// Chance that a simulated throw lands a stick off the mat (낙).
const OFF_MAT: f64 = 0.02;

fn setup() -> MatchSetup {
    let team = |name: &str| TeamSetup {
        name: name.into(),
        throwers: (1..=3)
            .map(|i| Player::thrower(&format!("{name}{i}"), Posture::Seated, 80))
            .collect(),
        placer: Player::placer(&format!("{name} 감독")),
    };
    MatchSetup::new([team("청"), team("홍")])
}

/// A journal in which `read_throws` throws had all four sticks read: stick 0 is
/// the marked one, and stick `i` lands flat face up with chance `flat[i]`.
pub fn journal(flat: [f64; 4], read_throws: usize, seed: u64) -> MatchLog {
    generate(flat, read_throws, seed).0
}

/// The entries of [`journal`], as a station appends them.
pub fn entries(flat: [f64; 4], read_throws: usize, seed: u64) -> Vec<Entry> {
    generate(flat, read_throws, seed).1
}

fn generate(flat: [f64; 4], read_throws: usize, seed: u64) -> (MatchLog, Vec<Entry>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut log = MatchLog::default();
    let mut entries = Vec::new();
    let mut read = 0;
    let step = |log: &mut MatchLog, entries: &mut Vec<Entry>, action: Action| {
        let at = log.last_at + 100;
        let entry = Entry::Event(MatchEvent::new(at, action));
        log.apply(&entry).expect("simulated events are legal");
        entries.push(entry);
    };
    while read < read_throws {
        let game = log.current().filter(|g| !g.is_over()).cloned();
        let Some(game) = game else {
            let entry = Entry::NewGame {
                at_ms: log.last_at + 100,
                setup: setup(),
            };
            log.apply(&entry).expect("a valid setup");
            entries.push(entry);
            step(&mut log, &mut entries, Action::Start);
            continue;
        };
        match game.game().phase() {
            Phase::Move => {
                let moves = legal_moves(game.game());
                step(
                    &mut log,
                    &mut entries,
                    Action::Move(moves[rng.gen_range(0..moves.len())]),
                );
            }
            _ => {
                let up: Vec<bool> = flat.iter().map(|p| rng.gen_bool(*p)).collect();
                let off = rng.gen_bool(OFF_MAT);
                let mut faces: Vec<char> = up
                    .iter()
                    .enumerate()
                    .map(|(i, &u)| match (i, u) {
                        (0, true) => 'M',
                        (_, true) => 'F',
                        _ => 'R',
                    })
                    .collect();
                if off {
                    faces[rng.gen_range(0..4)] = 'X';
                }
                // The camera finds the sticks in no particular order.
                faces.shuffle(&mut rng);
                let result = if off {
                    ThrowResult::Nak
                } else {
                    read += 1;
                    let k = up.iter().filter(|u| **u).count() as u8;
                    ThrowResult::from_sticks(k, up[0]).expect("four sticks")
                };
                let verdict = Verdict {
                    sticks: Some(SticksRead {
                        set: "시험 윷".into(),
                        mat: "시험 멍석".into(),
                        faces: faces.into_iter().collect(),
                    }),
                    confidence: Some(0.99),
                    ..Verdict::entered(result)
                };
                step(&mut log, &mut entries, Action::Throw { verdict });
            }
        }
    }
    (log, entries)
}

/// How often the flag was raised over many simulated journals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlagRate {
    pub runs: u32,
    pub flagged: u32,
    /// The read throw at which each flag was raised, sorted.
    pub at_throws: Vec<u64>,
}

impl FlagRate {
    pub fn rate(&self) -> f64 {
        f64::from(self.flagged) / f64::from(self.runs.max(1))
    }

    /// The median throw at which flags were raised.
    pub fn median_throw(&self) -> Option<u64> {
        self.at_throws.get(self.at_throws.len() / 2).copied()
    }
}

/// Run `runs` simulated journals of `throws` read throws each (seeds `seed`,
/// `seed + 1`, …) through the fairness monitor; count those it flagged.
pub fn flag_rate(
    flat: [f64; 4],
    throws: usize,
    runs: u32,
    config: &FairnessConfig,
    seed: u64,
) -> FlagRate {
    let mut at_throws = Vec::new();
    for run in 0..runs {
        let log = journal(flat, throws, seed + u64::from(run));
        let (reads, _) = throws_read(&log);
        let mut monitor = Monitor::new(config);
        if let Some(flag) = reads.iter().find_map(|r| monitor.observe(r.faces)) {
            at_throws.push(flag.at_throw);
        }
    }
    at_throws.sort_unstable();
    FlagRate {
        runs,
        flagged: at_throws.len() as u32,
        at_throws,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reads::throws_read;

    #[test]
    fn a_simulated_journal_is_read_back_throw_for_throw() {
        let log = journal([0.6, 0.5, 0.5, 0.5], 120, 9);
        let (reads, count) = throws_read(&log);
        assert_eq!(reads.len(), 120);
        assert_eq!(count.read, 120);
        assert_eq!(
            count.not_all_read, count.naks,
            "the void throws are not read"
        );
        assert!(log.games.len() >= 2, "games follow one another");
    }

    #[test]
    fn an_odd_marked_stick_is_flagged_and_fair_sticks_mostly_not() {
        let config = FairnessConfig::default();
        let odd = flag_rate([0.75, 0.5, 0.5, 0.5], 400, 10, &config, 1);
        assert!(odd.flagged >= 9, "{odd:?}");
        let fair = flag_rate([0.5; 4], 400, 20, &config, 100);
        assert!(fair.flagged <= 3, "{fair:?}");
    }
}
