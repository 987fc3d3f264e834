//! Subcommands. Each module parses its arguments and calls into the library; no
//! game logic lives here.
//!
//! Shell: arguments, files, the terminal, exit statuses.

pub mod game;
pub mod gostop;
pub mod hall;
pub mod journal;
pub mod office;
pub mod random_game;
pub mod station;
pub mod vision;

use std::process::ExitCode;

/// Bad input the user can fix: one line on stderr and exit status 2. One type for
/// every subcommand, the lab's included (it is defined there, the lowest crate
/// with a command line).
pub use yut_lab::InputError;

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
