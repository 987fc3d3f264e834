//! The game rules, pure: values in, values out, no I/O, no clock.
//!
//! - [`yut`]: the yut (윷놀이) engine: the 29-station board as data, throws and
//!   their results, the game state, legal moves, `apply`, game records
//!   (`docs/yut-rules.md`, `docs/game-record.md`).
//! - [`gostop`]: Go-Stop (고스톱) by the 통일안: the deck, scoring, settlement, score
//!   sheets and the hand engine (`docs/gostop-rules.md`, `docs/score-sheet.md`).
//!
//! Every rule lives here once; the match, the station and the pages only call it.

pub mod gostop;
pub mod yut;
