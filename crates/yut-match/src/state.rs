//! The match state and its transition function.
//!
//! The board is the rules engine's: the game state here is always a fold of the
//! effective throws and the active moves through [`yut::apply`]. An override or an
//! undo does not patch the board; it changes one input and folds again, and any
//! later input that the engine no longer accepts is marked invalidated and reported.
//!
//! Pure: no I/O, no clock; every event carries its time.

use crate::event::{Action, EvidenceRef, MatchEvent, Millis, TeamIx, ThrowNo, Verdict};
use crate::setup::{MatchSetup, Player, SetupError};
use serde::Serialize;
use std::sync::Arc;
use yut_rules::yut::{
    self, GameEvent, GameRecord, GameState, Move, Phase, RuleError, ThrowResult, ThrowerRotation,
};

/// Why an event is refused. The state is unchanged; nothing is recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error("event at {at_ms} ms is earlier than the last event at {last_ms} ms")]
    TimeWentBack { at_ms: Millis, last_ms: Millis },
    #[error("the game has not started: the referee starts it first")]
    NotStarted,
    #[error("the game has already started")]
    AlreadyStarted,
    #[error("the game is over")]
    GameOver,
    #[error("throw #{0} waits for the referee's call; call it first")]
    AwaitingCall(ThrowNo),
    #[error("a timeout of {0} is running; play resumes when it ends")]
    InTimeout(String),
    #[error("no timeout is running")]
    NoTimeout,
    #[error("{team} has no timeouts left ({allowed} per game)")]
    NoTimeoutsLeft { team: String, allowed: u32 },
    #[error("there is no throw #{0} in this game")]
    NoSuchThrow(ThrowNo),
    #[error("throw #{0} was invalidated by an earlier correction; it no longer counts")]
    ThrowInvalidated(ThrowNo),
    #[error("there is no team {0} (teams are 0 and 1)")]
    NoSuchTeam(TeamIx),
    #[error("`{player}` is not a registered player of {team}")]
    NotRegistered { team: String, player: String },
    #[error("only the coach of {team} ({coach}) may request a substitution, not `{by}`")]
    NotCoach {
        team: String,
        coach: String,
        by: String,
    },
    #[error("a substitution swaps two different players")]
    SwapWithSelf,
    #[error(
        "`{player}` of {team} has no registered posture and height, so cannot become a thrower"
    )]
    NoStance { team: String, player: String },
    #[error("throw #{0} was never called: call it rather than lifting the wrong-player mark")]
    NeverCalled(ThrowNo),
    #[error("no move to undo since the last throw")]
    NothingToUndo,
    #[error("{0}")]
    Rule(#[from] RuleError),
}

/// Who made a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallSource {
    Automatic,
    Referee,
    /// A throw the referee entered by hand (`Verdict::manual`).
    Manual,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Call {
    pub result: ThrowResult,
    pub by: CallSource,
    pub at_ms: Millis,
}

/// Whether an input still counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Active,
    /// Taken back by an undo.
    Undone,
    /// No longer legal after a correction; the engine's reason.
    Invalidated(String),
}

/// One physical throw and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThrowRecord {
    pub number: ThrowNo,
    pub at_ms: Millis,
    pub team: TeamIx,
    /// Who was due to throw: the throw is attributed to the rotation, never guessed.
    pub thrower: String,
    pub verdict: Verdict,
    /// `None` while it waits for the referee.
    pub call: Option<Call>,
    pub wrong_player: bool,
    /// Thrown after the throw clock ran out (flagged, not ruled).
    pub late: bool,
}

impl ThrowRecord {
    /// The result the game uses: 낙 for a wrong player, else the call.
    pub fn effective(&self) -> Option<ThrowResult> {
        if self.wrong_player {
            Some(ThrowResult::Nak)
        } else {
            self.call.map(|c| c.result)
        }
    }
}

