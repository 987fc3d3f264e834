//! Game state, legal moves and `apply`: the turn structure of `docs/yut-rules.md`
//! ("Moving", "뒷도", "Stacking and capturing", "A turn").
//!
//! Pure.

use super::board::{Diagonal, Exits, Pass, StationId, ENTRY};
use super::config::RulesConfig;
use super::result::ThrowResult;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a move starts: a waiting piece, or the stack on a station.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    Waiting,
    Station(StationId),
}

/// Where a move ends: a station, or off the board past 참먹이.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Destination {
    Station(StationId),
    Finished,
}

/// Using one pending result on one stack (or a waiting piece). `to` also names the
/// route taken at a junction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub result: ThrowResult,
    pub from: Origin,
    pub to: Destination,
}

/// What happens in a game: a throw by the team whose turn it is, or a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum GameEvent {
    Throw(ThrowResult),
    Move(Move),
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The team in turn must throw.
    Throw,
    /// Results are pending and no 윷/모 throw is owed.
    Move,
    /// A team has finished all its pieces.
    Over,
}

/// One team's pieces standing together on a station. A stack moves, is captured and
/// finishes as one; it cannot be split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stack {
    pub station: StationId,
    /// How many pieces stand here (1 for a lone piece).
    pub pieces: u8,
    /// The station the stack stood on immediately before this one: where a 뒷도
    /// sends it.
    pub previous: StationId,
    /// The diagonal that first brought the stack to 방, if it came that way.
    pub diagonal: Option<Diagonal>,
}

/// One team's side of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub name: String,
    pub waiting: u8,
    pub finished: u8,
    /// At most one stack per station, sorted by station.
    pub stacks: Vec<Stack>,
}

impl Team {
    fn stack_at(&self, station: StationId) -> Option<&Stack> {
        self.stacks.iter().find(|s| s.station == station)
    }

    fn take_stack(&mut self, station: StationId) -> Option<Stack> {
        let index = self.stacks.iter().position(|s| s.station == station)?;
        Some(self.stacks.remove(index))
    }

    fn put_stack(&mut self, stack: Stack) {
        match self.stacks.iter_mut().find(|s| s.station == stack.station) {
            // Stacking (업기): the stack keeps the memory of the piece that arrived last.
            Some(existing) => {
                existing.pieces += stack.pieces;
                existing.previous = stack.previous;
                existing.diagonal = stack.diagonal;
            }
            None => {
                let at = self.stacks.partition_point(|s| s.station < stack.station);
                self.stacks.insert(at, stack);
            }
        }
    }

    /// Pieces on the board, counting every piece of every stack.
    pub fn on_board(&self) -> u8 {
        self.stacks.iter().map(|s| s.pieces).sum()
    }
}

/// The whole state of one game. Immutable from outside: change it with [`apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameState {
    teams: [Team; 2],
    pieces_per_team: u8,
    config: RulesConfig,
    turn: usize,
    pending: Vec<ThrowResult>,
    /// The throw that starts the turn has not been made yet.
    opening_throw: bool,
    /// Throws owed now, before any result is used: earned by 윷/모, or capture
    /// throws whose time has come (they are thrown back to back, results pooled).
    throws_now: u32,
    /// Throws earned by captures, thrown once every pending result is used.
    throws_after_moves: u32,
    winner: Option<usize>,
}

/// Why an event was refused: which rule forbids it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("the game is over: {winner} has won")]
    GameOver { winner: String },
    #[error("no throw is owed: {team} must first use the pending results ({pending})")]
    ThrowNotOwed { team: String, pending: String },
    #[error("{team} owes a throw: a move is made only when no throw is owed (윷/모 earn another throw before any move)")]
    ThrowOwed { team: String },
    #[error("{result} is not a pending result of {team} (pending: {pending})")]
    NotPending {
        result: ThrowResult,
        team: String,
        pending: String,
    },
    #[error("{team} has no piece waiting to enter")]
    NoWaitingPiece { team: String },
    #[error("{team} has no piece on {station} ({korean})")]
    NoPieceThere {
        team: String,
        station: StationId,
        korean: &'static str,
    },
    #[error("뒷도 (backdo) never brings a new piece onto the board")]
    BackdoCannotEnter,
    #[error("{result} from {from} reaches {reachable}, not {to}")]
    Unreachable {
        result: ThrowResult,
        from: Origin,
        to: Destination,
        reachable: String,
    },
}

