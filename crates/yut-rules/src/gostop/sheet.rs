//! The `gostop-score/1` score sheet (`docs/score-sheet.md`) and the
//! `gostop-settlement/1` report the CLI prints with `--json`. Pure: text in, values
//! out. A sheet that cannot happen is refused with one line naming the problem.

use super::card::{Card, CardSet};
use super::score::{self, HandResult, Multiplier, Points, Preset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SHEET_FORMAT: &str = "gostop-score/1";
pub const REPORT_FORMAT: &str = "gostop-settlement/1";

/// A `gostop-score/1` sheet as written by a referee (or by the hand engine).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sheet {
    pub format: String,
    pub preset: Preset,
    /// The players of the hand, in seat order (2 or 3: at 4 or 5 the others sit out).
    pub players: Vec<String>,
    pub winner: String,
    /// Captured cards per player; a player left out captured nothing. A player named
    /// twice is refused (a plain map would keep only the last list).
    #[serde(deserialize_with = "unique_keys")]
    pub captured: BTreeMap<String, Vec<String>>,
    /// The winner's successful 고 calls.
    #[serde(default)]
    pub go: u32,
    /// The winner's 흔들기 (a 폭탄 counts as one).
    #[serde(default)]
    pub shakes: u32,
    /// Losers who had called 고 before losing (고박; `common` only, optional).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub called_go: Vec<String>,
}

fn unique_keys<'de, D>(d: D) -> Result<BTreeMap<String, Vec<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Unique;
    impl<'de> serde::de::Visitor<'de> for Unique {
        type Value = BTreeMap<String, Vec<String>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of player name to card ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = map.next_entry::<String, Vec<String>>()? {
                if out.contains_key(&k) {
                    return Err(serde::de::Error::custom(format_args!(
                        "player {k:?} appears twice in captured"
                    )));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Unique)
}

/// Why a sheet cannot be scored. Each message is one line a referee can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SheetError {
    #[error("not a gostop-score/1 sheet: {0}")]
    Json(String),
    #[error("format is {0:?}, expected \"gostop-score/1\"")]
    Format(String),
    #[error("{0} players listed; a hand is played by 2 or 3 (at 4 or 5 the others sit out)")]
    PlayerCount(usize),
    #[error("player {0:?} is listed twice")]
    DuplicatePlayer(String),
    #[error("winner {0:?} is not one of the players")]
    UnknownWinner(String),
    #[error("captured cards for {0:?}, who is not one of the players")]
    UnknownPlayer(String),
    #[error("called_go names {0:?}, who is not a losing player")]
    UnknownGoCaller(String),
    #[error("{0} cards captured, more than the 48 of a deck")]
    TooManyCards(usize),
    #[error(
        "unknown card id {id:?} in {player}'s pile (ids look like 1광, 2열, 4띠, 5피1, 11쌍피)"
    )]
    UnknownCard { player: String, id: String },
    #[error("card {card} appears twice ({first} and {second})")]
    CardTwice {
        card: &'static str,
        first: String,
        second: String,
    },
    #[error(
        "winner {winner} has {points} points, below the {needed} needed \
         ({base} to stop, 제2장 1조, plus 1 for each of {go} 고)"
    )]
    BelowNeeded {
        winner: String,
        points: u32,
        needed: u32,
        base: u32,
        go: u32,
    },
    #[error(
        "the payments of this sheet pass {} points ({go} 고, {shakes} shakes): they cannot both be right",
        u32::MAX
    )]
    TooLarge { go: u32, shakes: u32 },
}

/// A parsed, checked sheet: the names and the hand as the scorer takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedSheet {
    pub players: Vec<String>,
    pub hand: HandResult,
}

impl Sheet {
    /// Parse and check a sheet.
    pub fn parse(text: &str) -> Result<CheckedSheet, SheetError> {
        let sheet: Sheet =
            serde_json::from_str(text).map_err(|e| SheetError::Json(e.to_string()))?;
        sheet.check()
    }

    /// The sheet of a finished hand (players named by the caller).
    pub fn from_hand(players: &[String], hand: &HandResult) -> Sheet {
        Sheet {
            format: SHEET_FORMAT.into(),
            preset: hand.preset,
            players: players.to_vec(),
            winner: players[hand.winner].clone(),
            captured: players
                .iter()
                .zip(&hand.piles)
                .map(|(p, pile)| (p.clone(), pile.iter().map(|c| c.id().into()).collect()))
                .collect(),
            go: hand.go,
            shakes: hand.shakes,
            called_go: players
                .iter()
                .zip(&hand.called_go)
                .filter(|(_, &called)| called)
                .map(|(p, _)| p.clone())
                .collect(),
        }
    }