// A throw carries its verdict (sticks read, evidence); every input is kept
// behind an `Arc` (`Item`), so a move's unused bytes are never copied per event.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    Throw(ThrowRecord),
    Move {
        at_ms: Millis,
        #[serde(rename = "move")]
        mv: Move,
    },
}

/// One input to the game, in the order entered, with whether it still counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub input: Input,
    pub status: Status,
}

/// An input that a correction made illegal: a move for the placer to re-enter, or a
/// throw that no longer fits (e.g. made by the team whose turn it no longer is).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invalidation {
    pub input: Input,
    pub reason: String,
}

impl Invalidation {
    /// The game event it was, if it had a call.
    pub fn event(&self) -> Option<GameEvent> {
        game_event(&self.input)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Override {
    pub at_ms: Millis,
    pub throw: ThrowNo,
    pub from: Option<ThrowResult>,
    pub to: ThrowResult,
    pub invalidated: Vec<Invalidation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Remark {
    pub at_ms: Millis,
    pub team: TeamIx,
    pub player: String,
    pub throw: Option<ThrowNo>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Substitution {
    pub at_ms: Millis,
    pub team: TeamIx,
    pub swap: [String; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Timeout {
    pub team: TeamIx,
    pub start_ms: Millis,
    /// `None` while it runs.
    pub end_ms: Option<Millis>,
}

/// A team's current line-up: indices into its registered players.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lineup {
    /// Registered players: the throwers in registered order, then the placer.
    pub players: Vec<Player>,
    /// Throwing order: `throwers[slot]` is an index into `players`.
    pub throwers: [usize; 3],
    /// The placer, who is the coach.
    pub placer: usize,
}

impl Lineup {
    pub fn coach(&self) -> &Player {
        &self.players[self.placer]
    }
    pub fn thrower(&self, slot: usize) -> &Player {
        &self.players[self.throwers[slot]]
    }
    fn index_of(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p.name == name)
    }
}

/// A stopwatch over the shell's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Stopwatch {
    pub accumulated_ms: Millis,
    pub running_since: Option<Millis>,
}

impl Stopwatch {
    pub fn read(&self, now: Millis) -> Millis {
        self.accumulated_ms + self.running_since.map_or(0, |s| now.saturating_sub(s))
    }
    fn run(&mut self, now: Millis, running: bool) {
        match (self.running_since, running) {
            (None, true) => self.running_since = Some(now),
            (Some(s), false) => {
                self.accumulated_ms += now.saturating_sub(s);
                self.running_since = None;
            }
            _ => {}
        }
    }
}

/// The rotation counters, derived from the game fold so a correction recomputes them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Rotation {
    throws: [u32; 2],
    turns: [u32; 2],
    last_team: Option<TeamIx>,
}

impl Rotation {
    /// The slot that makes `team`'s next throw.
    fn slot(&self, mode: ThrowerRotation, team: TeamIx) -> usize {
        match mode {
            ThrowerRotation::PerThrow => (self.throws[team] % 3) as usize,
            ThrowerRotation::PerTurn => {
                let turn = if self.last_team == Some(team) {
                    self.turns[team] - 1
                } else {
                    self.turns[team]
                };
                (turn % 3) as usize
            }
        }
    }
    fn count(&mut self, team: TeamIx) {
        if self.last_team != Some(team) {
            self.turns[team] += 1;
        }
        self.throws[team] += 1;
        self.last_team = Some(team);
    }
}

/// The whole state of one game at the mat.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchState {
    setup: MatchSetup,
    lineups: [Lineup; 2],
    game: GameState,
    rotation: Rotation,
    /// Shared so that a fold step copies pointers, not every input (the fold
    /// clones the state at each event).
    items: Vec<Arc<Item>>,
    last_at: Millis,
    started: bool,
    game_clock: Stopwatch,
    /// When the throw now due became due; `None` when no throw is due.
    throw_due_since: Option<Millis>,
    timeout: Option<Timeout>,
    timeouts: Vec<Timeout>,
    warnings: Vec<Remark>,
    protests: Vec<Remark>,
    substitutions: Vec<Substitution>,
    overrides: Vec<Override>,
    /// What the latest correction (override, wrong-player mark, undo) invalidated.
    last_invalidated: Vec<Invalidation>,
}

/// Who throws next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NextThrower {
    pub team: TeamIx,
    pub slot: usize,
    pub player: Player,
}

