//! The `yutstation` command line: a thin shell over the library. Each subcommand
//! lives in `src/cli/<name>.rs` with its arguments and its `run`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "yutstation",
    version,
    about = "Camera-judged yut (윷놀이) competition station"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the station on built-in defaults with no hardware.
    Demo(cli::demo::DemoArgs),
    /// Game records: replay a record, print the board.
    #[command(subcommand)]
    Game(cli::game::GameCommand),
    /// Vision: calibrate, teach, detect, watch, eval, train, simulate.
    #[command(flatten)]
    Vision(cli::vision::VisionCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Demo(args) => cli::demo::run(args),
        Command::Game(command) => cli::game::run(command),
        Command::Vision(command) => cli::vision::run(command),
    };
    cli::finish(outcome)
}
