//! `yutstation game replay|board`.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum GameCommand {
    /// Replay a `yut-record/1` game record and print the state after its last event.
    Replay {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Print the board: every station, its Korean name and forward links.
    Board {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(_command: GameCommand) -> anyhow::Result<()> {
    anyhow::bail!("game: not built yet")
}
