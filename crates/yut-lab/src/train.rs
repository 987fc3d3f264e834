//! `yutstation train`: the forest and the picture net learned from generated
//! throws of training looks (or from stored looks), and the stored looks and the
//! stick reader's inputs written for the trainer (`tools/train_reader.py`).
//!
//! Not pure: it renders, reads and writes dumps and models, and prints progress.

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use opencv::prelude::*;
use std::path::{Path, PathBuf};
use yut_sim::{self, Finish, Look, HELD_OUT_LOOK_BASE};
use yut_vision::classify::{self, Classifier, CLASS_BACK, CLASS_FRONT, CLASS_NEITHER};
use yut_vision::files::DEFAULT_MODEL;

use crate::station::set_up_station;
use crate::{dump, say, say_lowered_bar, to_mat};

#[derive(Args)]
pub struct TrainArgs {
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = DEFAULT_MODEL)]
    out: PathBuf,
    /// Training looks (seeds below the held-out range; the validation looks
    /// are skipped, see `--validation`).
    #[arg(long, default_value_t = 280)]
    looks: usize,
    /// Index of the first training look (to split the rendering over
    /// processes, each with its own `--dump`).
    #[arg(long, default_value_t = 0)]
    first_look: usize,
    /// Render the validation looks instead (never trained on; the calling
    /// bars are chosen on them with `eval --from-dump --sweep`); use with
    /// `--dump-only`.
    #[arg(long)]
    validation: bool,
    #[arg(long, default_value_t = 24)]
    throws_per_look: usize,
    /// Every throw a hard case (else every other one): more sticks on
    /// their edge, leaning and sharing a blob, the readers' rarest.
    #[arg(long)]
    hard_cases: bool,
    /// Render the training looks from the wider world (`Look::world`: every
    /// finish of the round face, any mat, light and lens) rather than the
    /// world the shipped models learned from; the same seeds, below the
    /// held-out range, so never a look `eval --world` judges.
    #[arg(long)]
    world: bool,
    /// With `--world`: skip the looks whose round face has one of these
    /// finishes (repeat): learn without a family, to judge it held out
    /// (`eval --world --finish`).
    #[arg(long = "leave-out", requires = "world")]
    left_out: Vec<Finish>,
    #[arg(long, default_value_t = 1280)]
    width: u32,
    #[arg(long, default_value_t = 720)]
    height: u32,
    /// Store every look's measured sticks in this folder (one file per look).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Only render and store (`--dump`); do not train.
    #[arg(long)]
    dump_only: bool,
    /// Train from stored looks instead of rendering.
    #[arg(long, num_args = 1..)]
    from_dump: Vec<PathBuf>,
    /// With `--from-dump`: write the stick reader's inputs for the trainer
    /// (`tools/train_reader.py`) to this folder instead of training.
    #[arg(long)]
    export_reader: Option<PathBuf>,
    /// Trees in the forest (150: on the same looks, 60 trees hedged more and
    /// called 1.5 points fewer development throws at the same bars).
    #[arg(long, default_value_t = 150)]
    trees: i32,
    /// Their greatest depth.
    #[arg(long, default_value_t = 12)]
    depth: i32,
    /// Hidden units of the picture net trained beside the forest (written
    /// next to it as NAME-net.yml); 0 trains the forest alone.
    #[arg(long, default_value_t = 40)]
    net_hidden: i32,
    /// Training iterations (RPROP) of the picture net.
    #[arg(long, default_value_t = 400)]
    net_iterations: i32,
}

/// Look indices (of the training seed) kept for choosing the calling bars:
/// never trained on.
const VALIDATION_LOOKS: std::ops::Range<usize> = 140..200;

/// The look of index `index` of a training seed.
fn look_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_mul(100_003).wrapping_add(index as u64) % HELD_OUT_LOOK_BASE
}

/// How many look indices a training run reaches (seed 1's second run went
/// on from look 280, skipping the 60 validation looks).
const LOOK_INDICES_USED: u64 = 1_000;

/// The seeds the shipped models learned from (`models/README.md`).
const RECIPE_SEEDS: std::ops::RangeInclusive<u64> = 1..=10;

