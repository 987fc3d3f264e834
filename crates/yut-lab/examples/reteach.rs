//! Experiment: give stored world looks further teaching shots.
//! `reteach SHOTS IN OUT`: for every look dump in IN (world looks at 1280x720),
//! render teaching shots 1..SHOTS, measure them as the stored set was measured
//! (its calibration, colour bar and shadow trim) and write the dump to OUT with
//! them. Shot 0 is measured again and checked against the stored set.

use anyhow::{Context, Result};
use std::path::PathBuf;
use yut_lab::dump::{dump_files, LookDump};
use yut_lab::station::render;
use yut_sim::Look;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let shots: u64 = args.get(1).context("SHOTS")?.parse()?;
    let (inp, out) = (
        PathBuf::from(args.get(2).context("IN")?),
        PathBuf::from(args.get(3).context("OUT")?),
    );
    for f in dump_files(&[inp])? {
        let mut d = LookDump::read(&f)?;
        let look = Look::world(d.seed, 1280, 720);
        let empty = render(&look, &yut_sim::empty_scene(&look))?;
        let measure = |shot: u64| -> Result<yut_vision::TeachSet> {
            let pic = |w: &str| render(&look, &yut_sim::teach_scene_shot(&look, w, shot));
            Ok(yut_vision::teach_measure(
                &d.calibration,
                &empty,
                &pic("front")?,
                &pic("back")?,
                &pic("marked")?,
                yut_vision::teach::Bars {
                    colour: d.teach.colour_bar,
                    dark_share: d.teach.dark_share,
                    speck_disc: d.teach.speck_disc,
                },
                d.teach.shadows_trimmed,
            )?)
        };
        let again = measure(0)?;
        let off = again
            .front
            .iter()
            .zip(&d.teach.front)
            .map(|(a, b)| {
                (a.found.center[0] - b.found.center[0]).hypot(a.found.center[1] - b.found.center[1])
            })
            .fold(0.0f64, f64::max);
        if again.front.len() != d.teach.front.len() || off > 1.0 {
            eprintln!(
                "look {}: shot 0 is not the stored set (off {off:.1} px); skipped",
                d.seed
            );
            continue;
        }
        d.more = match (1..shots).map(measure).collect::<Result<Vec<_>>>() {
            Ok(m) => m,
            Err(e) => {
                eprintln!("look {}: {e:#}; stored without further shots", d.seed);
                Vec::new()
            }
        };
        d.write(&out)?;
    }
    Ok(())
}
