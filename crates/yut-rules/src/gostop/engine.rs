//! The hand engine: a deal from a seed, then actions in, state out
//! ([`HandState::legal_actions`], [`HandState::apply`]). Pure: the only randomness is the
//! seeded shuffle (and [`random_hand`]'s seeded choices).
//!
//! Readings of the 통일안 where its text is unclear (each has a test in
//! `tests/gostop_engine.rs` named after its article):
//!
//! - **The last card** (제4장 1–3조 "마지막 패는 제외") is the last turn of the hand:
//!   the turn that flips the stock's last card. Every player's hand and the stock run
//!   out together, so that turn is also everyone's last card.
//! - **설사 on the last card** (제4장 2조 excludes it, 제3장 3조 counts it): the three
//!   cards are taken, since nothing can stay on a floor that is not played on, and the
//!   설사 still counts toward three 설사.
//! - **따닥** (제4장 4조) has no last-card exception in the text, so it pays on the last
//!   card too.
//! - **피 transfers** (판쓸이, 설사 받아먹기, 따닥, 폭탄): each opponent gives one
//!   single 피 (lowest id) per event, a 쌍피 only when they hold no single 피, nothing
//!   when they hold neither; `9열` is never given. Two events in one turn take two.
//! - **"제5장 1.3.4조"** in 제4장 5–7조 names a chapter that does not exist; the
//!   articles meant are 제4장 1, 3, 4조 (판쓸이, 설사 받아먹기, 따닥). 폭탄 피
//!   (common) is treated the same.
//! - **승부유보** (제4장 6조): a player who reaches the points to stop (or, after a
//!   고, more points than at that 고) only thanks to 피 received this turn decides
//!   go/stop at the start of their next turn, before playing it. If the hand runs out
//!   first, they win at its end if their points still qualify.
//! - **승점보류 / 피박사면** (7조, 8조): a player who would qualify without the 피
//!   received this turn and stops returns those 피 to the players who gave them before
//!   the hand is scored, which can lift a giver back out of 피박.
//! - **피보충** (5조): after a 고 the bar to stop is the score at that 고 plus one;
//!   a player who loses 피 after a 고 must win them back and one point more.
//! - **The last turn**: a qualifying player stops (a 고 on the last card can never
//!   succeed); a 고 that does not reach more points ends the hand as 나가리 (draw).
//! - **흔들기** (10조, 11조 "게임 전"): shakes are declared after the deal, before the
//!   first card. **폭탄** (common): three of a month from the hand onto the fourth on
//!   the floor takes all four and 1 피 from each opponent, counts as a shake unless
//!   that month was shaken, and gives two flip-only turns.
//! - **Deals of 4 and 5** (제4장 9, 10조): everyone gets a 3-player hand; in seat order
//!   from the dealer each player joins or sits out until three play. A player who sat
//!   out the previous game must play (의무방어전). Those sitting out sell their 광
//!   (2 points each, 비광 only with another 광 unless 5 play), paid up front by each of
//!   the three players; their hands go under the stock.
//! - **Forfeit wins** (제3장) are checked on the deal, before anyone sits out, so every
//!   player dealt cards pays. A floor dealt four of a month is a misdeal (deal again).

use super::card::{Card, CardSet, Month};
use super::score::{self, article, HandResult, Preset, Settlement};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Most seats at a table (제4장 9, 10조 speak of 5인조).
pub const MAX_SEATS: usize = 5;
/// Players in one hand when 3 or more sit at the table.
pub const HAND_PLAYERS: usize = 3;

/// Everything wrong with a request to the engine, as one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GostopError {
    #[error("a table seats 2 to 5 players, not {0}")]
    Seats(usize),
    #[error("dealer seat {dealer} is not at a table of {seats}")]
    Dealer { dealer: usize, seats: usize },
    #[error("{0} players sat out the last game; at most the seats beyond three can")]
    SatOut(usize),
    #[error("{0:?} is not legal now")]
    Illegal(Decision),
    #[error("the hand is over")]
    Over,
    #[error("bad layout: {0}")]
    Layout(String),
}

/// The table a hand is dealt at: who deals and who sat out the previous game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub preset: Preset,
    pub seats: usize,
    /// Seat of the dealer (선), who plays first.
    pub dealer: usize,
    /// Per seat: sat out the previous game (의무방어전, 제4장 9조).
    pub sat_out_last: Vec<bool>,
}

