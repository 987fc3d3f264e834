//! The chance each team wins from a position: Monte Carlo playouts to the end of
//! the game with the measured stick shares and the [`Placer`] for both teams,
//! and the check that those chances are calibrated.
//!
//! Pure: the caller seeds the randomness and counts the time.

use crate::placer::Placer;
use crate::shares::{ResultSampler, StickShares};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use yut_rules::yut::{
    legal_moves_into, GameEvent, GameRecord, GameState, Move, Phase, RulesConfig,
};

/// A playout longer than this many events is given up (and counted as neither
/// team's): random games end in a few hundred.
const MAX_PLAYOUT_EVENTS: u32 = 20_000;

/// The station's playouts per update: 2,000 put the chance within about a point
/// (one standard error ≤ 1.1 points) and take well under the 200 ms an update
/// may take on one core (`cargo bench -p yut-insight`).
pub const PLAYOUTS: u32 = 2_000;

/// The chance each team wins.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WinChances {
    /// By team index; they add up to 1.
    pub chances: [f64; 2],
    /// Playouts that went to the end.
    pub playouts: u32,
    /// One standard error of the chances.
    pub std_error: f64,
}

/// The chance each team wins from `state`, by `playouts` playouts with `shares`.
pub fn win_chances<R: Rng + ?Sized>(
    state: &GameState,
    shares: &StickShares,
    playouts: u32,
    rng: &mut R,
) -> WinChances {
    if let Some(winner) = state.winner() {
        let mut chances = [0.0; 2];
        chances[winner] = 1.0;
        return WinChances {
            chances,
            playouts: 0,
            std_error: 0.0,
        };
    }
    let sampler = shares.sampler();
    let placer = Placer::new(shares);
    let mut rng = SmallRng::from_rng(rng).expect("a seed from the caller's generator");
    let mut moves = Vec::new();
    let mut wins = [0u32; 2];
    for _ in 0..playouts {
        if let Some(w) = playout(state.clone(), &sampler, &placer, &mut rng, &mut moves) {
            wins[w] += 1;
        }
    }
    let n = wins[0] + wins[1];
    let p = if n == 0 {
        0.5
    } else {
        f64::from(wins[0]) / f64::from(n)
    };
    WinChances {
        chances: [p, 1.0 - p],
        playouts: n,
        std_error: (p * (1.0 - p) / f64::from(n.max(1))).sqrt(),
    }
}

/// Play `state` to its end; the winner (`None`: given up).
pub fn playout<R: Rng + ?Sized>(
    mut state: GameState,
    sampler: &ResultSampler,
    placer: &Placer,
    rng: &mut R,
    moves: &mut Vec<Move>,
) -> Option<usize> {
    for _ in 0..MAX_PLAYOUT_EVENTS {
        let event = match state.phase() {
            Phase::Over => return state.winner(),
            Phase::Throw => GameEvent::Throw(sampler.throw(rng)),
            Phase::Move => {
                legal_moves_into(&state, moves);
                GameEvent::Move(placer.choose(&state, moves))
            }
        };
        state
            .apply_in_place(&event)
            .expect("playouts throw when a throw is owed and move only legal moves");
    }
    None
}

/// The chances after each event of a game (and before the first): the line
/// over the game that `/stats` draws. `playouts` per point.
pub fn line<R: Rng + ?Sized>(
    record: &GameRecord,
    shares: &StickShares,
    playouts: u32,
    rng: &mut R,
) -> Vec<WinChances> {
    let mut state = record.initial_state();
    let mut points = vec![win_chances(&state, shares, playouts, rng)];
    for event in &record.events {
        if state.apply_in_place(event).is_err() {
            break;
        }
        points.push(win_chances(&state, shares, playouts, rng));
    }
    points
}

/// One simulated game's check: the estimate for team 0 at a position drawn from
/// the game, and whether team 0 went on to win.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Judged {
    pub estimate: f64,
    pub won: bool,
}

/// Simulate game `game` of a calibration run (seeded by `seed` and `game`): both
/// teams placed by the [`Placer`], the sticks falling with `shares`. At one of
/// its positions, drawn at random, the chance is estimated with `playouts`
/// playouts of their own; the game then goes on to its real end.
pub fn judge_one_game(shares: &StickShares, playouts: u32, seed: u64, game: u64) -> Judged {
    let mut rng = SmallRng::seed_from_u64(seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let sampler = shares.sampler();
    let placer = Placer::new(shares);
    let mut moves = Vec::new();
    let start =
        GameRecord::new(["0".into(), "1".into()], 4, RulesConfig::default()).initial_state();
    // The whole game first, to draw a position from it.
    let mut positions = vec![start.clone()];
    let mut state = start;
    while state.phase() != Phase::Over && positions.len() < MAX_PLAYOUT_EVENTS as usize {
        let event = match state.phase() {
            Phase::Throw => GameEvent::Throw(sampler.throw(&mut rng)),
            _ => {
                legal_moves_into(&state, &mut moves);
                GameEvent::Move(placer.choose(&state, &moves))
            }
        };
        state.apply_in_place(&event).expect("legal by construction");
        positions.push(state.clone());
    }
    let won = state.winner() == Some(0);
    let at = rng.gen_range(0..positions.len() - 1);
    let estimate = win_chances(&positions[at], shares, playouts, &mut rng).chances[0];
    Judged { estimate, won }
}

/// One tenth of the range of estimates, and how the games placed there ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Decile {
    pub from: f64,
    pub to: f64,
    pub positions: u32,
    /// The mean estimate of the positions in this tenth.
    pub estimated: f64,
    /// The share of them that team 0 went on to win.
    pub won: f64,
}