/// The throw clock as the referee's console shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ThrowClock {
    pub elapsed_ms: Millis,
    pub limit_ms: Millis,
    /// Flagged to the referee; the machine rules nothing on it.
    pub expired: bool,
}

impl MatchState {
    /// A new game from a validated setup; the game clock waits for [`Action::Start`].
    pub fn new(setup: MatchSetup) -> Result<MatchState, SetupError> {
        setup.validate()?;
        let lineups = setup.teams.clone().map(|t| {
            let mut players = t.throwers;
            players.push(t.placer);
            Lineup {
                players,
                throwers: [0, 1, 2],
                placer: 3,
            }
        });
        let game = new_game(&setup);
        Ok(MatchState {
            setup,
            lineups,
            game,
            rotation: Rotation::default(),
            items: Vec::new(),
            last_at: 0,
            started: false,
            game_clock: Stopwatch::default(),
            throw_due_since: None,
            timeout: None,
            timeouts: Vec::new(),
            warnings: Vec::new(),
            protests: Vec::new(),
            substitutions: Vec::new(),
            overrides: Vec::new(),
            last_invalidated: Vec::new(),
        })
    }

    pub fn setup(&self) -> &MatchSetup {
        &self.setup
    }
    pub fn team_name(&self, team: TeamIx) -> &str {
        &self.setup.teams[team].name
    }
    /// The board, as the rules engine folded it.
    pub fn game(&self) -> &GameState {
        &self.game
    }
    pub fn lineup(&self, team: TeamIx) -> &Lineup {
        &self.lineups[team]
    }
    pub fn items(&self) -> &[Arc<Item>] {
        &self.items
    }
    pub fn throws(&self) -> impl Iterator<Item = &ThrowRecord> {
        self.items.iter().filter_map(|i| match &i.input {
            Input::Throw(t) => Some(t),
            Input::Move { .. } => None,
        })
    }
    pub fn started(&self) -> bool {
        self.started
    }
    pub fn is_over(&self) -> bool {
        self.game.phase() == Phase::Over
    }
    pub fn warnings(&self) -> &[Remark] {
        &self.warnings
    }
    pub fn protests(&self) -> &[Remark] {
        &self.protests
    }
    pub fn substitutions(&self) -> &[Substitution] {
        &self.substitutions
    }
    pub fn overrides(&self) -> &[Override] {
        &self.overrides
    }
    pub fn timeouts(&self) -> &[Timeout] {
        &self.timeouts
    }
    /// Inputs the latest correction made illegal: the placer re-enters these moves.
    pub fn last_invalidated(&self) -> &[Invalidation] {
        &self.last_invalidated
    }
    /// Time of the last event applied.
    pub fn last_at(&self) -> Millis {
        self.last_at
    }
    /// Every evidence blob the game's throws refer to.
    pub fn evidence(&self) -> impl Iterator<Item = &EvidenceRef> {
        self.throws().flat_map(|t| t.verdict.evidence.iter())
    }

    /// The throw that waits for the referee's call, if any.
    pub fn awaiting_call(&self) -> Option<ThrowNo> {
        match self.items.last().map(|i| &**i) {
            Some(Item {
                input: Input::Throw(t),
                status: Status::Active,
            }) if t.call.is_none() && !t.wrong_player => Some(t.number),
            _ => None,
        }
    }

    /// Who makes the next throw, when a throw is owed.
    pub fn next_thrower(&self) -> Option<NextThrower> {
        if self.game.phase() != Phase::Throw || self.awaiting_call().is_some() {
            return None;
        }
        let team = self.game.turn();
        let slot = self
            .rotation
            .slot(self.setup.options.rules.thrower_rotation, team);
        Some(NextThrower {
            team,
            slot,
            player: self.lineups[team].thrower(slot).clone(),
        })
    }

