//! The draw: the formats (single elimination with byes and seeding; groups by round
//! robin, then a knockout), the lot that orders unseeded teams, and the fixtures
//! with the slots that say who plays in each. Pure and deterministic: the same
//! teams, format and seed always give the same draw.

use crate::roster::Team;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How the tournament is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Format {
    /// One knockout bracket; the top seeds get the byes.
    SingleElimination,
    /// Groups by round robin, then the best `advance` of each group in a knockout.
    Groups { groups: u32, advance: u32 },
}

/// A tournament match's id: `K2-1` (knockout round 2, match 1), `A-3` (group A,
/// match 3). Carried in the station's game setup (`MatchSetup::fixture`).
pub type FixtureId = String;

/// Which part of the tournament a fixture belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stage {
    /// Group `group` (0 = A), round-robin round `round` (1-based).
    Group { group: u32, round: u32 },
    /// Knockout round `round` of `rounds` (the final is round `rounds`).
    Knockout { round: u32, rounds: u32 },
}

/// Who plays in one side of a fixture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Slot {
    Team {
        name: String,
    },
    /// Nobody: the other side goes through without playing.
    Bye,
    WinnerOf {
        fixture: FixtureId,
    },
    /// The team placed `place` (1-based) in group `group` once it has finished.
    GroupPlace {
        group: u32,
        place: u32,
    },
}

/// One tournament match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fixture {
    pub id: FixtureId,
    pub stage: Stage,
    /// Side 0 throws first.
    pub slots: [Slot; 2],
}

/// The whole draw: every fixture in the order they should be played, the groups and
/// the lot (every team in draw order: seeds first, then the unseeded as drawn).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    pub format: Format,
    pub seed: u64,
    pub lot: Vec<String>,
    pub groups: Vec<Vec<String>>,
    pub fixtures: Vec<Fixture>,
}

/// Why a draw cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    #[error("a tournament needs at least 2 teams, {0} registered")]
    TooFewTeams(usize),
    #[error("{groups} groups of {teams} teams: every group needs at least 2 teams")]
    GroupsTooSmall { groups: u32, teams: usize },
    #[error("{advance} of each group advance, but the groups are smaller or no one advances")]
    Advance { advance: u32 },
}

impl Draw {
    pub fn fixture(&self, id: &str) -> Option<&Fixture> {
        self.fixtures.iter().find(|f| f.id == id)
    }

    /// The knockout's final.
    pub fn final_fixture(&self) -> Option<&Fixture> {
        self.fixtures
            .iter()
            .rev()
            .find(|f| matches!(f.stage, Stage::Knockout { round, rounds } if round == rounds))
    }

    /// The lot's rank of a team (0 = first drawn), the last tiebreak.
    pub fn lot_rank(&self, team: &str) -> usize {
        self.lot
            .iter()
            .position(|t| t == team)
            .unwrap_or(usize::MAX)
    }
}

/// The group's letter (0 = A).
pub fn group_name(group: u32) -> String {
    char::from_u32('A' as u32 + group)
        .map(String::from)
        .unwrap_or_else(|| format!("G{group}"))
}

