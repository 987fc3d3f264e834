//! The SQLite journal: one append-only table of entries, WAL with synchronous=FULL so
//! that an acknowledged append has been fsynced, a hash chain over the entries, the
//! head record beside the database (`head.rs`), the lock on the data directory
//! (`lock.rs`) and the evidence folder.
//!
//! Opening checks, before anything is written, that the journal is the one that was
//! acknowledged: every event chained to the one before it, the chain ending where
//! the head says it ended. A journal that lost its tail, or whose events were
//! changed, is read and reported with what is missing, and refuses new events; a
//! journal whose database is gone is lost, not new (ADR 0090).
//!
//! Shell: SQLite and files.

use super::evidence::EvidenceStore;
use super::head::{self, Found, Head, HeadFile, GENESIS, HEAD_FILE};
use super::lock::{DirLock, LockError};
use crate::text::utc_text;
use rusqlite::config::DbConfig;
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OpenFlags};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};
use yut_match::{Entry, FoldError, MatchLog};
use yut_match::{EvidenceRef, Millis};

/// The database file inside a data directory.
pub const DB_FILE: &str = "journal.sqlite3";

/// Version 1: the events without the chain. Version 2 adds `chain`: each event's
/// hash chained to the one before it (read both; write 2).
const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ms INTEGER NOT NULL,
    game  INTEGER NOT NULL,
    body  TEXT    NOT NULL,
    chain TEXT
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
/// else is still read and folded. Files are named inside the data directory, never
/// by a path of the machine (the lines reach the pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The database file is damaged; what came before the damage could be read.
    Damaged { detail: String },
    /// Acknowledged events `from..=to` are not in the database (its tail was lost,
    /// or rows inside it). `last_at` is the last one's time when the head knows it.
    Lost {
        from: i64,
        to: i64,
        last_at: Option<Millis>,
    },
    /// Event `id` does not match the chain: it, or an event before it, was changed
    /// after it was written, or written by something other than the station.
    Altered { id: i64 },
    /// Events up to `upto` were written by a station before the chain; they are
    /// read as they are and chained from here on (once, when the journal is
    /// first opened by this version).
    Unchained { upto: i64 },
    /// The head record is missing or unreadable: a lost tail cannot be ruled out.
    NoHead { unreadable: bool },
    /// A row whose body cannot be decoded; skipped.
    Unreadable { id: i64, detail: String },
    /// An entry the fold refuses (e.g. written by another version); skipped.
    Refused { id: i64, detail: String },
    /// An event refers to an evidence blob that is not in the evidence folder.
    MissingEvidence { id: i64, hash: EvidenceRef },
}

impl Problem {
    /// Whether the journal refuses new events because of it: it is not the journal
    /// that was acknowledged, and writing on would fork it.
    pub fn blocks_writing(&self) -> bool {
        matches!(
            self,
            Problem::Damaged { .. } | Problem::Lost { .. } | Problem::Altered { .. }
        )
    }
}

