//! Scoring and settlement (제2장), pure: piles in, a breakdown out.
//!
//! Every line of a breakdown and every multiplier cites the article it comes from
//! (`제2장 N조`) or `common` where the 통일안 is silent and the value is the one
//! Korean online services use (`docs/gostop-rules.md`, "Points"). Under the `common`
//! preset every line cites `common`: that preset is not the 통일안.

use super::card::{Card, CardSet};
use serde::{Deserialize, Serialize};

/// Which rule book a table plays by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// 전국 고스톱 통일안, with common values where it is silent.
    Tongilan,
    /// What Korean online 맞고/고스톱 services usually use.
    Common,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Tongilan => "tongilan",
            Preset::Common => "common",
        }
    }

    /// `article` under the 통일안, `common` otherwise.
    pub fn cite(self, article: &'static str) -> &'static str {
        match self {
            Preset::Tongilan => article,
            Preset::Common => COMMON,
        }
    }

    /// 기본점수: the points needed to stop (제2장 1조). `common` plays 2-player 맞고
    /// to 7.
    pub fn needed_points(self, players: usize) -> u32 {
        match (self, players) {
            (Preset::Common, 2) => 7,
            _ => 3,
        }
    }

    /// A loser with fewer 피 than this is in 피박 (제2장 6조, 7조: 기본피 = 6).
    /// `common`: 맞고 8 (7 or fewer), 고스톱 6.
    pub fn basic_pi(self, players: usize) -> u32 {
        match (self, players) {
            (Preset::Common, 2) => 8,
            _ => 6,
        }
    }

    /// `common` spares a loser with no 피 at all from 피박; the 통일안 does not
    /// ("기본 피를 획득하지 못한 패자").
    fn zero_pi_spared(self) -> bool {
        self == Preset::Common
    }
}

/// Where the 통일안 is silent.
pub const COMMON: &str = "common";

/// Article citations, 제2장 (points) and 제3장 (forfeit wins).
pub mod article {
    pub const BASE_POINTS: &str = "제2장 1조";
    pub const YAKDAN: &str = "제2장 2조";
    pub const FIVE_GWANG: &str = "제2장 3조";
    pub const MEONGTTEONG: &str = "제2장 4조";
    pub const PI: &str = "제2장 5조";
    pub const PIBAK: &str = "제2장 6조";
    pub const BASIC_PI: &str = "제2장 7조";
    pub const GO: &str = "제2장 8조";
    pub const THREE_GO: &str = "제2장 9조";
    pub const SHAKE: &str = "제2장 10조";
    pub const DOUBLE_SHAKE: &str = "제2장 11조";
    pub const FOUR_CARD: &str = "제3장 1조";
    pub const FIVE_GWANG_DEALT: &str = "제3장 2조";
    pub const THREE_SEOLSA: &str = "제3장 3조";
}

/// A scoring category of the winner's pile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Gwang,
    Godori,
    Hongdan,
    Cheongdan,
    Chodan,
    Yeol,
    Tti,
    Pi,
}

/// One line of a breakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    pub category: Category,
    /// Korean name of what scored, e.g. `비삼광`, `고도리`, `피`.
    pub label: &'static str,
    /// Cards counted (for 피: 피 value, 쌍피 counting 2).
    pub cards: u32,
    pub points: u32,
    pub article: &'static str,
}

/// The points of one pile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Points {
    pub lines: Vec<Line>,
    /// Whether `9열` (국진) was counted as a 쌍피 rather than a 열끗.
    pub gukjin_as_pi: bool,
    /// Sum of the lines (no 고 bonus).
    pub total: u32,
}

impl Points {
    pub fn of(&self, category: Category) -> u32 {
        self.lines
            .iter()
            .filter(|l| l.category == category)
            .map(|l| l.points)
            .sum()
    }
}

const GUKJIN: Card = Card::ALL[32];
const BI_GWANG: Card = Card::ALL[44];

