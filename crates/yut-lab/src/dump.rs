//! Stored measurements of generated throws, so the stick model can be retrained
//! and re-measured without rendering again (rendering is most of the cost).
//!
//! `train --dump DIR` and `eval --dump DIR` write one file per look: the look's
//! calibration, the sticks of its three teach pictures and every throw's found
//! sticks (each with its resampled patch) with the truth. `train --from-dump`
//! and `eval --from-dump` read them back and recompute the features from the
//! patches, so a change to `yut_vision::features` needs no new rendering.
//!
//! Not pure: it reads and writes the dump files.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use yut_sim::{self, ThrowTruth, TruthFace, TruthPlacement};
use yut_vision::calibrate::Calibration;
use yut_vision::classify::{CLASS_BACK, CLASS_FRONT, CLASS_NEITHER};
use yut_vision::sticks::Found;
use yut_vision::{on_mat, refresh_all, Measured, TeachSet};

/// One generated station and its throws, as measured.
#[derive(Serialize, Deserialize)]
pub struct LookDump {
    pub seed: u64,
    pub calibration: Calibration,
    pub teach: TeachSet,
    /// Further teaching shots (the sticks moved and turned, shot again), where
    /// the crew gave them (`eval --teach-shots`); dumps stored before they
    /// were kept hold none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<TeachSet>,
    pub throws: Vec<ThrowDump>,
}

#[derive(Serialize, Deserialize)]
pub struct ThrowDump {
    pub truth: ThrowTruth,
    pub sticks: Vec<Measured>,
}

impl LookDump {
    /// A dump of a generated station, to be filled with its throws.
    pub fn new(
        seed: u64,
        calibration: &Calibration,
        teach: TeachSet,
        more: Vec<TeachSet>,
    ) -> LookDump {
        LookDump {
            seed,
            calibration: calibration.clone(),
            teach,
            more,
            throws: Vec::new(),
        }
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(file_name(self.seed));
        let file =
            std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?;
        ciborium::into_writer(self, std::io::BufWriter::new(file))
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Read one dump and recompute every stick's features from its patch,
    /// and where it lies on the mat from where it was found (so a dump
    /// rendered before the parallax of a stick's height was taken off is
    /// placed as the station places it now).
    pub fn read(path: &Path) -> Result<LookDump> {
        let file =
            std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
        let mut d: LookDump = ciborium::from_reader(std::io::BufReader::new(file))
            .with_context(|| format!("{}: not a look dump", path.display()))?;
        let camera = d.calibration.camera();
        let width_cm = d.teach.width_cm;
        for t in std::iter::once(&mut d.teach).chain(&mut d.more) {
            for pic in [&mut t.front, &mut t.back, &mut t.marked] {
                place_and_refresh(&d.calibration, width_cm, camera, pic);
            }
        }
        for th in &mut d.throws {
            place_and_refresh(&d.calibration, width_cm, camera, &mut th.sticks);
        }
        Ok(d)
    }
}

fn place_and_refresh(
    cal: &Calibration,
    width_cm: f64,
    camera: Option<[f64; 3]>,
    sticks: &mut [Measured],
) {
    for s in sticks.iter_mut() {
        (s.center_cm, s.corners_cm) = on_mat(cal, &s.found, width_cm, camera);
        s.flat_width_px = yut_vision::measure::flat_width_px(cal, &s.found, s.center_cm, width_cm);
    }
    refresh_all(sticks);
}

/// The name of a look's dump file.
fn file_name(seed: u64) -> String {
    format!("look-{seed}.cbor")
}

/// The look seed a dump file is named by ([`LookDump::write`]), without
/// reading it.
pub fn seed_of(path: &Path) -> Option<u64> {
    path.file_name()?
        .to_str()?
        .strip_prefix("look-")?
        .strip_suffix(".cbor")?
        .parse()
        .ok()
}

/// The round face's finish of the world look (`Look::world`) a dump file
/// stores, known from its name alone; an error for a file not named
/// `look-SEED.cbor`.
pub fn world_finish(path: &Path, width: u32, height: u32) -> Result<yut_sim::Finish> {
    let seed = seed_of(path).with_context(|| {
        format!(
            "{}: not named look-SEED.cbor, so its finish is not known",
            path.display()
        )
    })?;
    Ok(yut_sim::Look::world(seed, width, height).sticks.finish)
}

/// Every dump file in these folders, in name order, each look once: two
/// rendering processes whose look ranges meet (after refused looks) both
/// store the look where they meet, under the same file name, and a figure
/// must not count it twice. The copy in the folder named first is kept (a
/// look measured again by a newer finder is judged as the folder order says,
/// not as the folder names sort); the others are left out, with a note.
pub fn dump_files(dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for (order, dir) in dirs.iter().enumerate() {
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let p = e?.path();
            if p.extension().is_some_and(|x| x == "cbor") {
                files.push((p.file_name().map(|n| n.to_owned()), order, p));
            }
        }
    }
    files.sort();
    let mut seen = std::collections::HashSet::new();
    files.retain(|(name, _, p)| {
        let first = seen.insert(name.clone());
        if !first {
            eprintln!(
                "{}: this look is already stored in a folder named before; counted once",
                p.display()
            );
        }
        first
    });
    Ok(files.into_iter().map(|(_, _, p)| p).collect())
}