const RESTART: &str = "what is left is shown and new events are refused: copy the data directory aside, then restart the station with --new-journal";

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Damaged { detail } => {
                write!(f, "journal {DB_FILE} is damaged ({detail}); {RESTART}")
            }
            Problem::Lost { from, to, last_at } => {
                let what = if from == to {
                    format!("acknowledged event #{to} is")
                } else {
                    format!(
                        "{} acknowledged events (#{from}..=#{to}) are",
                        to.saturating_sub(*from).saturating_add(1)
                    )
                };
                let when = last_at
                    .map(|t| format!(", the last at {}", utc_text(t)))
                    .unwrap_or_default();
                write!(f, "{what} missing from {DB_FILE}{when}; {RESTART}")
            }
            Problem::Altered { id } => write!(
                f,
                "journal event #{id} does not match the chain: it or an event before it was changed after it was written; {RESTART}"
            ),
            Problem::Unchained { upto } => write!(
                f,
                "journal events up to #{upto} were written before the journal was chained (an older station): read as they are, chained from here on"
            ),
            Problem::NoHead { unreadable } => write!(
                f,
                "{HEAD_FILE} is {}: a lost tail of the journal cannot be ruled out; written again from the database",
                if *unreadable { "unreadable" } else { "missing" }
            ),
            Problem::Unreadable { id, detail } => {
                write!(f, "journal event #{id} cannot be decoded ({detail}); skipped")
            }
            Problem::Refused { id, detail } => {
                write!(f, "journal event #{id} does not fit the match ({detail}); skipped")
            }
            Problem::MissingEvidence { id, hash } => write!(
                f,
                "evidence {hash} of event #{id} is missing (evidence/{}/{hash}); the call stands, the image cannot be shown",
                &hash.as_str()[..2]
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
    #[error("data directory {} is in use by another station{}: one station writes a journal at a time (stop the other, or give this one another --data)", path.display(), pid.map(|p| format!(" (process {p})")).unwrap_or_default())]
    Locked { path: PathBuf, pid: Option<u32> },
    #[error("no journal in {} (expected {DB_FILE} there)", path.display())]
    NoJournal { path: PathBuf },
    #[error("the journal in {} is lost, not new: {DB_FILE} is {what} but {HEAD_FILE} records {events} acknowledged events (the last, #{last_id}, at {}); restore the data directory from a copy, or start afresh with --new-journal (the old files are kept aside)", path.display(), utc_text(*last_at))]
    Lost {
        path: PathBuf,
        what: &'static str,
        events: u64,
        last_id: i64,
        last_at: Millis,
    },
    #[error("the journal in {} is lost, not new: {DB_FILE} is missing or empty but its write-ahead log {DB_FILE}-wal is there; restore the data directory from a copy, or start afresh with --new-journal (the old files are kept aside)", path.display())]
    LogWithoutDatabase { path: PathBuf },
    #[error("{DB_FILE} in {} is missing or empty and {HEAD_FILE} is unreadable: a new journal cannot be told from a lost one; restore the data directory from a copy, or start afresh with --new-journal (the old files are kept aside)", path.display())]
    Undecidable { path: PathBuf },
    #[error("journal {path} cannot be opened ({source}): if it is damaged, copy the data directory aside and start afresh with --new-journal")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("the journal refuses new events: {0}")]
    ReadOnly(String),
    #[error("journal {path} has format version {found}; this station reads versions 1 and 2")]
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
    /// Why new events are refused, when they are.
    blocked: Option<String>,
    chain: [u8; 32],
    /// Whether the table has the chain column (version 2).
    chained: bool,
    /// The next event's id (ids are never reused, even across a `--new-journal`).
    next_id: i64,
    last_id: i64,
    events: u64,
    /// The head record (writers only).
    head: Option<HeadFile>,
    /// The data directory's lock (writers only); released when the journal closes.
    _lock: Option<DirLock>,
}

/// How the journal is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The station's: locked, may create, maintains the head.
    Write,
    /// `--new-journal`: set the old journal aside first, then as `Write`.
    WriteNew,
    /// `journal show/export`: no lock, nothing written.
    Read,
}

impl Journal {
    /// Open (or create) the journal in `dir` for writing and fold every entry.
    /// Problems that do not stop the station are returned alongside, one line each.
    pub fn open(dir: &Path) -> Result<(Journal, Vec<Problem>), JournalError> {
        Journal::open_mode(dir, Mode::Write).map(|(j, p, _)| (j, p))
    }

    /// Start a new journal in `dir` (`--new-journal`): the old journal's files, if
    /// any, are moved into a `set-aside-…` folder inside `dir` (returned), nothing
    /// deleted; the new journal's ids continue after the old one's.
    pub fn open_new(dir: &Path) -> Result<(Journal, Vec<Problem>, Option<PathBuf>), JournalError> {
        Journal::open_mode(dir, Mode::WriteNew)
    }

    /// Open an existing journal to read it (`journal show`, `export`): no lock is
    /// taken and nothing is written, so a running station's journal can be read.
    pub fn inspect(dir: &Path) -> Result<(Journal, Vec<Problem>), JournalError> {
        Journal::open_mode(dir, Mode::Read).map(|(j, p, _)| (j, p))
    }