impl Table {
    pub fn new(preset: Preset, seats: usize) -> Result<Table, GostopError> {
        if !(2..=MAX_SEATS).contains(&seats) {
            return Err(GostopError::Seats(seats));
        }
        Ok(Table {
            preset,
            seats,
            dealer: 0,
            sat_out_last: vec![false; seats],
        })
    }

    /// Cards in each hand and on the floor for this table size: 맞고 10 and 8,
    /// otherwise the 3-player 7 and 6.
    pub fn sizes(&self) -> (usize, usize) {
        if self.seats == 2 {
            (10, 8)
        } else {
            (7, 6)
        }
    }

    fn check(&self) -> Result<(), GostopError> {
        if !(2..=MAX_SEATS).contains(&self.seats) || self.sat_out_last.len() != self.seats {
            return Err(GostopError::Seats(self.seats));
        }
        // At most the seats beyond three sat out, and none at a table of 2 or 3.
        let sat_out = self.sat_out_last.iter().filter(|&&s| s).count();
        if sat_out > self.seats.saturating_sub(HAND_PLAYERS) {
            return Err(GostopError::SatOut(sat_out));
        }
        if self.dealer >= self.seats {
            return Err(GostopError::Dealer {
                dealer: self.dealer,
                seats: self.seats,
            });
        }
        Ok(())
    }
}

/// One decision of the player whose turn it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Play this hand (tables of 4 and 5).
    Join,
    /// Sit this hand out and sell 광 (제4장 10조).
    SitOut,
    /// Show three of a month before the first card (흔들기, 제2장 10조).
    Shake(Month),
    /// Done shaking.
    Ready,
    /// Play a card; `take` picks which of two floor cards of its month to take.
    Play { card: Card, take: Option<Card> },
    /// 폭탄: three of a month from the hand onto the fourth on the floor.
    Bomb(Month),
    /// Use a flip-only turn earned by a 폭탄.
    FlipOnly,
    /// Take this one of two floor cards matching the flipped card.
    TakeFlip(Card),
    /// 고 (제2장 8조).
    Go,
    /// 스톱: win the hand now.
    Stop,
}

/// Why a hand ended without play reaching a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Forfeit {
    /// Dealt four of a month (제3장 1조).
    FourCard(Month),
    /// Dealt all five 광 (제3장 2조).
    FiveGwang,
    /// Three 설사 in one game (제3장 3조).
    ThreeSeolsa,
}

impl Forfeit {
    pub fn article(self) -> &'static str {
        match self {
            Forfeit::FourCard(_) => article::FOUR_CARD,
            Forfeit::FiveGwang => article::FIVE_GWANG_DEALT,
            Forfeit::ThreeSeolsa => article::THREE_SEOLSA,
        }
    }
}

/// How a hand ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Someone stopped (or qualified on the last turn).
    Stop {
        /// The hand as a score sheet gives it (players in turn order).
        hand: HandResult,
        /// Seats of `hand`'s players.
        seats: Vec<usize>,
        settlement: Settlement,
    },
    /// 몰수게임승 (제3장): `payments` are (seat, points) paid to `winner` (a seat).
    Forfeit {
        winner: usize,
        reason: Forfeit,
        payments: Vec<(usize, u32)>,
    },
    /// Cards ran out and nobody won (나가리).
    Draw,
    /// Four of a month dealt to the floor: deal again.
    Misdeal,
}

impl Outcome {
    /// The winning seat, if any.
    pub fn winner(&self) -> Option<usize> {
        match self {
            Outcome::Stop { hand, seats: s, .. } => Some(s[hand.winner]),
            Outcome::Forfeit { winner, .. } => Some(*winner),
            Outcome::Draw | Outcome::Misdeal => None,
        }
    }
}

/// Where the hand stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandPhase {
    /// `seat` joins or sits out (tables of 4 and 5).
    Choosing {
        seat: usize,
    },
    /// `seat` may shake before the first card.
    Declaring {
        seat: usize,
    },
    /// `seat` plays a card (or bombs, or uses a flip-only turn).
    Playing {
        seat: usize,
    },
    /// `seat` flipped `flip` onto two floor cards of its month and picks one.
    ChooseFlip {
        seat: usize,
        flip: Card,
    },
    /// `seat` has the points to stop; `deferred` when decided at the start of a turn
    /// (승부유보, 제4장 6조).
    GoStop {
        seat: usize,
        deferred: bool,
    },
    Over(Outcome),
}