/// Make the draw. Seeded teams come first in seed order; the unseeded are ordered by
/// lot from `seed`.
pub fn make_draw(teams: &[Team], format: Format, seed: u64) -> Result<Draw, DrawError> {
    if teams.len() < 2 {
        return Err(DrawError::TooFewTeams(teams.len()));
    }
    let mut seeded: Vec<&Team> = teams.iter().filter(|t| t.seed.is_some()).collect();
    seeded.sort_by_key(|t| t.seed);
    let mut unseeded: Vec<&Team> = teams.iter().filter(|t| t.seed.is_none()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    unseeded.shuffle(&mut rng);
    let lot: Vec<String> = seeded
        .into_iter()
        .chain(unseeded)
        .map(|t| t.name().to_string())
        .collect();
    let mut draw = Draw {
        format,
        seed,
        lot: lot.clone(),
        groups: vec![],
        fixtures: vec![],
    };
    match format {
        Format::SingleElimination => {
            let entrants = lot
                .iter()
                .map(|name| Slot::Team { name: name.clone() })
                .collect();
            draw.fixtures = knockout(entrants, None);
        }
        Format::Groups { groups, advance } => {
            let g = groups.max(1) as usize;
            if lot.len() < 2 * g {
                return Err(DrawError::GroupsTooSmall {
                    groups,
                    teams: lot.len(),
                });
            }
            let mut members: Vec<Vec<String>> = vec![vec![]; g];
            // Snake: A B C D D C B A …, so each group gets a like share of the seeds.
            for (k, team) in lot.iter().enumerate() {
                let (pass, pos) = (k / g, k % g);
                let group = if pass % 2 == 0 { pos } else { g - 1 - pos };
                members[group].push(team.clone());
            }
            let smallest = members.iter().map(|m| m.len()).min().unwrap_or(0);
            if advance == 0 || advance as usize > smallest || (advance == 1 && g == 1) {
                return Err(DrawError::Advance { advance });
            }
            for (gi, m) in members.iter().enumerate() {
                draw.fixtures.extend(round_robin(gi as u32, m));
            }
            // Group winners first, then the runners-up, …: place p of every group.
            let mut entrants = Vec::new();
            for place in 1..=advance {
                let order: Vec<u32> = (0..groups).collect();
                for group in order {
                    entrants.push(Slot::GroupPlace { group, place });
                }
            }
            draw.fixtures.extend(knockout(entrants, Some(groups)));
            draw.groups = members;
        }
    }
    Ok(draw)
}

/// Seed positions in a bracket of `size` (a power of two): 1 and 2 can meet only in
/// the final, 1–4 only in the semi-finals, and so on. `[1, 4, 2, 3]` for 4.
pub fn bracket_positions(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

fn knockout(entrants: Vec<Slot>, groups: Option<u32>) -> Vec<Fixture> {
    let n = entrants.len();
    let size = n.next_power_of_two().max(2);
    let rounds = size.trailing_zeros();
    let positions = bracket_positions(size);
    let slot = |seed: usize| entrants.get(seed - 1).cloned().unwrap_or(Slot::Bye);
    let mut pairs: Vec<[Slot; 2]> = positions
        .chunks(2)
        .map(|p| [slot(p[0]), slot(p[1])])
        .collect();
    if groups.is_some() {
        avoid_same_group(&mut pairs);
    }
    let mut fixtures = Vec::new();
    for (i, slots) in pairs.into_iter().enumerate() {
        fixtures.push(Fixture {
            id: format!("K1-{}", i + 1),
            stage: Stage::Knockout { round: 1, rounds },
            slots,
        });
    }
    for round in 2..=rounds {
        let count = size >> round;
        for i in 0..count {
            let winner = |k: usize| Slot::WinnerOf {
                fixture: format!("K{}-{}", round - 1, k),
            };
            fixtures.push(Fixture {
                id: format!("K{round}-{}", i + 1),
                stage: Stage::Knockout { round, rounds },
                slots: [winner(2 * i + 1), winner(2 * i + 2)],
            });
        }
    }
    fixtures
}

/// Two teams of one group should not meet again in the knockout's first round:
/// swap second sides between pairs until none do (when that is possible).
fn avoid_same_group(pairs: &mut [[Slot; 2]]) {
    let group_of = |s: &Slot| match s {
        Slot::GroupPlace { group, .. } => Some(*group),
        _ => None,
    };
    let clash = |p: &[Slot; 2]| group_of(&p[0]).is_some() && group_of(&p[0]) == group_of(&p[1]);
    for i in 0..pairs.len() {
        if !clash(&pairs[i]) {
            continue;
        }
        for j in (0..pairs.len()).filter(|&j| j != i) {
            let (a, b) = (pairs[i][1].clone(), pairs[j][1].clone());
            let fits_i = group_of(&pairs[i][0]) != group_of(&b) || group_of(&b).is_none();
            let fits_j = group_of(&pairs[j][0]) != group_of(&a) || group_of(&a).is_none();
            if fits_i && fits_j && !matches!(b, Slot::Bye) {
                pairs[i][1] = b;
                pairs[j][1] = a;
                break;
            }
        }
    }
}

/// A round robin by the circle method: every pair once, in rounds where nobody plays
/// twice; an odd group has one team resting each round.
fn round_robin(group: u32, members: &[String]) -> Vec<Fixture> {
    let mut ring: Vec<Option<&String>> = members.iter().map(Some).collect();
    if ring.len() % 2 == 1 {
        ring.push(None);
    }
    let n = ring.len();
    let mut out = Vec::new();
    for round in 0..n - 1 {
        for i in 0..n / 2 {
            let (a, b) = (ring[i], ring[n - 1 - i]);
            if let (Some(a), Some(b)) = (a, b) {
                // Alternate who throws first so no team always opens.
                let (first, second) = if (round + i) % 2 == 0 { (a, b) } else { (b, a) };
                out.push(Fixture {
                    id: format!("{}-{}", group_name(group), out.len() + 1),
                    stage: Stage::Group {
                        group,
                        round: round as u32 + 1,
                    },
                    slots: [
                        Slot::Team {
                            name: first.clone(),
                        },
                        Slot::Team {
                            name: second.clone(),
                        },
                    ],
                });
            }
        }
        // Keep the first in place, turn the rest one step.
        let last = ring.pop().expect("at least two");
        ring.insert(1, last);
    }
    out
}
