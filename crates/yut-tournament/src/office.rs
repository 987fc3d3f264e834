//! The office's journal and its fold: what the office records ([`OfficeEntry`]) and
//! the tournament state folded from it ([`Tournament`]): the registration, the draw,
//! every mat's event stream folded through the match machine, the assignments, the
//! office's own decisions (forfeits, corrections); from these the results, the
//! bracket, the standings and the next assignments. Pure: time comes in the entries.

use crate::draw::{make_draw, Draw, DrawError, Fixture, FixtureId, Format, Slot, Stage};
use crate::roster::{check_teams, Team};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use yut_match::{Entry, MatchLog, MatchOptions, MatchSetup, Millis};

/// A mat's number (1-based, as painted on the hall floor).
pub type MatNo = u32;

/// One line of the office's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OfficeEntry {
    /// The teams, the format and the match options every game is played with.
    Register {
        at_ms: Millis,
        teams: Vec<Team>,
        format: Format,
        #[serde(default)]
        options: MatchOptions,
    },
    /// The draw, made from the registration and this seed.
    Draw { at_ms: Millis, seed: u64 },
    /// A fixture sent to a mat.
    Assign {
        at_ms: Millis,
        fixture: FixtureId,
        mat: MatNo,
    },
    /// An assignment taken back (the mat went dark before accepting, …).
    Unassign {
        at_ms: Millis,
        fixture: FixtureId,
        reason: String,
    },
    /// One entry of a station's journal as the station sent it: its journal id and
    /// the id before it on that station (0 for the first).
    Station {
        at_ms: Millis,
        mat: MatNo,
        id: i64,
        prev: i64,
        entry: Entry,
    },
    /// A team does not play: the other side wins.
    Forfeit {
        at_ms: Millis,
        fixture: FixtureId,
        loser: usize,
        reason: String,
    },
    /// The office sets a fixture's winner after the fact, over whatever the mat
    /// recorded (or lifts an earlier correction with `winner: None`).
    Correct {
        at_ms: Millis,
        fixture: FixtureId,
        winner: Option<usize>,
        reason: String,
    },
}

impl OfficeEntry {
    pub fn at_ms(&self) -> Millis {
        match self {
            OfficeEntry::Register { at_ms, .. }
            | OfficeEntry::Draw { at_ms, .. }
            | OfficeEntry::Assign { at_ms, .. }
            | OfficeEntry::Unassign { at_ms, .. }
            | OfficeEntry::Station { at_ms, .. }
            | OfficeEntry::Forfeit { at_ms, .. }
            | OfficeEntry::Correct { at_ms, .. } => *at_ms,
        }
    }
}

/// Why the office refuses an entry. Each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OfficeError {
    #[error("the teams are already registered and drawn: start a new office data folder for a new tournament")]
    AlreadyDrawn,
    #[error("{0}")]
    Roster(String),
    #[error("register the teams first")]
    NotRegistered,
    #[error("make the draw first")]
    NotDrawn,
    #[error("{0}")]
    Draw(#[from] DrawError),
    #[error("no fixture `{0}` in the draw")]
    NoFixture(String),
    #[error("fixture {0} already has a result")]
    Decided(String),
    #[error("fixture {0} does not have both its teams yet")]
    NotReady(String),
    #[error("fixture {fixture} is already on mat {mat}")]
    AlreadyAssigned { fixture: String, mat: MatNo },
    #[error("mat {mat} is busy with fixture {fixture}")]
    MatBusy { mat: MatNo, fixture: String },
    #[error("fixture {0} is not assigned")]
    NotAssigned(String),
    #[error("side {0}: a fixture has sides 0 and 1")]
    Side(usize),
    #[error("mat {mat}: entry {id} is already recorded")]
    Duplicate { mat: MatNo, id: i64 },
    #[error("mat {mat}: entry {id} follows {prev}, but the office has the mat up to {last}")]
    Gap {
        mat: MatNo,
        id: i64,
        prev: i64,
        last: i64,
    },
    #[error("a reason is needed")]
    NoReason,
}

/// How a fixture was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum How {
    /// Played to the end on a mat (its `game` number in that station's journal).
    Played {
        mat: MatNo,
        game: u32,
    },
    Bye,
    Forfeit {
        reason: String,
    },
    Corrected {
        reason: String,
    },
}

/// A decided fixture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The side that won (0 or 1).
    pub winner: usize,
    /// Pieces home per side when the game ended (a forfeit: all of the winner's).
    pub pieces: [u8; 2],
    pub how: How,
}

