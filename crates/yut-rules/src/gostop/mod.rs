//! Go-Stop (고스톱) by the 전국 고스톱 통일안 (`docs/gostop-rules.md`), pure: the
//! 48-card deck ([`card`]), scoring and settlement with the `tongilan` and `common`
//! presets ([`score`]), the `gostop-score/1` sheet ([`sheet`]) and the hand engine
//! ([`engine`]). No I/O, no clocks; the only randomness is a seeded shuffle.

pub mod card;
pub mod engine;
pub mod score;
pub mod sheet;
pub mod sim;

pub use card::{Card, CardSet, Kind, Month};
pub use engine::{
    deal, deal_deck, random_hand, Decision, GostopError, HandPhase, HandState, Layout, Outcome,
    Table,
};
pub use score::{settle, HandResult, Preset, Settlement};
pub use sheet::{Report, Sheet, SheetError};
pub use sim::{simulate, Summary};
