//! Synthetic but legal match events, for the journal benchmark and the crash test:
//! games of random throws and moves with the occasional ambiguous throw, override,
//! undo, protest and timeout. Deterministic given the station and a seed.

use crate::log::{Entry, MatchLog};
use crate::{Action, MatchEvent, MatchSetup, Player, Posture, TeamSetup, Verdict};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yut_rules::yut::ThrowResult;

use yut_rules::yut::{legal_moves, Phase};

fn team(name: &str) -> TeamSetup {
    TeamSetup {
        name: name.into(),
        throwers: (1..=3)
            .map(|i| Player::thrower(&format!("{name}{i}"), Posture::Seated, 80 + i))
            .collect(),
        placer: Player::placer(&format!("{name} 감독")),
    }
}

/// The entry that follows `station`: legal there, 100 ms after the last one.
pub fn next_entry(station: &MatchLog, seed: u64) -> Entry {
    let n = station
        .games
        .iter()
        .map(|g| g.items().len() as u64)
        .sum::<u64>();
    let mut rng =
        SmallRng::seed_from_u64(seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ station.last_at);
    let at_ms = station.last_at + 100;
    let Some(game) = station.current().filter(|g| !g.is_over()) else {
        return Entry::NewGame {
            at_ms,
            setup: MatchSetup::new([team("청"), team("홍")]),
        };
    };
    let event = |action| Entry::Event(MatchEvent::new(at_ms, action));
    if !game.started() {
        return event(Action::Start);
    }
    if let Some(throw) = game.awaiting_call() {
        return event(Action::Call {
            throw,
            result: ThrowResult::ALL[rng.gen_range(0..7)],
        });
    }
    let n_throws = game.throws().count() as u32;
    let candidates: Vec<Action> = match rng.gen_range(0..100) {
        0..=1 if n_throws > 0 => vec![Action::Call {
            throw: rng.gen_range(n_throws.saturating_sub(3).max(1)..=n_throws),
            result: ThrowResult::ALL[rng.gen_range(0..6)],
        }],
        2..=3 => vec![Action::Undo],
        4 => {
            let t = rng.gen_range(0..2);
            vec![Action::Protest {
                team: t,
                by: game.lineup(t).thrower(rng.gen_range(0..3)).name.clone(),
                throw: None,
                note: "synthetic".into(),
            }]
        }
        5 => vec![Action::TimeoutStart {
            team: rng.gen_range(0..2),
        }],
        _ => vec![],
    };
    let mut candidates = candidates;
    if game.timeout_running(at_ms).is_some() {
        candidates.push(Action::TimeoutEnd);
    }
    match game.game().phase() {
        Phase::Move => {
            let moves = legal_moves(game.game());
            candidates.push(Action::Move(moves[rng.gen_range(0..moves.len())]));
        }
        _ => {
            let verdict = if rng.gen_ratio(1, 20) {
                Verdict::ambiguous("synthetic")
            } else {
                // Mostly forward results so games end.
                Verdict::entered(ThrowResult::ALL[rng.gen_range(0..7).min(rng.gen_range(0..7))])
            };
            candidates.push(Action::Throw { verdict });
        }
    }
    for action in candidates {
        let e = MatchEvent::new(at_ms, action);
        if crate::apply(game, &e).is_ok() {
            return Entry::Event(e);
        }
    }
    unreachable!("a throw or a move is always possible in a running game")
}