/// One mat's stream as the office holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatFeed {
    pub log: MatchLog,
    /// The last station journal id the office recorded.
    pub last_id: i64,
    /// Entries the match machine refused (recorded all the same; a station of
    /// another version), newest last.
    pub problems: Vec<String>,
}

/// A fixture's place on a mat right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    pub mat: MatNo,
    pub at_ms: Millis,
}

/// The whole tournament, folded from the office's journal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tournament {
    pub teams: Vec<Team>,
    pub format: Option<Format>,
    pub options: MatchOptions,
    pub draw: Option<Draw>,
    pub mats: BTreeMap<MatNo, MatFeed>,
    /// Fixtures on a mat now (until decided or taken back).
    pub assigned: BTreeMap<FixtureId, Assignment>,
    /// Forfeits and corrections, by fixture: the office's word over the mat's.
    pub decisions: BTreeMap<FixtureId, Outcome>,
    /// Where each fixture's games were registered: (mat, game number), in arrival
    /// order.
    pub played: BTreeMap<FixtureId, Vec<(MatNo, u32)>>,
    pub last_at: Millis,
}

/// A fixture as the bracket shows it: who plays (when known), where, the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixtureView {
    pub id: FixtureId,
    pub stage: Stage,
    /// The teams when known; `None` while a side waits for an earlier result.
    pub teams: [Option<String>; 2],
    pub bye: bool,
    pub mat: Option<MatNo>,
    pub outcome: Option<Outcome>,
    /// Something the office must look at (a game played by other teams than the
    /// bracket now says, after a correction upstream).
    pub conflict: Option<String>,
}

/// Every fixture's sides and result, and the group tables they needed.
#[derive(Default)]
struct Resolution {
    by_id: BTreeMap<FixtureId, ([Side; 2], Option<Outcome>)>,
    tables: BTreeMap<u32, crate::standings::GroupTable>,
}

/// Resolved side of a fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Side {
    Team(String),
    Bye,
    Unknown,
}

impl Tournament {
    /// Fold one entry in, or say why it does not fit (the state is then unchanged).
    pub fn apply(&mut self, entry: &OfficeEntry) -> Result<(), OfficeError> {
        // Every arm checks before it changes anything.
        self.apply_in_place(entry)
    }

    /// Check an entry without applying it.
    pub fn check(&self, entry: &OfficeEntry) -> Result<(), OfficeError> {
        self.clone().apply_in_place(entry)
    }

