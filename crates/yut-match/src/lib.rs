//! The match at one mat, pure: roster and throwing order, substitutions, clocks and
//! timeouts, warnings and protests, calls and overrides (`docs/yut-rules.md`,
//! "Teams and officials" and "Throwing"); and the fold of the station's journal.
//!
//! [`MatchState`] changes only through [`apply`] with a [`MatchEvent`], each carrying
//! the time it happened: no wall clock, no I/O. The board itself is the rules
//! engine's: the game state is a fold of the effective throws and the moves through
//! `yut_rules::yut::apply`, so a corrected call is a new input and a new fold, never
//! a patch.
//!
//! - `event`, `setup`, `state` (re-exported here): the match machine.
//! - [`log`]: what the journal stores ([`Entry`]) and its fold ([`MatchLog`]).
//! - [`synth`]: synthetic legal events for benchmarks and crash tests.

mod event;
pub mod log;
mod setup;
mod state;
pub mod synth;

pub use event::{
    Action, EvidenceRef, FacesUp, MatchEvent, Millis, SticksRead, TeamIx, ThrowNo, Verdict,
};
pub use log::{digest, Entry, FoldError, MatchLog};
pub use setup::{MatchOptions, MatchSetup, Player, Posture, SetupError, Stance, TeamSetup};
pub use state::{
    apply, Call, CallSource, Input, Invalidation, Item, Lineup, MatchError, MatchState,
    NextThrower, Override, Remark, Snapshot, Status, Stopwatch, Substitution, ThrowClock,
    ThrowRecord, Timeout,
};

#[cfg(test)]
mod tests;
