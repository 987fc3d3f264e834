//! Group tables and the final standings, with the tiebreaks of
//! `docs/tournament.md` ("Tiebreaks"). Pure: computed from the folded tournament.
//!
//! In a group, teams are ordered by: 1. wins; 2. among teams level on wins, wins in
//! the games between them (head to head); 3. piece difference (pieces home for
//! minus against) over the group; 4. pieces home for; 5. the lot of the draw.

use crate::draw::{Slot, Stage};
use crate::office::{How, Tournament};
use serde::Serialize;
use std::collections::BTreeMap;

/// One team's line in a group table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupRow {
    pub team: String,
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    pub pieces_for: u32,
    pub pieces_against: u32,
    /// Which tiebreak set this team apart from the one above (`wins`,
    /// `head_to_head`, `piece_difference`, `pieces_for`, `lot`), `None` for the first.
    pub decided_by: Option<&'static str>,
}

/// A group's table, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupTable {
    pub group: u32,
    pub rows: Vec<GroupRow>,
    /// Every game of the group has a result: the places are final.
    pub complete: bool,
}

/// One line of the final standings. Teams out in the same knockout round share a
/// place (they are listed by the lot).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Standing {
    pub place: u32,
    pub team: String,
}

impl Tournament {
    /// Group `group`'s table as it stands.
    pub fn group_table(&self, group: u32) -> GroupTable {
        self.group_table_with(group, &|id| self.outcome(id))
    }

    /// Group `group`'s table with the fixtures' results from `outcome`.
    pub(crate) fn group_table_with(
        &self,
        group: u32,
        outcome: &dyn Fn(&str) -> Option<crate::office::Outcome>,
    ) -> GroupTable {
        let Some(draw) = &self.draw else {
            return GroupTable {
                group,
                rows: vec![],
                complete: false,
            };
        };
        let members = draw.groups.get(group as usize).cloned().unwrap_or_default();
        let mut rows: BTreeMap<String, GroupRow> = members
            .iter()
            .map(|t| {
                (
                    t.clone(),
                    GroupRow {
                        team: t.clone(),
                        played: 0,
                        won: 0,
                        lost: 0,
                        pieces_for: 0,
                        pieces_against: 0,
                        decided_by: None,
                    },
                )
            })
            .collect();
        // (winner, loser) of each decided game, for head to head.
        let mut wins: Vec<(String, String)> = Vec::new();
        let mut complete = true;
        for f in &draw.fixtures {
            if !matches!(f.stage, Stage::Group { group: g, .. } if g == group) {
                continue;
            }
            let names = f.slots.clone().map(|s| match s {
                Slot::Team { name } => name,
                _ => String::new(),
            });
            let Some(o) = outcome(&f.id) else {
                complete = false;
                continue;
            };
            if o.how == How::Bye {
                continue;
            }
            for (side, name) in names.iter().enumerate() {
                if let Some(r) = rows.get_mut(name) {
                    r.played += 1;
                    if o.winner == side {
                        r.won += 1;
                    } else {
                        r.lost += 1;
                    }
                    r.pieces_for += o.pieces[side] as u32;
                    r.pieces_against += o.pieces[1 - side] as u32;
                }
            }
            wins.push((names[o.winner].clone(), names[1 - o.winner].clone()));
        }
        let mut rows: Vec<GroupRow> = rows.into_values().collect();
        let lot = |t: &str| draw.lot_rank(t);
        // 1. wins (then the rest within each level).
        rows.sort_by(|a, b| b.won.cmp(&a.won).then(lot(&a.team).cmp(&lot(&b.team))));
        let mut ordered: Vec<GroupRow> = Vec::new();
        let mut i = 0;
        while i < rows.len() {
            let j = (i..rows.len())
                .find(|&k| rows[k].won != rows[i].won)
                .unwrap_or(rows.len());
            let level: Vec<GroupRow> = rows[i..j].to_vec();
            let names: Vec<String> = level.iter().map(|r| r.team.clone()).collect();
            let h2h = |t: &str| {
                wins.iter()
                    .filter(|(w, l)| w == t && names.contains(l))
                    .count()
            };
            let key = |r: &GroupRow| {
                (
                    std::cmp::Reverse(h2h(&r.team)),
                    std::cmp::Reverse(r.pieces_for as i64 - r.pieces_against as i64),
                    std::cmp::Reverse(r.pieces_for),
                    lot(&r.team),
                )
            };
            let mut level = level;
            level.sort_by_key(key);
            for (k, mut r) in level.into_iter().enumerate() {
                r.decided_by = if ordered.is_empty() {
                    None
                } else if k == 0 {
                    Some("wins")
                } else {
                    let prev = ordered.last().expect("not empty");
                    let (a, b) = (key(prev), key(&r));
                    Some(if a.0 != b.0 {
                        "head_to_head"
                    } else if a.1 != b.1 {
                        "piece_difference"
                    } else if a.2 != b.2 {
                        "pieces_for"
                    } else {
                        "lot"
                    })
                };
                ordered.push(r);
            }
            i = j;
        }
        GroupTable {
            group,
            rows: ordered,
            complete,
        }
    }

