//! `yutstation demo`: for now an automatic game with random throws, printed turn by
//! turn. The station issue turns it into the full hardware-free station.

use clap::Args;

#[derive(Args)]
pub struct DemoArgs {
    /// Seed for the random throws and placer (a fixed seed replays the same game).
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn run(_args: DemoArgs) -> anyhow::Result<()> {
    anyhow::bail!("demo: not built yet")
}