/// 광 sold by a player sitting out (제4장 10조), paid up front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GwangSale {
    pub seller: usize,
    /// 광 that count (비광 only with another 광, or at a table of 5).
    pub gwang: u32,
    /// What each of the three players pays the seller: 2 per 광.
    pub each_pays: u32,
}

/// One player at the table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Seat {
    pub hand: CardSet,
    pub pile: CardSet,
    /// Months shown by 흔들기 or bombed.
    pub shaken: CardSet,
    /// 흔들기 and 폭탄 counted for the multiplier.
    pub shakes: u32,
    /// Successful 고 calls so far.
    pub go: u32,
    /// Points at the last 고 (the bar to stop again is one more, 피보충).
    pub go_points: u32,
    /// 설사 made this game.
    pub seolsa: u32,
    /// Flip-only turns left from 폭탄.
    pub flips: u32,
    /// Reached the points on received 피: decides at the next turn (승부유보).
    pub deferred: bool,
}

/// The turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Turn {
    captured: CardSet,
    /// 피 each opponent owes the mover this turn.
    steals: u32,
    last: bool,
    /// 피 received this turn: (giver seat, card); returned on a stop (승점보류).
    received: Vec<(usize, Card)>,
}

/// A hand of Go-Stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandState {
    preset: Preset,
    table_seats: usize,
    dealer: usize,
    sat_out_last: Vec<bool>,
    seats: Vec<Seat>,
    floor: CardSet,
    /// Top of the stock is the last element.
    stock: Vec<Card>,
    /// Seats playing this hand, in turn order (dealer's side first).
    active: Vec<usize>,
    joined: Vec<Option<bool>>,
    gwang_sales: Vec<GwangSale>,
    phase: HandPhase,
    turn: Turn,
}

/// An arranged deal (tests, replays): seat 0 deals and plays first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub preset: Preset,
    /// One hand per player, 2 or 3 players.
    pub hands: Vec<Vec<Card>>,
    /// Cards each player has already captured (empty: none), to set up a position.
    pub piles: Vec<Vec<Card>>,
    pub floor: Vec<Card>,
    /// The stock, the next card to flip first. Must hold one card per hand card.
    pub stock: Vec<Card>,
}

/// Deal a hand from `seed` (ChaCha8, so the same seed deals the same cards on every
/// platform and version of this crate).
pub fn deal(table: &Table, seed: u64) -> Result<HandState, GostopError> {
    let mut deck = Card::ALL;
    deck.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    deal_deck(table, &deck)
}

/// Deal a deck in this order: a hand to each seat from the dealer round, then the
/// floor, then the stock (its first card flipped first).
pub fn deal_deck(table: &Table, deck: &[Card; 48]) -> Result<HandState, GostopError> {
    table.check()?;
    if CardSet::of(deck) != CardSet::DECK {
        return Err(GostopError::Layout(
            "the deck must hold each card once".into(),
        ));
    }
    let (hand, floor) = table.sizes();
    let mut rest = deck.iter().copied();
    let mut hands = vec![CardSet::EMPTY; table.seats];
    // Hands go round from the dealer.
    for i in 0..table.seats {
        let seat = (table.dealer + i) % table.seats;
        hands[seat] = rest.by_ref().take(hand).collect();
    }
    let floor: CardSet = rest.by_ref().take(floor).collect();
    let mut stock: Vec<Card> = rest.collect();
    stock.reverse();
    Ok(HandState::start(table, hands, floor, stock))
}

