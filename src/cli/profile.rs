//! `yutstation profile show|forget`: what a station profile holds, and undoing
//! what the station learned from its referee's calls.
//!
//! Shell: files and the terminal.

use crate::cli::InputError;
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use yut_vision::files;
use yut_vision::profile::Profile;

#[derive(Subcommand)]
pub enum ProfileCommand {
    /// Print what a profile holds: its format, when and how it was made, the
    /// mat, the lens, the stick set, how its faces are read and what it
    /// learned from the referee's calls.
    Show(ProfileArgs),
    /// Forget what the station learned from the referee's calls since teaching
    /// (the taught sticks stay).
    Forget(ProfileArgs),
}

#[derive(Args)]
pub struct ProfileArgs {
    /// The station profile (TOML).
    profile: PathBuf,
}

pub fn run(cmd: ProfileCommand) -> Result<()> {
    match cmd {
        ProfileCommand::Show(a) => show(&a.profile),
        ProfileCommand::Forget(a) => forget(&a.profile),
    }
}

fn load(path: &std::path::Path) -> Result<Profile> {
    Ok(files::load_profile(path)
        .map_err(|e| InputError(e.to_string()))?
        .0)
}

fn show(path: &std::path::Path) -> Result<()> {
    let p = load(path)?;
    let c = &p.calibration;
    println!("profile {} (format {})", path.display(), p.version);
    match &p.made {
        Some(m) => println!("made: {} by {}", m.at, m.by),
        None => println!("made: not recorded (a profile from before it was kept)"),
    }
    println!(
        "mat: {} at {} × {} px, {:.1} px/cm at its centre",
        c.mat,
        c.width,
        c.height,
        c.px_per_cm_at_centre(),
    );
    let lens = match (&p.made, &c.map.lens.model) {
        (Some(m), _) => m.lens.clone(),
        (None, Some(l)) => format!(
            "calibrated on a target: k1 {:.4}, k2 {:.4}, focal length {:.0} px",
            l.k1, l.k2, l.fx
        ),
        (None, None) => format!("one radial term, k {:.3}", c.map.lens.k),
    };
    println!("lens: {lens}");
    let Some(t) = &p.sticks else {
        println!("sticks: not taught yet (run `yutstation teach`)");
        return Ok(());
    };
    println!(
        "sticks: {:.1} × {:.1} cm; taught sticks read at {}",
        t.length_cm,
        t.width_cm,
        t.readability
            .map_or("(not checked)".to_string(), |r| format!(
                "{:.0} %",
                r * 100.0
            ))
    );
    match &t.taught_reader {
        Some(own) => {
            println!(
                "faces read by: the station's own taught reader ({} flat and {} round faces taught, faces {:.1} spreads apart)",
                own.front.len(),
                own.back.len(),
                own.separation()
            );
            let flat = own.learned.iter().filter(|l| l.front).count();
            println!(
                "learned from the referee's calls: {} sticks ({flat} flat, {} round){}",
                own.learned.len(),
                own.learned.len() - flat,
                own.learned
                    .last()
                    .map_or(String::new(), |l| format!(", the last from {}", l.from))
            );
        }
        None => println!("faces read by: the appearance models"),
    }
    // A station taught with the finer disc finds every throw with it: it has
    // no finer look to try on sticks found in pieces.
    if t.speck_disc < yut_vision::sticks::SPECK_DISC {
        println!(
            "finding: with the finer speck disc ({} px, usual {}): only it showed the taught sticks whole",
            t.speck_disc,
            yut_vision::sticks::SPECK_DISC
        );
    } else {
        println!("finer look at sticks found in pieces: {}", t.finer_look);
    }
    let mark = if !t.mark_distinct() {
        "the mark does not stand out: 도 and 뒷도 go to the referee"
    } else if t.reader_reads_mark {
        "the mark is told by the stick reader"
    } else {
        "the mark is told by how dark it is against the taught faces"
    };
    println!("mark: {mark}");
    Ok(())
}

fn forget(path: &std::path::Path) -> Result<()> {
    let p = load(path)?;
    let Some(mut taught) = p.sticks else {
        return Err(InputError(format!("{}: no stick set taught", path.display())).into());
    };
    let finer = std::mem::take(&mut taught.finer_look);
    let sticks = taught
        .taught_reader
        .as_mut()
        .map(|own| own.forget_learned());
    if finer.is_untried() && sticks.unwrap_or(0) == 0 {
        println!("nothing to forget: the station learned nothing from the referee's calls");
        return Ok(());
    }
    files::update_taught(path, &taught)?;
    if let Some(n) = sticks {
        println!("forgot {n} sticks learned from the referee's calls");
    }
    if !finer.is_untried() {
        println!("forgot the finer look's record ({finer}): it is tried afresh");
    }
    Ok(())
}
