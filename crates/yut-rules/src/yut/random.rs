//! Seeded random throws and a random placer: for the demo, property tests and
//! benchmarks. Not a rule: the stick odds are a model of real sticks.

use super::game::{apply, legal_moves, GameEvent, GameState, Phase};
use super::record::GameRecord;
use super::result::ThrowResult;
use rand::Rng;

/// How a set of four sticks falls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StickModel {
    /// Chance that one stick lands flat face up. A D-section stick rests on its
    /// round face a little less often than on its flat one.
    pub front_probability: f64,
    /// Chance that a throw is void (a stick off the mat).
    pub nak_probability: f64,
}

impl Default for StickModel {
    fn default() -> Self {
        StickModel {
            front_probability: 0.6,
            nak_probability: 0.02,
        }
    }
}

impl StickModel {
    /// Throw four sticks; stick 0 carries the 뒷도 mark.
    pub fn throw<R: Rng + ?Sized>(&self, rng: &mut R) -> ThrowResult {
        if rng.gen_bool(self.nak_probability) {
            return ThrowResult::Nak;
        }
        let fronts: Vec<bool> = (0..4)
            .map(|_| rng.gen_bool(self.front_probability))
            .collect();
        let up = fronts.iter().filter(|f| **f).count() as u8;
        ThrowResult::from_sticks(up, fronts[0]).expect("four sticks read as a result")
    }
}

/// The next event of a random game: a throw when one is owed, else a uniformly
/// chosen legal move; `None` once the game is over.
pub fn next_event<R: Rng + ?Sized>(
    state: &GameState,
    sticks: &StickModel,
    rng: &mut R,
) -> Option<GameEvent> {
    match state.phase() {
        Phase::Over => None,
        Phase::Throw => Some(GameEvent::Throw(sticks.throw(rng))),
        Phase::Move => {
            let moves = legal_moves(state);
            let index = rng.gen_range(0..moves.len());
            Some(GameEvent::Move(moves[index]))
        }
    }
}

/// Play a whole random game, recording it. Stops after `max_events` (a game that
/// long is reported by the caller; in practice games end in a few hundred events).
pub fn play_random_game<R: Rng + ?Sized>(
    mut record: GameRecord,
    sticks: &StickModel,
    rng: &mut R,
    max_events: usize,
) -> (GameRecord, GameState) {
    let mut state = record.replay().expect("the starting record is legal");
    while record.events.len() < max_events {
        let Some(event) = next_event(&state, sticks, rng) else {
            break;
        };
        state = apply(&state, &event).expect("random events are chosen among legal ones");
        record.events.push(event);
    }
    (record, state)
}