/// The seed of the shipped models' recipes whose looks `seed` renders again,
/// and from which of its look indices: `look_seed` steps 100,003 a seed, so
/// seeds ten apart land 30 looks apart (seed 13's looks are seed 3's from its
/// look 30 on). Rounds 21 and 22 took seeds 11 and 12 for new looks; they
/// were seed 1's and 2's.
fn looks_shared_with_earlier_seed(seed: u64) -> Option<(u64, u64)> {
    let first = look_seed(seed, 0);
    RECIPE_SEEDS.filter(|&s| s < seed).find_map(|earlier| {
        let shift = (first + HELD_OUT_LOOK_BASE - look_seed(earlier, 0)) % HELD_OUT_LOOK_BASE;
        (shift < LOOK_INDICES_USED).then_some((earlier, shift))
    })
}

/// Whether a look is one of the validation looks (`VALIDATION_LOOKS` of the
/// default seed, 1, as `train --validation` renders them). Another seed's
/// looks can be the same looks: seed 11's indices 110–169 are looks
/// 100143–100202, and round 21 found 26 of them among its training looks.
fn is_validation_look(look: u64) -> bool {
    VALIDATION_LOOKS.clone().any(|i| look_seed(1, i) == look)
}

/// The look index of the `i`-th training look: the validation looks skipped.
fn training_look_index(i: usize) -> usize {
    if i < VALIDATION_LOOKS.start {
        i
    } else {
        i + VALIDATION_LOOKS.len()
    }
}

/// The stored looks to learn from (`--from-dump`): with `--leave-out`, less
/// those whose world look has a finish left out.
fn stored_looks_kept(a: &TrainArgs) -> Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    for f in dump::dump_files(&a.from_dump)? {
        if !a.left_out.is_empty()
            && a.left_out
                .contains(&dump::world_finish(&f, a.width, a.height)?)
        {
            continue;
        }
        kept.push(f);
    }
    Ok(kept)
}

