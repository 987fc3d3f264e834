//! A stand-in for a whole mat, for the load test and the tests: the next legal entry
//! of a game that plays itself (random throws, mostly forward, and legal moves).
//! Pure and deterministic given the log and a seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yut_match::{Action, Entry, MatchEvent, MatchLog, Millis, Verdict};
use yut_rules::yut::{legal_moves, Phase, ThrowResult};

/// The next entry of the current game at `at_ms`, or `None` when there is no game
/// or it is over.
pub fn next_play(log: &MatchLog, seed: u64, at_ms: Millis) -> Option<Entry> {
    let game = log.current().filter(|g| !g.is_over())?;
    let n = game.items().len() as u64;
    let mut rng = SmallRng::seed_from_u64(
        seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (log.game_number() as u64) << 48,
    );
    let at_ms = at_ms.max(log.last_at);
    let event = |action| Some(Entry::Event(MatchEvent::new(at_ms, action)));
    if !game.started() {
        return event(Action::Start);
    }
    if let Some(throw) = game.awaiting_call() {
        return event(Action::Call {
            throw,
            result: ThrowResult::ALL[rng.gen_range(0..5)],
        });
    }
    match game.game().phase() {
        Phase::Move => {
            let moves = legal_moves(game.game());
            event(Action::Move(moves[rng.gen_range(0..moves.len())]))
        }
        _ => {
            let verdict = if rng.gen_ratio(1, 25) {
                Verdict::ambiguous("stand-in: a stick on the line")
            } else {
                // 도 to 모 and now and then 뒷도 or 낙, mostly forward so games end.
                let r = rng.gen_range(0..7).min(rng.gen_range(0..7));
                Verdict::entered(ThrowResult::ALL[r])
            };
            event(Action::Throw { verdict })
        }
    }
}
