//! Subcommands. Each module parses its arguments and calls into the library; no
//! game logic lives here.
//!
//! Shell: arguments, files, the terminal, exit statuses.

pub mod camera;
pub mod clips;
pub mod game;
pub mod gostop;
pub mod hall;
pub mod journal;
pub mod office;
pub mod profile;
pub mod random_game;
pub mod station;
pub mod stats;
pub mod vision;

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// Bad input the user can fix: one line on stderr and exit status 2. One type for
/// every subcommand, the lab's included (it is defined there, the lowest crate
/// with a command line).
///
/// The convention (README, "Exit statuses"): 0 done; 2 the input is wrong (an
/// argument, a file or folder that is missing or not what the command reads) and
/// the user can fix it; 1 the command could not do it (an I/O failure, damage
/// found in a journal, a device). A batch command judges every input and exits
/// with 1 if any failed with 1, else 2 if any failed with 2.
pub use yut_lab::InputError;

/// The most a command reads of one file a person names (a game record, a score
/// sheet): far more than any real one, little enough to parse in memory.
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// Read a text file a person named, at most [`MAX_INPUT_BYTES`] of it. Missing, not
/// allowed, a folder, too large or not UTF-8 is input to fix (exit 2); any other
/// failure to read it is an I/O failure (exit 1).
pub fn read_input(path: &Path) -> anyhow::Result<String> {
    let bad = |why: String| {
        anyhow::Error::from(InputError(format!("cannot read {}: {why}", path.display())))
    };
    let to_fix = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::NotFound
                | std::io::ErrorKind::PermissionDenied
                | std::io::ErrorKind::IsADirectory
        )
    };
    let file = std::fs::File::open(path).map_err(|e| {
        if to_fix(&e) {
            bad(e.to_string())
        } else {
            anyhow::anyhow!("cannot read {}: {e}", path.display())
        }
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            if to_fix(&e) {
                bad(e.to_string())
            } else {
                anyhow::anyhow!("cannot read {}: {e}", path.display())
            }
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(bad(format!(
            "larger than {} MiB, more than any record or sheet",
            MAX_INPUT_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))
}

/// Turn a subcommand's outcome into an exit status, printing errors as one line.
pub fn finish(outcome: anyhow::Result<()>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("yutstation: {err:#}");
            if err.downcast_ref::<InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
pub mod sensor;
