//! Game records, format `yut-record/1` (`docs/game-record.md`): read strictly, write
//! canonically, replay through [`apply`].
//!
//! Pure: text in, values out.

use super::config::RulesConfig;
use super::game::{apply, legal_moves, GameEvent, GameState, Move, Phase};
use super::result::ThrowResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const FORMAT: &str = "yut-record/1";

fn default_pieces() -> u8 {
    4
}

/// The portable history of one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    pub format: String,
    pub teams: [String; 2],
    #[serde(default = "default_pieces")]
    pub pieces_per_team: u8,
    #[serde(default, skip_serializing_if = "RulesConfig::is_default")]
    pub options: RulesConfig,
    pub events: Vec<GameEvent>,
}

/// Why a record could not be read or replayed. `index` is the 0-based event index
/// when one event is to blame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", index.map(|i| format!("event {i}: ")).unwrap_or_default())]
pub struct ReplayError {
    pub index: Option<usize>,
    pub message: String,
}

impl ReplayError {
    fn record(message: impl Into<String>) -> Self {
        ReplayError {
            index: None,
            message: message.into(),
        }
    }
}

impl GameRecord {
    pub fn new(teams: [String; 2], pieces_per_team: u8, options: RulesConfig) -> GameRecord {
        GameRecord {
            format: FORMAT.to_string(),
            teams,
            pieces_per_team,
            options,
            events: Vec::new(),
        }
    }

    /// Read a record strictly: a wrong `format`, unknown keys or options, and a
    /// malformed event are errors that say where.
    pub fn parse(text: &str) -> Result<GameRecord, ReplayError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| ReplayError::record(format!("not valid JSON: {e}")))?;
        let serde_json::Value::Object(mut object) = value else {
            return Err(ReplayError::record("a record must be a JSON object"));
        };
        match object.get("format") {
            Some(serde_json::Value::String(f)) if f == FORMAT => {}
            Some(other) => {
                return Err(ReplayError::record(format!(
                    "wrong format {other}: expected \"{FORMAT}\""
                )))
            }
            None => {
                return Err(ReplayError::record(format!(
                    "missing \"format\": expected \"{FORMAT}\""
                )))
            }
        }
        // Events are checked one by one so an error can name the index.
        let events = match object.remove("events") {
            Some(serde_json::Value::Array(events)) => events,
            Some(_) => return Err(ReplayError::record("\"events\" must be a list")),
            None => return Err(ReplayError::record("missing \"events\"")),
        };
        object.insert("events".into(), serde_json::Value::Array(Vec::new()));
        let mut record: GameRecord = serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| ReplayError::record(e.to_string()))?;
        for (index, event) in events.into_iter().enumerate() {
            let event: GameEvent = serde_json::from_value(event).map_err(|e| ReplayError {
                index: Some(index),
                message: e.to_string(),
            })?;
            record.events.push(event);
        }
        record.validate()?;
        Ok(record)
    }

    fn validate(&self) -> Result<(), ReplayError> {
        if self.teams.iter().any(|t| t.trim().is_empty()) {
            return Err(ReplayError::record("team names must not be empty"));
        }
        if self.teams[0] == self.teams[1] {
            return Err(ReplayError::record("the two teams need different names"));
        }
        if !(1..=16).contains(&self.pieces_per_team) {
            return Err(ReplayError::record(
                "pieces_per_team must be between 1 and 16",
            ));
        }
        Ok(())
    }

    /// The state before any event.
    pub fn initial_state(&self) -> GameState {
        GameState::new(
            self.teams.clone(),
            self.pieces_per_team,
            self.options.clone(),
        )
    }

    /// Replay every event; the first illegal one stops the replay with its index.
    pub fn replay(&self) -> Result<GameState, ReplayError> {
        let mut state = self.initial_state();
        for (index, event) in self.events.iter().enumerate() {
            state = apply(&state, event).map_err(|e| ReplayError {
                index: Some(index),
                message: e.to_string(),
            })?;
        }
        Ok(state)
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record always serialises")
    }
}

/// The state as `game replay --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    pub phase: Phase,
    pub turn: String,
    pub pending: Vec<ThrowResult>,
    pub throws_owed: u32,
    pub teams: Vec<TeamSummary>,
    pub legal: Vec<Move>,
    pub winner: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamSummary {
    pub name: String,
    pub waiting: u8,
    pub finished: u8,
    /// Station id → how many of the team's pieces stand there.
    pub board: BTreeMap<String, u8>,
}

impl GameState {
    pub fn summary(&self) -> GameSummary {
        GameSummary {
            phase: self.phase(),
            turn: self.teams()[self.turn()].name.clone(),
            pending: self.pending().to_vec(),
            throws_owed: self.throws_owed(),
            teams: self
                .teams()
                .iter()
                .map(|team| TeamSummary {
                    name: team.name.clone(),
                    waiting: team.waiting,
                    finished: team.finished,
                    board: team
                        .stacks
                        .iter()
                        .map(|s| (s.station.id().to_string(), s.pieces))
                        .collect(),
                })
                .collect(),
            legal: legal_moves(self),
            winner: self.winner().map(|w| self.teams()[w].name.clone()),
        }
    }
}