impl HandState {
    /// Start from an arranged deal (seat 0 deals).
    pub fn from_layout(layout: &Layout) -> Result<HandState, GostopError> {
        let n = layout.hands.len();
        if !(2..=HAND_PLAYERS).contains(&n) {
            return Err(GostopError::Layout(format!("{n} hands, need 2 or 3")));
        }
        if !layout.piles.is_empty() && layout.piles.len() != n {
            return Err(GostopError::Layout(format!(
                "{} piles for {n} hands",
                layout.piles.len()
            )));
        }
        let mut seen = CardSet::EMPTY;
        let all = layout.hands.iter().chain(&layout.piles).flatten();
        for &c in all.chain(&layout.floor).chain(&layout.stock) {
            if seen.contains(c) {
                return Err(GostopError::Layout(format!("card {c} twice")));
            }
            seen.insert(c);
        }
        let in_hands: usize = layout.hands.iter().map(Vec::len).sum();
        if layout.stock.len() != in_hands {
            return Err(GostopError::Layout(format!(
                "{} stock cards for {in_hands} hand cards",
                layout.stock.len()
            )));
        }
        let table = Table::new(layout.preset, n)?;
        let hands = layout.hands.iter().map(|h| CardSet::of(h)).collect();
        let mut stock = layout.stock.clone();
        stock.reverse();
        let mut state = HandState::start(&table, hands, CardSet::of(&layout.floor), stock);
        for (seat, pile) in layout.piles.iter().enumerate() {
            state.seats[seat].pile = CardSet::of(pile);
        }
        Ok(state)
    }

    fn start(table: &Table, hands: Vec<CardSet>, floor: CardSet, stock: Vec<Card>) -> HandState {
        let order: Vec<usize> = (0..table.seats)
            .map(|i| (table.dealer + i) % table.seats)
            .collect();
        let mut state = HandState {
            preset: table.preset,
            table_seats: table.seats,
            dealer: table.dealer,
            sat_out_last: table.sat_out_last.clone(),
            seats: hands
                .into_iter()
                .map(|hand| Seat {
                    hand,
                    ..Seat::default()
                })
                .collect(),
            floor,
            stock,
            active: Vec::new(),
            joined: vec![None; table.seats],
            gwang_sales: Vec::new(),
            phase: HandPhase::Over(Outcome::Draw),
            turn: Turn::default(),
        };
        if Month::all().any(|m| floor.of_month(m).len() == 4) {
            state.phase = HandPhase::Over(Outcome::Misdeal);
            return state;
        }
        // 제3장 1, 2조: checked on the deal, so everyone dealt cards pays.
        for &seat in &order {
            let hand = state.seats[seat].hand;
            let reason = if hand.intersect(CardSet::GWANG).len() == 5 {
                Some(Forfeit::FiveGwang)
            } else {
                Month::all()
                    .find(|&m| hand.of_month(m).len() == 4)
                    .map(Forfeit::FourCard)
            };
            if let Some(reason) = reason {
                let players = table.seats.min(HAND_PLAYERS);
                let each = match reason {
                    Forfeit::FiveGwang => 15,
                    _ => 2 * table.preset.needed_points(players),
                };
                let payments = order
                    .iter()
                    .filter(|&&s| s != seat)
                    .map(|&s| (s, each))
                    .collect();
                state.phase = HandPhase::Over(Outcome::Forfeit {
                    winner: seat,
                    reason,
                    payments,
                });
                return state;
            }
        }
        if table.seats > HAND_PLAYERS {
            state.phase = HandPhase::Choosing { seat: order[0] };
        } else {
            state.active = order;
            state.phase = HandPhase::Declaring {
                seat: state.active[0],
            };
        }
        state
    }