    fn apply_in_place(&mut self, entry: &OfficeEntry) -> Result<(), OfficeError> {
        match entry {
            OfficeEntry::Register {
                teams,
                format,
                options,
                ..
            } => {
                if self.draw.is_some() {
                    return Err(OfficeError::AlreadyDrawn);
                }
                check_teams(teams).map_err(|e| OfficeError::Roster(e.to_string()))?;
                self.teams = teams.clone();
                self.format = Some(*format);
                self.options = options.clone();
            }
            OfficeEntry::Draw { seed, .. } => {
                if self.draw.is_some() {
                    return Err(OfficeError::AlreadyDrawn);
                }
                let format = self.format.ok_or(OfficeError::NotRegistered)?;
                self.draw = Some(make_draw(&self.teams, format, *seed)?);
            }
            OfficeEntry::Assign {
                at_ms,
                fixture,
                mat,
            } => {
                let view = self.fixture_view(fixture)?;
                if view.outcome.is_some() {
                    return Err(OfficeError::Decided(fixture.clone()));
                }
                if view.teams.iter().any(|t| t.is_none()) {
                    return Err(OfficeError::NotReady(fixture.clone()));
                }
                if let Some(a) = self.assigned.get(fixture) {
                    return Err(OfficeError::AlreadyAssigned {
                        fixture: fixture.clone(),
                        mat: a.mat,
                    });
                }
                if let Some(busy) = self.busy_mats().get(mat) {
                    return Err(OfficeError::MatBusy {
                        mat: *mat,
                        fixture: busy.clone(),
                    });
                }
                self.assigned.insert(
                    fixture.clone(),
                    Assignment {
                        mat: *mat,
                        at_ms: *at_ms,
                    },
                );
            }
            OfficeEntry::Unassign { fixture, .. } => {
                self.fixture_view(fixture)?;
                if self.assigned.remove(fixture).is_none() {
                    return Err(OfficeError::NotAssigned(fixture.clone()));
                }
            }
            OfficeEntry::Station {
                mat,
                id,
                prev,
                entry,
                ..
            } => {
                let last = self.mats.get(mat).map_or(0, |f| f.last_id);
                if *id <= last {
                    return Err(OfficeError::Duplicate { mat: *mat, id: *id });
                }
                if *prev != last {
                    return Err(OfficeError::Gap {
                        mat: *mat,
                        id: *id,
                        prev: *prev,
                        last,
                    });
                }
                let feed = self.mats.entry(*mat).or_default();
                feed.last_id = *id;
                if let Entry::NewGame { setup, .. } = entry {
                    if let Some(f) = &setup.fixture {
                        let game = feed.log.game_number() + 1;
                        self.played.entry(f.clone()).or_default().push((*mat, game));
                    }
                }
                let feed = self.mats.entry(*mat).or_default();
                if let Err(e) = feed.log.apply(entry) {
                    feed.problems.push(format!("entry {id}: {e}"));
                    let n = feed.problems.len();
                    if n > 5 {
                        feed.problems.drain(..n - 5);
                    }
                }
                // A game for an assigned fixture that has ended frees its mat.
                self.release_decided();
            }
            OfficeEntry::Forfeit {
                fixture,
                loser,
                reason,
                ..
            } => {
                if *loser > 1 {
                    return Err(OfficeError::Side(*loser));
                }
                if reason.trim().is_empty() {
                    return Err(OfficeError::NoReason);
                }
                let view = self.fixture_view(fixture)?;
                if view.outcome.is_some() {
                    return Err(OfficeError::Decided(fixture.clone()));
                }
                if view.teams.iter().any(|t| t.is_none()) {
                    return Err(OfficeError::NotReady(fixture.clone()));
                }
                let full = self.options.pieces_per_team;
                let mut pieces = [0, 0];
                pieces[1 - loser] = full;
                self.decisions.insert(
                    fixture.clone(),
                    Outcome {
                        winner: 1 - loser,
                        pieces,
                        how: How::Forfeit {
                            reason: reason.clone(),
                        },
                    },
                );
                self.assigned.remove(fixture);
            }
            OfficeEntry::Correct {
                fixture,
                winner,
                reason,
                ..
            } => {
                if reason.trim().is_empty() {
                    return Err(OfficeError::NoReason);
                }
                self.fixture_view(fixture)?;
                match winner {
                    None => {
                        self.decisions.remove(fixture);
                    }
                    Some(w) if *w > 1 => return Err(OfficeError::Side(*w)),
                    Some(w) => {
                        let sides = self
                            .resolution()
                            .by_id
                            .remove(fixture.as_str())
                            .map(|(sides, _)| sides)
                            .unwrap_or([Side::Unknown, Side::Unknown]);
                        let played = self.played_outcome(fixture, &sides);
                        let pieces = played.map(|o| o.pieces).unwrap_or_else(|| {
                            let mut p = [0, 0];
                            p[*w] = self.options.pieces_per_team;
                            p
                        });
                        self.decisions.insert(
                            fixture.clone(),
                            Outcome {
                                winner: *w,
                                pieces,
                                how: How::Corrected {
                                    reason: reason.clone(),
                                },
                            },
                        );
                        self.assigned.remove(fixture);
                    }
                }
            }
        }
        self.last_at = self.last_at.max(entry.at_ms());
        Ok(())
    }

    fn release_decided(&mut self) {
        let r = self.resolution();
        let decided: Vec<FixtureId> = self
            .assigned
            .keys()
            .filter(|f| r.by_id.get(f.as_str()).is_some_and(|x| x.1.is_some()))
            .cloned()
            .collect();
        for f in decided {
            self.assigned.remove(&f);
        }
    }

    /// Mats holding an undecided fixture: mat → fixture.
    pub fn busy_mats(&self) -> BTreeMap<MatNo, FixtureId> {
        self.assigned
            .iter()
            .map(|(f, a)| (a.mat, f.clone()))
            .collect()
    }

    fn draw_ref(&self) -> Result<&Draw, OfficeError> {
        self.draw.as_ref().ok_or(OfficeError::NotDrawn)
    }

    fn find(&self, id: &str) -> Result<&Fixture, OfficeError> {
        self.draw_ref()?
            .fixture(id)
            .ok_or_else(|| OfficeError::NoFixture(id.to_string()))
    }