/// `yutstation train`.
pub fn run(a: TrainArgs) -> Result<()> {
    let mut inputs: Vec<Vec<f32>> = Vec::new();
    let mut net_inputs: Vec<Vec<f32>> = Vec::new();
    let mut labels: Vec<i32> = Vec::new();
    let mut look_of: Vec<usize> = Vec::new();
    let mut add_look = |li: usize, taught: &yut_vision::profile::Taught, d: &dump::ThrowDump| {
        for s in &d.sticks {
            if let Some(label) = dump::label(&d.truth, s) {
                let model_in = classify::model_input(taught, &s.features);
                net_inputs.push(classify::net_input_from(&model_in, &s.features));
                inputs.push(model_in);
                labels.push(label);
                look_of.push(li);
            }
        }
    };
    let n_looks;
    if let Some(dir) = &a.export_reader {
        anyhow::ensure!(
            !a.from_dump.is_empty(),
            "--export-reader reads stored looks: give --from-dump"
        );
        return dump::export_reader(&stored_looks_kept(&a)?, dir);
    }
    if !a.from_dump.is_empty() {
        let files = stored_looks_kept(&a)?;
        n_looks = files.len();
        let bar = ProgressBar::new(files.len() as u64);
        for (li, f) in files.iter().enumerate() {
            let d = dump::LookDump::read(f)?;
            match d.teach.learn() {
                Ok(taught) => d.throws.iter().for_each(|t| add_look(li, &taught, t)),
                Err(e) => say(&bar, format!("look {} skipped: {e}", d.seed)),
            }
            bar.inc(1);
        }
        bar.finish();
    } else {
        // Past the validation looks lie training looks: a model judged on
        // them would look better than it is.
        if a.validation && a.first_look + a.looks > VALIDATION_LOOKS.len() {
            anyhow::bail!(
                "there are {} validation looks: --first-look {} --looks {} reaches past them into the training looks",
                VALIDATION_LOOKS.len(),
                a.first_look,
                a.looks
            );
        }
        n_looks = a.looks;
        if let Some((earlier, shift)) = looks_shared_with_earlier_seed(a.seed) {
            eprintln!(
                "note: seed {}'s looks are seed {earlier}'s from its look {shift} on (the same mats, lights and sticks; only the throws differ), and the shipped models learned from seed {earlier}: for new looks take a seed such as {}",
                a.seed,
                a.seed.max(1) + 1000
            );
        }
        let bar = ProgressBar::new((a.looks * a.throws_per_look) as u64);
        bar.set_style(ProgressStyle::with_template(
            "{bar:40} {pos}/{len} throws, {elapsed} elapsed, eta {eta}",
        )?);
        for li in a.first_look..a.first_look + a.looks {
            let index = if a.validation {
                VALIDATION_LOOKS.start + li
            } else {
                training_look_index(li)
            };
            let seed = look_seed(a.seed, index);
            if !a.validation && is_validation_look(seed) {
                say(&bar, format!("look {seed} skipped: a validation look"));
                bar.inc(a.throws_per_look as u64);
                continue;
            }
            let look = if a.world {
                Look::world(seed, a.width, a.height)
            } else {
                Look::random(seed, a.width, a.height)
            };
            if a.left_out.contains(&look.sticks.finish) {
                say(
                    &bar,
                    format!(
                        "look {seed} skipped: its finish ({}) is left out",
                        look.sticks.finish.name()
                    ),
                );
                bar.inc(a.throws_per_look as u64);
                continue;
            }
            let renderer = yut_sim::Renderer::new(&look);
            let station = match set_up_station(&renderer, Classifier::taught_rule(), 1) {
                Ok(s) => s,
                Err(e) => {
                    say(&bar, format!("look {seed} skipped: {e:#}"));
                    bar.inc(a.throws_per_look as u64);
                    continue;
                }
            };
            let det = station.detector;
            say_lowered_bar(&bar, seed, &det);
            let mut dump = dump::LookDump::new(seed, &det.calibration, station.set, station.more);
            for k in 0..a.throws_per_look {
                // Every other throw a chosen hard case, so the rare "neither"
                // sticks (on edge, leaning) are well represented.
                let case = if a.hard_cases {
                    Some(yut_sim::HardCase::HARD[k % yut_sim::HardCase::HARD.len()])
                } else {
                    (k % 2 == 1)
                        .then(|| yut_sim::HardCase::ALL[(k / 2) % yut_sim::HardCase::ALL.len()])
                };
                let (scene, truth) =
                    yut_sim::throw_scene(&look, a.seed ^ (k as u64 * 104_729 + 7), case);
                let img = to_mat(&renderer.render(&scene))?;
                let sticks = det.measure(&img)?;
                let t = dump::ThrowDump { truth, sticks };
                add_look(li - a.first_look, &det.taught, &t);
                dump.throws.push(t);
                bar.inc(1);
            }
            if let Some(dir) = &a.dump {
                dump.write(dir)?;
            }
        }
        bar.finish();
        if a.dump_only {
            return Ok(());
        }
    }
    anyhow::ensure!(
        inputs.len() > 50,
        "too few training sticks ({})",
        inputs.len()
    );
    // Validate on the last fifth of the looks, then train on everything.
    let cut = n_looks * 4 / 5;
    let (tr, va): (Vec<usize>, Vec<usize>) = (0..inputs.len()).partition(|&i| look_of[i] < cut);
    let pick = |idx: &[usize]| -> (Vec<Vec<f32>>, Vec<i32>) {
        (
            idx.iter().map(|&i| inputs[i].clone()).collect(),
            idx.iter().map(|&i| labels[i]).collect(),
        )
    };
    let (ti, tl) = pick(&tr);
    let (trees, depth) = (a.trees, a.depth);
    // The net learns from each stick both ways round (a stick found with the
    // opposite direction is the same stick).
    let both_ways = |idx: &[usize]| -> (Vec<Vec<f32>>, Vec<i32>) {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for &i in idx {
            x.push(net_inputs[i].clone());
            x.push(classify::net_input_turned(&net_inputs[i]));
            y.extend([labels[i], labels[i]]);
        }
        (x, y)
    };
    let train_net = |idx: &[usize]| -> Result<Option<opencv::core::Ptr<opencv::ml::ANN_MLP>>> {
        if a.net_hidden <= 0 {
            return Ok(None);
        }
        let (x, y) = both_ways(idx);
        Ok(Some(classify::train_net(
            &x,
            &y,
            a.net_hidden,
            a.net_iterations,
            4,
        )?))
    };
    if !va.is_empty() && !ti.is_empty() {
        let m = classify::train_forest(&ti, &tl, trees, depth)?;
        let cls = Classifier::trained(m, train_net(&tr)?);
        validate(&cls, &va, &inputs, &net_inputs, &labels)?;
    }
    let m = classify::train_forest(&inputs, &labels, trees, depth)?;
    if let Some(parent) = a.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    m.save(&a.out.to_string_lossy())?;
    let net_file = classify::net_path(&a.out.to_string_lossy());
    let all: Vec<usize> = (0..inputs.len()).collect();
    match train_net(&all)? {
        Some(n) => {
            n.save(&net_file)?;
            println!("wrote the picture net {net_file}");
        }
        None if Path::new(&net_file).exists() => {
            std::fs::remove_file(&net_file)?;
            println!("removed the picture net {net_file} (forest alone)");
        }
        None => {}
    }
    let counts = [CLASS_FRONT, CLASS_BACK, CLASS_NEITHER]
        .map(|c| labels.iter().filter(|l| **l == c).count());
    println!(
        "trained on {} sticks (front {}, back {}, neither {}) from {} looks; wrote {}",
        labels.len(),
        counts[0],
        counts[1],
        counts[2],
        n_looks,
        a.out.display()
    );
    Ok(())
}

