//! A sensible placer for playouts: for the team in turn, the legal move that
//! scores best on what a placer weighs at a glance. Progress home, finishing,
//! capturing (the captured pieces' lost way, and the throw it earns), joining
//! one's own stack, and the opponent's reach: the chance that their next throw
//! lands on the station a move leaves or goes to.
//!
//! It looks one move ahead and no further: quick enough for thousands of
//! playouts per update, and far better than a random placer at what a person
//! would not do (walk past a capture, leave a piece where it is hit).
//!
//! Pure.

use crate::shares::StickShares;
use yut_rules::yut::board::ENTRY;
use yut_rules::yut::{
    reachable, steps_to_finish, Destination, GameState, Move, Origin, ThrowResult,
};

/// Extra worth of a finished piece beyond its progress: it is safe for good.
const FINISH_BONUS: f64 = 4.0;
/// Worth of the extra throw a capture earns.
const CAPTURE_THROW: f64 = 5.0;
/// Worth of joining one's own stack, per piece joined.
const JOIN_BONUS: f64 = 0.5;
/// A piece hit goes back to waiting: what it loses is its way so far and this.
const HIT_EXTRA: f64 = 2.0;

/// Chooses moves for both teams.
#[derive(Debug, Clone, Copy)]
pub struct Placer {
    odds: [f64; 7],
}

impl Placer {
    /// A placer that expects the sticks to fall with `shares`.
    pub fn new(shares: &StickShares) -> Placer {
        Placer {
            odds: shares.result_odds(),
        }
    }

    /// The best of `moves` (the legal moves of `state`, not empty) for the team in
    /// turn; the first listed of equals.
    pub fn choose(&self, state: &GameState, moves: &[Move]) -> Move {
        let me = state.turn();
        let them = 1 - me;
        let hit = self.reach(state, them);
        let mine = &state.teams()[me];
        let theirs = &state.teams()[them];
        let entry_way = f64::from(1 + steps_to_finish(ENTRY, None));
        let mut best = (f64::NEG_INFINITY, moves[0]);
        for mv in moves {
            let (pieces, way_before, left) = match mv.from {
                Origin::Waiting => (1u8, entry_way, None),
                Origin::Station(s) => {
                    let stack = mine
                        .stacks
                        .iter()
                        .find(|st| st.station == s)
                        .expect("a legal move starts from a stack of the team");
                    (
                        stack.pieces,
                        f64::from(steps_to_finish(s, stack.diagonal)),
                        Some(s),
                    )
                }
            };
            let p = f64::from(pieces);
            let mut score;
            match mv.to {
                Destination::Finished => {
                    score = p * (way_before + FINISH_BONUS);
                }
                Destination::Station(to) => {
                    let way_after = f64::from(steps_to_finish(to, None));
                    score = p * (way_before - way_after);
                    if let Some(captured) = theirs.stacks.iter().find(|st| st.station == to) {
                        let lost = entry_way - f64::from(steps_to_finish(to, captured.diagonal));
                        score += f64::from(captured.pieces) * (lost + HIT_EXTRA) + CAPTURE_THROW;
                    }
                    let joined = mine
                        .stacks
                        .iter()
                        .find(|st| st.station == to)
                        .map_or(0, |st| st.pieces);
                    score += JOIN_BONUS * f64::from(joined);
                    let at_risk = p + f64::from(joined);
                    score -= hit[to as usize] * at_risk * (entry_way - way_after + HIT_EXTRA);
                }
            }
            if let Some(from) = left {
                // Leaving a station the opponent can reach takes the stack out of it.
                score += hit[from as usize] * p * (entry_way - way_before + HIT_EXTRA);
            }
            if score > best.0 {
                best = (score, *mv);
            }
        }
        best.1
    }

    /// For each station, the chance that `team`'s next throw lets it land there
    /// (from a waiting piece or any of its stacks).
    fn reach(&self, state: &GameState, team: usize) -> [f64; 29] {
        let side = &state.teams()[team];
        let mut hit = [0.0; 29];
        for result in ThrowResult::ALL {
            let odds = self.odds[result as usize];
            if odds == 0.0 || result == ThrowResult::Nak {
                continue;
            }
            let mut reached = [false; 29];
            let mut mark = |to: Destination| {
                if let Destination::Station(s) = to {
                    reached[s as usize] = true;
                }
            };
            if side.waiting > 0 {
                reachable(None, result).for_each(&mut mark);
            }
            for stack in &side.stacks {
                reachable(Some(stack), result).for_each(&mut mark);
            }
            for (h, r) in hit.iter_mut().zip(reached) {
                if r {
                    *h += odds;
                }
            }
        }
        hit
    }
}