    /// Check that the sheet describes a hand that can happen.
    pub fn check(&self) -> Result<CheckedSheet, SheetError> {
        if self.format != SHEET_FORMAT {
            return Err(SheetError::Format(self.format.clone()));
        }
        let n = self.players.len();
        if !(2..=3).contains(&n) {
            return Err(SheetError::PlayerCount(n));
        }
        let seat = |name: &str| self.players.iter().position(|p| p == name);
        for (i, p) in self.players.iter().enumerate() {
            if seat(p) != Some(i) {
                return Err(SheetError::DuplicatePlayer(p.clone()));
            }
        }
        let winner =
            seat(&self.winner).ok_or_else(|| SheetError::UnknownWinner(self.winner.clone()))?;
        let total: usize = self.captured.values().map(Vec::len).sum();
        if total > 48 {
            return Err(SheetError::TooManyCards(total));
        }
        let mut piles = vec![CardSet::EMPTY; n];
        let mut owner: [Option<usize>; 48] = [None; 48];
        for (name, ids) in &self.captured {
            let p = seat(name).ok_or_else(|| SheetError::UnknownPlayer(name.clone()))?;
            for id in ids {
                let card: Card = id.parse().map_err(|_| SheetError::UnknownCard {
                    player: name.clone(),
                    id: id.clone(),
                })?;
                if let Some(first) = owner[card.index()] {
                    let (first, second) = (self.players[first].clone(), name.clone());
                    let second = if first == second {
                        format!("again in {second}'s pile")
                    } else {
                        second
                    };
                    return Err(SheetError::CardTwice {
                        card: card.id(),
                        first,
                        second,
                    });
                }
                owner[card.index()] = Some(p);
                piles[p].insert(card);
            }
        }
        let mut called_go = vec![false; n];
        for name in &self.called_go {
            match seat(name) {
                Some(p) if p != winner => called_go[p] = true,
                _ => return Err(SheetError::UnknownGoCaller(name.clone())),
            }
        }
        let base = self.preset.needed_points(n);
        // Checked: `go` is a number a person typed.
        let needed = base.saturating_add(self.go);
        let points = score::best_points(self.preset, piles[winner]);
        if points < needed {
            return Err(SheetError::BelowNeeded {
                winner: self.winner.clone(),
                points,
                needed,
                base,
                go: self.go,
            });
        }
        let hand = HandResult {
            preset: self.preset,
            piles,
            winner,
            go: self.go,
            shakes: self.shakes,
            called_go: if called_go.iter().any(|&c| c) {
                called_go
            } else {
                Vec::new()
            },
        };
        if score::settle_checked(&hand).is_none() {
            return Err(SheetError::TooLarge {
                go: self.go,
                shakes: self.shakes,
            });
        }
        Ok(CheckedSheet {
            players: self.players.clone(),
            hand,
        })
    }
}

/// One loser's line of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportLoser {
    pub player: String,
    pub pi: u32,
    pub multipliers: Vec<Multiplier>,
    pub factor: u32,
    pub pays: u32,
}

/// `gostop-settlement/1`: the stable `--json` output of `yutstation gostop score`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub format: &'static str,
    pub preset: Preset,
    pub players: Vec<String>,
    pub winner: String,
    /// 기본점수 for this table.
    pub needed: u32,
    pub points: Points,
    pub go: u32,
    pub go_bonus: u32,
    pub shakes: u32,
    /// Points before multipliers: `points.total + go_bonus`.
    pub base: u32,
    pub losers: Vec<ReportLoser>,
    pub total_paid: u32,
}

impl Report {
    pub fn of(sheet: &CheckedSheet) -> Report {
        let s = score::settle(&sheet.hand);
        let name = |p: usize| sheet.players[p].clone();
        Report {
            format: REPORT_FORMAT,
            preset: s.preset,
            players: sheet.players.clone(),
            winner: name(s.winner),
            needed: s.needed,
            points: s.points,
            go: s.go,
            go_bonus: s.go_bonus,
            shakes: sheet.hand.shakes,
            base: s.base,
            losers: s
                .losers
                .into_iter()
                .map(|l| ReportLoser {
                    player: name(l.player),
                    pi: l.pi,
                    multipliers: l.multipliers,
                    factor: l.factor,
                    pays: l.pays,
                })
                .collect(),
            total_paid: s.total_paid,
        }
    }

    /// The human-readable breakdown (Korean terms, English glue).
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "고스톱 settlement ({}), winner {}",
            self.preset.name(),
            self.winner
        );
        for l in &self.points.lines {
            let _ = writeln!(
                out,
                "  {:<8} {:>2} cards  {:>3} pts  [{}]",
                l.label, l.cards, l.points, l.article
            );
        }
        if self.points.gukjin_as_pi {
            let _ = writeln!(out, "  (9열 국진 counted as 쌍피)");
        }
        if self.go_bonus > 0 {
            let _ = writeln!(
                out,
                "  고 x{:<5}           {:>3} pts  [{}]",
                self.go,
                self.go_bonus,
                self.preset.cite(score::article::GO)
            );
        }
        let _ = writeln!(
            out,
            "  points {} (needed {}), before multipliers {}",
            self.points.total, self.needed, self.base
        );
        for l in &self.losers {
            let mults: Vec<String> = l
                .multipliers
                .iter()
                .map(|m| format!("{} x{} [{}]", m.label, m.factor, m.article))
                .collect();
            let mults = if mults.is_empty() {
                "no multiplier".to_string()
            } else {
                mults.join(", ")
            };
            let _ = writeln!(
                out,
                "  {} (피 {}): {} -> x{}, pays {}",
                l.player, l.pi, mults, l.factor, l.pays
            );
        }
        let _ = writeln!(out, "  total paid to {}: {}", self.winner, self.total_paid);
        out
    }
}
