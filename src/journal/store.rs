//! The SQLite journal: one append-only table of entries, WAL with synchronous=FULL so
//! that an acknowledged append has been fsynced, and the evidence folder beside it.
//!
//! Shell: SQLite and files.

use super::evidence::EvidenceStore;
use rusqlite::{params, Connection, OpenFlags};
use std::fmt;
use std::path::{Path, PathBuf};
use yut_match::{Entry, FoldError, MatchLog};
use yut_match::{EvidenceRef, Millis};

/// The database file inside a data directory.
pub const DB_FILE: &str = "journal.sqlite3";

const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    game  INTEGER NOT NULL,
    body  TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
";

/// An entry as stored, with its id, time and game number.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub id: i64,
    pub at_ms: Millis,
    pub game: u32,
    pub entry: Entry,
}

/// Something wrong found while opening: reported, one line each, while everything
/// else is still read and folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The database file is damaged; `read` entries could still be read.
    Damaged { path: PathBuf, detail: String },
    /// A row whose body cannot be decoded; skipped.
    Unreadable { id: i64, detail: String },
    /// An entry the fold refuses (e.g. written by another version); skipped.
    Refused { id: i64, detail: String },
    /// An event refers to an evidence blob that is not in the evidence folder.
    MissingEvidence {
        id: i64,
        hash: EvidenceRef,
        path: PathBuf,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Damaged { path, detail } => write!(
                f,
                "journal {} is damaged ({detail}); what could be read is shown, new events are refused: copy the data directory aside and start the station on a new one",
                path.display()
            ),
            Problem::Unreadable { id, detail } => {
                write!(f, "journal event #{id} cannot be decoded ({detail}); skipped")
            }
            Problem::Refused { id, detail } => {
                write!(f, "journal event #{id} does not fit the match ({detail}); skipped")
            }
            Problem::MissingEvidence { id, hash, path } => write!(
                f,
                "evidence {hash} of event #{id} is missing ({}); the call stands, the image cannot be shown",
                path.display()
            ),
        }
    }
}

/// Why the journal cannot do what was asked. One line each.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot use data directory {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("journal {path} cannot be opened ({source}): if it is damaged, copy the data directory aside and start on a new one")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("journal {path} is damaged; new events are refused (copy the data directory aside and start on a new one)")]
    ReadOnly { path: PathBuf },
    #[error("journal {path} has format version {found}; this station reads version 1")]
    Version { path: PathBuf, found: i64 },
    #[error("event refused: {0}")]
    Refused(#[from] FoldError),
    #[error("writing the journal failed: {0}")]
    Write(rusqlite::Error),
    #[error("evidence: {0}")]
    Evidence(std::io::Error),
}

/// An open journal and the station state folded from it.
pub struct Journal {
    conn: Connection,
    path: PathBuf,
    evidence: EvidenceStore,
    station: MatchLog,
    damaged: bool,
}

