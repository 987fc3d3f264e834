//! The journal's head record: a small file beside the database (`journal.head`) that
//! says how far the journal has gone (the last acknowledged event's id, its time,
//! the chain hash up to it). It lets an opening station tell a new journal from a
//! lost one, and find a tail that SQLite has silently dropped (a damaged or deleted
//! write-ahead log), because it does not live in SQLite's files.
//!
//! The file holds two fixed-size text slots written in turn, each with its own
//! check, so a write torn by a crash leaves the other slot whole; the newest whole
//! slot is the head. A slot reads, for whoever opens the file:
//!
//! ```text
//! yutstation-journal-head/1 seq=41 last_id=40 events=40 last_at=1764556800000 chain=<64 hex> check=<16 hex>
//! ```
//!
//! It is written after the database's commit is durable, so it never claims more
//! than the database holds; a head behind the database (a crash between the two)
//! is no loss. Writing it is one small overwrite; making it durable is a separate
//! flush, done by a flusher thread beside the writer (ADR 0090) so that an append
//! waits for one flush, not two.
//!
//! Shell: files.

use sha2::{Digest, Sha256};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use yut_match::Millis;

/// The head file inside a data directory.
pub const HEAD_FILE: &str = "journal.head";

const MAGIC: &str = "yutstation-journal-head/1";
const SLOT: usize = 256;

/// The chain hash before the first event.
pub const GENESIS: [u8; 32] = [0; 32];

/// What the head says about the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// Increases with every write; the newer slot wins.
    pub seq: u64,
    /// The last acknowledged event's id (0 before the first).
    pub last_id: i64,
    /// How many events the journal held then.
    pub events: u64,
    /// The last acknowledged event's time (Unix ms).
    pub last_at: Millis,
    /// The chain hash up to and including `last_id`.
    pub chain: [u8; 32],
}

impl Head {
    /// A head for a journal with nothing in it yet.
    #[cfg(test)]
    pub fn empty() -> Head {
        Head {
            seq: 0,
            last_id: 0,
            events: 0,
            last_at: 0,
            chain: GENESIS,
        }
    }

    fn text(&self) -> String {
        let body = format!(
            "{MAGIC} seq={} last_id={} events={} last_at={} chain={}",
            self.seq,
            self.last_id,
            self.events,
            self.last_at,
            hex(&self.chain)
        );
        let check = &hex(&Sha256::digest(body.as_bytes()))[..16];
        let mut line = format!("{body} check={check}");
        debug_assert!(line.len() < SLOT);
        while line.len() < SLOT - 1 {
            line.push(' ');
        }
        line.push('\n');
        line
    }

    fn parse(slot: &[u8]) -> Option<Head> {
        let text = std::str::from_utf8(slot).ok()?.trim_end();
        let (body, check) = text.rsplit_once(" check=")?;
        if check != &hex(&Sha256::digest(body.as_bytes()))[..16] {
            return None;
        }
        let mut fields = body.split(' ');
        if fields.next()? != MAGIC {
            return None;
        }
        let mut field = |name: &str| -> Option<String> {
            let (k, v) = fields.next()?.split_once('=')?;
            (k == name).then(|| v.to_string())
        };
        Some(Head {
            seq: field("seq")?.parse().ok()?,
            last_id: field("last_id")?.parse().ok()?,
            events: field("events")?.parse().ok()?,
            last_at: field("last_at")?.parse().ok()?,
            chain: unhex(&field("chain")?)?,
        })
    }
}

/// What was found where the head should be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// No head file: a new data directory, or one written before the head existed.
    Absent,
    /// A head file with no whole slot.
    Unreadable,
    Head(Head),
}

/// Read the head of `dir`.
pub fn read(dir: &Path) -> io::Result<Found> {
    let bytes = match std::fs::read(dir.join(HEAD_FILE)) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => return Err(e),
    };
    Ok(bytes
        .chunks(SLOT)
        .take(2)
        .filter_map(Head::parse)
        .max_by_key(|h| h.seq)
        .map_or(Found::Unreadable, Found::Head))
}

/// The head file, open for writing, with its flusher.
pub struct HeadFile {
    file: Arc<File>,
    head: Head,
    flusher: Flusher,
}