impl GameState {
    /// A new game: every piece waiting, team 0 to throw.
    pub fn new(team_names: [String; 2], pieces_per_team: u8, config: RulesConfig) -> GameState {
        let team = |name: String| Team {
            name,
            waiting: pieces_per_team,
            finished: 0,
            stacks: Vec::new(),
        };
        let [first, second] = team_names;
        GameState {
            teams: [team(first), team(second)],
            pieces_per_team,
            config,
            turn: 0,
            pending: Vec::new(),
            opening_throw: true,
            throws_now: 0,
            throws_after_moves: 0,
            winner: None,
        }
    }

    pub fn phase(&self) -> Phase {
        if self.winner.is_some() {
            Phase::Over
        } else if self.must_throw() {
            Phase::Throw
        } else {
            Phase::Move
        }
    }

    fn must_throw(&self) -> bool {
        self.opening_throw || self.throws_now > 0
    }

    /// The team that acts now (throws in [`Phase::Throw`]); the winner once over.
    pub fn turn(&self) -> usize {
        self.winner.unwrap_or(self.turn)
    }

    pub fn teams(&self) -> &[Team; 2] {
        &self.teams
    }

    pub fn pieces_per_team(&self) -> u8 {
        self.pieces_per_team
    }

    /// Results thrown and not yet used, in the order thrown.
    pub fn pending(&self) -> &[ThrowResult] {
        &self.pending
    }

    /// Extra throws earned (윷/모 or captures) and not yet thrown.
    pub fn throws_owed(&self) -> u32 {
        self.throws_now + self.throws_after_moves
    }

    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    pub fn config(&self) -> &RulesConfig {
        &self.config
    }

    fn team_name(&self) -> String {
        self.teams[self.turn].name.clone()
    }

    fn pending_text(&self) -> String {
        let ids: Vec<&str> = self.pending.iter().map(|r| r.id()).collect();
        if ids.is_empty() {
            "none".to_string()
        } else {
            ids.join(" ")
        }
    }

    /// After every event: drop results that can't be used, and pass the turn when
    /// nothing is left to throw or use ("A turn", steps 2 to 4).
    fn settle(&mut self) {
        if self.winner.is_some() {
            self.pending.clear();
            self.opening_throw = false;
            self.throws_now = 0;
            self.throws_after_moves = 0;
            return;
        }
        if self.must_throw() {
            return;
        }
        // Results are dropped only when none of them has a legal move (a pending 도
        // can make a pending 뒷도 usable by bringing a piece in).
        if !self.pending.is_empty() && !has_legal_move(self) {
            self.pending.clear();
        }
        if self.pending.is_empty() {
            if self.throws_after_moves > 0 {
                // Every pending result is used: the capture throws are due now.
                self.throws_now = std::mem::take(&mut self.throws_after_moves);
            } else {
                self.turn = 1 - self.turn;
                self.opening_throw = true;
            }
        }
    }

    fn throw(&mut self, result: ThrowResult) -> Result<(), RuleError> {
        if !self.must_throw() {
            return Err(RuleError::ThrowNotOwed {
                team: self.team_name(),
                pending: self.pending_text(),
            });
        }
        if self.opening_throw {
            self.opening_throw = false;
        } else {
            self.throws_now -= 1;
        }
        // 낙 adds nothing and earns nothing; results already thrown are kept.
        if result != ThrowResult::Nak {
            self.pending.push(result);
        }
        if result.earns_extra_throw() {
            self.throws_now += 1;
        }
        Ok(())
    }