    /// This state as seen at `now`: a timeout whose length has run out has ended.
    pub fn at(&self, now: Millis) -> MatchState {
        let mut s = self.clone();
        s.expire_timeout(now.max(s.last_at));
        s
    }

    /// The game clock at `now`, in milliseconds of play.
    pub fn game_clock_ms(&self, now: Millis) -> Millis {
        self.at(now).game_clock.read(now.max(self.last_at))
    }

    /// The throw clock at `now`, when a throw is due.
    pub fn throw_clock(&self, now: Millis) -> Option<ThrowClock> {
        let s = self.at(now);
        let since = s.throw_due_since?;
        let elapsed_ms = now.saturating_sub(since);
        let limit_ms = Millis::from(self.setup.options.throw_limit_s) * 1000;
        Some(ThrowClock {
            elapsed_ms,
            limit_ms,
            expired: elapsed_ms > limit_ms,
        })
    }

    /// The running timeout at `now` and how much of it is left.
    pub fn timeout_running(&self, now: Millis) -> Option<(Timeout, Millis)> {
        let s = self.at(now);
        let t = s.timeout?;
        Some((t, (t.start_ms + self.timeout_len()).saturating_sub(now)))
    }

    pub fn timeouts_left(&self, team: TeamIx) -> u32 {
        let used = self.timeouts.iter().filter(|t| t.team == team).count() as u32;
        self.setup.options.timeouts_per_team.saturating_sub(used)
    }

    /// The game as a `yut-record/1` record: every effective throw and active move.
    pub fn game_record(&self) -> GameRecord {
        let mut record = GameRecord::new(
            team_names(&self.setup),
            self.setup.options.pieces_per_team,
            self.setup.options.rules.clone(),
        );
        record.events = self
            .items
            .iter()
            .filter(|i| i.status == Status::Active)
            .filter_map(|i| game_event(&i.input))
            .collect();
        record
    }

    /// A serialisable picture of the state at `now`, for displays and comparisons.
    pub fn snapshot(&self, now: Millis) -> Snapshot {
        let s = self.at(now);
        Snapshot {
            game: s.game.summary(),
            started: s.started,
            next_thrower: s.next_thrower(),
            awaiting_call: s.awaiting_call(),
            game_clock_ms: s.game_clock.read(now.max(s.last_at)),
            throw_clock: s.throw_clock(now),
            timeout: s.timeout,
            timeouts_left: [s.timeouts_left(0), s.timeouts_left(1)],
            lineups: s.lineups.clone(),
            items: s.items.iter().map(|i| (**i).clone()).collect(),
            warnings: s.warnings.clone(),
            protests: s.protests.clone(),
            substitutions: s.substitutions.clone(),
            overrides: s.overrides.clone(),
            last_invalidated: s.last_invalidated.clone(),
        }
    }

    fn timeout_len(&self) -> Millis {
        Millis::from(self.setup.options.timeout_length_s) * 1000
    }

    /// End a timeout whose full length has passed, at the moment it ran out.
    fn expire_timeout(&mut self, now: Millis) {
        if let Some(t) = self.timeout {
            let end = t.start_ms + self.timeout_len();
            if now >= end {
                self.end_timeout(end);
            }
        }
    }

    fn end_timeout(&mut self, at: Millis) {
        if let Some(mut t) = self.timeout.take() {
            t.end_ms = Some(at);
            if let Some(rec) = self.timeouts.iter_mut().rev().find(|r| r.end_ms.is_none()) {
                *rec = t;
            }
            self.sync_clocks(at, true);
        }
    }

