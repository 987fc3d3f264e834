//! The stick reader: a small convolutional net that reads one stick's face
//! from its patch, set beside the patches of this station's taught faces.
//!
//! Each station's sticks, mat and light differ, and what tells a flat face
//! from a round one under one light (a darker bark, a highlight stripe, dark
//! flanks) may be absent under another. So the net never judges a stick
//! alone: its input holds the stick and, pixel for pixel in the same frame of
//! reference, the mean of the four taught flat faces and of the four taught
//! round faces. It learns, over many generated stations, how a stick compares
//! with its own station's two faces (ADR 0047).
//!
//! This module defines the input once: `yutstation train --export-reader`
//! writes it for the trainer (`tools/train_reader.py`), and the station builds
//! the same numbers for every stick it reads. The net itself runs in OpenCV's
//! `dnn` module from an ONNX file beside the forest's
//! (`models/stick-appearance-reader.onnx`, `classify::reader_path`).
//!
//! Pure but for `Reader::load`, which OpenCV reads from a path.

use crate::features::{patch_point, Patch, PL, PW};
use crate::measure::Measured;
use crate::sticks::{in_rect, Found};
use opencv::core::{Mat, Vector};
use opencv::dnn;
use opencv::prelude::*;
use std::sync::Mutex;

/// Input planes: the stick against the mat under it (3, one per colour), the
/// taught flat faces (3) and round faces (3) the same way, the foreground
/// mask, and where other found sticks lie.
pub const CHANNELS: usize = 11;
/// Numbers beside the planes: fitted width and length over the taught size,
/// whether it shares its blob, the blob's area over one stick's.
pub const N_GEO: usize = 4;
/// One plane.
pub const PLANE: usize = PL * PW;
/// One stick's planes.
pub const INPUT_LEN: usize = CHANNELS * PLANE;
/// Added to both levels before their ratio is taken: keeps the ratio of dark
/// pixels (noise around black) from swinging wildly.
const DARK: f32 = 8.0;

/// The taught faces as the reader sees them: for each face, the mean over
/// the taught sticks (each taken both ways along, as a stick lands either
/// way round) of the stick against the mat under it, three planes.
#[derive(Debug, Clone, PartialEq)]
pub struct TaughtLooks {
    pub front: Vec<f32>,
    pub back: Vec<f32>,
}

/// The taught sticks as the camera saw them: the patches (frame and empty
/// mat) of the four flat faces and the four round faces. Kept with the
/// profile as a picture (`files::write_profile`), from which [`TaughtLooks`]
/// is made again exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct TaughtSticks {
    pub front: Vec<Patch>,
    pub back: Vec<Patch>,
}

/// Why a picture of taught sticks cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("it is {0} × {1} pixels, not {w} × {h} (the taught sticks' picture of this version)", w = 2 * PL, h = TAUGHT_ROWS * PW)]
    Size(i32, i32),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// Rows of the taught sticks' picture: four flat faces, then four round ones.
const TAUGHT_ROWS: usize = 8;

impl TaughtSticks {
    pub fn from_teach(front: &[Measured], back: &[Measured]) -> TaughtSticks {
        TaughtSticks {
            front: front.iter().map(|m| m.patch.clone()).collect(),
            back: back.iter().map(|m| m.patch.clone()).collect(),
        }
    }

    pub fn looks(&self) -> TaughtLooks {
        TaughtLooks::from_patches(&self.front, &self.back)
    }

    /// A picture a person can look at: one taught stick a row (the four flat
    /// faces, then the four round faces), as the camera saw it on the left
    /// and the empty mat under it on the right, lying along the rows.
    pub fn to_picture(&self) -> opencv::Result<Mat> {
        let mut bytes = Vec::with_capacity(TAUGHT_ROWS * PW * 2 * PL * 3);
        for p in self.front.iter().chain(&self.back) {
            for j in 0..PW {
                bytes.extend_from_slice(&p.bgr[j * PL * 3..(j + 1) * PL * 3]);
                bytes.extend_from_slice(&p.empty_bgr[j * PL * 3..(j + 1) * PL * 3]);
            }
        }
        let rows = (self.front.len() + self.back.len()) * PW;
        Mat::from_slice(&bytes)?
            .reshape(3, rows as i32)?
            .try_clone()
    }

