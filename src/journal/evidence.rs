//! Evidence blobs (throw images) stored by SHA-256 content hash in files beside the
//! database: `evidence/ab/abcdef…`. A blob is written and fsynced before the event
//! that refers to it, and never rewritten: same bytes, same name.
//!
//! Shell: files, fsynced.

use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use yut_match::EvidenceRef;

/// The content hash of `bytes` as an evidence reference.
pub fn hash_of(bytes: &[u8]) -> EvidenceRef {
    let hex = format!("{:x}", Sha256::digest(bytes));
    EvidenceRef::try_from(hex).expect("a SHA-256 digest is 64 hex digits")
}

#[derive(Debug, Clone)]
pub struct EvidenceStore {
    root: PathBuf,
}

impl EvidenceStore {
    pub fn new(root: PathBuf) -> EvidenceStore {
        EvidenceStore { root }
    }

    pub fn path_of(&self, hash: &EvidenceRef) -> PathBuf {
        let h = hash.as_str();
        self.root.join(&h[..2]).join(h)
    }

    pub fn contains(&self, hash: &EvidenceRef) -> bool {
        self.path_of(hash).is_file()
    }

    /// Write the blob (temp file, fsync, rename, fsync the folder) unless present.
    pub fn put(&self, bytes: &[u8]) -> io::Result<EvidenceRef> {
        let hash = hash_of(bytes);
        let path = self.path_of(&hash);
        if path.is_file() {
            return Ok(hash);
        }
        let dir = path.parent().expect("evidence paths have a folder");
        fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{}.tmp{}", hash.as_str(), std::process::id()));
        {
            let mut f = File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, &path)?;
        sync_dir(dir)?;
        sync_dir(&self.root)?;
        Ok(hash)
    }

    /// Read a blob back; a missing file or one whose content no longer matches its
    /// hash is an error that says so.
    pub fn get(&self, hash: &EvidenceRef) -> io::Result<Vec<u8>> {
        let path = self.path_of(hash);
        let bytes = fs::read(&path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("evidence {hash} missing ({}): {e}", path.display()),
            )
        })?;
        if hash_of(&bytes) != *hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "evidence {hash} is damaged: {} no longer matches its hash",
                    path.display()
                ),
            ));
        }
        Ok(bytes)
    }
}

impl EvidenceStore {
    /// Remove a replay clip once it has been exported (`journal prune-clips`):
    /// clips are the one kind of evidence that may go; stills and events never
    /// do. The journal keeps the reference.
    pub fn remove_clip(&self, hash: &EvidenceRef) -> io::Result<()> {
        let path = self.path_of(hash);
        fs::remove_file(&path)?;
        sync_dir(path.parent().expect("evidence paths have a folder"))
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
