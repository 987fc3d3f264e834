//! The office's journal: one append-only SQLite table of [`OfficeEntry`], the same
//! design as the station's (`crate::journal`): WAL with synchronous=FULL, so an
//! acknowledged append has been fsynced; UPDATE and DELETE refused by triggers; the
//! tournament is the fold of every entry.
//!
//! Shell: SQLite.

use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};
use yut_tournament::{OfficeEntry, Tournament};

/// The database file inside the office's data directory.
pub const DB_FILE: &str = "office.sqlite3";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    body  TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
    BEGIN SELECT RAISE(ABORT, 'the office journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
    BEGIN SELECT RAISE(ABORT, 'the office journal is append-only'); END;
";

/// The open journal and the tournament folded from it.
pub struct OfficeJournal {
    conn: Connection,
    path: PathBuf,
    state: Tournament,
    entries: u64,
}

impl OfficeJournal {
    /// Open (or create) the journal in `dir` and fold it. Entries the fold refuses
    /// (none, unless written by another version) are returned as one line each.
    pub fn open(dir: &Path) -> anyhow::Result<(OfficeJournal, Vec<String>)> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot use data directory {}: {e}", dir.display()))?;
        let path = dir.join(DB_FILE);
        let conn = Connection::open(&path)
            .map_err(|e| anyhow::anyhow!("office journal {}: {e}", path.display()))?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        anyhow::ensure!(
            mode.eq_ignore_ascii_case("wal"),
            "office journal {}: WAL mode refused",
            path.display()
        );
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        let mut state = Tournament::default();
        let mut problems = Vec::new();
        let mut entries = 0;
        {
            let mut stmt = conn.prepare("SELECT id, body FROM entries ORDER BY id")?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            for row in rows {
                let (id, body) = row?;
                entries += 1;
                match serde_json::from_str::<OfficeEntry>(&body) {
                    Ok(e) => {
                        if let Err(err) = state.apply(&e) {
                            problems
                                .push(format!("office entry #{id} does not fit ({err}); skipped"));
                        }
                    }
                    Err(err) => problems.push(format!(
                        "office entry #{id} cannot be read ({err}); skipped"
                    )),
                }
            }
        }
        Ok((
            OfficeJournal {
                conn,
                path,
                state,
                entries,
            },
            problems,
        ))
    }

    pub fn state(&self) -> &Tournament {
        &self.state
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many entries the journal holds.
    pub fn len(&self) -> u64 {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Fold then append one entry durably; a refused entry is not written.
    pub fn append(&mut self, entry: OfficeEntry) -> anyhow::Result<()> {
        self.append_all(vec![entry]).map(|_| ())
    }

    /// Fold every entry that fits, then write them in one transaction (one fsync).
    /// Returns what each entry came to (refused ones are not written). When the
    /// write fails, the state is folded afresh from the disk and the error returned.
    pub fn append_all(
        &mut self,
        entries: Vec<OfficeEntry>,
    ) -> anyhow::Result<Vec<Result<(), yut_tournament::OfficeError>>> {
        let mut outcome = Vec::with_capacity(entries.len());
        let mut accepted = Vec::new();
        for e in entries {
            let r = self.state.apply(&e);
            if r.is_ok() {
                accepted.push(e);
            }
            outcome.push(r);
        }
        if accepted.is_empty() {
            return Ok(outcome);
        }
        let written = (|| -> rusqlite::Result<()> {
            let tx = self.conn.transaction()?;
            {
                let mut stmt =
                    tx.prepare_cached("INSERT INTO entries (at_ms, body) VALUES (?1, ?2)")?;
                for e in &accepted {
                    let body = serde_json::to_string(e).expect("entries serialise");
                    stmt.execute(params![e.at_ms() as i64, body])?;
                }
            }
            tx.commit()
        })();
        match written {
            Ok(()) => {
                self.entries += accepted.len() as u64;
                Ok(outcome)
            }
            Err(e) => {
                let dir = self
                    .path
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                let (fresh, _) = OfficeJournal::open(&dir)?;
                *self = fresh;
                Err(anyhow::anyhow!("writing the office journal failed: {e}"))
            }
        }
    }

    /// Every entry in order (for a rebuild and `office show`).
    pub fn entries(&self) -> anyhow::Result<Vec<OfficeEntry>> {
        let mut stmt = self.conn.prepare("SELECT body FROM entries ORDER BY id")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for body in rows {
            if let Ok(e) = serde_json::from_str(&body?) {
                out.push(e);
            }
        }
        Ok(out)
    }
}