/// The model class of a found stick: that of the nearest true stick when it
/// is this one (within 0.3 of a stick length), `None` for a stick off the mat
/// or a found blob that is no stick.
pub fn label(truth: &ThrowTruth, s: &Measured) -> Option<i32> {
    let (ts, dist) = nearest_truth(truth, &s.found)?;
    if dist > s.found.length * 0.3 || ts.placement == TruthPlacement::OffMat {
        return None;
    }
    Some(match ts.face {
        TruthFace::Front => CLASS_FRONT,
        TruthFace::Back => CLASS_BACK,
        TruthFace::Ambiguous => CLASS_NEITHER,
    })
}

/// The true stick a found one is: the nearest by centre, where a stick lying
/// at another angle counts as farther by up to half a stick length (two
/// sticks that cross can have nearly the same centre, and by centre alone a
/// found stick took the face of the one across it). Also its distance from
/// the centre (pixels).
pub fn nearest_truth<'a>(
    truth: &'a ThrowTruth,
    s: &Found,
) -> Option<(&'a yut_sim::StickTruth, f64)> {
    let cost = |t: &yut_sim::StickTruth| {
        let d = (t.center_px[0] - s.center[0]).hypot(t.center_px[1] - s.center[1]);
        let turn = (t.angle_deg - s.angle_deg()).to_radians().sin().abs();
        (d + 0.5 * s.length * turn, d)
    };
    truth
        .sticks
        .iter()
        .map(|t| (t, cost(t)))
        .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
        .map(|(t, (_, d))| (t, d))
}