    fn play(&mut self, mv: &Move) -> Result<(), RuleError> {
        if self.must_throw() {
            return Err(RuleError::ThrowOwed {
                team: self.team_name(),
            });
        }
        let Some(index) = self.pending.iter().position(|r| *r == mv.result) else {
            return Err(RuleError::NotPending {
                result: mv.result,
                team: self.team_name(),
                pending: self.pending_text(),
            });
        };
        let team = &self.teams[self.turn];
        let reachable = match mv.from {
            Origin::Waiting if mv.result == ThrowResult::Backdo => {
                return Err(RuleError::BackdoCannotEnter)
            }
            Origin::Waiting if team.waiting == 0 => {
                return Err(RuleError::NoWaitingPiece {
                    team: team.name.clone(),
                })
            }
            Origin::Waiting => destinations(None, mv.result),
            Origin::Station(station) => match team.stack_at(station) {
                Some(stack) => destinations(Some(stack), mv.result),
                None => {
                    return Err(RuleError::NoPieceThere {
                        team: team.name.clone(),
                        station,
                        korean: station.korean(),
                    })
                }
            },
        };
        let Some(landing) = reachable.iter().find(|l| l.to == mv.to) else {
            let names: Vec<String> = reachable.iter().map(|l| l.to.to_string()).collect();
            return Err(RuleError::Unreachable {
                result: mv.result,
                from: mv.from,
                to: mv.to,
                reachable: names.join(" or "),
            });
        };
        self.pending.remove(index);

        let mover = self.turn;
        let pieces = match mv.from {
            Origin::Waiting => {
                self.teams[mover].waiting -= 1;
                1
            }
            Origin::Station(station) => {
                self.teams[mover]
                    .take_stack(station)
                    .expect("checked above")
                    .pieces
            }
        };
        match landing.to {
            Destination::Finished => {
                self.teams[mover].finished += pieces;
                if self.teams[mover].finished == self.pieces_per_team {
                    self.winner = Some(mover);
                }
            }
            Destination::Station(station) => {
                let opponent = &mut self.teams[1 - mover];
                // Stopping on an opponent captures the whole stack; passing over does not.
                if let Some(captured) = opponent.take_stack(station) {
                    opponent.waiting += captured.pieces;
                    self.throws_after_moves += 1;
                }
                self.teams[mover].put_stack(Stack {
                    station,
                    pieces,
                    previous: landing.previous,
                    diagonal: landing.diagonal,
                });
            }
        }
        Ok(())
    }
}

/// Where a move lands and what the stack remembers there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Landing {
    to: Destination,
    previous: StationId,
    diagonal: Option<Diagonal>,
}

/// At most two of something: a junction offers two routes, and no move has more.
/// Kept on the stack, so that listing and checking moves allocates nothing.
#[derive(Debug, Clone, Copy)]
struct Few<T: Copy> {
    items: [Option<T>; 2],
}

impl<T: Copy> Few<T> {
    const NONE: Few<T> = Few {
        items: [None, None],
    };

    fn one(item: T) -> Few<T> {
        Few {
            items: [Some(item), None],
        }
    }

    fn push(&mut self, item: T) {
        let slot = self
            .items
            .iter_mut()
            .find(|slot| slot.is_none())
            .expect("no move has more than two routes");
        *slot = Some(item);
    }

    fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.items.iter().flatten().copied()
    }

    fn is_empty(&self) -> bool {
        self.items[0].is_none()
    }
}

/// Every landing of `result` for a stack (`None`: a waiting piece entering).
fn destinations(stack: Option<&Stack>, result: ThrowResult) -> Few<Landing> {
    match (stack, result.forward_steps()) {
        (_, None) if result == ThrowResult::Nak => Few::NONE,
        (None, None) => Few::NONE,
        (Some(stack), None) => Few::one(back_one(stack)),
        (None, Some(steps)) => Few::one(landings().entering[usize::from(steps - 1)]),
        (Some(stack), Some(steps)) => {
            landings().forward[stack.station as usize][memory_index(stack.diagonal)]
                [usize::from(steps - 1)]
        }
    }
}

