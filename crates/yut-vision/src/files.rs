//! Profiles and the appearance model on disk: the one place the vision reads and
//! writes files (the command line and the station's calibration both use it). A
//! profile is a TOML file with its empty-mat picture beside it (`NAME.empty.png`).
//!
//! Not pure: this is the vision's I/O, kept here so that no other module needs any.

use crate::calibrate::Calibration;
use crate::classify::Classifier;
use crate::detector::Detector;
use crate::lens::LensRecord;
use crate::profile::{Made, Profile, Taught, PROFILE_VERSION};
use crate::reader::TaughtSticks;
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use std::path::{Path, PathBuf};

/// Why a profile or model cannot be used. One line a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read profile {path}: {source} (calibrate the mat first: /calibrate or `yutstation calibrate`)")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {detail}")]
    Malformed { path: PathBuf, detail: String },
    #[error("profile {profile}: its empty-mat picture {image} cannot be read (calibrate again)")]
    NoEmptyPicture { profile: PathBuf, image: PathBuf },
    #[error("profile {profile}: its taught sticks' picture {image} cannot be read: {detail} (teach the sticks again)")]
    BadTaughtPicture {
        profile: PathBuf,
        image: PathBuf,
        detail: String,
    },
    #[error(
        "profile {0} has no stick set: teach the sticks first (/calibrate or `yutstation teach`)"
    )]
    Untaught(PathBuf),
    #[error("appearance model {path}: {detail}")]
    Model { path: PathBuf, detail: String },
    #[error("cannot write {path}: {detail}")]
    Write { path: PathBuf, detail: String },
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// A file kept beside a profile: `NAME.{what}.png` for `NAME.toml`.
fn beside_profile(profile: &Path, what: &str) -> PathBuf {
    let stem = profile
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "profile".into());
    profile.with_file_name(format!("{stem}.{what}.png"))
}

/// Where a profile's empty-mat picture lives.
pub fn empty_image_path(profile: &Path) -> PathBuf {
    beside_profile(profile, "empty")
}

/// Where a profile's taught sticks' picture lives (`Taught::seen`).
pub fn taught_image_path(profile: &Path) -> PathBuf {
    beside_profile(profile, "taught")
}