const fn bits(indices: [u32; 3]) -> CardSet {
    CardSet::from_bits((1 << indices[0]) | (1 << indices[1]) | (1 << indices[2]))
}

/// 고도리: 2열 4열 8열.
pub const GODORI: CardSet = bits([4, 12, 29]);
/// 홍단: 1띠 2띠 3띠.
pub const HONGDAN: CardSet = bits([1, 5, 9]);
/// 청단: 6띠 9띠 10띠.
pub const CHEONGDAN: CardSet = bits([21, 33, 37]);
/// 초단: 4띠 5띠 7띠.
pub const CHODAN: CardSet = bits([13, 17, 25]);

/// 광 in a pile.
pub fn gwang_count(pile: CardSet) -> u32 {
    pile.intersect(CardSet::GWANG).len()
}

/// 열끗 in a pile, `9열` counted as a 열끗 unless `gukjin_as_pi`.
pub fn yeol_count(pile: CardSet, gukjin_as_pi: bool) -> u32 {
    let n = pile.intersect(CardSet::YEOL).len();
    n - u32::from(gukjin_as_pi && pile.contains(GUKJIN))
}

/// 피 value of a pile: 피 1, 쌍피 2, `9열` 2 when `gukjin_as_pi` (제2장 5조).
pub fn pi_count(pile: CardSet, gukjin_as_pi: bool) -> u32 {
    pile.intersect(CardSet::PI).len()
        + 2 * pile.intersect(CardSet::SSANG_PI).len()
        + 2 * u32::from(gukjin_as_pi && pile.contains(GUKJIN))
}

/// A loser's 피 for 피박: a loser holding `9열` counts it as 쌍피, the reading that
/// favours the payer (the 통일안 does not say who chooses for a loser).
pub fn loser_pi_count(pile: CardSet) -> u32 {
    pi_count(pile, true)
}

/// The points of `pile` with `9열` counted one way.
pub fn score_pile(preset: Preset, pile: CardSet, gukjin_as_pi: bool) -> Points {
    let mut lines = Vec::new();
    let mut line = |category, label, cards, points, article| {
        lines.push(Line {
            category,
            label,
            cards,
            points,
            article,
        })
    };
    let gwang = gwang_count(pile);
    match gwang {
        5 => line(
            Category::Gwang,
            "5광",
            5,
            15,
            preset.cite(article::FIVE_GWANG),
        ),
        4 => line(Category::Gwang, "4광", 4, 4, COMMON),
        3 if pile.contains(BI_GWANG) => line(Category::Gwang, "비삼광", 3, 2, COMMON),
        3 => line(Category::Gwang, "3광", 3, 3, COMMON),
        _ => {}
    }
    for (set, category, label) in [
        (GODORI, Category::Godori, "고도리"),
        (HONGDAN, Category::Hongdan, "홍단"),
        (CHEONGDAN, Category::Cheongdan, "청단"),
        (CHODAN, Category::Chodan, "초단"),
    ] {
        if pile.intersect(set) == set {
            let points = if category == Category::Godori { 5 } else { 3 };
            line(category, label, 3, points, preset.cite(article::YAKDAN));
        }
    }
    let yeol = yeol_count(pile, gukjin_as_pi);
    if yeol >= 5 {
        // 제2장 4조 states only "7장으로 3점"; the scale from 5 cards is common.
        let cite = if yeol == 7 {
            preset.cite(article::MEONGTTEONG)
        } else {
            COMMON
        };
        line(Category::Yeol, "열끗", yeol, yeol - 4, cite);
    }
    let tti = pile.intersect(CardSet::TTI).len();
    if tti >= 5 {
        line(Category::Tti, "띠", tti, tti - 4, COMMON);
    }
    let pi = pi_count(pile, gukjin_as_pi);
    if pi >= 10 {
        line(Category::Pi, "피", pi, pi - 9, preset.cite(article::PI));
    }
    let total = lines.iter().map(|l| l.points).sum();
    Points {
        lines,
        gukjin_as_pi,
        total,
    }
}

