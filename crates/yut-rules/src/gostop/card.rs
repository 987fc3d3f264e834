//! The 48-card 화투 deck, its ids (`docs/gostop-rules.md`, "The deck") and a bit set
//! of cards. Cards are small copyable values; a pile, hand or floor is a [`CardSet`]
//! (one `u64`), which keeps the hand engine allocation-free and makes "no card twice"
//! a property of the type.
//!
//! Pure.

use std::fmt;
use std::str::FromStr;

/// What a card is worth to the scorer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// 광 (bright).
    Gwang,
    /// 열끗 (animal); `9열` (국진) may count as 쌍피 instead.
    Yeol,
    /// 띠 (ribbon).
    Tti,
    /// 피 (junk), worth one 피.
    Pi,
    /// 쌍피, worth two 피.
    SsangPi,
}

/// The id and kind of each card, in deck order: index = (month − 1) × 4 + slot,
/// slots in the order of the table in `docs/gostop-rules.md`.
const TABLE: [(&str, Kind); 48] = {
    use Kind::*;
    [
        ("1광", Gwang),
        ("1띠", Tti),
        ("1피1", Pi),
        ("1피2", Pi),
        ("2열", Yeol),
        ("2띠", Tti),
        ("2피1", Pi),
        ("2피2", Pi),
        ("3광", Gwang),
        ("3띠", Tti),
        ("3피1", Pi),
        ("3피2", Pi),
        ("4열", Yeol),
        ("4띠", Tti),
        ("4피1", Pi),
        ("4피2", Pi),
        ("5열", Yeol),
        ("5띠", Tti),
        ("5피1", Pi),
        ("5피2", Pi),
        ("6열", Yeol),
        ("6띠", Tti),
        ("6피1", Pi),
        ("6피2", Pi),
        ("7열", Yeol),
        ("7띠", Tti),
        ("7피1", Pi),
        ("7피2", Pi),
        ("8광", Gwang),
        ("8열", Yeol),
        ("8피1", Pi),
        ("8피2", Pi),
        ("9열", Yeol),
        ("9띠", Tti),
        ("9피1", Pi),
        ("9피2", Pi),
        ("10열", Yeol),
        ("10띠", Tti),
        ("10피1", Pi),
        ("10피2", Pi),
        ("11광", Gwang),
        ("11쌍피", SsangPi),
        ("11피1", Pi),
        ("11피2", Pi),
        ("12광", Gwang),
        ("12열", Yeol),
        ("12띠", Tti),
        ("12쌍피", SsangPi),
    ]
};

/// One card of the deck, `0..48`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// Every card, in deck order.
    pub const ALL: [Card; 48] = {
        let mut all = [Card(0); 48];
        let mut i = 0;
        while i < 48 {
            all[i] = Card(i as u8);
            i += 1;
        }
        all
    };

    /// The card at `index` (deck order), if `index < 48`.
    pub fn from_index(index: usize) -> Option<Card> {
        (index < 48).then_some(Card(index as u8))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Month 1..=12 (11 = 오동, 12 = 비, the Korean order).
    pub fn month(self) -> Month {
        Month(self.0 / 4 + 1)
    }

    pub fn kind(self) -> Kind {
        TABLE[self.index()].1
    }

    /// The id of `docs/gostop-rules.md`, e.g. `3광`, `11쌍피`.
    pub fn id(self) -> &'static str {
        TABLE[self.index()].0
    }

    /// The card with this id; panics on a bad id (for tests and fixed tables).
    pub fn named(id: &str) -> Card {
        id.parse().unwrap_or_else(|_| panic!("not a card id: {id}"))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// An id that names no card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown card id {0:?} (ids look like 1광, 2열, 4띠, 5피1, 11쌍피)")]
pub struct UnknownCard(pub String);

impl FromStr for Card {
    type Err = UnknownCard;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TABLE
            .iter()
            .position(|(id, _)| *id == s)
            .map(|i| Card(i as u8))
            .ok_or_else(|| UnknownCard(s.to_string()))
    }
}

impl serde::Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// A month, 1..=12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Month(u8);

impl Month {
    /// Month `n`, if `1 <= n <= 12`.
    pub fn new(n: u8) -> Option<Month> {
        (1..=12).contains(&n).then_some(Month(n))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The four cards of this month.
    pub fn cards(self) -> CardSet {
        CardSet(0b1111 << ((self.0 as u32 - 1) * 4))
    }

    pub fn all() -> impl Iterator<Item = Month> {
        (1..=12).map(Month)
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}월", self.0)
    }
}