/// Every forward landing, worked out once from the board by [`walk`]: where a
/// waiting piece lands with 1 to 5 steps, and where a stack on each station, with
/// each diagonal memory, lands (by each route). Playouts look moves up here
/// rather than walk the board again.
struct Landings {
    entering: [Landing; 5],
    /// By station, by memory (none, from 모, from 뒷모), by steps less one.
    forward: [[[Few<Landing>; 5]; 3]; 29],
}

fn landings() -> &'static Landings {
    static TABLE: std::sync::OnceLock<Landings> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| Landings {
        // A new piece enters from 참먹이: its first step lands on 도.
        entering: std::array::from_fn(|i| walk(ENTRY, StationId::Chammeogi, None, i as u8)),
        forward: std::array::from_fn(|station| {
            std::array::from_fn(|memory| {
                std::array::from_fn(|i| {
                    let stack = Stack {
                        station: StationId::ALL[station],
                        pieces: 1,
                        previous: StationId::ALL[station],
                        diagonal: [None, Some(Diagonal::FromMo), Some(Diagonal::FromDwitMo)]
                            [memory],
                    };
                    walk_from(&stack, i as u8 + 1)
                })
            })
        }),
    })
}

/// Every landing of a forward move of `steps` for a stack: by each route its
/// first step may take.
fn walk_from(stack: &Stack, steps: u8) -> Few<Landing> {
    let mut landings = Few::NONE;
    for first in first_steps(stack).iter() {
        landings.push(match first {
            Destination::Finished => Landing {
                to: Destination::Finished,
                previous: stack.station,
                diagonal: stack.diagonal,
            },
            Destination::Station(next) => {
                let diagonal = entered(next, stack.station, stack.diagonal);
                walk(next, stack.station, diagonal, steps - 1)
            }
        });
    }
    landings
}

/// Where `result` takes a stack (`None`: a waiting piece entering), by each route:
/// what `apply` would accept as `to` for it. For placers that look ahead (the
/// opponent's reach, where a move lands) without listing the moves of a state.
pub fn reachable(from: Option<&Stack>, result: ThrowResult) -> impl Iterator<Item = Destination> {
    let landings = destinations(from, result);
    landings.items.into_iter().flatten().map(|l| l.to)
}

/// The fewest stations a stack on `station` (with its diagonal memory) must still
/// go to finish, choosing the shortest route at every junction: the board's
/// distance home, for placers weighing progress.
pub fn steps_to_finish(station: StationId, diagonal: Option<Diagonal>) -> u8 {
    static TABLE: std::sync::OnceLock<[[u8; 3]; 29]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut steps = [[u8::MAX; 3]; 29];
        // One step at a time from everywhere, until nothing gets shorter.
        let mut changed = true;
        while changed {
            changed = false;
            for station in 0..29 {
                for memory in 0..3 {
                    let best = landings().forward[station][memory][0]
                        .iter()
                        .map(|l| match l.to {
                            Destination::Finished => 1,
                            Destination::Station(next) => {
                                steps[next as usize][memory_index(l.diagonal)].saturating_add(1)
                            }
                        })
                        .min()
                        .unwrap_or(u8::MAX);
                    if best < steps[station][memory] {
                        steps[station][memory] = best;
                        changed = true;
                    }
                }
            }
        }
        steps
    });
    table[station as usize][memory_index(diagonal)]
}

fn memory_index(diagonal: Option<Diagonal>) -> usize {
    match diagonal {
        None => 0,
        Some(Diagonal::FromMo) => 1,
        Some(Diagonal::FromDwitMo) => 2,
    }
}