/// Per-stick figures of a classifier on held-back training sticks: right by
/// the most likely class, and at the station's calling bar (lone sticks):
/// called right, called wrong, unsure.
fn validate(
    cls: &Classifier,
    idx: &[usize],
    inputs: &[Vec<f32>],
    net_inputs: &[Vec<f32>],
    labels: &[i32],
) -> Result<()> {
    // Per reader (forest, net, both averaged): right by the most likely
    // class; called right and called wrong at the lone stick's calling bar.
    let mut figures = [[0usize; 3]; 3];
    let mut has_net = false;
    let th = yut_vision::Thresholds::default();
    for &i in idx {
        let (f, n) = cls.parts_of_inputs(&inputs[i], &net_inputs[i])?;
        has_net = n.is_some();
        let both = n.map(|_| {
            let p = classify::combine(f, n);
            [p.front, p.back, p.neither]
        });
        for (k, p) in [Some(f), n, both].into_iter().enumerate() {
            let Some(p) = p else { continue };
            let best = (0..3).max_by(|a, b| p[*a].total_cmp(&p[*b])).unwrap_or(0) as i32;
            figures[k][0] += usize::from(best == labels[i]);
            if p[2] < th.neither_max && p[0].max(p[1]) >= th.face_call {
                let read = if p[0] > p[1] { CLASS_FRONT } else { CLASS_BACK };
                figures[k][if read == labels[i] { 1 } else { 2 }] += 1;
            }
        }
    }
    let n = idx.len().max(1) as f64;
    for (name, f) in ["forest", "net", "forest and net"].iter().zip(figures) {
        if *name != "forest" && !has_net {
            continue;
        }
        println!(
            "validation, {name:14} ({} sticks, last fifth of the looks): {:.2}% right; at the calling bar {:.2}% called right, {} called wrong",
            idx.len(),
            100.0 * f[0] as f64 / n,
            100.0 * f[1] as f64 / n,
            f[2]
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn training_skips_the_validation_looks_whatever_the_seed() {
        // The default seed's training looks skip them by index.
        assert!((0..400).all(|i| !is_validation_look(look_seed(1, training_look_index(i)))));
        assert!(VALIDATION_LOOKS
            .clone()
            .all(|i| is_validation_look(look_seed(1, i))));
        // Seed 11 lands on the same looks 30 indices earlier.
        assert_eq!(look_seed(11, 110), look_seed(1, 140));
        assert!(is_validation_look(look_seed(11, 110)));
        assert!(!is_validation_look(look_seed(11, 170)));
        assert!((0..300).all(|i| !is_validation_look(look_seed(12, i))));
    }

    #[test]
    fn a_seed_that_renders_an_earlier_seeds_looks_again_is_told() {
        assert_eq!(looks_shared_with_earlier_seed(13), Some((3, 30)));
        assert_eq!(look_seed(13, 0), look_seed(3, 30));
        assert_eq!(looks_shared_with_earlier_seed(11), Some((1, 30)));
        // The seeds of the shipped models' recipes render looks of their own.
        assert!((1..=10).all(|s| looks_shared_with_earlier_seed(s).is_none()));
        // As do the seeds the note suggests.
        assert_eq!(looks_shared_with_earlier_seed(1003), None);
        assert_eq!(looks_shared_with_earlier_seed(1004), None);
        assert_eq!(looks_shared_with_earlier_seed(1010), None);
    }
}
