//! The match at one mat, pure: roster and throwing order, substitutions, clocks and
//! timeouts, warnings and protests, calls and overrides (`docs/yut-rules.md`,
//! "Teams and officials" and "Throwing").
//!
//! [`MatchState`] changes only through [`apply`] with a [`MatchEvent`], each carrying
//! the time it happened: no wall clock, no I/O. The board itself is the rules
//! engine's: the game state is a fold of the effective throws and the moves through
//! `rules::yut::apply`, so a corrected call is a new input and a new fold, never a
//! patch.

mod event;
mod setup;
mod state;

use crate::rules::yut;

pub use event::{Action, EvidenceRef, MatchEvent, Millis, TeamIx, ThrowNo, Verdict};
pub use setup::{MatchOptions, MatchSetup, Player, Posture, SetupError, Stance, TeamSetup};
pub use state::{
    apply, Call, CallSource, Input, Invalidation, Item, Lineup, MatchError, MatchState,
    NextThrower, Override, Remark, Snapshot, Status, Stopwatch, Substitution, ThrowClock,
    ThrowRecord, Timeout,
};

#[cfg(test)]
mod tests;