/// The most points a pile can make (the holder of `9열` counts it the better way).
/// The hand engine decides go/stop on this.
pub fn best_points(preset: Preset, pile: CardSet) -> u32 {
    let as_yeol = score_pile(preset, pile, false).total;
    if pile.contains(GUKJIN) {
        as_yeol.max(score_pile(preset, pile, true).total)
    } else {
        as_yeol
    }
}

/// A finished hand as the scorer needs it: everything a `gostop-score/1` sheet says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandResult {
    pub preset: Preset,
    /// The captured pile of each player of the hand, in seat order.
    pub piles: Vec<CardSet>,
    pub winner: usize,
    /// The winner's successful 고 calls.
    pub go: u32,
    /// The winner's 흔들기 (a 폭탄 counts as one).
    pub shakes: u32,
    /// Losers who had called 고 (고박, `common` only); empty means none.
    pub called_go: Vec<bool>,
}

/// Why a loser pays more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MultiplierKind {
    Meongtteong,
    Pibak,
    Gwangbak,
    Gobak,
    Go,
    Shake,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Multiplier {
    pub kind: MultiplierKind,
    /// Korean name, e.g. `피박`, `쓰리고`, `쌍흔들이`.
    pub label: String,
    pub factor: u32,
    pub article: &'static str,
}

/// What one loser pays the winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoserPayment {
    pub player: usize,
    /// The loser's 피 as counted for 피박.
    pub pi: u32,
    pub multipliers: Vec<Multiplier>,
    /// Product of the multipliers.
    pub factor: u32,
    pub pays: u32,
}

/// The settlement of a hand won by a stop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settlement {
    pub preset: Preset,
    pub winner: usize,
    /// 기본점수 for this table.
    pub needed: u32,
    pub points: Points,
    pub go: u32,
    /// +1 per successful 고 (제2장 8조).
    pub go_bonus: u32,
    /// `points.total + go_bonus`: what each loser pays before multipliers.
    pub base: u32,
    pub losers: Vec<LoserPayment>,
    pub total_paid: u32,
}

/// Settle a hand. The winner counts `9열` whichever way makes the losers pay more
/// in total (ties: as 열끗), the choice a player makes at the table. An amount past
/// `u32::MAX` (only from counts no hand can reach) is held at `u32::MAX`;
/// [`settle_checked`] refuses it instead.
pub fn settle(hand: &HandResult) -> Settlement {
    best(settle_with(hand, false), || settle_with(hand, true), hand).0
}

/// [`settle`], or `None` when an amount does not fit a `u32` (the 고 and shakes
/// claimed cannot both be right).
pub fn settle_checked(hand: &HandResult) -> Option<Settlement> {
    let (settlement, fits) = best(settle_with(hand, false), || settle_with(hand, true), hand);
    fits.then_some(settlement)
}

fn best(
    as_yeol: (Settlement, bool),
    as_pi: impl FnOnce() -> (Settlement, bool),
    hand: &HandResult,
) -> (Settlement, bool) {
    if hand.piles[hand.winner].contains(GUKJIN) {
        let as_pi = as_pi();
        if as_pi.0.total_paid > as_yeol.0.total_paid {
            return as_pi;
        }
    }
    as_yeol
}

