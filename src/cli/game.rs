//! `yutstation game replay|board|random`.
//!
//! Shell: files and the terminal.

use super::InputError;
use clap::Subcommand;
use std::path::PathBuf;
use yut_rules::yut::{board, render, GameRecord};

#[derive(Subcommand)]
pub enum GameCommand {
    /// Replay a `yut-record/1` game record and print the state after its last event.
    Replay {
        file: PathBuf,
        /// Print the state as JSON (docs/game-record.md).
        #[arg(long)]
        json: bool,
    },
    /// Print the board: every station, its Korean name and forward links.
    Board {
        /// Print the board as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play a random game (random throws and placer) on the terminal board.
    Random(super::random_game::RandomArgs),
}

pub fn run(command: GameCommand) -> anyhow::Result<()> {
    match command {
        GameCommand::Replay { file, json } => {
            let text = super::read_input(&file)?;
            let record = GameRecord::parse(&text)
                .map_err(|e| InputError(format!("{}: {e}", file.display())))?;
            let state = record
                .replay()
                .map_err(|e| InputError(format!("{}: {e}", file.display())))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&state.summary())?);
            } else {
                print!("{}", render::describe_state(&state));
            }
        }
        GameCommand::Board { json } => {
            if json {
                println!("{}", serde_json::to_string_pretty(&board::describe())?);
            } else {
                print!("{}", render::describe_board());
            }
        }
        GameCommand::Random(args) => return super::random_game::run(args),
    }
    Ok(())
}