    fn open_mode(
        dir: &Path,
        mode: Mode,
    ) -> Result<(Journal, Vec<Problem>, Option<PathBuf>), JournalError> {
        let dir_err = |source| JournalError::Dir {
            path: dir.to_path_buf(),
            source,
        };
        let writer = mode != Mode::Read;
        let lock = if writer {
            std::fs::create_dir_all(dir).map_err(dir_err)?;
            Some(DirLock::take(dir).map_err(|e| match e {
                LockError::Held { pid } => JournalError::Locked {
                    path: dir.to_path_buf(),
                    pid,
                },
                LockError::Io(source) => dir_err(source),
            })?)
        } else {
            None
        };
        let (set_aside, floor) = if mode == Mode::WriteNew {
            set_aside(dir).map_err(dir_err)?
        } else {
            (None, 0)
        };

        let path = dir.join(DB_FILE);
        let found = head::read(dir).map_err(dir_err)?;
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let db_exists = path.exists();
        if size(&path) == 0 {
            // Nothing in SQLite's file: new, unless something says it held events.
            if let Found::Head(h) = found {
                if h.last_id > 0 {
                    return Err(JournalError::Lost {
                        path: dir.to_path_buf(),
                        what: if db_exists { "empty" } else { "missing" },
                        events: h.events,
                        last_id: h.last_id,
                        last_at: h.last_at,
                    });
                }
            }
            if found == Found::Unreadable {
                return Err(JournalError::Undecidable {
                    path: dir.to_path_buf(),
                });
            }
            if size(&dir.join(format!("{DB_FILE}-wal"))) > 0 {
                return Err(JournalError::LogWithoutDatabase {
                    path: dir.to_path_buf(),
                });
            }
            if !writer {
                return Err(JournalError::NoJournal {
                    path: dir.to_path_buf(),
                });
            }
        }

        let open_err = |source| JournalError::Open {
            path: path.clone(),
            source,
        };
        let flags = if writer {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE
        };
        let conn = Connection::open_with_flags(&path, flags).map_err(open_err)?;
        // Until the journal is known whole, closing it must not checkpoint: that
        // would fold a damaged write-ahead log into the database and delete it.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(open_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(open_err)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(open_err)?;
        if writer {
            // WAL + FULL: a commit returns only after the WAL is fsynced.
            let mode: String = conn
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
                .map_err(open_err)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(open_err(rusqlite::Error::InvalidQuery));
            }
            conn.pragma_update(None, "synchronous", "FULL")
                .map_err(open_err)?;
        }
        // Write the schema only into a new file: never write into one that may be
        // damaged before it has been checked.
        let version = match version {
            0 if writer => {
                create_schema(&conn, floor).map_err(open_err)?;
                SCHEMA_VERSION
            }
            1 | 2 => version,
            found => {
                return Err(JournalError::Version {
                    path: path.clone(),
                    found,
                })
            }
        };

        let evidence = EvidenceStore::new(dir.join("evidence"));
        let mut problems = Vec::new();
        let (rows, damage) = read_rows(&conn, version >= 2);
        if let Some(detail) = damage.or_else(|| quick_check(&conn)) {
            problems.push(Problem::Damaged { detail });
        }

        // Walk the chain: every event hashed onto the one before it.
        let mut chain = GENESIS;
        let mut last_id = 0;
        let mut last_at = 0;
        let mut events = 0u64;
        let mut chained_from = None;
        let mut altered = None;
        let head_id = match found {
            Found::Head(h) => h.last_id,
            _ => 0,
        };
        let mut chain_at_head = (head_id == 0).then_some(GENESIS);
        let mut station = MatchLog::default();
        for row in &rows {
            if last_id > 0 && row.id != last_id + 1 {
                problems.push(Problem::Lost {
                    from: last_id + 1,
                    to: row.id - 1,
                    last_at: None,
                });
            }
            chain = link(&chain, row.id, row.at_ms, row.game, &row.body);
            match &row.chain {
                Some(stored) => {
                    chained_from.get_or_insert(row.id);
                    if altered.is_none() && head::unhex(stored) != Some(chain) {
                        altered = Some(row.id);
                    }
                }
                // Unchained rows are an older station's, before the first chained one.
                None if chained_from.is_some() && altered.is_none() => altered = Some(row.id),
                None => {}
            }
            if row.id == head_id {
                chain_at_head = Some(chain);
            }
            last_id = row.id;
            last_at = row.at_ms as Millis;
            events += 1;
            let entry = match decode(&row.body) {
                Ok(e) => e,
                Err(detail) => {
                    problems.push(Problem::Unreadable { id: row.id, detail });
                    continue;
                }
            };
            if let Err(e) = station.apply(&entry) {
                problems.push(Problem::Refused {
                    id: row.id,
                    detail: e.to_string(),
                });
                continue;
            }
            if let Entry::Event(e) = &entry {
                if let yut_match::Action::Throw { verdict } = &e.action {
                    for hash in &verdict.evidence {
                        if !evidence.contains(hash) {
                            problems.push(Problem::MissingEvidence {
                                id: row.id,
                                hash: hash.clone(),
                            });
                        }
                    }
                }
            }
        }
        if let Some(id) = altered {
            problems.push(Problem::Altered { id });
        }
        match found {
            Found::Head(h) if h.last_id > last_id => problems.push(Problem::Lost {
                from: last_id + 1,
                to: h.last_id,
                last_at: Some(h.last_at),
            }),
            Found::Head(h) if chain_at_head != Some(h.chain) && altered.is_none() => {
                problems.push(Problem::Altered { id: h.last_id })
            }
            Found::Head(_) => {}
            Found::Absent if version >= 2 && events > 0 => {
                problems.push(Problem::NoHead { unreadable: false })
            }
            Found::Absent => {}
            Found::Unreadable => problems.push(Problem::NoHead { unreadable: true }),
        }
        if version == 1 && events > 0 {
            problems.push(Problem::Unchained { upto: last_id });
        }
        let blocked = problems.iter().find(|p| p.blocks_writing()).map(|p| {
            if let Problem::Damaged { .. } = p {
                format!("journal {DB_FILE} is damaged")
            } else {
                format!("the journal is not the one acknowledged ({p})")
            }
        });