    /// Read back what [`TaughtSticks::to_picture`] drew (four flat, four
    /// round faces).
    pub fn from_picture(m: &Mat) -> Result<TaughtSticks, PictureError> {
        if m.cols() != (2 * PL) as i32 || m.rows() != (TAUGHT_ROWS * PW) as i32 || m.channels() != 3
        {
            return Err(PictureError::Size(m.cols(), m.rows()));
        }
        let m = m.try_clone()?;
        let bytes = m.data_bytes()?;
        let row = 2 * PL * 3;
        let mut patches = (0..TAUGHT_ROWS).map(|k| {
            let (mut bgr, mut empty_bgr) = (Vec::new(), Vec::new());
            for j in 0..PW {
                let o = (k * PW + j) * row;
                bgr.extend_from_slice(&bytes[o..o + PL * 3]);
                empty_bgr.extend_from_slice(&bytes[o + PL * 3..o + row]);
            }
            Patch {
                bgr,
                empty_bgr,
                mask: vec![255; PLANE],
            }
        });
        let front = patches.by_ref().take(TAUGHT_ROWS / 2).collect();
        let back = patches.collect();
        Ok(TaughtSticks { front, back })
    }
}

impl TaughtLooks {
    /// From the patches of the taught sticks (all flat faces up; all round
    /// faces up).
    pub fn from_patches<'a>(
        front: impl IntoIterator<Item = &'a Patch>,
        back: impl IntoIterator<Item = &'a Patch>,
    ) -> TaughtLooks {
        TaughtLooks {
            front: mean_both_ways(front),
            back: mean_both_ways(back),
        }
    }

    /// From the measured taught sticks.
    pub fn from_teach(front: &[Measured], back: &[Measured]) -> TaughtLooks {
        TaughtLooks::from_patches(
            front.iter().map(|m| &m.patch),
            back.iter().map(|m| &m.patch),
        )
    }
}

fn mean_both_ways<'a>(patches: impl IntoIterator<Item = &'a Patch>) -> Vec<f32> {
    let mut sum = vec![0f32; 3 * PLANE];
    let mut n = 0f32;
    for p in patches {
        let r = against_mat(p);
        for c in 0..3 {
            for j in 0..PW {
                for i in 0..PL {
                    let k = c * PLANE + j * PL + i;
                    sum[k] += r[k] + r[c * PLANE + j * PL + (PL - 1 - i)];
                }
            }
        }
        n += 2.0;
    }
    if n > 0.0 {
        sum.iter_mut().for_each(|v| *v /= n);
    }
    sum
}

/// The stick against the mat under it: per colour, ln((frame + 8) /
/// (empty + 8)), three planes (blue, green, red), rows across the stick.
fn against_mat(p: &Patch) -> Vec<f32> {
    let mut out = vec![0f32; 3 * PLANE];
    for j in 0..PW {
        for i in 0..PL {
            let o = (j * PL + i) * 3;
            for c in 0..3 {
                let f = f32::from(p.bgr[o + c]);
                let e = f32::from(p.empty_bgr[o + c]);
                out[c * PLANE + j * PL + i] = ((f + DARK) / (e + DARK)).ln();
            }
        }
    }
    out
}

/// One stick's input planes ([`INPUT_LEN`] numbers, appended to `out`).
/// `others`: the other sticks found in the frame.
pub fn input(
    p: &Patch,
    s: &Found,
    nominal: (f64, f64),
    others: &[Found],
    taught: &TaughtLooks,
    out: &mut Vec<f32>,
) {
    out.extend(against_mat(p));
    out.extend_from_slice(&taught.front);
    out.extend_from_slice(&taught.back);
    out.extend(p.mask.iter().map(|v| f32::from(*v) / 255.0));
    for j in 0..PW {
        for i in 0..PL {
            let q = patch_point(s, nominal, i, j);
            let under = others
                .iter()
                .any(|o| in_rect(q, o.center, o.dir, o.length / 2.0, o.width / 2.0));
            out.push(if under { 1.0 } else { 0.0 });
        }
    }
}

/// The numbers beside the planes (see [`N_GEO`]).
pub fn geo(s: &Found, nominal: (f64, f64)) -> [f32; N_GEO] {
    [
        (s.width / nominal.1) as f32,
        (s.length / nominal.0) as f32,
        if s.shared { 1.0 } else { 0.0 },
        s.blob_ratio as f32,
    ]
}

/// The net, from its ONNX file. OpenCV's `Net` is run through `&mut`; the
/// station reads from one thread, the lock only makes the type shareable.
pub struct Reader {
    net: Mutex<dnn::Net>,
}

impl Reader {
    pub fn load(path: &str) -> opencv::Result<Reader> {
        let mut net = dnn::read_net_from_onnx(path)?;
        net.set_preferable_backend(dnn::DNN_BACKEND_OPENCV)?;
        net.set_preferable_target(dnn::DNN_TARGET_CPU)?;
        Ok(Reader {
            net: Mutex::new(net),
        })
    }