/// A settlement counted in `u64`, each amount held at `u32::MAX`; whether they
/// all fit.
fn settle_with(hand: &HandResult, gukjin_as_pi: bool) -> (Settlement, bool) {
    let mut fits = true;
    let mut to_u32 = |n: u64| {
        u32::try_from(n).unwrap_or_else(|_| {
            fits = false;
            u32::MAX
        })
    };
    let preset = hand.preset;
    let players = hand.piles.len();
    let pile = hand.piles[hand.winner];
    let points = score_pile(preset, pile, gukjin_as_pi);
    let go_bonus = hand.go;
    let base = u64::from(points.total) + u64::from(go_bonus);

    let mut common = Vec::new();
    if yeol_count(pile, gukjin_as_pi) >= 7 {
        common.push((
            Multiplier {
                kind: MultiplierKind::Meongtteong,
                label: "멍텅".into(),
                factor: 2,
                article: preset.cite(article::MEONGTTEONG),
            },
            2u64,
        ));
    }
    if hand.go >= 3 {
        // 2^(go - 2), counted in u64 up to 2^63.
        let factor = 1u64 << (hand.go - 2).min(63);
        let (label, cite) = if hand.go == 3 {
            ("쓰리고".to_string(), preset.cite(article::THREE_GO))
        } else {
            // 9조 doubles at three; doubling again per further 고 is common.
            (format!("{}고", hand.go), COMMON)
        };
        common.push((
            Multiplier {
                kind: MultiplierKind::Go,
                label,
                factor: to_u32(factor),
                article: cite,
            },
            factor,
        ));
    }
    if hand.shakes > 0 {
        let (label, cite) = match hand.shakes {
            1 => ("흔들이".to_string(), preset.cite(article::SHAKE)),
            2 => ("쌍흔들이".to_string(), preset.cite(article::DOUBLE_SHAKE)),
            n => (format!("흔들이 {n}번"), COMMON),
        };
        let factor = 1u64 << hand.shakes.min(63);
        common.push((
            Multiplier {
                kind: MultiplierKind::Shake,
                label,
                factor: to_u32(factor),
                article: cite,
            },
            factor,
        ));
    }

    let won_on_pi = points.of(Category::Pi) > 0;
    let won_on_gwang = points.of(Category::Gwang) > 0;
    let basic_pi = preset.basic_pi(players);
    let mut total_paid = 0u64;
    let losers: Vec<LoserPayment> = (0..players)
        .filter(|&p| p != hand.winner)
        .map(|p| {
            let mut multipliers = common.clone();
            let loser_pile = hand.piles[p];
            let pi = loser_pi_count(loser_pile);
            let spared = preset.zero_pi_spared() && pi == 0;
            let doubled = |kind, label: String, article| {
                (
                    Multiplier {
                        kind,
                        label,
                        factor: 2,
                        article,
                    },
                    2u64,
                )
            };
            if won_on_pi && pi < basic_pi && !spared {
                multipliers.push(doubled(
                    MultiplierKind::Pibak,
                    format!("피박 (피 {pi} < {basic_pi})"),
                    preset.cite(article::PIBAK),
                ));
            }
            if preset == Preset::Common {
                if won_on_gwang && gwang_count(loser_pile) == 0 {
                    multipliers.push(doubled(MultiplierKind::Gwangbak, "광박".into(), COMMON));
                }
                if hand.called_go.get(p).copied().unwrap_or(false) {
                    multipliers.push(doubled(MultiplierKind::Gobak, "고박".into(), COMMON));
                }
            }
            let factor = multipliers
                .iter()
                .fold(1u64, |f, (_, x)| f.saturating_mul(*x));
            let pays = base.saturating_mul(factor);
            total_paid = total_paid.saturating_add(pays);
            (p, pi, multipliers, factor, pays)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(player, pi, multipliers, factor, pays)| LoserPayment {
            player,
            pi,
            multipliers: multipliers.into_iter().map(|(m, _)| m).collect(),
            factor: to_u32(factor),
            pays: to_u32(pays),
        })
        .collect();
    let settlement = Settlement {
        preset,
        winner: hand.winner,
        needed: preset.needed_points(players),
        points,
        go: hand.go,
        go_bonus,
        base: to_u32(base),
        losers,
        total_paid: to_u32(total_paid),
    };
    (settlement, fits)
}