        let mut head_file = None;
        if writer && blocked.is_none() {
            if version == 1 {
                migrate(&conn).map_err(open_err)?;
            }
            let known = match found {
                Found::Head(h) => Some(h),
                _ => None,
            };
            let current = Head {
                seq: known.map_or(0, |h| h.seq + 1),
                last_id,
                events,
                last_at,
                chain,
            };
            head_file = Some(
                if known.is_some_and(|h| (h.last_id, h.chain) == (last_id, chain)) {
                    HeadFile::open(dir, known.expect("checked"))
                } else {
                    HeadFile::create(dir, current)
                }
                .map_err(dir_err)?,
            );
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)
                .map_err(open_err)?;
        }
        let sequence: i64 = if version >= 2 || head_file.is_some() {
            conn.query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'events'",
                [],
                |r| r.get(0),
            )
            .unwrap_or(0)
        } else {
            0
        };
        Ok((
            Journal {
                conn,
                path,
                evidence,
                station,
                blocked,
                chain,
                chained: version >= 2 || head_file.is_some(),
                next_id: last_id.max(sequence).max(floor) + 1,
                last_id,
                events,
                head: head_file,
                _lock: lock,
            },
            problems,
            set_aside,
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

    /// Why new events are refused, if they are (a damaged, lost or altered journal,
    /// or one opened to read).
    pub fn refuses_writing(&self) -> Option<&str> {
        match (&self.blocked, &self.head) {
            (Some(why), _) => Some(why),
            (None, None) => Some("the journal was opened to read"),
            (None, Some(_)) => None,
        }
    }

    /// Check `entry` against the state, then append it durably: when this returns
    /// `Ok(id)`, the entry is on disk. A refused entry is not written.
    pub fn append(&mut self, entry: &Entry) -> Result<i64, JournalError> {
        if let Some(why) = self.refuses_writing() {
            return Err(JournalError::ReadOnly(why.to_string()));
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
        let id = self.next_id;
        let at_ms = entry.at_ms() as i64;
        let game = i64::from(self.station.game_number());
        let chain = link(&self.chain, id, at_ms, game, body.as_bytes());
        let written = self.conn.execute(
            "INSERT INTO events (id, at_ms, game, body, chain) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, at_ms, game, body, head::hex(&chain)],
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
        self.chain = chain;
        self.next_id = id + 1;
        self.last_id = id;
        self.events += 1;
        // The event is durable in the database; the head follows it. Should the
        // head fail, the event still stands, but the next ones are refused: without
        // the head a lost tail could go unnoticed.
        let head = self.head.as_mut().expect("writers have a head");
        if let Err(e) = head.advance(id, self.events, entry.at_ms(), chain) {
            eprintln!("yutstation: writing {HEAD_FILE} failed: {e}");
            self.blocked = Some(format!("{HEAD_FILE} cannot be written ({e})"));
        }
        Ok(id)
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
        let (rows, damage) = read_rows(&self.conn, self.chained);
        let mut problems: Vec<Problem> = damage
            .map(|detail| Problem::Damaged { detail })
            .into_iter()
            .collect();
        let mut out = Vec::new();
        for row in rows {
            match decode(&row.body) {
                Ok(entry) => out.push(Recorded {
                    id: row.id,
                    at_ms: row.at_ms as Millis,
                    game: row.game as u32,
                    entry,
                }),
                Err(detail) => problems.push(Problem::Unreadable { id: row.id, detail }),
            }
        }
        (out, problems)
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        if let Some(head) = &self.head {
            let _ = head.sync();
        }
    }
}

/// The chain hash of an event: the one before it, then its id, time, game and
/// body exactly as stored.
pub(super) fn link(before: &[u8; 32], id: i64, at_ms: i64, game: i64, body: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(before);
    h.update(id.to_le_bytes());
    h.update(at_ms.to_le_bytes());
    h.update(game.to_le_bytes());
    h.update(body);
    h.finalize().into()
}

fn create_schema(conn: &Connection, floor: i64) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch(SCHEMA)?;
    if floor > 0 {
        // Ids continue after the journal set aside: an id names one event only.
        tx.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?1)",
            [floor],
        )?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()
}

/// Version 1 to 2: the chain column (the older rows keep none; the chain runs
/// over them all the same, so a change to them from now on is found).
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch("ALTER TABLE events ADD COLUMN chain TEXT")?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()
}