/// 뒷도: one station back, to where the stack stood before. The rulebook's one
/// exception: from 도 a piece always goes back to 참먹이 (and has then reached it),
/// however it came to 도.
fn back_one(stack: &Stack) -> Landing {
    let to = if stack.station == StationId::Do {
        StationId::Chammeogi
    } else {
        stack.previous
    };
    Landing {
        to: Destination::Station(to),
        previous: stack.station,
        // Backing onto 방 keeps the diagonal that first brought the piece there.
        diagonal: stack.diagonal,
    }
}

/// The first step of a move that starts on a station: the junction choice.
fn first_steps(stack: &Stack) -> Few<Destination> {
    let info = stack.station.info();
    let choices = match info.exits {
        Exits::Choice(choices) => choices,
        Exits::ByDiagonal {
            from_mo,
            from_dwit_mo,
        } => match stack.diagonal {
            Some(Diagonal::FromMo) => from_mo,
            // A stack on 방 always came down a diagonal; without memory the safe
            // reading is the one exit every diagonal shares.
            Some(Diagonal::FromDwitMo) | None => from_dwit_mo,
        },
        Exits::Straight => return Few::one(pass_on(stack.station, stack.diagonal)),
    };
    let mut steps = Few::NONE;
    for station in choices {
        steps.push(Destination::Station(*station));
    }
    steps
}

/// Where a piece passing through `station` goes next.
fn pass_on(station: StationId, diagonal: Option<Diagonal>) -> Destination {
    match station.info().pass {
        Pass::To(next) => Destination::Station(next),
        Pass::Finish => Destination::Finished,
        Pass::AlongDiagonal {
            from_mo,
            from_dwit_mo,
        } => Destination::Station(match diagonal {
            Some(Diagonal::FromMo) => from_mo,
            Some(Diagonal::FromDwitMo) | None => from_dwit_mo,
        }),
    }
}

/// The diagonal memory after stepping from `from` onto `station`.
fn entered(station: StationId, from: StationId, memory: Option<Diagonal>) -> Option<Diagonal> {
    station
        .info()
        .sets_diagonal
        .iter()
        .find(|(neighbour, _)| *neighbour == from)
        .map(|(_, diagonal)| *diagonal)
        .or(memory)
}

/// Walk `steps` more stations straight on from `at` (entered from `previous`).
fn walk(
    mut at: StationId,
    mut previous: StationId,
    mut diagonal: Option<Diagonal>,
    steps: u8,
) -> Landing {
    for _ in 0..steps {
        match pass_on(at, diagonal) {
            Destination::Finished => {
                return Landing {
                    to: Destination::Finished,
                    previous: at,
                    diagonal,
                }
            }
            Destination::Station(next) => {
                diagonal = entered(next, at, diagonal);
                previous = at;
                at = next;
            }
        }
    }
    Landing {
        to: Destination::Station(at),
        previous,
        diagonal,
    }
}

/// The distinct pending results, each once (a set over [`ThrowResult::ALL`]).
fn distinct_pending(state: &GameState) -> impl Iterator<Item = ThrowResult> + '_ {
    let mut seen = 0u8;
    state.pending.iter().copied().filter(move |r| {
        let bit = 1u8 << (*r as u8);
        let new = seen & bit == 0;
        seen |= bit;
        new
    })
}

/// Whether the team in turn has any legal move for its pending results (what
/// [`legal_moves`] would list, without listing it).
fn has_legal_move(state: &GameState) -> bool {
    let team = &state.teams[state.turn];
    distinct_pending(state).any(|result| {
        (team.waiting > 0 && !destinations(None, result).is_empty())
            || team
                .stacks
                .iter()
                .any(|stack| !destinations(Some(stack), result).is_empty())
    })
}

/// Every legal move now, for every distinct pending result, sorted by result id,
/// then `from`, then `to` (as `game replay --json` lists them). Empty unless the
/// phase is [`Phase::Move`].
pub fn legal_moves(state: &GameState) -> Vec<Move> {
    let mut moves = Vec::new();
    legal_moves_into(state, &mut moves);
    moves
}

