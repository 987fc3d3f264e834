//! `yutstation gostop score|simulate`: a thin shell over `yut_rules::gostop`.
//!
//! `score FILE --json` prints a `gostop-settlement/1` object (documented in
//! `docs/adr/0010-gostop-readings-and-settlement.md`); an impossible sheet exits 2
//! with one line naming the problem.

use crate::cli::InputError;
use clap::{Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use yut_rules::gostop::{simulate, Preset, Report, Sheet};

#[derive(Subcommand)]
pub enum GostopCommand {
    /// Score a `gostop-score/1` sheet: the winner's points by category, the
    /// multipliers per loser with their article, and each loser's payment.
    Score {
        file: PathBuf,
        /// Print the `gostop-settlement/1` JSON object instead of the breakdown.
        #[arg(long)]
        json: bool,
    },
    /// Deal and play random legal hands from a seed; print a summary and the rate.
    Simulate {
        #[arg(long)]
        seed: u64,
        /// Players at the table, 2 to 5.
        #[arg(long)]
        players: usize,
        #[arg(long, default_value_t = 1000)]
        hands: u64,
        #[arg(long, value_enum, default_value_t = PresetArg::Tongilan)]
        preset: PresetArg,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PresetArg {
    Tongilan,
    Common,
}

impl From<PresetArg> for Preset {
    fn from(p: PresetArg) -> Preset {
        match p {
            PresetArg::Tongilan => Preset::Tongilan,
            PresetArg::Common => Preset::Common,
        }
    }
}

pub fn run(command: GostopCommand) -> anyhow::Result<()> {
    match command {
        GostopCommand::Score { file, json } => {
            let text = super::read_input(&file)?;
            let sheet =
                Sheet::parse(&text).map_err(|e| InputError(format!("{}: {e}", file.display())))?;
            let report = Report::of(&sheet);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.render());
            }
            Ok(())
        }
        GostopCommand::Simulate {
            seed,
            players,
            hands,
            preset,
            json,
        } => {
            if !(2..=5).contains(&players) {
                return Err(InputError(format!(
                    "--players {players}: a Go-Stop table seats 2 to 5"
                ))
                .into());
            }
            let start = Instant::now();
            let summary = simulate(preset.into(), players, seed, hands)?;
            let secs = start.elapsed().as_secs_f64();
            let rate = if secs > 0.0 {
                summary.hands as f64 / secs
            } else {
                f64::INFINITY
            };
            if json {
                let mut value = serde_json::to_value(&summary)?;
                value["seconds"] = serde_json::json!(secs);
                value["hands_per_second"] = serde_json::json!(rate.round());
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                let s = &summary;
                println!(
                    "{} hands, {} players, preset {}, seed {}",
                    s.hands, s.players, s.preset, s.seed
                );
                println!(
                    "  stops {}  나가리 {}  misdeals {}  forfeits: 포카드 {}, 5광 {}, 세번 설사 {}",
                    s.stops, s.draws, s.misdeals, s.four_card, s.five_gwang, s.three_seolsa
                );
                let wins: Vec<String> = s.wins.iter().map(u64::to_string).collect();
                println!("  wins per seat: {}", wins.join(" "));
                println!(
                    "  points paid {}  largest payment {}  광 sold {} (in {} hands with a sit-out)",
                    s.points_paid, s.largest_payment, s.gwang_sold, s.sit_outs
                );
                println!("  {secs:.3} s, {rate:.0} hands simulated per second");
            }
            Ok(())
        }
    }
}