/// Read a profile, its empty-mat picture and its taught sticks' picture.
pub fn load_profile(path: &Path) -> Result<(Profile, Mat), FileError> {
    let text = std::fs::read_to_string(path).map_err(|source| FileError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let profile = Profile::from_toml(&text).map_err(|detail| FileError::Malformed {
        path: path.to_path_buf(),
        detail,
    })?;
    let image = path.with_file_name(&profile.empty_image);
    let empty = imgcodecs::imread(&image.to_string_lossy(), imgcodecs::IMREAD_COLOR)?;
    if empty.empty() {
        return Err(FileError::NoEmptyPicture {
            profile: path.to_path_buf(),
            image,
        });
    }
    let mut profile = profile;
    if let (Some(name), Some(taught)) = (&profile.taught_image, profile.sticks.as_mut()) {
        let image = path.with_file_name(name);
        let bad = |detail: String| FileError::BadTaughtPicture {
            profile: path.to_path_buf(),
            image: image.clone(),
            detail,
        };
        let pic = imgcodecs::imread(&image.to_string_lossy(), imgcodecs::IMREAD_COLOR)?;
        if pic.empty() {
            return Err(bad("missing or not a picture".into()));
        }
        taught.seen = Some(TaughtSticks::from_picture(&pic).map_err(|e| bad(e.to_string()))?);
    }
    Ok((profile, empty))
}

/// Write a picture kept beside a profile; its file name, for the TOML.
fn write_picture(image: &Path, picture: &Mat) -> Result<String, FileError> {
    if !imgcodecs::imwrite(&image.to_string_lossy(), picture, &Vector::new())? {
        return Err(FileError::Write {
            path: image.to_path_buf(),
            detail: "the picture could not be written".into(),
        });
    }
    Ok(image
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default())
}

/// Write a profile (after teaching): the TOML, and its taught sticks'
/// picture beside it when the stick set has one.
pub fn write_profile(path: &Path, profile: &mut Profile) -> Result<(), FileError> {
    profile.taught_image = None;
    if let Some(seen) = profile.sticks.as_ref().and_then(|t| t.seen.as_ref()) {
        profile.taught_image = Some(write_picture(
            &taught_image_path(path),
            &seen.to_picture()?,
        )?);
    }
    // Written beside it and moved into place: a station stopped mid-write
    // keeps the profile it had.
    let write = || -> std::io::Result<()> {
        let tmp = path.with_extension("toml.part");
        std::fs::write(&tmp, profile.to_toml())?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| FileError::Write {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

/// A profile's stick set replaced by `taught` (what the station learned since
/// teaching), the rest of the profile kept.
pub fn update_taught(path: &Path, taught: &Taught) -> Result<(), FileError> {
    let (mut profile, _) = load_profile(path)?;
    profile.sticks = Some(taught.clone());
    write_profile(path, &mut profile)
}

/// Write a new profile and its empty-mat picture beside it.
pub fn save_profile(
    path: &Path,
    calibration: Calibration,
    sticks: Option<Taught>,
    empty: &Mat,
) -> Result<Profile, FileError> {
    save_profile_made(path, calibration, sticks, empty, None)
}

/// [`save_profile`], saying when and how it was made.
pub fn save_profile_made(
    path: &Path,
    calibration: Calibration,
    sticks: Option<Taught>,
    empty: &Mat,
    made: Option<Made>,
) -> Result<Profile, FileError> {
    let mut profile = Profile {
        version: PROFILE_VERSION,
        empty_image: write_picture(&empty_image_path(path), empty)?,
        calibration,
        sticks,
        taught_image: None,
        made,
    };
    write_profile(path, &mut profile)?;
    Ok(profile)
}

/// Write a calibrated lens (`yutstation calibrate lens`), atomically.
pub fn save_lens(path: &Path, lens: &LensRecord) -> Result<(), FileError> {
    let write = || -> std::io::Result<()> {
        let tmp = path.with_extension("toml.part");
        std::fs::write(&tmp, lens.to_toml())?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| FileError::Write {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

/// Read a calibrated lens.
pub fn load_lens(path: &Path) -> Result<LensRecord, FileError> {
    let text = std::fs::read_to_string(path).map_err(|source| FileError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    LensRecord::from_toml(&text).map_err(|detail| FileError::Malformed {
        path: path.to_path_buf(),
        detail,
    })
}

/// Where the shipped appearance model lies, from the repository root.
pub const DEFAULT_MODEL: &str = "models/stick-appearance.yml";

/// The model file `model` names. The default is a path from the repository
/// root, so a station started in any other folder would read without its
/// model: when it is not there, it is looked for beside the program (and two
/// folders up, where cargo builds it) and in the source tree the program was
/// built from. Any other path is taken as given.
pub fn resolve_model(model: &Path) -> PathBuf {
    if model.exists() || model != Path::new(DEFAULT_MODEL) {
        return model.to_path_buf();
    }
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        candidates.push(dir.join(DEFAULT_MODEL));
        if let Some(root) = dir.parent().and_then(Path::parent) {
            candidates.push(root.join(DEFAULT_MODEL));
        }
    }
    candidates.push(source_root().join(DEFAULT_MODEL));
    candidates
        .into_iter()
        .find(|c| c.exists())
        .unwrap_or_else(|| model.to_path_buf())
}

/// The workspace this crate was built in (two folders above its manifest), where
/// the shipped models lie.
fn source_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The appearance model `model` names (see [`resolve_model`]). Without the
/// default model anywhere, the taught-faces rule reads the faces, with a
/// warning: it only offers best guesses, every throw goes to the referee
/// ([`Classifier::taught_rule`]). A model named on purpose must be there.
pub fn load_classifier(model: &Path) -> Result<Classifier, FileError> {
    let found = resolve_model(model);
    if !found.exists() {
        if model != Path::new(DEFAULT_MODEL) {
            return Err(FileError::Model {
                path: model.to_path_buf(),
                detail: format!(
                    "no such file (leave out --model for the shipped {DEFAULT_MODEL}, or give the path of a trained one)"
                ),
            });
        }
        eprintln!(
            "yutstation: no appearance model at {} (nor beside the program): the taught-faces rule reads the sticks, and every throw goes to the referee (run from the repository root or pass --model)",
            model.display()
        );
        return Ok(Classifier::taught_rule());
    }
    Classifier::load(&found.to_string_lossy()).map_err(|e| FileError::Model {
        path: found.clone(),
        detail: e.message,
    })
}

/// A detector from a taught profile and the appearance model. A profile
/// taught before the stick reader (no taught sticks' picture) is read by the
/// forest and the net alone, with a note: teaching again lets the reader read.
pub fn load_detector(profile: &Path, model: &Path) -> Result<Detector, FileError> {
    let (p, empty) = load_profile(profile)?;
    let taught = p
        .sticks
        .ok_or_else(|| FileError::Untaught(profile.to_path_buf()))?;
    let classifier = load_classifier(model)?;
    if classifier.has_stick_reader() && taught.seen.is_none() {
        eprintln!(
            "yutstation: profile {} was taught before the stick reader: its sticks are read without it (more throws go to the referee); teach the sticks again to read with it",
            profile.display()
        );
    }
    Ok(Detector::new(p.calibration, taught, empty, classifier)?)
}