    pub fn preset(&self) -> Preset {
        self.preset
    }
    pub fn phase(&self) -> &HandPhase {
        &self.phase
    }
    pub fn seat(&self, seat: usize) -> &Seat {
        &self.seats[seat]
    }
    pub fn table_seats(&self) -> usize {
        self.table_seats
    }
    pub fn dealer(&self) -> usize {
        self.dealer
    }
    pub fn floor(&self) -> CardSet {
        self.floor
    }
    /// The stock, next card to flip first.
    pub fn stock(&self) -> impl Iterator<Item = Card> + '_ {
        self.stock.iter().rev().copied()
    }
    pub fn stock_len(&self) -> usize {
        self.stock.len()
    }
    /// Seats playing this hand, in turn order (empty while choosing).
    pub fn active(&self) -> &[usize] {
        &self.active
    }
    pub fn gwang_sales(&self) -> &[GwangSale] {
        &self.gwang_sales
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            HandPhase::Over(o) => Some(o),
            _ => None,
        }
    }

    /// Every card, once: hands, piles, floor and stock together.
    pub fn all_cards(&self) -> (CardSet, usize) {
        let mut set = self.floor;
        let mut count = self.floor.len() as usize + self.stock.len();
        for s in &self.seats {
            set = set.union(s.hand).union(s.pile);
            count += (s.hand.len() + s.pile.len()) as usize;
        }
        set = set.union(self.stock.iter().copied().collect());
        // Mid-turn, while the flipped card waits for a choice: it and the turn's
        // captures are in hand of the mover, not yet on a pile.
        if let HandPhase::ChooseFlip { flip, .. } = self.phase {
            set = set.union(self.turn.captured).with(flip);
            count += self.turn.captured.len() as usize + 1;
        }
        (set, count)
    }

    /// The table for the next game: the winner deals (the dealer again after a
    /// draw), and who sat out is remembered for 의무방어전.
    pub fn next_table(&self) -> Table {
        let winner = self.outcome().and_then(Outcome::winner);
        if self.outcome() == Some(&Outcome::Misdeal) {
            // A misdeal is no game: deal again with the same table.
            return Table {
                preset: self.preset,
                seats: self.table_seats,
                dealer: self.dealer,
                sat_out_last: self.sat_out_last.clone(),
            };
        }
        Table {
            preset: self.preset,
            seats: self.table_seats,
            dealer: winner.unwrap_or(self.dealer),
            sat_out_last: (0..self.table_seats)
                .map(|s| self.table_seats > HAND_PLAYERS && self.joined[s] == Some(false))
                .collect(),
        }
    }

    /// Points `seat` would score now (the better count of 9열).
    pub fn points(&self, seat: usize) -> u32 {
        score::best_points(self.preset, self.seats[seat].pile)
    }

    fn needed(&self) -> u32 {
        self.preset.needed_points(self.active.len())
    }

    /// The points `seat` needs to stop: 기본점수, or after a 고 one more than then.
    pub fn bar(&self, seat: usize) -> u32 {
        let s = &self.seats[seat];
        if s.go == 0 {
            self.needed()
        } else {
            s.go_points + 1
        }
    }

    fn qualifies(&self, seat: usize, pile: CardSet) -> bool {
        score::best_points(self.preset, pile) >= self.bar(seat)
    }

    /// What the player to act may do.
    pub fn legal_actions(&self) -> Vec<Decision> {
        let mut out = Vec::new();
        match self.phase {
            HandPhase::Choosing { seat } => {
                let (join, sit) = self.choices(seat);
                if join {
                    out.push(Decision::Join);
                }
                if sit {
                    out.push(Decision::SitOut);
                }
            }
            HandPhase::Declaring { seat } => {
                let s = &self.seats[seat];
                for m in Month::all() {
                    if s.hand.of_month(m).len() == 3 && s.shaken.of_month(m).is_empty() {
                        out.push(Decision::Shake(m));
                    }
                }
                out.push(Decision::Ready);
            }
            HandPhase::Playing { seat } => {
                let s = &self.seats[seat];
                for card in s.hand.iter() {
                    let on_floor = self.floor.of_month(card.month());
                    if on_floor.len() == 2 {
                        for take in on_floor.iter() {
                            out.push(Decision::Play {
                                card,
                                take: Some(take),
                            });
                        }
                    } else {
                        out.push(Decision::Play { card, take: None });
                    }
                }
                for m in Month::all() {
                    if s.hand.of_month(m).len() == 3 && self.floor.of_month(m).len() == 1 {
                        out.push(Decision::Bomb(m));
                    }
                }
                if s.flips > 0 {
                    out.push(Decision::FlipOnly);
                }
            }
            HandPhase::ChooseFlip { flip, .. } => {
                for c in self.floor.of_month(flip.month()).iter() {
                    out.push(Decision::TakeFlip(c));
                }
            }
            HandPhase::GoStop { .. } => {
                out.push(Decision::Go);
                out.push(Decision::Stop);
            }
            HandPhase::Over(_) => {}
        }
        out
    }

    /// (may join, may sit out) for `seat` while choosing: exactly three play, and
    /// whoever sat out last game must play (의무방어전, 제4장 9조).
    fn choices(&self, seat: usize) -> (bool, bool) {
        let undecided: Vec<usize> = (0..self.table_seats)
            .filter(|&s| self.joined[s].is_none() && s != seat)
            .collect();
        let joined = self.joined.iter().filter(|j| **j == Some(true)).count();
        let need = HAND_PLAYERS - joined;
        let barred_after = undecided.iter().filter(|&&s| self.sat_out_last[s]).count();
        let join = need >= 1 && barred_after < need;
        let sit = !self.sat_out_last[seat] && undecided.len() >= need && barred_after <= need;
        (join, sit)
    }

    /// Apply one action, returning the next state.
    pub fn apply(&self, action: Decision) -> Result<HandState, GostopError> {
        let mut next = self.clone();
        next.apply_mut(action)?;
        Ok(next)
    }

    /// Apply one action in place; on an error nothing has changed.
    pub fn apply_mut(&mut self, action: Decision) -> Result<(), GostopError> {
        if matches!(self.phase, HandPhase::Over(_)) {
            return Err(GostopError::Over);
        }
        if !self.legal_actions().contains(&action) {
            return Err(GostopError::Illegal(action));
        }
        match (self.phase.clone(), action) {
            (HandPhase::Choosing { seat }, a) => self.choose(seat, a == Decision::Join),
            (HandPhase::Declaring { seat }, Decision::Shake(m)) => {
                let s = &mut self.seats[seat];
                s.shaken = s.shaken.union(m.cards());
                s.shakes += 1;
            }
            (HandPhase::Declaring { seat }, _) => {
                let i = self.position(seat);
                self.phase = match self.active.get(i + 1) {
                    Some(&next) => HandPhase::Declaring { seat: next },
                    None => self.turn_start(self.active[0]),
                };
            }
            (HandPhase::Playing { seat }, Decision::Play { card, take }) => {
                self.play(seat, card, take)
            }
            (HandPhase::Playing { seat }, Decision::Bomb(m)) => self.bomb(seat, m),
            (HandPhase::Playing { seat }, _) => {
                self.turn = Turn::default();
                self.seats[seat].flips -= 1;
                let flip = self.flip();
                self.resolve_flip(seat, flip);
            }
            (HandPhase::ChooseFlip { seat, flip }, Decision::TakeFlip(c)) => {
                self.take(&[c, flip]);
                self.finish_turn(seat);
            }
            (HandPhase::GoStop { seat, deferred }, Decision::Go) => {
                let points = self.points(seat);
                let s = &mut self.seats[seat];
                s.go += 1;
                s.go_points = points;
                self.phase = if deferred {
                    HandPhase::Playing { seat }
                } else {
                    self.next_turn(seat)
                };
            }
            (HandPhase::GoStop { seat, deferred }, _) => {
                let returned = if deferred {
                    Vec::new()
                } else {
                    std::mem::take(&mut self.turn.received)
                };
                self.stop(seat, &returned);
            }
            _ => unreachable!("legal_actions admitted {action:?}"),
        }
        Ok(())
    }

    fn position(&self, seat: usize) -> usize {
        self.active
            .iter()
            .position(|&s| s == seat)
            .expect("active seat")
    }

    fn choose(&mut self, seat: usize, join: bool) {
        self.joined[seat] = Some(join);
        let next = (1..self.table_seats)
            .map(|i| (seat + i) % self.table_seats)
            .find(|&s| self.joined[s].is_none());
        if let Some(next) = next {
            self.phase = HandPhase::Choosing { seat: next };
            return;
        }
        let order: Vec<usize> = (0..self.table_seats)
            .map(|i| (self.dealer + i) % self.table_seats)
            .collect();
        self.active = order
            .iter()
            .copied()
            .filter(|&s| self.joined[s] == Some(true))
            .collect();
        for &s in order.iter().filter(|&&s| self.joined[s] == Some(false)) {
            let hand = self.seats[s].hand;
            let gwang = hand.intersect(CardSet::GWANG);
            let bi = gwang.contains(Card::named("12광"));
            // 비광 sells only beside another 광, or on its own at a table of 5.
            let counted = if bi && gwang.len() == 1 && self.table_seats < 5 {
                0
            } else {
                gwang.len()
            };
            if counted > 0 {
                self.gwang_sales.push(GwangSale {
                    seller: s,
                    gwang: counted,
                    each_pays: 2 * counted,
                });
            }
            // The hand goes under the stock, so the three players still flip 21.
            let cards: Vec<Card> = hand.iter().collect();
            self.stock.splice(0..0, cards);
            self.seats[s].hand = CardSet::EMPTY;
        }
        self.phase = HandPhase::Declaring {
            seat: self.active[0],
        };
    }

    fn flip(&mut self) -> Card {
        let card = self.stock.pop().expect("one stock card per hand card");
        self.turn.last = self.stock.is_empty();
        card
    }

    fn take(&mut self, cards: &[Card]) {
        for &c in cards {
            self.floor.remove(c);
            self.turn.captured.insert(c);
        }
    }

    fn take_set(&mut self, cards: CardSet) {
        self.floor = self.floor.minus(cards);
        self.turn.captured = self.turn.captured.union(cards);
    }

    fn play(&mut self, seat: usize, card: Card, take: Option<Card>) {
        self.turn = Turn::default();
        self.seats[seat].hand.remove(card);
        let month = card.month();
        let on_floor = self.floor.of_month(month);
        let flip = self.flip();
        let last = self.turn.last;
        if flip.month() == month {
            match on_floor.len() {
                0 => self.take(&[card, flip]),
                1 => {
                    // 설사 (제4장 2조); three in a game win it (제3장 3조, last included).
                    self.seats[seat].seolsa += 1;
                    if last {
                        self.take_set(on_floor);
                        self.take(&[card, flip]);
                    } else {
                        self.floor = self.floor.with(card).with(flip);
                    }
                    if self.seats[seat].seolsa == 3 {
                        self.settle_turn(seat);
                        self.forfeit(seat, Forfeit::ThreeSeolsa, 10);
                        return;
                    }
                }
                _ => {
                    // 따닥 (제4장 4조): all four, no last-card exception.
                    self.take_set(on_floor);
                    self.take(&[card, flip]);
                    self.turn.steals += 1;
                }
            }
            self.finish_turn(seat);
            return;
        }
        match on_floor.len() {
            0 => self.floor.insert(card),
            1 => {
                self.take_set(on_floor);
                self.turn.captured.insert(card);
            }
            2 => {
                let take = take.expect("legal_actions gives a take for two");
                self.take(&[take]);
                self.turn.captured.insert(card);
            }
            _ => {
                // 설사 받아먹기 (제4장 3조).
                self.take_set(on_floor);
                self.turn.captured.insert(card);
                if !last {
                    self.turn.steals += 1;
                }
            }
        }
        self.resolve_flip(seat, flip);
    }

    fn bomb(&mut self, seat: usize, month: Month) {
        self.turn = Turn::default();
        let s = &mut self.seats[seat];
        let cards = s.hand.of_month(month);
        s.hand = s.hand.minus(cards);
        if s.shaken.of_month(month).is_empty() {
            s.shaken = s.shaken.union(month.cards());
            s.shakes += 1;
        }
        s.flips += 2;
        self.turn.captured = cards.union(self.floor.of_month(month));
        self.floor = self.floor.minus(month.cards());
        self.turn.steals += 1;
        let flip = self.flip();
        self.resolve_flip(seat, flip);
    }

    fn resolve_flip(&mut self, seat: usize, flip: Card) {
        let on_floor = self.floor.of_month(flip.month());
        match on_floor.len() {
            0 => self.floor.insert(flip),
            1 => {
                self.take_set(on_floor);
                self.turn.captured.insert(flip);
            }
            2 => {
                self.phase = HandPhase::ChooseFlip { seat, flip };
                return;
            }
            _ => {
                self.take_set(on_floor);
                self.turn.captured.insert(flip);
                if !self.turn.last {
                    self.turn.steals += 1;
                }
            }
        }
        self.finish_turn(seat);
    }

    /// Move the turn's captures to the pile and collect the 피 owed.
    fn settle_turn(&mut self, seat: usize) {
        let captured = std::mem::take(&mut self.turn.captured);
        self.seats[seat].pile = self.seats[seat].pile.union(captured);
        // 판쓸이 (제4장 1조), not on the last card.
        if self.floor.is_empty() && !captured.is_empty() && !self.turn.last {
            self.turn.steals += 1;
        }
        for _ in 0..std::mem::take(&mut self.turn.steals) {
            for i in 0..self.active.len() {
                let giver = self.active[i];
                if giver == seat {
                    continue;
                }
                let pile = self.seats[giver].pile;
                let Some(card) = pile
                    .intersect(CardSet::PI)
                    .first()
                    .or_else(|| pile.intersect(CardSet::SSANG_PI).first())
                else {
                    continue;
                };
                self.seats[giver].pile.remove(card);
                self.seats[seat].pile.insert(card);
                self.turn.received.push((giver, card));
            }
        }
    }

    fn finish_turn(&mut self, seat: usize) {
        self.settle_turn(seat);
        let pile = self.seats[seat].pile;
        if self.turn.last {
            self.end_hand(seat);
            return;
        }
        if !self.qualifies(seat, pile) {
            self.phase = self.next_turn(seat);
            return;
        }
        let without = self
            .turn
            .received
            .iter()
            .fold(pile, |p, &(_, c)| p.without(c));
        if self.qualifies(seat, without) {
            self.phase = HandPhase::GoStop {
                seat,
                deferred: false,
            };
        } else {
            // 승부유보 (제4장 6조).
            self.seats[seat].deferred = true;
            self.phase = self.next_turn(seat);
        }
    }

    fn next_turn(&mut self, seat: usize) -> HandPhase {
        let i = self.position(seat);
        let next = self.active[(i + 1) % self.active.len()];
        self.turn_start(next)
    }

    fn turn_start(&mut self, seat: usize) -> HandPhase {
        self.turn = Turn::default();
        if std::mem::take(&mut self.seats[seat].deferred)
            && self.qualifies(seat, self.seats[seat].pile)
        {
            HandPhase::GoStop {
                seat,
                deferred: true,
            }
        } else {
            HandPhase::Playing { seat }
        }
    }

    /// The last card is played: the mover wins if qualified, else the first deferred
    /// player who still qualifies, else 나가리.
    fn end_hand(&mut self, mover: usize) {
        let pile = self.seats[mover].pile;
        if self.qualifies(mover, pile) {
            let without = self
                .turn
                .received
                .iter()
                .fold(pile, |p, &(_, c)| p.without(c));
            let returned = if self.qualifies(mover, without) {
                std::mem::take(&mut self.turn.received)
            } else {
                Vec::new()
            };
            self.stop(mover, &returned);
            return;
        }
        let i = self.position(mover);
        let n = self.active.len();
        for k in 1..n {
            let s = self.active[(i + k) % n];
            if self.seats[s].deferred && self.qualifies(s, self.seats[s].pile) {
                self.stop(s, &[]);
                return;
            }
        }
        self.phase = HandPhase::Over(Outcome::Draw);
    }

    /// `seat` wins by a stop; `returned` 피 go back first (승점보류, 피박사면).
    fn stop(&mut self, seat: usize, returned: &[(usize, Card)]) {
        for &(giver, card) in returned {
            self.seats[seat].pile.remove(card);
            self.seats[giver].pile.insert(card);
        }
        let hand = HandResult {
            preset: self.preset,
            piles: self.active.iter().map(|&s| self.seats[s].pile).collect(),
            winner: self.position(seat),
            go: self.seats[seat].go,
            shakes: self.seats[seat].shakes,
            // Normalised as a sheet gives it: empty when no loser had called 고.
            called_go: if self.preset == Preset::Common
                && self
                    .active
                    .iter()
                    .any(|&s| s != seat && self.seats[s].go > 0)
            {
                self.active
                    .iter()
                    .map(|&s| s != seat && self.seats[s].go > 0)
                    .collect()
            } else {
                Vec::new()
            },
        };
        let settlement = score::settle(&hand);
        self.phase = HandPhase::Over(Outcome::Stop {
            hand,
            seats: self.active.clone(),
            settlement,
        });
    }

    fn forfeit(&mut self, seat: usize, reason: Forfeit, each: u32) {
        let payments = self
            .active
            .iter()
            .filter(|&&s| s != seat)
            .map(|&s| (s, each))
            .collect();
        self.phase = HandPhase::Over(Outcome::Forfeit {
            winner: seat,
            reason,
            payments,
        });
    }
}

/// Deal from `seed` and play random legal actions (seeded from `seed` too) to the
/// end of the hand. The simulator and the property tests use it.
pub fn random_hand(table: &Table, seed: u64) -> Result<HandState, GostopError> {
    let mut state = deal(table, seed)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    while !matches!(state.phase, HandPhase::Over(_)) {
        let actions = state.legal_actions();
        let action = actions[rng.gen_range(0..actions.len())];
        state.apply_mut(action)?;
    }
    Ok(state)
}