    /// What the reader sees of each stick: `planes` holds `n` inputs of
    /// [`INPUT_LEN`], `geo` `n` of [`N_GEO`]. Read one way along only: it
    /// learned both (training turns sticks end for end at random), and
    /// reading each stick both ways and averaging changed one clear throw in
    /// 1,900 of the stored sets (one more right, one fewer) while doubling
    /// its cost, 8 ms a frame of four sticks on one core.
    pub fn read(&self, planes: &[f32], geo: &[f32]) -> opencv::Result<Vec<StickRead>> {
        let n = geo.len() / N_GEO;
        if n == 0 {
            return Ok(Vec::new());
        }
        let blob = blob_of(planes, &[n as i32, CHANNELS as i32, PW as i32, PL as i32])?;
        let g = blob_of(geo, &[n as i32, N_GEO as i32, 1, 1])?;
        let mut net = self.net.lock().unwrap_or_else(|e| e.into_inner());
        net.set_input(&blob, "patch", 1.0, opencv::core::Scalar::default())?;
        net.set_input(&g, "geo", 1.0, opencv::core::Scalar::default())?;
        let mut outs = Vector::<Mat>::new();
        net.forward(&mut outs, &Vector::<String>::from_iter(["probs", "mark"]))?;
        let (faces, marks) = (outs.get(0)?, outs.get(1)?);
        let v: &[f32] = faces.data_typed()?;
        let m: &[f32] = marks.data_typed()?;
        Ok((0..n)
            .map(|k| StickRead {
                faces: [0, 1, 2].map(|c| f64::from(v[k * 3 + c])),
                mark: f64::from(m[k]),
            })
            .collect())
    }
}

/// One stick as the reader reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StickRead {
    /// Front, back, neither.
    pub faces: [f64; 3],
    /// That it is the marked stick, lying flat face up with its mark in view
    /// (learned on flat faces only: meaningless for a round face). Near one
    /// half where the mark could be hidden under another stick.
    pub mark: f64,
}

fn blob_of(data: &[f32], shape: &[i32]) -> opencv::Result<Mat> {
    let flat = Mat::from_slice(data)?;
    let sizes = Vector::<i32>::from_slice(shape);
    flat.reshape_nd(1, &sizes.to_vec())?.try_clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat_patch(frame: u8, empty: u8) -> Patch {
        Patch {
            bgr: vec![frame; PLANE * 3],
            empty_bgr: vec![empty; PLANE * 3],
            mask: vec![255; PLANE],
        }
    }

    #[test]
    fn the_input_holds_the_stick_against_the_mat_beside_the_taught_faces() {
        let taught = TaughtLooks::from_patches([&flat_patch(200, 100)], [&flat_patch(50, 100)]);
        let s = Found {
            center: [100.0, 100.0],
            dir: [1.0, 0.0],
            length: 60.0,
            width: 10.0,
            shared: false,
            blob_ratio: 1.0,
        };
        // Another stick lying across the left end of this one.
        let other = Found {
            center: [75.0, 100.0],
            dir: [0.0, 1.0],
            ..s
        };
        let mut x = Vec::new();
        input(
            &flat_patch(150, 100),
            &s,
            (60.0, 10.0),
            &[other],
            &taught,
            &mut x,
        );
        assert_eq!(x.len(), INPUT_LEN);
        let at = |c: usize, j: usize, i: usize| x[c * PLANE + j * PL + i];
        assert!((at(0, 5, 5) - (158f32 / 108.0).ln()).abs() < 1e-6);
        assert!((at(3, 5, 5) - (208f32 / 108.0).ln()).abs() < 1e-6);
        assert!((at(6, 5, 5) - (58f32 / 108.0).ln()).abs() < 1e-6);
        assert_eq!(at(9, 5, 5), 1.0);
        // The patch spans 1.1 of the stick's length: its column 5 lies 27
        // pixels left of the centre, under the other stick (x 70–80).
        assert_eq!(at(10, PW / 2, 5), 1.0, "the other stick's footprint");
        assert_eq!(at(10, PW / 2, PL - 6), 0.0, "clear of it");
    }

    #[test]
    fn the_taught_sticks_picture_reads_back_exactly() {
        let patch = |seed: u8| Patch {
            bgr: (0..PLANE * 3)
                .map(|k| (k as u8).wrapping_mul(seed))
                .collect(),
            empty_bgr: (0..PLANE * 3)
                .map(|k| (k as u8).wrapping_add(seed))
                .collect(),
            mask: vec![255; PLANE],
        };
        let sticks = TaughtSticks {
            front: (1..5).map(patch).collect(),
            back: (5..9).map(patch).collect(),
        };
        let pic = sticks.to_picture().unwrap();
        assert_eq!((pic.cols(), pic.rows()), (2 * PL as i32, 8 * PW as i32));
        assert_eq!(TaughtSticks::from_picture(&pic).unwrap(), sticks);
        let wrong = Mat::new_rows_cols_with_default(
            10,
            10,
            opencv::core::CV_8UC3,
            opencv::core::Scalar::all(0.0),
        )
        .unwrap();
        assert!(TaughtSticks::from_picture(&wrong).is_err());
    }
}
