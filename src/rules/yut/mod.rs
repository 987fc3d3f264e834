//! The yut rules engine, pure: the board graph, game state, legal moves and game
//! records. Every rule of `docs/yut-rules.md` lives here, once.

mod result;

pub use result::ThrowResult;
