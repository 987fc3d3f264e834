//! The lock on a data directory: one station writes a journal at a time. An
//! exclusive `flock` on `journal.lock`, held as long as the journal is open and
//! released by the system when the process ends, however it ends (a crash leaves
//! no stale lock). The holder's process id is written into the file for the
//! message a second station gets.
//!
//! Shell: files.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::Path;

/// The lock file inside a data directory.
pub const LOCK_FILE: &str = "journal.lock";

/// A held lock; dropping it lets the next station in.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// Why the lock was not taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it; its id when it wrote one.
    Held {
        pid: Option<u32>,
    },
    Io(io::Error),
}

impl DirLock {
    /// Take the lock on `dir` or say who holds it.
    pub fn take(dir: &Path) -> Result<DirLock, LockError> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(LOCK_FILE))
            .map_err(LockError::Io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let pid = text
                    .trim()
                    .strip_prefix("pid ")
                    .and_then(|p| p.parse().ok());
                return Err(LockError::Held { pid });
            }
            Err(TryLockError::Error(e)) => return Err(LockError::Io(e)),
        }
        // Ours now: say whose it is (best effort; the lock is what counts).
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "pid {}", std::process::id()));
        Ok(DirLock { _file: file })
    }
}
