//! Per-stick face classification: flat face up (front), round face up (back), or
//! neither (on its edge, leaning).
//!
//! The default model is an OpenCV random forest (`ml::RTrees`) trained on the
//! synthetic world (`yutstation train`). Its inputs are the stick's features
//! *relative to the taught set* (so one model serves every stick set) plus the
//! raw features. Without a model file a plain nearest-taught-face rule is used.

use super::features::{ACROSS, N_APPEAR, N_FEATURES};
use super::profile::{Taught, N_FIT};
use opencv::core::{Mat, Ptr, TermCriteria};
use opencv::ml;
use opencv::prelude::*;

/// Class ids in the model.
pub const CLASS_FRONT: i32 = 0;
pub const CLASS_BACK: i32 = 1;
pub const CLASS_NEITHER: i32 = 2;

/// Length of the model's input vector: the appearance relative to the taught
/// set, the raw features but for the stick's direction in the image (which
/// means nothing from one station to the next), and the shading fit.
pub const N_INPUT: usize = N_APPEAR + ACROSS + N_FIT;

/// Probabilities of front, back, neither.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceProbs {
    pub front: f64,
    pub back: f64,
    pub neither: f64,
}

/// The model input for one stick.
pub fn model_input(taught: &Taught, f: &[f32; N_FEATURES]) -> Vec<f32> {
    let mut v = taught.normalise(&f[..N_APPEAR]);
    v.extend_from_slice(&f[..ACROSS]);
    v.extend_from_slice(&taught.face_fit(f));
    v
}

pub enum Classifier {
    Forest(Ptr<ml::RTrees>),
    /// Nearest taught face, weighted by how well each feature separated them.
    Taught,
}

impl Classifier {
    pub fn load(path: &str) -> opencv::Result<Classifier> {
        let m = ml::RTrees::load(path, "")?;
        if StatModelTraitConst::empty(&m)? || m.get_var_count()? != N_INPUT as i32 {
            return Err(opencv::Error::new(
                opencv::core::StsError,
                format!("{path}: not a stick appearance model for this version (retrain it)"),
            ));
        }
        Ok(Classifier::Forest(m))
    }

    pub fn probs(&self, taught: &Taught, f: &[f32; N_FEATURES]) -> opencv::Result<FaceProbs> {
        match self {
            Classifier::Forest(m) => {
                let x = model_input(taught, f);
                let sample = Mat::from_slice(&x)?.try_clone()?;
                let mut votes = Mat::default();
                m.get_votes(&sample, &mut votes, 0)?;
                let mut p = [0f64; 3];
                let mut total = 0.0;
                for c in 0..votes.cols() {
                    let class = *votes.at_2d::<i32>(0, c)?;
                    let v = *votes.at_2d::<i32>(1, c)? as f64;
                    if (0..3).contains(&class) {
                        p[class as usize] = v;
                    }
                    total += v;
                }
                let t = total.max(1.0);
                Ok(FaceProbs {
                    front: p[0] / t,
                    back: p[1] / t,
                    neither: p[2] / t,
                })
            }
            Classifier::Taught => {
                let z = taught.normalise(&f[..N_APPEAR]);
                let (mut s, mut wsum) = (0f64, 0f64);
                for (i, zi) in z.iter().enumerate() {
                    let sep = (taught.front_mean[i] - taught.back_mean[i]).abs() as f64;
                    let spread = (taught.front_std[i] + taught.back_std[i]) as f64 / 2.0 + 1e-3;
                    let w = (sep / spread).powi(2);
                    s += w * (*zi as f64).clamp(-2.0, 2.0);
                    wsum += w;
                }
                let score = s / wsum.max(1e-9);
                let pf = 1.0 / (1.0 + (-6.0 * score).exp());
                let width = f[N_APPEAR] as f64;
                let neither = if width < 0.72 { 0.9 } else { 0.0 };
                Ok(FaceProbs {
                    front: pf * (1.0 - neither),
                    back: (1.0 - pf) * (1.0 - neither),
                    neither,
                })
            }
        }
    }
}

/// Train the forest on model inputs and labels (`CLASS_*`).
pub fn train_forest(
    inputs: &[Vec<f32>],
    labels: &[i32],
    trees: i32,
    depth: i32,
) -> opencv::Result<Ptr<ml::RTrees>> {
    let rows: Vec<&[f32]> = inputs.iter().map(|v| v.as_slice()).collect();
    let samples = Mat::from_slice_2d(&rows)?;
    let responses = Mat::from_slice(labels)?
        .reshape(1, labels.len() as i32)?
        .try_clone()?;
    let mut m = ml::RTrees::create()?;
    m.set_max_depth(depth)?;
    m.set_min_sample_count(4)?;
    m.set_calculate_var_importance(false)?;
    m.set_active_var_count(0)?;
    // A stick on its edge or leaning is rare but must not be read as a face:
    // weigh that class up.
    let priors = Mat::from_slice(&[1.0f32, 1.0, 4.0])?.try_clone()?;
    m.set_priors(&priors)?;
    m.set_term_criteria(TermCriteria::new(
        opencv::core::TermCriteria_COUNT,
        trees,
        0.0,
    )?)?;
    let data = ml::TrainData::create_def(&samples, ml::ROW_SAMPLE, &responses)?;
    m.train_with_data(&data, 0)?;
    Ok(m)
}