/// Move the journal's files in `dir` into a new `set-aside-<ms>` folder beside
/// them; the highest id the old journal used.
fn set_aside(dir: &Path) -> std::io::Result<(Option<PathBuf>, i64)> {
    let wal = format!("{DB_FILE}-wal");
    let shm = format!("{DB_FILE}-shm");
    // The head last: a move cut short leaves a head that says the events were there.
    let names = [wal.as_str(), shm.as_str(), DB_FILE, HEAD_FILE];
    if !names.iter().any(|n| dir.join(n).exists()) {
        return Ok((None, 0));
    }
    let mut floor = match head::read(dir)? {
        Found::Head(h) => h.last_id,
        _ => 0,
    };
    if let Ok(conn) =
        Connection::open_with_flags(dir.join(DB_FILE), OpenFlags::SQLITE_OPEN_READ_WRITE)
    {
        let _ = conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
        for sql in [
            "SELECT COALESCE(MAX(id), 0) FROM events",
            "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'events'",
        ] {
            if let Ok(max) = conn.query_row(sql, [], |r| r.get::<_, i64>(0)) {
                floor = floor.max(max);
            }
        }
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let aside = dir.join(format!("set-aside-{stamp}"));
    std::fs::create_dir(&aside)?;
    for name in names {
        let from = dir.join(name);
        if from.exists() {
            std::fs::rename(&from, aside.join(name))?;
        }
    }
    std::fs::File::open(&aside)?.sync_all()?;
    std::fs::File::open(dir)?.sync_all()?;
    Ok((Some(aside), floor))
}

/// One stored row, its body as the bytes stored.
struct Row {
    id: i64,
    at_ms: i64,
    game: i64,
    body: Vec<u8>,
    chain: Option<String>,
}

fn decode(body: &[u8]) -> Result<Entry, String> {
    let text = std::str::from_utf8(body).map_err(|e| e.to_string())?;
    serde_json::from_str::<Entry>(text).map_err(|e| e.to_string())
}

/// Read every row; a failure part-way (a damaged file) ends the read with what was
/// read so far and the reason.
fn read_rows(conn: &Connection, chained: bool) -> (Vec<Row>, Option<String>) {
    let mut out = Vec::new();
    let sql = if chained {
        "SELECT id, at_ms, game, body, chain FROM events ORDER BY id"
    } else {
        "SELECT id, at_ms, game, body, NULL FROM events ORDER BY id"
    };
    let mut stmt = match conn.prepare(sql) {
        Ok(s) => s,
        Err(e) => return (out, Some(e.to_string())),
    };
    let rows = stmt.query_map([], |r| {
        let body = match r.get_ref(3)? {
            ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
            other => format!("{other:?}").into_bytes(),
        };
        let chain = match r.get_ref(4)? {
            ValueRef::Null => None,
            ValueRef::Text(b) => Some(String::from_utf8_lossy(b).into_owned()),
            other => Some(format!("{other:?}")),
        };
        Ok(Row {
            id: r.get(0)?,
            at_ms: r.get(1)?,
            game: r.get(2)?,
            body,
            chain,
        })
    });
    let rows = match rows {
        Ok(r) => r,
        Err(e) => return (out, Some(e.to_string())),
    };
    for row in rows {
        match row {
            Err(e) => return (out, Some(e.to_string())),
            Ok(row) => out.push(row),
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
