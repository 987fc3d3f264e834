//! Rules options: the decisions of `docs/yut-rules.md` that a tournament may change,
//! with the documented defaults. Records carry only the non-default ones.
//!
//! Pure.

use serde::{Deserialize, Serialize};

/// Who makes each physical throw (`docs/yut-rules.md`, "Throwing").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThrowerRotation {
    /// Every physical throw, extra throws included, is made by the next thrower in
    /// the team's rotation, and the rotation carries over between turns (default).
    #[default]
    PerThrow,
    /// One thrower makes every throw of a turn; the next turn passes to the next
    /// thrower.
    PerTurn,
}

/// The typed rules configuration. Unknown options are refused when read.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesConfig {
    /// See [`ThrowerRotation`].
    pub thrower_rotation: ThrowerRotation,
}

impl RulesConfig {
    /// True when every option has its default (records then omit `options`).
    pub fn is_default(&self) -> bool {
        *self == RulesConfig::default()
    }
}
