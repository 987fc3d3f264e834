//! What the journal stores and the pure fold that turns it into the station's state.

use crate::referee::{self, MatchError, MatchEvent, MatchSetup, MatchState, Millis, SetupError};
use serde::{Deserialize, Serialize};

/// One journal entry: a game begins, or something happens in the current game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Entry {
    /// A new game with its registered setup; later events belong to it.
    NewGame {
        at_ms: Millis,
        setup: MatchSetup,
    },
    Event(MatchEvent),
}

impl Entry {
    pub fn at_ms(&self) -> Millis {
        match self {
            Entry::NewGame { at_ms, .. } => *at_ms,
            Entry::Event(e) => e.at_ms,
        }
    }
}

/// Why an entry does not fit the state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FoldError {
    #[error("no game has begun: record a new game (its setup) first")]
    NoGame,
    #[error("setup refused: {0}")]
    Setup(#[from] SetupError),
    #[error("{0}")]
    Match(#[from] MatchError),
    #[error("entry at {at_ms} ms is earlier than the previous one at {last_ms} ms")]
    TimeWentBack { at_ms: Millis, last_ms: Millis },
}

/// The state of a station: every game in the journal, the last one current.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Station {
    /// `games[n - 1]` is game `n`.
    pub games: Vec<MatchState>,
    /// Time of the last entry folded.
    pub last_at: Millis,
}

impl Station {
    /// The game events now go to.
    pub fn current(&self) -> Option<&MatchState> {
        self.games.last()
    }

    /// The game an entry would belong to (1-based), 0 before any game.
    pub fn game_number(&self) -> u32 {
        self.games.len() as u32
    }

    /// Fold one entry in, or say why it does not fit (the station is then unchanged).
    pub fn apply(&mut self, entry: &Entry) -> Result<(), FoldError> {
        let at_ms = entry.at_ms();
        if at_ms < self.last_at {
            return Err(FoldError::TimeWentBack {
                at_ms,
                last_ms: self.last_at,
            });
        }
        match entry {
            Entry::NewGame { setup, .. } => {
                let game = MatchState::new(setup.clone())?;
                self.games.push(game);
            }
            Entry::Event(event) => {
                let current = self.games.last_mut().ok_or(FoldError::NoGame)?;
                *current = referee::apply(current, event)?;
            }
        }
        self.last_at = at_ms;
        Ok(())
    }
}