    /// Run or stop the clocks to match the state. `reset_throw` restarts the throw
    /// clock when a throw is due (a new throw became due at `at`).
    fn sync_clocks(&mut self, at: Millis, reset_throw: bool) {
        let playing = self.started && !self.is_over();
        let runs_in_timeout = self.setup.options.game_clock_runs_in_timeout;
        self.game_clock
            .run(at, playing && (self.timeout.is_none() || runs_in_timeout));
        let throw_due = playing
            && self.timeout.is_none()
            && self.game.phase() == Phase::Throw
            && self.awaiting_call().is_none();
        if !throw_due {
            self.throw_due_since = None;
        } else if reset_throw || self.throw_due_since.is_none() {
            self.throw_due_since = Some(at);
        }
    }

    fn team_ix(&self, team: TeamIx) -> Result<TeamIx, MatchError> {
        if team < 2 {
            Ok(team)
        } else {
            Err(MatchError::NoSuchTeam(team))
        }
    }

    fn ensure_playing(&self) -> Result<(), MatchError> {
        if !self.started {
            return Err(MatchError::NotStarted);
        }
        if self.is_over() {
            return Err(MatchError::GameOver);
        }
        if let Some(t) = self.timeout {
            return Err(MatchError::InTimeout(self.team_name(t.team).to_string()));
        }
        if let Some(n) = self.awaiting_call() {
            return Err(MatchError::AwaitingCall(n));
        }
        Ok(())
    }

    fn throw_index(&self, number: ThrowNo) -> Result<usize, MatchError> {
        let ix = self
            .items
            .iter()
            .position(|i| matches!(&i.input, Input::Throw(t) if t.number == number))
            .ok_or(MatchError::NoSuchThrow(number))?;
        if self.items[ix].status != Status::Active {
            return Err(MatchError::ThrowInvalidated(number));
        }
        Ok(ix)
    }

    /// Fold every active input through the engine again; inputs the engine now
    /// refuses are marked invalidated and returned.
    fn refold(&mut self) -> Vec<Invalidation> {
        let mut game = new_game(&self.setup);
        let mut rotation = Rotation::default();
        let mut invalidated = Vec::new();
        for item in &mut self.items {
            if item.status != Status::Active {
                continue;
            }
            let outcome = match &item.input {
                Input::Throw(t) if game.phase() == Phase::Throw && game.turn() != t.team => {
                    Err(format!(
                        "after the correction it is {}'s turn, but this throw was made by {}",
                        self.setup.teams[game.turn()].name,
                        self.setup.teams[t.team].name
                    ))
                }
                Input::Throw(t) => match t.effective() {
                    Some(r) => yut::apply(&game, &GameEvent::Throw(r))
                        .inspect(|_| rotation.count(t.team))
                        .map_err(|e| e.to_string()),
                    // Waits for its call: counted, not yet on the board.
                    None => {
                        rotation.count(t.team);
                        Ok(game.clone())
                    }
                },
                Input::Move { mv, .. } => {
                    yut::apply(&game, &GameEvent::Move(*mv)).map_err(|e| e.to_string())
                }
            };
            match outcome {
                Ok(g) => game = g,
                Err(reason) => {
                    invalidated.push(Invalidation {
                        input: item.input.clone(),
                        reason: reason.clone(),
                    });
                    Arc::make_mut(item).status = Status::Invalidated(reason);
                }
            }
        }
        self.game = game;
        self.rotation = rotation;
        invalidated
    }
}

/// A serialisable picture of a match state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    pub game: yut::GameSummary,
    pub started: bool,
    pub next_thrower: Option<NextThrower>,
    pub awaiting_call: Option<ThrowNo>,
    pub game_clock_ms: Millis,
    pub throw_clock: Option<ThrowClock>,
    pub timeout: Option<Timeout>,
    pub timeouts_left: [u32; 2],
    pub lineups: [Lineup; 2],
    pub items: Vec<Item>,
    pub warnings: Vec<Remark>,
    pub protests: Vec<Remark>,
    pub substitutions: Vec<Substitution>,
    pub overrides: Vec<Override>,
    pub last_invalidated: Vec<Invalidation>,
}

fn team_names(setup: &MatchSetup) -> [String; 2] {
    setup.teams.clone().map(|t| t.name)
}

