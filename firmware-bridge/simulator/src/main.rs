//! `yut-height-sim`: a simulated throw-height sensor on a pseudo-terminal.
//!
//! ```text
//! yut-height-sim --link /tmp/yut-height --script throws.txt
//! yutstation sensor monitor /tmp/yut-height
//! ```

use anyhow::Context;
use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;
use yut_height_sim::{parse_script, spawn, DeviceConfig, SimEvent, SimOptions, Step};

#[derive(Parser)]
#[command(
    name = "yut-height-sim",
    version,
    about = "Simulated yut-height/1 sensor on a pseudo-terminal"
)]
struct Args {
    /// Script file (see the crate docs: wait, throw, noise, drop, garbage, corrupt,
    /// tear, silence, unplug). Without one: a throw every 3 s alternating 1650/1250 mm.
    #[arg(long)]
    script: Option<PathBuf>,
    /// Keep a symlink here pointing at the current pty (stable across unplugs).
    #[arg(long)]
    link: Option<PathBuf>,
    /// Samples per second.
    #[arg(long, default_value_t = 100)]
    rate: u16,
    /// Range noise (standard deviation), mm.
    #[arg(long, default_value_t = 3.0)]
    noise_mm: f64,
    /// Round readings to this many mm (10 behaves like a TF-Luna in cm mode).
    #[arg(long, default_value_t = 1)]
    resolution_mm: u16,
    /// Probability of losing each byte sent.
    #[arg(long, default_value_t = 0.0)]
    drop: f64,
    /// Random seed for noise and drops.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run the script once, then exit (default: repeat it until interrupted).
    #[arg(long)]
    once: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read script {}", path.display()))?;
            parse_script(&text).map_err(anyhow::Error::msg)?
        }
        None => vec![
            Step::Wait(Duration::from_secs(2)),
            Step::Throw {
                apex_mm: 1650.0,
                release_mm: 1000.0,
            },
            Step::Wait(Duration::from_secs(3)),
            Step::Throw {
                apex_mm: 1250.0,
                release_mm: 1000.0,
            },
            Step::Wait(Duration::from_secs(1)),
        ],
    };
    if !(0.0..=1.0).contains(&args.drop) {
        anyhow::bail!("--drop is a probability between 0 and 1, not {}", args.drop);
    }
    let options = SimOptions {
        device: DeviceConfig {
            rate_hz: args.rate.clamp(1, 250),
            noise_mm: args.noise_mm,
            resolution_mm: args.resolution_mm,
            drop_prob: args.drop,
            seed: args.seed,
            ..DeviceConfig::default()
        },
        link: args.link.clone(),
        repeat: !args.once,
    };
    let sim = spawn(options, script).context("cannot open a pseudo-terminal")?;
    if let Some(link) = &args.link {
        println!("link {}", link.display());
    }
    loop {
        match sim.next_event(Duration::from_secs(3600)) {
            Some(SimEvent::Plugged { path, .. }) => println!("plugged {}", path.display()),
            Some(SimEvent::Unplugged { .. }) => println!("unplugged"),
            Some(SimEvent::Throw {
                apex_mm,
                release_mm,
                ..
            }) => println!("throw apex {apex_mm:.0} mm (released at {release_mm:.0} mm)"),
            Some(SimEvent::ScriptDone { .. }) if args.once => {
                println!("script done");
                break;
            }
            Some(SimEvent::ScriptDone { .. }) | None => {}
        }
    }
    sim.stop()?;
    Ok(())
}
