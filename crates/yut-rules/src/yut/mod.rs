//! The yut rules engine, pure: the board graph, game state, legal moves and game
//! records. Every rule of `docs/yut-rules.md` lives here, once:
//!
//! - `board.rs`: the 29 stations as data (ids, Korean names, links, junctions).
//! - `result.rs`: what a throw reads as (도 … 낙) and the stick-count table.
//! - `config.rs`: rules options with their documented defaults.
//! - `game.rs`: state, `legal_moves`, `apply` (moving, 뒷도, stacking, capturing,
//!   the turn and its extra throws).
//! - `record.rs`: the `yut-record/1` format and its replay.
//! - `render.rs`: the board drawn as text for people.
//! - `random.rs`: seeded random throws and placers (demo, tests, benchmarks).

pub mod board;
mod config;
mod game;
pub mod random;
mod record;
pub mod render;
mod result;

pub use board::{Diagonal, StationId};
pub use config::{RulesConfig, ThrowerRotation};
pub use game::{
    apply, legal_moves, legal_moves_into, reachable, steps_to_finish, Destination, GameEvent,
    GameState, Move, Origin, Phase, RuleError, Stack, Team,
};
pub use record::{GameRecord, GameSummary, ReplayError, TeamSummary, FORMAT};
pub use result::{ThrowResult, UnknownResult};