/// `train --from-dump DUMPS --export-reader DIR`: the stick reader's inputs
/// (`yut_vision::reader`) for every found stick of the stored looks, as NumPy
/// files for the trainer (`tools/train_reader.py`). The taught faces' planes
/// are the same for every stick of a look, so they are stored once per look
/// (`look_taught.npy`) and each stick names its look (`stick_look.npy`); the
/// trainer sets them beside the stick's own planes (`stick_planes.npy`: the
/// stick against the mat, its mask, other sticks) in the order the station
/// does. `stick_meta.npy` holds (look seed, throw, stick, throw ambiguous,
/// n·ẑ of the true stick, shared, the true stick is the marked one).
pub fn export_reader(files: &[PathBuf], out: &Path) -> Result<()> {
    use yut_vision::features::PL;
    use yut_vision::features::PW;
    use yut_vision::reader::{self, TaughtLooks, N_GEO, PLANE};
    use yut_vision::sticks::others_than;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let (mut planes, mut geo, mut label, mut look, mut meta) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut taught_planes, mut seeds) = (Vec::new(), Vec::new());
    let mut n = 0usize;
    for f in files {
        let d = LookDump::read(f)?;
        if d.teach.learn().is_err() {
            continue;
        }
        let taught = TaughtLooks::from_teach(&d.teach.front, &d.teach.back);
        let li = seeds.len() as i64;
        seeds.push(d.seed as i64);
        taught_planes.extend_from_slice(&taught.front);
        taught_planes.extend_from_slice(&taught.back);
        for (k, t) in d.throws.iter().enumerate() {
            let found: Vec<_> = t.sticks.iter().map(|s| s.found).collect();
            for (i, s) in t.sticks.iter().enumerate() {
                let mut x = Vec::new();
                reader::input(
                    &s.patch,
                    &s.found,
                    s.nominal,
                    &others_than(&found, i),
                    &taught,
                    &mut x,
                );
                // The stick's own planes: against the mat (3), mask, others.
                planes.extend_from_slice(&x[..3 * PLANE]);
                planes.extend_from_slice(&x[9 * PLANE..]);
                geo.extend(reader::geo(&s.found, s.nominal));
                label.push(i64::from(self::label(&t.truth, s).unwrap_or(-1)));
                look.push(li);
                let near = nearest_truth(&t.truth, &s.found);
                let up = near.map_or(f64::NAN, |(ts, _)| ts.up);
                let marked = near.map_or(f64::NAN, |(ts, _)| f64::from(u8::from(ts.marked)));
                meta.extend([
                    d.seed as f64,
                    k as f64,
                    i as f64,
                    f64::from(u8::from(t.truth.ambiguous)),
                    up,
                    f64::from(u8::from(s.found.shared)),
                    marked,
                ]);
                n += 1;
            }
        }
    }
    let (pw, pl) = (PW as u64, PL as u64);
    write_npy(
        &out.join("stick_planes.npy"),
        &[n as u64, 5, pw, pl],
        &planes,
    )?;
    write_npy(&out.join("stick_geo.npy"), &[n as u64, N_GEO as u64], &geo)?;
    write_npy(&out.join("stick_label.npy"), &[n as u64], &label)?;
    write_npy(&out.join("stick_look.npy"), &[n as u64], &look)?;
    write_npy(&out.join("stick_meta.npy"), &[n as u64, 7], &meta)?;
    write_npy(
        &out.join("look_taught.npy"),
        &[seeds.len() as u64, 6, pw, pl],
        &taught_planes,
    )?;
    write_npy(&out.join("look_seed.npy"), &[seeds.len() as u64], &seeds)?;
    println!(
        "exported the reader's inputs of {n} sticks from {} looks to {}",
        seeds.len(),
        out.display()
    );
    Ok(())
}

fn write_npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(
    path: &Path,
    shape: &[u64],
    data: &[T],
) -> Result<()> {
    use npyz::WriterBuilder;
    let file =
        std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?;
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .with_context(|| format!("writing {}", path.display()))?;
    w.extend(data.iter().copied())
        .with_context(|| format!("writing {}", path.display()))?;
    w.finish()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_stored_in_two_folders_is_counted_once() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        for (dir, looks) in [(&a, [1, 2]), (&b, [2, 3])] {
            std::fs::create_dir(dir).unwrap();
            for l in looks {
                std::fs::write(dir.join(file_name(l)), b"").unwrap();
            }
            std::fs::write(dir.join("notes.txt"), b"").unwrap();
        }
        let files = dump_files(&[b.clone(), a.clone()]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.strip_prefix(root.path()).unwrap())
            .collect();
        assert_eq!(
            names,
            ["a/look-1.cbor", "b/look-2.cbor", "b/look-3.cbor"].map(std::path::Path::new),
            "in name order, look 2 from the folder named first"
        );
    }

    #[test]
    fn a_dump_file_names_its_look() {
        let dir = Path::new("dumps");
        assert_eq!(seed_of(&dir.join(file_name(103_006))), Some(103_006));
        assert_eq!(seed_of(&dir.join("look-x.cbor")), None);
        assert_eq!(seed_of(&dir.join("notes.txt")), None);
    }
}