    /// Every group's table.
    pub fn group_tables(&self) -> Vec<GroupTable> {
        let n = self.draw.as_ref().map_or(0, |d| d.groups.len());
        let bracket: BTreeMap<String, Option<crate::office::Outcome>> = self
            .bracket()
            .into_iter()
            .map(|v| (v.id, v.outcome))
            .collect();
        (0..n as u32)
            .map(|g| self.group_table_with(g, &|id| bracket.get(id).cloned().flatten()))
            .collect()
    }

    /// The standings as far as they are decided: the champion and runner-up once the
    /// final is played, those out in each knockout round sharing a place, then the
    /// teams out in the groups by their group place (sharing it across groups).
    /// Teams still in the running are not listed.
    pub fn standings(&self) -> Vec<Standing> {
        let Some(draw) = &self.draw else {
            return vec![];
        };
        let mut out: Vec<Standing> = Vec::new();
        let mut by_round: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        let mut rounds_total = 0;
        let mut champion = None;
        for v in self.bracket() {
            let Stage::Knockout { round, rounds } = v.stage else {
                continue;
            };
            rounds_total = rounds;
            let (Some(o), [Some(a), Some(b)]) = (&v.outcome, &v.teams) else {
                continue;
            };
            let (winner, loser) = if o.winner == 0 { (a, b) } else { (b, a) };
            by_round.entry(round).or_default().push(loser.clone());
            if round == rounds {
                champion = Some(winner.clone());
            }
        }
        let lot = |t: &String| draw.lot_rank(t);
        if let Some(c) = champion {
            out.push(Standing { place: 1, team: c });
        }
        for round in (1..=rounds_total).rev() {
            let mut losers = by_round.remove(&round).unwrap_or_default();
            losers.sort_by_key(lot);
            // Out in round r of R: place 2^(R-r) + 1.
            let place = (1u32 << (rounds_total - round)) + 1;
            out.extend(losers.into_iter().map(|team| Standing { place, team }));
        }
        // Out in the groups: after everyone who reached the knockout.
        if let crate::draw::Format::Groups { advance, .. } = draw.format {
            let tables = self.group_tables();
            if tables.iter().all(|t| t.complete) {
                let mut place = (tables.len() as u32 * advance) + 1;
                let deepest = tables.iter().map(|t| t.rows.len()).max().unwrap_or(0);
                for p in advance as usize..deepest {
                    let mut level: Vec<String> = tables
                        .iter()
                        .filter_map(|t| t.rows.get(p).map(|r| r.team.clone()))
                        .collect();
                    level.sort_by_key(lot);
                    let n = level.len() as u32;
                    out.extend(level.into_iter().map(|team| Standing { place, team }));
                    place += n;
                }
            }
        }
        out
    }
}
