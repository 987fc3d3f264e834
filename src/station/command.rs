//! Referee commands as the console and the live API send them
//! (`docs/station-api.md`), and how each becomes a journal entry. Pure: the time and
//! the current match come in as values.

use serde::{Deserialize, Serialize};
use yut_match::Entry;
use yut_match::{Action, MatchEvent, MatchSetup, MatchState, Millis, TeamIx, ThrowNo, Verdict};
use yut_rules::yut::{Destination, Move, Origin, ThrowResult};

/// One referee command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Register a new game; without a setup, the station's default line-up.
    NewGame {
        #[serde(default)]
        setup: Option<MatchSetup>,
    },
    /// Start the game clock. (The field-less commands are empty structs, so that
    /// a field they do not take is refused like any other.)
    Start {},
    /// Accept the station's reading (its best guess) for a throw that waits.
    Confirm {
        throw: ThrowNo,
    },
    /// Call a throw, or override an earlier call. 낙 needs a reason.
    Call {
        throw: ThrowNo,
        result: ThrowResult,
        #[serde(default)]
        reason: String,
    },
    /// A throw the camera did not see, entered by the referee with why.
    ManualThrow {
        result: ThrowResult,
        #[serde(default)]
        reason: String,
    },
    WrongPlayer {
        throw: ThrowNo,
        wrong: bool,
    },
    Move {
        result: ThrowResult,
        from: Origin,
        to: Destination,
    },
    Undo {},
    Timeout {
        team: TeamIx,
    },
    TimeoutEnd {},
    Protest {
        team: TeamIx,
        by: String,
        #[serde(default)]
        throw: Option<ThrowNo>,
        #[serde(default)]
        note: String,
    },
    Substitute {
        team: TeamIx,
        requested_by: String,
        swap: [String; 2],
    },
}

/// Why a command cannot become an entry (before the rules are even asked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("no game: register a new game first")]
    NoGame,
    #[error("throw {0} does not exist in this game")]
    NoSuchThrow(ThrowNo),
    #[error("throw {0} has no reading to confirm: call its result")]
    NothingToConfirm(ThrowNo),
    #[error("calling 낙 needs a reason (which stick left the mat, a foul, ...)")]
    NakNeedsReason,
    #[error("a manual throw needs a reason (why the camera could not call it)")]
    ManualNeedsReason,
}

/// A match event at `at`, entered by `by`, with why (an empty note is none).
pub fn signed(at: Millis, by: &str, action: Action, note: String) -> Entry {
    let mut e = MatchEvent::new(at, action);
    e.by = Some(by.to_string());
    e.note = (!note.is_empty()).then_some(note);
    Entry::Event(e)
}

/// The journal entry for `command` at `now`, signed by `by`. `default_setup` is used
/// by a `new_game` without a setup. The rules check the entry when it is appended.
pub fn to_entry(
    command: &Command,
    current: Option<&MatchState>,
    default_setup: &MatchSetup,
    by: &str,
    now: Millis,
) -> Result<Entry, CommandError> {
    let event = |action: Action, note: String| signed(now, by, action, note);
    let game = || current.ok_or(CommandError::NoGame);
    Ok(match command {
        Command::NewGame { setup } => Entry::NewGame {
            at_ms: now,
            setup: setup.clone().unwrap_or_else(|| default_setup.clone()),
        },
        Command::Start {} => event(Action::Start, String::new()),
        Command::Confirm { throw } => {
            let record = game()?
                .throws()
                .find(|t| t.number == *throw)
                .ok_or(CommandError::NoSuchThrow(*throw))?;
            let result = record
                .verdict
                .result
                .ok_or(CommandError::NothingToConfirm(*throw))?;
            event(
                Action::Call {
                    throw: *throw,
                    result,
                },
                "confirmed the station's reading".into(),
            )
        }
        Command::Call {
            throw,
            result,
            reason,
        } => {
            if *result == ThrowResult::Nak && reason.trim().is_empty() {
                return Err(CommandError::NakNeedsReason);
            }
            game()?
                .throws()
                .find(|t| t.number == *throw)
                .ok_or(CommandError::NoSuchThrow(*throw))?;
            event(
                Action::Call {
                    throw: *throw,
                    result: *result,
                },
                reason.trim().to_string(),
            )
        }
        Command::ManualThrow { result, reason } => {
            if reason.trim().is_empty() {
                return Err(CommandError::ManualNeedsReason);
            }
            event(
                Action::Throw {
                    verdict: Verdict::manual(*result),
                },
                reason.trim().to_string(),
            )
        }
        Command::WrongPlayer { throw, wrong } => event(
            Action::WrongPlayer {
                throw: *throw,
                wrong: *wrong,
            },
            String::new(),
        ),
        Command::Move { result, from, to } => event(
            Action::Move(Move {
                result: *result,
                from: *from,
                to: *to,
            }),
            String::new(),
        ),
        Command::Undo {} => event(Action::Undo, String::new()),
        Command::Timeout { team } => event(Action::TimeoutStart { team: *team }, String::new()),
        Command::TimeoutEnd {} => event(Action::TimeoutEnd, String::new()),
        Command::Protest {
            team,
            by: player,
            throw,
            note,
        } => event(
            Action::Protest {
                team: *team,
                by: player.clone(),
                throw: *throw,
                note: note.clone(),
            },
            String::new(),
        ),
        Command::Substitute {
            team,
            requested_by,
            swap,
        } => event(
            Action::Substitute {
                team: *team,
                requested_by: requested_by.clone(),
                swap: swap.clone(),
            },
            String::new(),
        ),
    })
}