impl HeadFile {
    /// Write a new head file holding `head` (temporary file, fsync, rename, fsync
    /// the folder): the file is whole or absent, never half written.
    pub fn create(dir: &Path, head: Head) -> io::Result<HeadFile> {
        let path = dir.join(HEAD_FILE);
        let tmp = dir.join(format!(".{HEAD_FILE}.tmp{}", std::process::id()));
        {
            let mut f = File::create(&tmp)?;
            let text = head.text();
            // Both slots: the second is a copy until the first write replaces one.
            f.write_all(text.as_bytes())?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &path)?;
        File::open(dir)?.sync_all()?;
        HeadFile::open(dir, head)
    }

    /// Open the head file of `dir`, which holds `head`, to write on.
    pub fn open(dir: &Path, head: Head) -> io::Result<HeadFile> {
        let path = dir.join(HEAD_FILE);
        let file = Arc::new(OpenOptions::new().read(true).write(true).open(path)?);
        Ok(HeadFile {
            flusher: Flusher::start(file.clone())?,
            file,
            head,
        })
    }

    /// Record that the journal now ends at `last_id` (already durable in the
    /// database). The slot write is done when this returns, so it survives the
    /// process; the flusher makes it durable against power loss right after.
    pub fn advance(
        &mut self,
        last_id: i64,
        events: u64,
        last_at: Millis,
        chain: [u8; 32],
    ) -> io::Result<()> {
        let head = Head {
            seq: self.head.seq + 1,
            last_id,
            events,
            last_at,
            chain,
        };
        let slot = (head.seq % 2) * SLOT as u64;
        self.file.write_all_at(head.text().as_bytes(), slot)?;
        self.head = head;
        self.flusher.dirty();
        Ok(())
    }

    /// Make the last write durable now (and wait for it).
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// Flushes the head file after each write, on its own thread: the append path
/// writes the slot and goes on; the flush follows within one disk flush.
struct Flusher {
    shared: Arc<(Mutex<FlushState>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct FlushState {
    dirty: bool,
    stop: bool,
}

impl Flusher {
    fn start(file: Arc<File>) -> io::Result<Flusher> {
        let shared: Arc<(Mutex<FlushState>, Condvar)> = Arc::default();
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("journal-head".into())
            .spawn(move || {
                let (lock, wake) = &*theirs;
                let mut state = lock.lock().expect("flusher lock");
                loop {
                    if state.dirty {
                        state.dirty = false;
                        drop(state);
                        if let Err(e) = file.sync_data() {
                            eprintln!("yutstation: flushing {HEAD_FILE} failed: {e}");
                        }
                        state = lock.lock().expect("flusher lock");
                    } else if state.stop {
                        return;
                    } else {
                        state = wake.wait(state).expect("flusher lock");
                    }
                }
            })?;
        Ok(Flusher {
            shared,
            thread: Some(thread),
        })
    }

    fn dirty(&self) {
        let (lock, wake) = &*self.shared;
        lock.lock().expect("flusher lock").dirty = true;
        wake.notify_one();
    }
}

impl Drop for Flusher {
    /// The last write is flushed before the journal closes.
    fn drop(&mut self) {
        let (lock, wake) = &*self.shared;
        lock.lock().expect("flusher lock").stop = true;
        wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 32 bytes from 64 hex digits.
pub fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_reads_back_and_a_torn_slot_leaves_the_other() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), Found::Absent);
        let mut file = HeadFile::create(dir.path(), Head::empty()).unwrap();
        for id in 1..=5 {
            file.advance(id, id as u64, 1000 + id as u64, [id as u8; 32])
                .unwrap();
        }
        let Found::Head(h) = read(dir.path()).unwrap() else {
            panic!("a head")
        };
        assert_eq!(
            (h.seq, h.last_id, h.last_at, h.chain),
            (5, 5, 1005, [5; 32])
        );
        // Tear the newest slot (seq 5 is slot 1): the one before it is the head.
        drop(file);
        let path = dir.path().join(HEAD_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with(
            "yutstation-journal-head/1 seq=4 last_id=4 events=4 last_at=1004 chain=0404"
        ));
        assert_eq!(text.len(), 2 * SLOT);
        bytes[SLOT + 40] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        let Found::Head(h) = read(dir.path()).unwrap() else {
            panic!("a head")
        };
        assert_eq!(h.last_id, 4);
        bytes[40] ^= 0x20;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Found::Unreadable);
    }
}
