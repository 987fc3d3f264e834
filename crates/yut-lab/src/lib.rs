//! The vision lab: what developers run to build and measure the vision, never a
//! station at an event. It renders generated stations ([`station`], on `yut_sim`),
//! stores their measured looks ([`dump`]), measures the vision on generated throws,
//! stored looks and photo sets ([`eval`], [`stored`], [`photoreal`]), sweeps the
//! calling bars, trains the appearance models ([`train`]) and writes generated
//! pictures ([`simulate`]).
//!
//! Not pure: it reads and writes files and prints reports, as a command does. The
//! station's CLI parses the lab's arguments (each `*Args` here) and calls each
//! module's `run`. Figures to report come from here; nothing here is a test.
//!
//! The command-line conventions the lab shares with the station's CLI live here
//! too, as the lowest crate with a command line: [`InputError`] (bad input, exit
//! status 2) and reading and writing pictures.

pub mod dump;
pub mod eval;
pub mod photoreal;
pub mod simulate;
pub mod station;
pub mod stored;
pub mod train;

pub use eval::EvalArgs;
pub use simulate::SimulateArgs;
pub use train::TrainArgs;

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use std::path::Path;
use yut_vision::classify::Classifier;
use yut_vision::{files, Detector};

/// Bad input the user can fix (a malformed record, an illegal event, a picture
/// that is not one): one line on stderr and exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// A picture from a file, in BGR; a missing or unreadable one is bad input.
pub fn read_image(path: &Path) -> Result<Mat> {
    let m = imgcodecs::imread(&path.to_string_lossy(), imgcodecs::IMREAD_COLOR)
        .with_context(|| format!("reading {}", path.display()))?;
    if m.empty() {
        return Err(InputError(format!(
            "cannot read image {}: missing or not a picture",
            path.display()
        ))
        .into());
    }
    Ok(m)
}

/// A picture written to a file (its format from the name).
pub fn write_image(path: &Path, m: &Mat) -> Result<()> {
    let ok = imgcodecs::imwrite(&path.to_string_lossy(), m, &Vector::new())?;
    anyhow::ensure!(ok, "could not write {}", path.display());
    Ok(())
}

/// The appearance model `model` names ([`files::load_classifier`]); a model that
/// cannot be read is bad input.
pub fn load_classifier(model: &Path) -> Result<Classifier> {
    Ok(files::load_classifier(model).map_err(|e| InputError(e.to_string()))?)
}

/// A generated picture as an OpenCV BGR picture.
fn to_mat(img: &yut_sim::RgbImage) -> Result<Mat> {
    Ok(img.to_bgr_mat()?)
}

/// A line for the log that survives a hidden progress bar (not a terminal).
fn say(bar: &ProgressBar, line: String) {
    bar.suspend(|| eprintln!("{line}"));
}

/// Say so where teaching lowered a generated station's colour bar (ADR
/// 0056) or raised its dark share (ADR 0120), or set it to read with its own taught reader: those looks are the
/// ones to judge again when the bar or the reader changes.
fn say_lowered_bar(bar: &ProgressBar, seed: u64, det: &Detector) {
    if det.taught.colour_bar < yut_vision::sticks::COLOUR_BAR {
        say(
            bar,
            format!(
                "look {seed}: colour bar lowered to {}",
                det.taught.colour_bar
            ),
        );
    }
    if det.taught.dark_share > yut_vision::sticks::DARK_SHARE {
        say(
            bar,
            format!(
                "look {seed}: dark share raised to {:.2}",
                det.taught.dark_share
            ),
        );
    }
    for (kept, look) in [
        (det.taught.faint_look, "faint second"),
        (det.taught.dark_look, "dark third"),
    ] {
        if !kept {
            say(
                bar,
                format!("look {seed}: goes without the {look} look off the mat (it found sticks on the teach pictures' empty floor)"),
            );
        }
    }
    if let Some(own) = &det.taught.taught_reader {
        say(
            bar,
            format!(
                "look {seed}: reads with its taught reader (faces {:.1} spreads apart, taught sticks read at {:.0} % or better)",
                own.separation(),
                det.taught.readability.unwrap_or(0.0) * 100.0
            ),
        );
    }
}
