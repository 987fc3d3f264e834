//! What the journal says beyond the calls, pure: the chance each team wins from
//! the current position, and whether the sticks are fair.
//!
//! - [`shares`]: how a stick set falls (each stick's share of flat-face landings)
//!   and the chance of each result that follows.
//! - [`placer`]: a sensible placer for playouts: greedy on progress, captures,
//!   finishing and the opponent's reach.
//! - [`chances`]: Monte Carlo playouts from a position to the win chances, and the
//!   calibration check over simulated games.
//! - [`reads`]: the throws of a journal whose four sticks were read.
//! - [`fairness`]: shares with confidence intervals, the results against what the
//!   shares predict, and the sequential test that flags a stick.
//! - [`simulate`]: simulated journals of sticks with known shares, to measure how
//!   often the flag is raised.
//!
//! Pure: values in, values out; randomness is seeded by the caller. Depends on
//! `yut-rules` and `yut-match` only (and rand, serde, statrs).

pub mod chances;
pub mod fairness;
pub mod placer;
pub mod reads;
pub mod shares;
pub mod simulate;

pub use chances::{win_chances, WinChances};
pub use fairness::{FairnessConfig, FairnessReport};
pub use reads::{throws_read, ThrowRead};
pub use shares::StickShares;