    /// Games played for a fixture: (mat, game number, the game), in arrival order.
    fn games_for<'a>(
        &'a self,
        fixture: &'a str,
    ) -> impl Iterator<Item = (MatNo, u32, &'a yut_match::MatchState)> + 'a {
        self.played
            .get(fixture)
            .into_iter()
            .flatten()
            .filter_map(move |(mat, game)| {
                let g = self.mats.get(mat)?.log.games.get(*game as usize - 1)?;
                (g.setup().fixture.as_deref() == Some(fixture)).then_some((*mat, *game, g))
            })
    }

    /// The result a mat recorded for a fixture (the last finished game for it),
    /// with the sides mapped from the game's team order to the fixture's.
    fn played_outcome(&self, fixture: &str, teams: &[Side; 2]) -> Option<Outcome> {
        let (mat, game, g) = self
            .games_for(fixture)
            .filter(|(_, _, g)| g.is_over())
            .last()?;
        let names = [g.team_name(0).to_string(), g.team_name(1).to_string()];
        let side_of = |name: &str| match (&teams[0], &teams[1]) {
            (Side::Team(a), _) if a == name => Some(0),
            (_, Side::Team(b)) if b == name => Some(1),
            _ => None,
        };
        let winner_name = &names[g.game().winner()?];
        let winner = side_of(winner_name)?;
        let mut pieces = [0u8; 2];
        for (i, name) in names.iter().enumerate() {
            if let Some(side) = side_of(name) {
                pieces[side] = g.game().teams()[i].finished;
            }
        }
        Some(Outcome {
            winner,
            pieces,
            how: How::Played { mat, game },
        })
    }

    /// A fixture's result given its sides: the office's decision, a bye, or what
    /// the mat recorded.
    fn outcome_given(&self, fixture: &str, sides: &[Side; 2]) -> Option<Outcome> {
        if let Some(d) = self.decisions.get(fixture) {
            return Some(d.clone());
        }
        match (&sides[0], &sides[1]) {
            (Side::Bye, Side::Team(_)) => Some(Outcome {
                winner: 1,
                pieces: [0, 0],
                how: How::Bye,
            }),
            (Side::Team(_), Side::Bye) | (Side::Bye, Side::Bye) => Some(Outcome {
                winner: 0,
                pieces: [0, 0],
                how: How::Bye,
            }),
            _ => self.played_outcome(fixture, sides),
        }
    }

    /// Every fixture's sides and result, worked out once in draw order (a
    /// fixture's sides depend only on fixtures before it: the groups before the
    /// knockout, each knockout round before the next).
    fn resolution(&self) -> Resolution {
        let mut r = Resolution::default();
        let Some(draw) = &self.draw else {
            return r;
        };
        for f in &draw.fixtures {
            let sides = [
                self.resolve_in(&f.slots[0], &mut r),
                self.resolve_in(&f.slots[1], &mut r),
            ];
            let outcome = self.outcome_given(&f.id, &sides);
            r.by_id.insert(f.id.clone(), (sides, outcome));
        }
        r
    }

    fn resolve_in(&self, slot: &Slot, r: &mut Resolution) -> Side {
        match slot {
            Slot::Team { name } => Side::Team(name.clone()),
            Slot::Bye => Side::Bye,
            Slot::WinnerOf { fixture } => match r.by_id.get(fixture) {
                None => Side::Unknown,
                Some((sides, outcome)) => match (&sides[0], &sides[1]) {
                    (Side::Bye, Side::Bye) => Side::Bye,
                    (Side::Bye, other) | (other, Side::Bye) => other.clone(),
                    _ => outcome
                        .as_ref()
                        .map_or(Side::Unknown, |o| sides[o.winner].clone()),
                },
            },
            Slot::GroupPlace { group, place } => {
                let by_id = &r.by_id;
                let table = r.tables.entry(*group).or_insert_with(|| {
                    self.group_table_with(*group, &|id| by_id.get(id).and_then(|x| x.1.clone()))
                });
                if !table.complete {
                    return Side::Unknown;
                }
                table
                    .rows
                    .get(*place as usize - 1)
                    .map(|row| Side::Team(row.team.clone()))
                    .unwrap_or(Side::Bye)
            }
        }
    }

    /// A fixture's result: the office's decision, a bye, or what the mat recorded.
    pub fn outcome(&self, fixture: &str) -> Option<Outcome> {
        self.resolution().by_id.remove(fixture).and_then(|(_, o)| o)
    }

    /// One fixture as the bracket shows it.
    pub fn fixture_view(&self, id: &str) -> Result<FixtureView, OfficeError> {
        let f = self.find(id)?;
        Ok(self.view_of(f, &self.resolution()))
    }

    fn view_of(&self, f: &Fixture, r: &Resolution) -> FixtureView {
        let id = f.id.as_str();
        let (sides, outcome) = r
            .by_id
            .get(id)
            .cloned()
            .unwrap_or(([Side::Unknown, Side::Unknown], None));
        let team = |s: &Side| match s {
            Side::Team(n) => Some(n.clone()),
            _ => None,
        };
        let conflict = self
            .games_for(id)
            .find(|(_, _, g)| {
                let names = [g.team_name(0), g.team_name(1)];
                sides
                    .iter()
                    .any(|s| matches!(s, Side::Team(n) if !names.contains(&n.as_str())))
                    && !self.decisions.contains_key(id)
            })
            .map(|(mat, game, g)| {
                format!(
                    "mat {mat} game {game} was played by {} and {}, who are no longer both in this fixture: correct it or play it again",
                    g.team_name(0),
                    g.team_name(1)
                )
            });
        FixtureView {
            id: f.id.clone(),
            stage: f.stage,
            teams: [team(&sides[0]), team(&sides[1])],
            bye: sides.contains(&Side::Bye),
            mat: self.assigned.get(id).map(|a| a.mat),
            outcome,
            conflict,
        }
    }

    /// Every fixture in draw order.
    pub fn bracket(&self) -> Vec<FixtureView> {
        let Some(draw) = &self.draw else {
            return vec![];
        };
        let r = self.resolution();
        draw.fixtures.iter().map(|f| self.view_of(f, &r)).collect()
    }

    /// The game setup a mat is sent for a fixture: the two rosters in fixture order,
    /// the tournament's options, the fixture's id.
    pub fn setup_for(&self, fixture: &str) -> Result<MatchSetup, OfficeError> {
        let view = self.fixture_view(fixture)?;
        let roster = |name: &Option<String>| {
            name.as_ref()
                .and_then(|n| self.teams.iter().find(|t| t.name() == n))
                .map(|t| t.roster.clone())
                .ok_or_else(|| OfficeError::NotReady(fixture.to_string()))
        };
        Ok(MatchSetup {
            teams: [roster(&view.teams[0])?, roster(&view.teams[1])?],
            options: self.options.clone(),
            fixture: Some(fixture.to_string()),
        })
    }

    /// The assignments to make now: fixtures whose teams are known, undecided and
    /// on no mat, whose teams play nowhere else, in draw order, each to the free
    /// mat with the lowest number among `available` (the mats whose stations are
    /// connected).
    pub fn next_assignments(&self, available: &BTreeSet<MatNo>) -> Vec<(FixtureId, MatNo)> {
        let busy = self.busy_mats();
        let mut free: Vec<MatNo> = available
            .iter()
            .filter(|m| !busy.contains_key(m) && !self.mat_playing(**m))
            .copied()
            .collect();
        free.reverse();
        let bracket = self.bracket();
        let mut playing: BTreeSet<String> = bracket
            .iter()
            .filter(|v| self.assigned.contains_key(&v.id))
            .flat_map(|v| v.teams.iter().flatten().cloned())
            .collect();
        let mut out = Vec::new();
        for v in bracket {
            if free.is_empty() {
                break;
            }
            if v.outcome.is_some() || v.mat.is_some() || v.conflict.is_some() {
                continue;
            }
            let [Some(a), Some(b)] = &v.teams else {
                continue;
            };
            if playing.contains(a) || playing.contains(b) {
                continue;
            }
            // Played but not over on some mat (an assignment taken back while the
            // game went on): wait for it.
            if self.games_for(&v.id).any(|(_, _, g)| !g.is_over()) {
                continue;
            }
            let mat = free.pop().expect("checked non-empty");
            playing.insert(a.clone());
            playing.insert(b.clone());
            out.push((v.id.clone(), mat));
        }
        out
    }

    /// A mat whose current game is still being played (whatever it was for).
    fn mat_playing(&self, mat: MatNo) -> bool {
        self.mats
            .get(&mat)
            .and_then(|f| f.log.current())
            .is_some_and(|g| !g.is_over() && g.setup().fixture.is_some())
    }

    /// Whether the final has a result.
    pub fn is_complete(&self) -> bool {
        self.draw
            .as_ref()
            .and_then(|d| d.final_fixture())
            .is_some_and(|f| self.outcome(&f.id).is_some())
    }
}
