//! What the journal stores and the pure fold that turns it into the station's
//! state: [`Entry`] is one stored line, [`MatchLog`] every game folded from them.
//! The store itself (SQLite, evidence files) is the station's, `yutstation::journal`.

use crate::{MatchError, MatchEvent, MatchSetup, MatchState, Millis, SetupError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// The state of a station's journal folded: every game in it, the last one current.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatchLog {
    /// `games[n - 1]` is game `n`.
    pub games: Vec<MatchState>,
    /// Time of the last entry folded.
    pub last_at: Millis,
}

impl MatchLog {
    /// The game events now go to.
    pub fn current(&self) -> Option<&MatchState> {
        self.games.last()
    }

    /// The game an entry would belong to (1-based), 0 before any game.
    pub fn game_number(&self) -> u32 {
        self.games.len() as u32
    }

    /// Fold one entry in, or say why it does not fit (the log is then unchanged).
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
                *current = crate::apply(current, event)?;
            }
        }
        self.last_at = at_ms;
        Ok(())
    }
}

/// A short fingerprint of a log's state (the number of games and the current
/// game's full snapshot; earlier games no longer change), to compare a restarted
/// station with the one that wrote the journal.
pub fn digest(log: &MatchLog) -> String {
    let mut h = Sha256::new();
    h.update(log.games.len().to_le_bytes());
    h.update(log.last_at.to_le_bytes());
    if let Some(game) = log.current() {
        let snap = game.snapshot(game.last_at());
        h.update(serde_json::to_vec(&snap).expect("snapshots serialise"));
    }
    format!("{:x}", h.finalize())[..16].to_string()
}
