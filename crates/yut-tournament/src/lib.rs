//! One yut tournament across many mats, pure: the teams and their roster CSV
//! ([`roster`]), the draw and its formats ([`draw`]), the office's journal and its
//! fold into results, the bracket and the next mat assignments ([`office`]), group
//! tables, tiebreaks and final standings ([`standings`]), the MQTT topics and
//! messages between stations and office ([`wire`]) and a game that plays itself
//! for load tests ([`play`]).
//!
//! No I/O and no clock: every entry carries its time. The broker, the office's
//! store and its pages are the shell's (`yutstation::office`). See
//! `docs/tournament.md`.

pub mod draw;
pub mod office;
pub mod play;
pub mod roster;
pub mod standings;
pub mod wire;

pub use draw::{make_draw, Draw, DrawError, Fixture, FixtureId, Format, Slot, Stage};
pub use office::{
    Assignment, FixtureView, How, MatFeed, MatNo, OfficeEntry, OfficeError, Outcome, Tournament,
};
pub use roster::{parse_csv, sample_teams, RosterError, Team};
pub use standings::{GroupRow, GroupTable, Standing};

#[cfg(test)]
mod tests;
