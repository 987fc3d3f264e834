//! The crash-safe journal: every match event, append-only, in SQLite (WAL,
//! synchronous=FULL), chained by hash, with a head record and a lock beside the
//! database and evidence blobs by content hash.
//!
//! The station's state is a fold over the journal (`yut_match::MatchLog::apply`,
//! pure, with the entries it stores, `yut_match::Entry`); this store adds
//! durability, nothing else. Nothing is ever deleted or updated: an
//! override or an undo is a new entry. A station killed at any instant reopens the
//! same data directory with every acknowledged entry and the same state; a journal
//! that lost or changed acknowledged entries says which, and takes no more
//! (ADR 0090).

mod evidence;
mod head;
mod lock;
mod store;

pub use evidence::{hash_of, EvidenceStore};
pub use head::HEAD_FILE;
pub use lock::LOCK_FILE;
pub use store::{Journal, JournalError, Problem, Recorded, DB_FILE};

#[cfg(test)]
mod tests;
