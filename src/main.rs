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
    command: CliCommand,
}

#[derive(Subcommand)]
enum CliCommand {
    /// Run the whole station with no hardware: rendered throws, stand-in placer and
    /// referee, the pages on 127.0.0.1:8080 (`--headless --throws N`: a summary only).
    Demo(cli::station::DemoArgs),
    /// Run the station: a camera or video, the journal, the pages and the live API.
    Station(cli::station::StationArgs),
    /// Game records: replay a record, print the board.
    #[command(subcommand)]
    Game(cli::game::GameCommand),
    /// Live cameras: list them with their formats and controls.
    #[command(subcommand)]
    Camera(cli::camera::CameraCommand),
    /// Go-Stop (고스톱) by the 통일안: score a sheet, simulate hands.
    #[command(subcommand)]
    Gostop(cli::gostop::GostopCommand),
    /// The match journal: show its events, export a game record, measure it.
    #[command(subcommand)]
    Journal(cli::journal::JournalCommand),
    /// The tournament office: teams, the draw, mats over MQTT, the hall screen
    /// (/tournament) and the console (/office); `office standings`, `office load`.
    Office(cli::office::OfficeArgs),
    /// Station profiles: what one holds, and forgetting what it learned.
    #[command(subcommand)]
    Profile(cli::profile::ProfileCommand),
    /// Stick fairness and win chances from a station's journal (terminal, CSV), and
    /// the checks of both on simulated games and journals.
    Stats(cli::stats::StatsArgs),
    /// Throw-height sensor: live readings and link health for set-up.
    #[command(subcommand)]
    Sensor(cli::sensor::SensorCommand),
    /// Vision: calibrate, teach, detect, watch, eval, train, simulate.
    #[command(flatten)]
    Vision(cli::vision::VisionCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        CliCommand::Demo(args) => cli::station::run_demo(args),
        CliCommand::Station(args) => cli::station::run_station(args),
        CliCommand::Game(command) => cli::game::run(command),
        CliCommand::Camera(command) => cli::camera::run(command),
        CliCommand::Gostop(command) => cli::gostop::run(command),
        CliCommand::Journal(command) => cli::journal::run(command),
        CliCommand::Office(args) => cli::office::run(args),
        CliCommand::Profile(command) => cli::profile::run(command),
        CliCommand::Sensor(command) => cli::sensor::run(command),
        CliCommand::Stats(args) => cli::stats::run(args),
        CliCommand::Vision(command) => cli::vision::run(command),
    };
    cli::finish(outcome)
}
