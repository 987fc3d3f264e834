//! Many random hands in a row at one table, for `yutstation gostop simulate` and the
//! bench: the dealer passes to the winner and who sat out is carried from hand to
//! hand, so 의무방어전 is exercised. Pure: the seed fixes everything; timing is the
//! caller's.

use super::engine::{random_hand, Forfeit, GostopError, Outcome, Table};
use super::score::Preset;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// What a run of hands came to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub preset: &'static str,
    pub players: usize,
    pub seed: u64,
    pub hands: u64,
    /// Hands won by a stop (or by qualifying on the last card).
    pub stops: u64,
    pub four_card: u64,
    pub five_gwang: u64,
    pub three_seolsa: u64,
    /// 나가리: nobody won.
    pub draws: u64,
    pub misdeals: u64,
    /// Hands won per seat (stops and forfeits).
    pub wins: Vec<u64>,
    /// Points paid to winners, all hands together (광 sales not included).
    pub points_paid: u64,
    /// The largest single payment by one loser.
    pub largest_payment: u32,
    /// Points paid for 광 sold by players sitting out.
    pub gwang_sold: u64,
    /// Hands in which a player sat out.
    pub sit_outs: u64,
}

/// Play `hands` random hands at a table of `players` from `seed`.
pub fn simulate(
    preset: Preset,
    players: usize,
    seed: u64,
    hands: u64,
) -> Result<Summary, GostopError> {
    let mut table = Table::new(preset, players)?;
    let mut seeds = ChaCha8Rng::seed_from_u64(seed);
    let mut sum = Summary {
        preset: preset.name(),
        players,
        seed,
        wins: vec![0; players],
        ..Summary::default()
    };
    for _ in 0..hands {
        let state = random_hand(&table, seeds.gen())?;
        sum.hands += 1;
        for sale in state.gwang_sales() {
            sum.gwang_sold += u64::from(sale.each_pays) * state.active().len() as u64;
        }
        // Empty while nobody has chosen (a forfeit or misdeal on the deal).
        if !state.active().is_empty() && state.active().len() < players {
            sum.sit_outs += 1;
        }
        let outcome = state.outcome().expect("random_hand plays to the end");
        if let Some(w) = outcome.winner() {
            sum.wins[w] += 1;
        }
        match outcome {
            Outcome::Stop { settlement, .. } => {
                sum.stops += 1;
                sum.points_paid += u64::from(settlement.total_paid);
                for l in &settlement.losers {
                    sum.largest_payment = sum.largest_payment.max(l.pays);
                }
            }
            Outcome::Forfeit {
                reason, payments, ..
            } => {
                match reason {
                    Forfeit::FourCard(_) => sum.four_card += 1,
                    Forfeit::FiveGwang => sum.five_gwang += 1,
                    Forfeit::ThreeSeolsa => sum.three_seolsa += 1,
                }
                for &(_, p) in payments {
                    sum.points_paid += u64::from(p);
                    sum.largest_payment = sum.largest_payment.max(p);
                }
            }
            Outcome::Draw => sum.draws += 1,
            Outcome::Misdeal => sum.misdeals += 1,
        }
        table = state.next_table();
    }
    Ok(sum)
}
