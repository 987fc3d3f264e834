//! Stored measurements of generated throws, so the stick model can be retrained
//! and re-measured without rendering again (rendering is most of the cost).
//!
//! `train --dump DIR` and `eval --dump DIR` write one file per look: the look's
//! calibration, the sticks of its three teach pictures and every throw's found
//! sticks (each with its resampled patch) with the truth. `train --from-dump`
//! and `eval --from-dump` read them back and recompute the features from the
//! patches, so a change to `vision::features` needs no new rendering.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use yutstation::sim::{self, ThrowTruth, TruthFace, TruthPlacement};
use yutstation::vision::calibrate::Calibration;
use yutstation::vision::classify::{CLASS_BACK, CLASS_FRONT, CLASS_NEITHER};
use yutstation::vision::{refresh_all, Measured, TeachSet};

/// One generated station and its throws, as measured.
#[derive(Serialize, Deserialize)]
pub struct LookDump {
    pub seed: u64,
    pub calibration: Calibration,
    pub teach: TeachSet,
    pub throws: Vec<ThrowDump>,
}

#[derive(Serialize, Deserialize)]
pub struct ThrowDump {
    pub truth: ThrowTruth,
    pub sticks: Vec<Measured>,
}

impl LookDump {
    /// A dump of a generated station, to be filled with its throws.
    pub fn new(seed: u64, calibration: &Calibration, teach: TeachSet) -> LookDump {
        LookDump {
            seed,
            calibration: calibration.clone(),
            teach,
            throws: Vec::new(),
        }
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(format!("look-{}.cbor", self.seed));
        let file =
            std::fs::File::create(&path).with_context(|| format!("writing {}", path.display()))?;
        ciborium::into_writer(self, std::io::BufWriter::new(file))
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Read one dump and recompute every stick's features from its patch.
    pub fn read(path: &Path) -> Result<LookDump> {
        let file =
            std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
        let mut d: LookDump = ciborium::from_reader(std::io::BufReader::new(file))
            .with_context(|| format!("{}: not a look dump", path.display()))?;
        let t = &mut d.teach;
        for pic in [&mut t.front, &mut t.back, &mut t.marked] {
            refresh_all(pic);
        }
        for th in &mut d.throws {
            refresh_all(&mut th.sticks);
        }
        Ok(d)
    }
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
    let (ts, dist) = nearest_truth(truth, s.found.center)?;
    if dist > s.found.length * 0.3 || ts.placement == TruthPlacement::OffMat {
        return None;
    }
    Some(match ts.face {
        TruthFace::Front => CLASS_FRONT,
        TruthFace::Back => CLASS_BACK,
        TruthFace::Ambiguous => CLASS_NEITHER,
    })
}

/// The true stick nearest an image point, and its distance (pixels).
pub fn nearest_truth(truth: &ThrowTruth, at: [f64; 2]) -> Option<(&sim::StickTruth, f64)> {
    truth
        .sticks
        .iter()
        .map(|t| (t, (t.center_px[0] - at[0]).hypot(t.center_px[1] - at[1])))
        .min_by(|a, b| a.1.total_cmp(&b.1))
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
                std::fs::write(dir.join(format!("look-{l}.cbor")), b"").unwrap();
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
}
