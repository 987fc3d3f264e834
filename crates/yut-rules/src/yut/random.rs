//! Seeded random throws and a random placer: for the demo, property tests and
//! benchmarks. Not a rule: the stick odds are a model of real sticks.

use super::game::{legal_moves_into, GameEvent, GameState, Move, Phase};
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
        let marked_up = rng.gen_bool(self.front_probability);
        let mut up = u8::from(marked_up);
        for _ in 1..4 {
            up += u8::from(rng.gen_bool(self.front_probability));
        }
        ThrowResult::from_sticks(up, marked_up).expect("four sticks read as a result")
    }
}

/// The next event of a random game: a throw when one is owed, else a uniformly
/// chosen legal move; `None` once the game is over.
pub fn next_event<R: Rng + ?Sized>(
    state: &GameState,
    sticks: &StickModel,
    rng: &mut R,
) -> Option<GameEvent> {
    next_event_with(state, sticks, rng, &mut Vec::new())
}

/// [`next_event`] listing the moves into `moves`, a buffer the caller keeps.
pub fn next_event_with<R: Rng + ?Sized>(
    state: &GameState,
    sticks: &StickModel,
    rng: &mut R,
    moves: &mut Vec<Move>,
) -> Option<GameEvent> {
    match state.phase() {
        Phase::Over => None,
        Phase::Throw => Some(GameEvent::Throw(sticks.throw(rng))),
        Phase::Move => {
            legal_moves_into(state, moves);
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
    let mut moves = Vec::new();
    while record.events.len() < max_events {
        let Some(event) = next_event_with(&state, sticks, rng, &mut moves) else {
            break;
        };
        state
            .apply_in_place(&event)
            .expect("random events are chosen among legal ones");
        record.events.push(event);
    }
    (record, state)
}