impl Decile {
    /// Won less estimated, in points; `None` for an empty tenth.
    pub fn gap_points(&self) -> Option<f64> {
        (self.positions > 0).then_some(100.0 * (self.won - self.estimated))
    }

    /// One standard error of `won`, in points, were the estimates right.
    pub fn noise_points(&self) -> f64 {
        let p = self.estimated;
        100.0 * (p * (1.0 - p) / f64::from(self.positions.max(1))).sqrt()
    }
}

/// The calibration table: the judged positions by tenths of their estimate.
pub fn deciles(judged: &[Judged]) -> Vec<Decile> {
    (0..10)
        .map(|d| {
            let (from, to) = (d as f64 / 10.0, (d + 1) as f64 / 10.0);
            let inside: Vec<&Judged> = judged
                .iter()
                .filter(|j| j.estimate >= from && (j.estimate < to || (d == 9 && j.estimate <= to)))
                .collect();
            let n = inside.len() as f64;
            Decile {
                from,
                to,
                positions: inside.len() as u32,
                estimated: inside.iter().map(|j| j.estimate).sum::<f64>() / n.max(1.0),
                won: inside.iter().filter(|j| j.won).count() as f64 / n.max(1.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use yut_rules::yut::apply;

    fn shares() -> StickShares {
        StickShares {
            marked: 0.55,
            plain: 0.6,
            nak: 0.02,
        }
    }

    #[test]
    fn a_game_that_is_over_is_certain() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut state =
            GameRecord::new(["a".into(), "b".into()], 1, RulesConfig::default()).initial_state();
        let sampler = shares().sampler();
        let placer = Placer::new(&shares());
        let mut moves = Vec::new();
        while state.phase() != Phase::Over {
            let e = match state.phase() {
                Phase::Throw => GameEvent::Throw(sampler.throw(&mut rng)),
                _ => {
                    legal_moves_into(&state, &mut moves);
                    GameEvent::Move(placer.choose(&state, &moves))
                }
            };
            state = apply(&state, &e).unwrap();
        }
        let w = state.winner().unwrap();
        let c = win_chances(&state, &shares(), 100, &mut rng);
        assert_eq!(c.chances[w], 1.0);
    }

    #[test]
    fn a_team_nearly_home_is_likely_to_win() {
        // Team 0 throws 모 and 윷 then 걸: one piece far along; team 1 nowhere.
        let record = GameRecord::new(["a".into(), "b".into()], 1, RulesConfig::default());
        let mut state = record.initial_state();
        let mut rng = SmallRng::seed_from_u64(2);
        for e in [
            GameEvent::Throw(yut_rules::yut::ThrowResult::Mo),
            GameEvent::Throw(yut_rules::yut::ThrowResult::Geol),
        ] {
            state = apply(&state, &e).unwrap();
        }
        let mv = yut_rules::yut::legal_moves(&state)
            .into_iter()
            .find(|m| m.result == yut_rules::yut::ThrowResult::Mo)
            .unwrap();
        state = apply(&state, &GameEvent::Move(mv)).unwrap();
        let c = win_chances(&state, &shares(), 2_000, &mut rng);
        assert!(c.chances[0] > 0.6, "{c:?}");
        assert!((c.chances[0] + c.chances[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_placer_beats_a_random_placer() {
        // Team 0 placed sensibly, team 1 at random: team 0 wins most games.
        let sampler = shares().sampler();
        let placer = Placer::new(&shares());
        let mut rng = SmallRng::seed_from_u64(4);
        let mut moves = Vec::new();
        let mut wins = 0;
        let games = 400;
        for g in 0..games {
            let mut state = GameRecord::new(["a".into(), "b".into()], 4, RulesConfig::default())
                .initial_state();
            // Half the games the random side throws first.
            let sensible = g % 2;
            while state.phase() != Phase::Over {
                let e = match state.phase() {
                    Phase::Throw => GameEvent::Throw(sampler.throw(&mut rng)),
                    _ => {
                        legal_moves_into(&state, &mut moves);
                        if state.turn() == sensible {
                            GameEvent::Move(placer.choose(&state, &moves))
                        } else {
                            GameEvent::Move(moves[rng.gen_range(0..moves.len())])
                        }
                    }
                };
                state.apply_in_place(&e).unwrap();
            }
            wins += usize::from(state.winner() == Some(sensible));
        }
        assert!(wins > games * 6 / 10, "{wins} of {games}");
    }

    #[test]
    fn deciles_split_the_estimates() {
        let judged: Vec<Judged> = (0..100)
            .map(|i| Judged {
                estimate: i as f64 / 99.0,
                won: i % 2 == 0,
            })
            .collect();
        let table = deciles(&judged);
        assert_eq!(table.iter().map(|d| d.positions).sum::<u32>(), 100);
        assert!(table[9].estimated > 0.9 && table[0].estimated < 0.1);
    }
}
