//! The synthetic world: renders yut throws (mat, floor, four D-section sticks,
//! lights, shadows, sensor noise, lens and tilt) with exact ground truth.
//!
//! No labelled yut photos exist, so the vision is developed, trained and measured
//! against this renderer. Everything is deterministic from seeds: a *look* (one
//! station: mat, floor, camera, lights, stick set) comes from a look seed, a throw
//! from a throw seed. Training uses look seeds below [`HELD_OUT_LOOK_BASE`];
//! evaluation uses seeds from there up, so its looks were never seen in training.
//!
//! The renderer is plain Rust (per-pixel ray casting onto the mat plane and the
//! stick surfaces); only the final blur and JPEG round trip use OpenCV.
//!
//! A printed sheet (the lens target) can be put in view too ([`render_sheet`]).
//!
//! Pure and deterministic: no files, no clock.

mod camera;
mod look;
mod noise;
mod render;
mod scene;
mod sequence;
mod sheet;

pub use camera::Camera;
pub use look::{Finish, FloorKind, Light, Look, MarkKind, MatKind, MatShape, StickLook};
pub use render::{render, Renderer, RgbImage};
pub use scene::{
    empty_scene, numbered_throw, teach_scene, teach_scene_shot, teach_scene_touching, throw_scene,
    Hand, HardCase, Scene, StickPose, StickTruth, ThrowTruth, TruthFace, TruthPlacement,
};
pub use sequence::{throw_sequence, FramePhase, Sequence, SequenceFrame};
pub use sheet::{render_sheet, GreyPicture, Sheet, SheetPose};

/// Look seeds from here up are held out from training (evaluation only).
pub const HELD_OUT_LOOK_BASE: u64 = 1_000_000;