/// [`legal_moves`] into a buffer the caller keeps (cleared first): playouts list
/// moves millions of times and reuse one buffer.
///
/// The moves are listed in their order directly: results in the order of their
/// ids, within a result the origins in the order of theirs, within an origin its
/// (at most two) routes in the order of theirs.
pub fn legal_moves_into(state: &GameState, moves: &mut Vec<Move>) {
    moves.clear();
    if state.winner.is_some() || state.must_throw() {
        return;
    }
    let team = &state.teams[state.turn];
    // Waiting pieces and each stack, as origins in the order of their ids: (rank,
    // index into the stacks, or `WAITING`).
    const WAITING: u8 = u8::MAX;
    let mut origins = [(0u8, WAITING); 1 + StationId::ALL.len()];
    let mut n = 0;
    if team.waiting > 0 {
        origins[0] = (ORIGIN_RANK[StationId::ALL.len()], WAITING);
        n = 1;
    }
    for (i, stack) in team.stacks.iter().enumerate() {
        origins[n] = (ORIGIN_RANK[stack.station as usize], i as u8);
        n += 1;
    }
    let origins = &mut origins[..n];
    origins.sort_unstable_by_key(|(rank, _)| *rank);
    let pending = state
        .pending
        .iter()
        .fold(0u8, |set, r| set | (1 << (*r as u8)));
    for result in RESULTS_BY_ID {
        if pending & (1 << (result as u8)) == 0 {
            continue;
        }
        for &(_, index) in origins.iter() {
            let (from, stack) = match index {
                WAITING => (Origin::Waiting, None),
                i => {
                    let stack = &team.stacks[usize::from(i)];
                    (Origin::Station(stack.station), Some(stack))
                }
            };
            let [Some(first), second] = destinations(stack, result).items else {
                continue;
            };
            let mut to = [first.to, second.map_or(first.to, |l| l.to)];
            to.sort_unstable_by_key(|d| destination_rank(*d));
            moves.push(Move {
                result,
                from,
                to: to[0],
            });
            if to[1] != to[0] {
                moves.push(Move {
                    result,
                    from,
                    to: to[1],
                });
            }
        }
    }
    debug_assert!(moves.windows(2).all(|w| sort_key(&w[0]) < sort_key(&w[1])));
}

fn destination_rank(to: Destination) -> u8 {
    match to {
        Destination::Finished => DESTINATION_RANK[StationId::ALL.len()],
        Destination::Station(s) => DESTINATION_RANK[s as usize],
    }
}

/// A move's place in the listing: the order of its ids as text (result, then
/// `from`, then `to`), as numbers worked out once at compile time.
fn sort_key(m: &Move) -> u32 {
    let from = match m.from {
        Origin::Waiting => ORIGIN_RANK[StationId::ALL.len()],
        Origin::Station(s) => ORIGIN_RANK[s as usize],
    };
    (u32::from(RESULT_RANK[m.result as usize]) << 16)
        | (u32::from(from) << 8)
        | u32::from(destination_rank(m.to))
}