fn new_game(setup: &MatchSetup) -> GameState {
    GameState::new(
        team_names(setup),
        setup.options.pieces_per_team,
        setup.options.rules.clone(),
    )
}

fn game_event(input: &Input) -> Option<GameEvent> {
    match input {
        Input::Throw(t) => t.effective().map(GameEvent::Throw),
        Input::Move { mv, .. } => Some(GameEvent::Move(*mv)),
    }
}

/// The match machine: the state after `event`, or why the event is refused.
pub fn apply(state: &MatchState, event: &MatchEvent) -> Result<MatchState, MatchError> {
    let at = event.at_ms;
    if at < state.last_at {
        return Err(MatchError::TimeWentBack {
            at_ms: at,
            last_ms: state.last_at,
        });
    }
    let mut s = state.clone();
    s.expire_timeout(at);
    s.last_at = at;
    let mut reset_throw = true;
    let clears_report = !matches!(
        event.action,
        Action::Protest { .. } | Action::Substitute { .. }
    );
    if clears_report {
        s.last_invalidated.clear();
    }
    match &event.action {
        Action::Start => {
            if s.started {
                return Err(MatchError::AlreadyStarted);
            }
            s.started = true;
        }
        Action::Throw { verdict } => {
            s.ensure_playing()?;
            let next = s.next_thrower().ok_or_else(|| {
                // Not in the throw phase: let the engine say which rule forbids it.
                MatchError::Rule(
                    yut::apply(&s.game, &GameEvent::Throw(ThrowResult::Nak))
                        .expect_err("a throw is refused outside the throw phase"),
                )
            })?;
            let limit = Millis::from(s.setup.options.throw_limit_s) * 1000;
            let record = ThrowRecord {
                number: s.throws().count() as ThrowNo + 1,
                at_ms: at,
                team: next.team,
                thrower: next.player.name,
                verdict: verdict.clone(),
                call: verdict.automatic_call().map(|result| Call {
                    result,
                    by: if verdict.manual {
                        CallSource::Manual
                    } else {
                        CallSource::Automatic
                    },
                    at_ms: at,
                }),
                wrong_player: false,
                late: s.throw_due_since.is_some_and(|since| at - since > limit),
            };
            if let Some(r) = record.effective() {
                s.game = yut::apply(&s.game, &GameEvent::Throw(r))?;
            }
            s.rotation.count(next.team);
            s.items.push(Arc::new(Item {
                input: Input::Throw(record),
                status: Status::Active,
            }));
        }
        Action::Call { throw, result } => {
            let ix = s.throw_index(*throw)?;
            let Input::Throw(t) = &mut Arc::make_mut(&mut s.items[ix]).input else {
                unreachable!("throw_index finds throws")
            };
            let previous = t.call.map(|c| c.result);
            t.call = Some(Call {
                result: *result,
                by: CallSource::Referee,
                at_ms: at,
            });
            if previous.is_none() && !t.wrong_player {
                // The first call of the throw that waits: it is the last input.
                s.game = yut::apply(&s.game, &GameEvent::Throw(*result))?;
            } else {
                let invalidated = s.refold();
                s.overrides.push(Override {
                    at_ms: at,
                    throw: *throw,
                    from: previous,
                    to: *result,
                    invalidated: invalidated.clone(),
                });
                s.last_invalidated = invalidated;
            }
        }
        Action::WrongPlayer { throw, wrong } => {
            let ix = s.throw_index(*throw)?;
            let Input::Throw(t) = &mut Arc::make_mut(&mut s.items[ix]).input else {
                unreachable!("throw_index finds throws")
            };
            if !*wrong && t.call.is_none() {
                // It would wait for a call again while later inputs build on it.
                return Err(MatchError::NeverCalled(*throw));
            }
            let before = t.effective();
            t.wrong_player = *wrong;
            let after = t.effective();
            if before != after {
                let invalidated = s.refold();
                s.overrides.push(Override {
                    at_ms: at,
                    throw: *throw,
                    from: before,
                    to: after.expect("checked"),
                    invalidated: invalidated.clone(),
                });
                s.last_invalidated = invalidated;
            }
        }
        Action::Move(mv) => {
            s.ensure_playing()?;
            s.game = yut::apply(&s.game, &GameEvent::Move(*mv))?;
            s.items.push(Arc::new(Item {
                input: Input::Move { at_ms: at, mv: *mv },
                status: Status::Active,
            }));
        }
        Action::Undo => {
            if !s.started {
                return Err(MatchError::NotStarted);
            }
            let last = s
                .items
                .iter()
                .rposition(|i| i.status == Status::Active)
                .filter(|&ix| matches!(s.items[ix].input, Input::Move { .. }))
                .ok_or(MatchError::NothingToUndo)?;
            Arc::make_mut(&mut s.items[last]).status = Status::Undone;
            s.last_invalidated = s.refold();
        }
        Action::Substitute {
            team,
            requested_by,
            swap,
        } => {
            let team = s.team_ix(*team)?;
            let name = s.team_name(team).to_string();
            let lineup = &s.lineups[team];
            if lineup.coach().name != *requested_by {
                return Err(MatchError::NotCoach {
                    team: name,
                    coach: lineup.coach().name.clone(),
                    by: requested_by.clone(),
                });
            }
            let find = |p: &String| {
                lineup.index_of(p).ok_or_else(|| MatchError::NotRegistered {
                    team: name.clone(),
                    player: p.clone(),
                })
            };
            let (a, b) = (find(&swap[0])?, find(&swap[1])?);
            if a == b {
                return Err(MatchError::SwapWithSelf);
            }
            let mut next = lineup.clone();
            for slot in next.throwers.iter_mut().chain([&mut next.placer]) {
                if *slot == a {
                    *slot = b;
                } else if *slot == b {
                    *slot = a;
                }
            }
            if let Some(&p) = next
                .throwers
                .iter()
                .find(|&&p| next.players[p].stance.is_none())
            {
                return Err(MatchError::NoStance {
                    team: name,
                    player: next.players[p].name.clone(),
                });
            }
            s.lineups[team] = next;
            s.substitutions.push(Substitution {
                at_ms: at,
                team,
                swap: swap.clone(),
            });
            reset_throw = false;
        }
        Action::TimeoutStart { team } => {
            let team = s.team_ix(*team)?;
            if !s.started {
                return Err(MatchError::NotStarted);
            }
            if s.is_over() {
                return Err(MatchError::GameOver);
            }
            if let Some(t) = s.timeout {
                return Err(MatchError::InTimeout(s.team_name(t.team).to_string()));
            }
            if s.timeouts_left(team) == 0 {
                return Err(MatchError::NoTimeoutsLeft {
                    team: s.team_name(team).to_string(),
                    allowed: s.setup.options.timeouts_per_team,
                });
            }
            let t = Timeout {
                team,
                start_ms: at,
                end_ms: None,
            };
            s.timeout = Some(t);
            s.timeouts.push(t);
        }
        Action::TimeoutEnd => {
            if s.timeout.is_none() {
                return Err(MatchError::NoTimeout);
            }
            s.end_timeout(at);
        }
        Action::Protest {
            team,
            by,
            throw,
            note,
        } => {
            let team = s.team_ix(*team)?;
            let lineup = &s.lineups[team];
            if lineup.index_of(by).is_none() {
                return Err(MatchError::NotRegistered {
                    team: s.team_name(team).to_string(),
                    player: by.clone(),
                });
            }
            if let Some(n) = throw {
                if !s.throws().any(|t| t.number == *n) {
                    return Err(MatchError::NoSuchThrow(*n));
                }
            }
            let remark = Remark {
                at_ms: at,
                team,
                player: by.clone(),
                throw: *throw,
                note: note.clone(),
            };
            if lineup.coach().name == *by {
                s.protests.push(remark);
            } else {
                s.warnings.push(remark);
            }
            reset_throw = false;
        }
    }
    s.sync_clocks(at, reset_throw);
    Ok(s)
}
