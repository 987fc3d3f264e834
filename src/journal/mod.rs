//! The crash-safe journal: every match event, append-only, in SQLite (WAL,
//! synchronous=FULL), with evidence blobs by content hash beside the database.
//!
//! The station's state is a fold over the journal ([`Station::apply`] is pure); the
//! journal adds durability, nothing else. Nothing is ever deleted or updated: an
//! override or an undo is a new entry. A station killed at any instant reopens the
//! same data directory with every acknowledged entry and the same state.

mod evidence;
mod fold;
mod store;
pub mod synth;

pub use evidence::{hash_of, EvidenceStore};
pub use fold::{Entry, FoldError, Station};
pub use store::{Journal, JournalError, Problem, Recorded, DB_FILE};

use sha2::{Digest, Sha256};

/// A short fingerprint of a station's state (the number of games and the current
/// game's full snapshot; earlier games no longer change), to compare a restarted
/// station with the one that wrote the journal.
pub fn digest(station: &Station) -> String {
    let mut h = Sha256::new();
    h.update(station.games.len().to_le_bytes());
    h.update(station.last_at.to_le_bytes());
    if let Some(game) = station.current() {
        let snap = game.snapshot(game.last_at());
        h.update(serde_json::to_vec(&snap).expect("snapshots serialise"));
    }
    format!("{:x}", h.finalize())[..16].to_string()
}

#[cfg(test)]
mod tests;