/// Whether `a` sorts before `b` byte by byte (`str`'s `Ord`, usable in a const).
const fn text_before(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// Each station id's rank among the station ids and `extra`, in text order;
/// `extra`'s own rank last.
const fn station_ranks(extra: &str) -> [u8; 30] {
    let mut ids = [extra; 30];
    let mut i = 0;
    while i < 29 {
        ids[i] = StationId::ALL[i].id();
        i += 1;
    }
    let mut ranks = [0u8; 30];
    let mut i = 0;
    while i < 30 {
        let mut j = 0;
        while j < 30 {
            if text_before(ids[j], ids[i]) {
                ranks[i] += 1;
            }
            j += 1;
        }
        i += 1;
    }
    ranks
}

const ORIGIN_RANK: [u8; 30] = station_ranks("waiting");
const DESTINATION_RANK: [u8; 30] = station_ranks("finished");
const RESULT_RANK: [u8; 7] = {
    let mut ranks = [0u8; 7];
    let mut i = 0;
    while i < 7 {
        let mut j = 0;
        while j < 7 {
            if text_before(ThrowResult::ALL[j].id(), ThrowResult::ALL[i].id()) {
                ranks[i] += 1;
            }
            j += 1;
        }
        i += 1;
    }
    ranks
};

/// Every result, in the order of its id as text.
const RESULTS_BY_ID: [ThrowResult; 7] = {
    let mut sorted = ThrowResult::ALL;
    let mut i = 0;
    while i < 7 {
        sorted[RESULT_RANK[i] as usize] = ThrowResult::ALL[i];
        i += 1;
    }
    sorted
};

/// Apply one event. The state is unchanged on error: the error says which rule
/// forbids the event.
pub fn apply(state: &GameState, event: &GameEvent) -> Result<GameState, RuleError> {
    if let Some(winner) = state.winner {
        return Err(RuleError::GameOver {
            winner: state.teams[winner].name.clone(),
        });
    }
    let mut next = state.clone();
    next.apply_in_place(event)?;
    Ok(next)
}

impl GameState {
    /// [`apply`] without a copy: the state becomes the next one, or, on error, stays
    /// exactly as it was (every check comes before the first change). For playouts,
    /// which apply millions of events.
    pub fn apply_in_place(&mut self, event: &GameEvent) -> Result<(), RuleError> {
        if let Some(winner) = self.winner {
            return Err(RuleError::GameOver {
                winner: self.teams[winner].name.clone(),
            });
        }
        match event {
            GameEvent::Throw(result) => self.throw(*result)?,
            GameEvent::Move(mv) => self.play(mv)?,
        }
        self.settle();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_home() {
        // 참먹이 finishes with one step; from 도 the short way: 모, then across.
        assert_eq!(steps_to_finish(StationId::Chammeogi, None), 1);
        assert_eq!(steps_to_finish(StationId::Do, None), 4 + 7);
        // From 모 the diagonal through 방: 모도 모개 방 방수기 안찌 참먹이, out.
        assert_eq!(steps_to_finish(StationId::Mo, None), 7);
        assert_eq!(steps_to_finish(StationId::Bang, Some(Diagonal::FromMo)), 4);
        assert_eq!(steps_to_finish(StationId::NalYut, None), 2);
    }

    #[test]
    fn sort_keys_follow_the_ids_as_text() {
        let origins = std::iter::once(Origin::Waiting).chain(StationId::ALL.map(Origin::Station));
        let mut moves = Vec::new();
        for result in ThrowResult::ALL {
            for from in origins.clone() {
                for to in std::iter::once(Destination::Finished)
                    .chain(StationId::ALL.map(Destination::Station))
                {
                    moves.push(Move { result, from, to });
                }
            }
        }
        let mut by_key = moves.clone();
        by_key.sort_by_key(sort_key);
        let mut by_text = moves;
        by_text.sort_by_key(|m| (m.result.id(), m.from.id(), m.to.id()));
        assert_eq!(by_key, by_text);
    }
}

impl Origin {
    /// `waiting` or the station id, as in records.
    pub fn id(self) -> &'static str {
        match self {
            Origin::Waiting => "waiting",
            Origin::Station(s) => s.id(),
        }
    }
}

impl Destination {
    /// `finished` or the station id, as in records.
    pub fn id(self) -> &'static str {
        match self {
            Destination::Finished => "finished",
            Destination::Station(s) => s.id(),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Origin {
    type Err = super::board::UnknownStation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "waiting" {
            Ok(Origin::Waiting)
        } else {
            s.parse().map(Origin::Station)
        }
    }
}

impl std::str::FromStr for Destination {
    type Err = super::board::UnknownStation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "finished" {
            Ok(Destination::Finished)
        } else {
            s.parse().map(Destination::Station)
        }
    }
}

macro_rules! serde_as_string {
    ($ty:ty) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
serde_as_string!(Origin);
serde_as_string!(Destination);
