//! `yutstation camera list`: the cameras this machine has, each with its
//! formats (the one the station would take marked) and its exposure, white
//! balance and focus controls (or that it lacks one).
//!
//! Shell: the devices, through nokhwa where the `camera` feature is built.

use anyhow::Result;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum CameraCommand {
    /// List the cameras, their formats and their controls.
    List,
}

pub fn run(cmd: CameraCommand) -> Result<()> {
    match cmd {
        CameraCommand::List => list(),
    }
}

#[cfg(feature = "camera")]
fn list() -> Result<()> {
    use yutstation::camera::{choose_format, control_states, default_format};
    let cameras = yutstation::camera_live::list()
        .map_err(|e| anyhow::anyhow!("the cameras cannot be listed: {e}"))?;
    if cameras.is_empty() {
        println!("no camera found: plug one in (and check it is not used by another program)");
        return Ok(());
    }
    for cam in cameras {
        println!("camera {}: {}", cam.index, cam.name);
        if let Some(p) = &cam.problem {
            println!("  cannot be opened: {p}");
            continue;
        }
        let chosen = choose_format(&cam.formats, &default_format());
        for f in &cam.formats {
            let mark = if Some(f) == chosen.as_ref() {
                "  <- the station takes this one"
            } else {
                ""
            };
            println!("  {f}{mark}");
        }
        if chosen.is_none() {
            println!("  no format of 10 frames a second or more: the station cannot use it");
        }
        for c in control_states(&cam.controls, false) {
            println!("  {}: {} ({})", c.name, c.state, c.detail);
        }
    }
    Ok(())
}

#[cfg(not(feature = "camera"))]
fn list() -> Result<()> {
    // Without nokhwa the formats and controls are unknown; the devices are
    // still named.
    let mut found = std::fs::read_dir("/dev")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with("video"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    found.sort();
    println!(
        "this yutstation was built without live cameras (the `camera` feature, nokhwa): it opens cameras through OpenCV and cannot list their formats or lock their controls; build it with `cargo build --release --features camera`"
    );
    if found.is_empty() {
        println!("no camera devices (/dev/video*) found");
    }
    for name in found {
        println!("/dev/{name}");
    }
    Ok(())
}