impl Journal {
    /// Open (or create) the journal in `dir` and fold every entry. Problems that do
    /// not stop the station are returned alongside, one line each.
    pub fn open(dir: &Path) -> Result<(Journal, Vec<Problem>), JournalError> {
        std::fs::create_dir_all(dir).map_err(|source| JournalError::Dir {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(DB_FILE);
        let open_err = |source| JournalError::Open {
            path: path.clone(),
            source,
        };
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        )
        .map_err(open_err)?;
        // WAL + FULL: a commit returns only after the WAL is fsynced.
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(open_err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(open_err(rusqlite::Error::InvalidQuery));
        }
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(open_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(open_err)?;
        // Write the schema only into a new file: never write into one that may be
        // damaged before it has been checked.
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(open_err)?;
        if version == 0 {
            conn.execute_batch(SCHEMA).map_err(open_err)?;
            conn.pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(open_err)?;
        } else if version != SCHEMA_VERSION {
            return Err(JournalError::Version {
                path: path.clone(),
                found: version,
            });
        }

        let evidence = EvidenceStore::new(dir.join("evidence"));
        let mut problems = Vec::new();
        let (rows, damage) = read_rows(&conn);
        let mut damaged = false;
        if let Some(detail) = damage.or_else(|| quick_check(&conn)) {
            damaged = true;
            problems.push(Problem::Damaged {
                path: path.clone(),
                detail,
            });
        }
        let mut station = MatchLog::default();
        for row in rows {
            match row {
                Err(p) => problems.push(p),
                Ok(rec) => {
                    if let Err(e) = station.apply(&rec.entry) {
                        problems.push(Problem::Refused {
                            id: rec.id,
                            detail: e.to_string(),
                        });
                        continue;
                    }
                    if let Entry::Event(e) = &rec.entry {
                        if let yut_match::Action::Throw { verdict } = &e.action {
                            for hash in &verdict.evidence {
                                if !evidence.contains(hash) {
                                    problems.push(Problem::MissingEvidence {
                                        id: rec.id,
                                        hash: hash.clone(),
                                        path: evidence.path_of(hash),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok((
            Journal {
                conn,
                path,
                evidence,
                station,
                damaged,
            },
            problems,
        ))
    }

    /// The state folded from every entry.
    pub fn log(&self) -> &MatchLog {
        &self.station
    }

    /// The journal mode and synchronous level in force (`wal`, 2 = FULL).
    pub fn settings(&self) -> rusqlite::Result<(String, i64)> {
        let mode = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        let sync = self
            .conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))?;
        Ok((mode, sync))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Check `entry` against the state, then append it durably: when this returns
    /// `Ok(id)`, the entry is on disk. A refused entry is not written.
    pub fn append(&mut self, entry: &Entry) -> Result<i64, JournalError> {
        if self.damaged {
            return Err(JournalError::ReadOnly {
                path: self.path.clone(),
            });
        }
        // Fold first (atomic: refused leaves the station as it was), keeping what is
        // needed to step back if the write fails.
        let before = (
            self.station.games.len(),
            self.station.current().cloned(),
            self.station.last_at,
        );
        self.station.apply(entry)?;
        let body = serde_json::to_string(entry).expect("entries always serialise");
        let written = self.conn.execute(
            "INSERT INTO events (at_ms, game, body) VALUES (?1, ?2, ?3)",
            params![entry.at_ms() as i64, self.station.game_number(), body],
        );
        if let Err(e) = written {
            let (games, current, last_at) = before;
            self.station.games.truncate(games);
            if let (Some(game), Some(slot)) = (current, self.station.games.last_mut()) {
                *slot = game;
            }
            self.station.last_at = last_at;
            return Err(JournalError::Write(e));
        }
        Ok(self.conn.last_insert_rowid())
    }

    /// Store an evidence blob durably and return its reference, before any event
    /// that refers to it is appended.
    pub fn put_evidence(&self, bytes: &[u8]) -> Result<EvidenceRef, JournalError> {
        self.evidence.put(bytes).map_err(JournalError::Evidence)
    }

    /// Read an evidence blob back, checking its hash.
    pub fn evidence(&self, hash: &EvidenceRef) -> Result<Vec<u8>, JournalError> {
        self.evidence.get(hash).map_err(JournalError::Evidence)
    }

    /// Every stored entry in id order (undecodable ones as problems).
    pub fn entries(&self) -> (Vec<Recorded>, Vec<Problem>) {
        let (rows, damage) = read_rows(&self.conn);
        let mut problems: Vec<Problem> = damage
            .map(|detail| Problem::Damaged {
                path: self.path.clone(),
                detail,
            })
            .into_iter()
            .collect();
        let mut out = Vec::new();
        for r in rows {
            match r {
                Ok(rec) => out.push(rec),
                Err(p) => problems.push(p),
            }
        }
        (out, problems)
    }
}

/// Read every row; a failure part-way (a damaged file) ends the read with what was
/// read so far and the reason.
fn read_rows(conn: &Connection) -> (Vec<Result<Recorded, Problem>>, Option<String>) {
    let mut out = Vec::new();
    let mut stmt = match conn.prepare("SELECT id, at_ms, game, body FROM events ORDER BY id") {
        Ok(s) => s,
        Err(e) => return (out, Some(e.to_string())),
    };
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3),
        ))
    });
    let rows = match rows {
        Ok(r) => r,
        Err(e) => return (out, Some(e.to_string())),
    };
    for row in rows {
        match row {
            Err(e) => return (out, Some(e.to_string())),
            Ok((id, at_ms, game, body)) => {
                let decoded = body
                    .map_err(|e| e.to_string())
                    .and_then(|b| serde_json::from_str::<Entry>(&b).map_err(|e| e.to_string()));
                out.push(match decoded {
                    Ok(entry) => Ok(Recorded {
                        id,
                        at_ms: at_ms as Millis,
                        game: game as u32,
                        entry,
                    }),
                    Err(detail) => Err(Problem::Unreadable { id, detail }),
                });
            }
        }
    }
    (out, None)
}

/// SQLite's own consistency check; `None` when it finds nothing.
fn quick_check(conn: &Connection) -> Option<String> {
    let result: Result<Vec<String>, _> = conn
        .prepare("PRAGMA quick_check")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect());
    match result {
        Ok(lines) if lines.len() == 1 && lines[0] == "ok" => None,
        Ok(lines) => Some(lines.join("; ")),
        Err(e) => Some(e.to_string()),
    }
}