/// A set of cards (a hand, a pile, the floor), one bit per card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CardSet(u64);

const fn kind_set(kind: Kind) -> CardSet {
    let mut bits = 0u64;
    let mut i = 0;
    while i < 48 {
        if TABLE[i].1 as u8 == kind as u8 {
            bits |= 1 << i;
        }
        i += 1;
    }
    CardSet(bits)
}

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    /// The five 광.
    pub const GWANG: CardSet = kind_set(Kind::Gwang);
    /// The nine 열끗, `9열` included.
    pub const YEOL: CardSet = kind_set(Kind::Yeol);
    /// The ten 띠.
    pub const TTI: CardSet = kind_set(Kind::Tti);
    /// The 22 single 피.
    pub const PI: CardSet = kind_set(Kind::Pi);
    /// `11쌍피`, `12쌍피`.
    pub const SSANG_PI: CardSet = kind_set(Kind::SsangPi);
    pub const DECK: CardSet = CardSet((1 << 48) - 1);

    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & ((1 << 48) - 1))
    }

    pub const fn bits(self) -> u64 {
        self.0
    }

    pub fn of(cards: &[Card]) -> CardSet {
        cards.iter().fold(CardSet::EMPTY, |s, &c| s.with(c))
    }

    /// Parse ids like `["1광", "3광"]` (tests, tables); panics on a bad id.
    pub fn named(ids: &[&str]) -> CardSet {
        ids.iter()
            .fold(CardSet::EMPTY, |s, id| s.with(Card::named(id)))
    }

    pub const fn contains(self, c: Card) -> bool {
        self.0 & (1 << c.0) != 0
    }

    pub const fn with(self, c: Card) -> CardSet {
        CardSet(self.0 | (1 << c.0))
    }

    pub const fn without(self, c: Card) -> CardSet {
        CardSet(self.0 & !(1 << c.0))
    }

    pub fn insert(&mut self, c: Card) {
        self.0 |= 1 << c.0;
    }

    pub fn remove(&mut self, c: Card) {
        self.0 &= !(1 << c.0);
    }

    pub const fn union(self, o: CardSet) -> CardSet {
        CardSet(self.0 | o.0)
    }

    pub const fn intersect(self, o: CardSet) -> CardSet {
        CardSet(self.0 & o.0)
    }

    pub const fn minus(self, o: CardSet) -> CardSet {
        CardSet(self.0 & !o.0)
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cards of `month` in this set.
    pub fn of_month(self, month: Month) -> CardSet {
        self.intersect(month.cards())
    }

    /// The lowest card (deck order), if any.
    pub fn first(self) -> Option<Card> {
        (self.0 != 0).then(|| Card(self.0.trailing_zeros() as u8))
    }

    /// Cards in deck order.
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                Card(i as u8)
            })
        })
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Self {
        iter.into_iter().fold(CardSet::EMPTY, |s, c| s.with(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deck_has_48_distinct_ids_four_per_month() {
        let ids: std::collections::HashSet<_> = Card::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(ids.len(), 48);
        for m in Month::all() {
            assert_eq!(m.cards().len(), 4);
            for c in m.cards().iter() {
                assert!(c.id().starts_with(&m.number().to_string()));
                assert_eq!(c.month(), m);
            }
        }
    }

    #[test]
    fn kind_counts_match_the_deck_table() {
        let count = |k: Kind| Card::ALL.iter().filter(|c| c.kind() == k).count();
        assert_eq!(count(Kind::Gwang), 5);
        assert_eq!(count(Kind::Yeol), 9);
        assert_eq!(count(Kind::Tti), 10);
        assert_eq!(count(Kind::Pi), 22);
        assert_eq!(count(Kind::SsangPi), 2);
    }

    #[test]
    fn ids_round_trip_and_unknown_ids_are_refused() {
        for c in Card::ALL {
            assert_eq!(c.id().parse::<Card>().unwrap(), c);
        }
        assert!("13광".parse::<Card>().is_err());
        assert!("1피3".parse::<Card>().is_err());
        assert!("12피1".parse::<Card>().is_err());
    }

    #[test]
    fn card_set_iterates_in_deck_order() {
        let s = CardSet::named(&["12쌍피", "1광", "5띠"]);
        let v: Vec<_> = s.iter().map(|c| c.id()).collect();
        assert_eq!(v, ["1광", "5띠", "12쌍피"]);
        assert_eq!(s.len(), 3);
        assert_eq!(s.of_month(Month::new(5).unwrap()).len(), 1);
    }
}
