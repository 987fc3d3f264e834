//! Per-stick face classification: flat face up (front), round face up (back), or
//! neither (on its edge, leaning).
//!
//! The default model is an OpenCV random forest (`ml::RTrees`) trained on the
//! synthetic world (`yutstation train`). Its inputs are the stick's features
//! *relative to the taught set* (so one model serves every stick set) plus the
//! raw features. Without a model file a plain nearest-taught-face rule is used.
//!
//! Pure but for `Classifier::load` and `save`, which OpenCV does on paths.

use crate::features::{picture_turned, ACROSS, N_APPEAR, N_FEATURES, N_GEOM, N_PICTURE, PICTURE};
use crate::measure::Measured;
use crate::profile::{Taught, N_FIT};
use crate::reader::{self, Reader, TaughtLooks};
use crate::sticks::{others_than, Found};
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
    /// Each reader's own (front, back, neither), when two read: the forest's
    /// and the net's (`yut_vision::verdict` asks whether both lean one way).
    pub readers: Option<[[f64; 3]; 2]>,
    /// The stick reader's own (front, back, neither), when it read
    /// ([`with_stick_reader`]).
    pub stick: Option<[f64; 3]>,
    /// The stick reader's certainty that this is the marked stick, its mark
    /// in view (see `reader::StickRead::mark`).
    pub mark: Option<f64>,
    /// The stick reader's "neither" where the station reads its faces with
    /// its own taught reader (`Classifier::read`): its say that the stick is
    /// on its edge or leaning, which it learned whatever the faces looked
    /// like (`verdict::EDGE_WITNESS`).
    pub edge_witness: Option<f64>,
}

impl FaceProbs {
    /// Front, back, neither, read by one reader (or the taught rule).
    pub fn single(p: [f64; 3]) -> FaceProbs {
        FaceProbs {
            front: p[0],
            back: p[1],
            neither: p[2],
            readers: None,
            stick: None,
            mark: None,
            edge_witness: None,
        }
    }
}

/// The model input for one stick.
pub fn model_input(taught: &Taught, f: &[f32; N_FEATURES]) -> Vec<f32> {
    let mut v = taught.normalise(&f[..N_APPEAR]);
    v.extend_from_slice(&f[..ACROSS]);
    v.extend_from_slice(&taught.face_fit(f));
    v
}

/// Length of the picture net's input: the appearance relative to the taught
/// set, the shading fit, the geometry and the stick's coarse picture.
pub const N_NET_INPUT: usize = N_APPEAR + N_FIT + N_GEOM + N_PICTURE;

/// The picture net's input for one stick.
pub fn net_input(taught: &Taught, f: &[f32; N_FEATURES]) -> Vec<f32> {
    net_input_from(&model_input(taught, f), f)
}

/// The picture net's input from the forest's ([`model_input`]), which already
/// holds the taught-relative appearance and the shading fit (each computed
/// once per stick).
pub fn net_input_from(model_in: &[f32], f: &[f32; N_FEATURES]) -> Vec<f32> {
    let mut v = model_in[..N_APPEAR].to_vec();
    v.extend_from_slice(&model_in[N_APPEAR + ACROSS..]);
    v.extend_from_slice(&f[N_APPEAR..N_APPEAR + N_GEOM]);
    v.extend_from_slice(&f[PICTURE..PICTURE + N_PICTURE]);
    v
}

/// A net input with its picture turned end for end (every other input is the
/// same either way round): the net learns and reads each stick both ways.
pub fn net_input_turned(x: &[f32]) -> Vec<f32> {
    let head = x.len() - N_PICTURE;
    let mut v = x[..head].to_vec();
    v.extend(picture_turned(&x[head..]));
    v
}

/// The two readers' probabilities (front, back, neither) as the station uses
/// them: averaged when there is a net.
pub fn combine(forest: [f64; 3], net: Option<[f64; 3]>) -> FaceProbs {
    match net {
        Some(n) => FaceProbs {
            readers: Some([forest, n]),
            ..FaceProbs::single([0, 1, 2].map(|i| (forest[i] + n[i]) / 2.0))
        },
        None => FaceProbs::single(forest),
    }
}

/// The file of the stick reader that goes with a forest's file: beside it,
/// `NAME-reader.onnx` for `NAME.yml`.
pub fn reader_path(forest_path: &str) -> String {
    match forest_path.strip_suffix(".yml") {
        Some(stem) => format!("{stem}-reader.onnx"),
        None => format!("{forest_path}-reader.onnx"),
    }
}

/// The file of the picture net that goes with a forest's file: beside it,
/// `NAME-net.yml` for `NAME.yml`.
pub fn net_path(forest_path: &str) -> String {
    match forest_path.strip_suffix(".yml") {
        Some(stem) => format!("{stem}-net.yml"),
        None => format!("{forest_path}-net.yml"),
    }
}

/// What a station reads faces with: the appearance models on the measured
/// features and, when its file is there, the stick reader on the pixels
/// (`yut_vision::reader`).
pub struct Classifier {
    appearance: Appearance,
    stick: Option<Reader>,
}

/// The stick reader's faces, with "neither" taken as the larger of its own
/// and the appearance models' (the forest's and the net's, averaged): they
/// miss different sticks on their edge. The stick reader alone read lone
/// sticks standing on their edge as round faces at 0.9 and more, "neither"
/// under 0.1 (one silent error in 700 development throws, one in 1,056
/// validation throws), where the appearance models saw "neither"; with their
/// say, none (ADR 0047).
pub fn with_stick_reader(appearance: FaceProbs, stick: reader::StickRead) -> FaceProbs {
    let f = stick.faces;
    FaceProbs {
        front: f[0],
        back: f[1],
        neither: f[2].max(appearance.neither),
        readers: appearance.readers,
        stick: Some(f),
        mark: Some(stick.mark),
        edge_witness: None,
    }
}

enum Appearance {
    Forest(Ptr<ml::RTrees>),
    /// The forest and the picture net, their probabilities averaged: two
    /// models that read different things must both be sure.
    Ensemble(Ptr<ml::RTrees>, Ptr<ml::ANN_MLP>),
    /// Nearest taught face, weighted by how well each feature separated them:
    /// the fallback when no model file is found. It is no judge: on the
    /// stored generated looks it made a silent error on 1.4 % of the throws
    /// at the calling bars, so it is never sure enough to call a face
    /// ([`TAUGHT_RULE_MAX`]); it only gives the referee a best guess.
    Taught,
}

fn wrong_model(path: &str) -> opencv::Error {
    opencv::Error::new(
        opencv::core::StsError,
        format!("{path}: not a stick appearance model for this version (retrain it)"),
    )
}

/// The forest's vote shares for front, back, neither.
fn forest_votes(m: &Ptr<ml::RTrees>, x: &[f32]) -> opencv::Result<[f64; 3]> {
    let sample = Mat::from_slice(x)?.try_clone()?;
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
    Ok(p.map(|v| v / t))
}

/// The net's outputs as probabilities (a softmax of its three outputs,
/// trained towards +1 for the class and −1 for the others), read on the
/// picture both ways round and averaged.
fn net_votes(m: &Ptr<ml::ANN_MLP>, x: &[f32]) -> opencv::Result<[f64; 3]> {
    let mut acc = [0f64; 3];
    for x in [x.to_vec(), net_input_turned(x)] {
        let sample = Mat::from_slice(&x)?.try_clone()?;
        let mut out = Mat::default();
        m.predict(&sample, &mut out, 0)?;
        let o: Vec<f64> = (0..3)
            .map(|c| out.at_2d::<f32>(0, c).map(|v| *v as f64 * NET_SHARPNESS))
            .collect::<opencv::Result<_>>()?;
        let top = o.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = o.iter().map(|v| (v - top).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (a, v) in acc.iter_mut().zip(e) {
            *a += v / sum / 2.0;
        }
    }
    Ok(acc)
}

/// The most the taught-faces rule is ever sure of a face: under every
/// calling bar (`yut_vision::verdict::FACE_CALL`), so a station without its model
/// refers every throw.
pub const TAUGHT_RULE_MAX: f64 = 0.75;

/// How sharply the net's outputs (about −1..1) become probabilities.
const NET_SHARPNESS: f64 = 3.0;

impl Classifier {
    /// Load a forest, and the picture net and the stick reader beside it if
    /// they are there.
    pub fn load(path: &str) -> opencv::Result<Classifier> {
        let m = ml::RTrees::load(path, "")?;
        if StatModelTraitConst::empty(&m)? || m.get_var_count()? != N_INPUT as i32 {
            return Err(wrong_model(path));
        }
        let net = net_path(path);
        let appearance = if std::path::Path::new(&net).exists() {
            let n = ml::ANN_MLP::load(&net)?;
            if StatModelTraitConst::empty(&n)? || n.get_var_count()? != N_NET_INPUT as i32 {
                return Err(wrong_model(&net));
            }
            Appearance::Ensemble(m, n)
        } else {
            Appearance::Forest(m)
        };
        let reader = reader_path(path);
        let stick = if std::path::Path::new(&reader).exists() {
            Some(Reader::load(&reader)?)
        } else {
            None
        };
        Ok(Classifier { appearance, stick })
    }

    /// The taught-faces rule alone: the fallback without a model file (see
    /// [`TAUGHT_RULE_MAX`]), and what training stations read with.
    pub fn taught_rule() -> Classifier {
        Classifier {
            appearance: Appearance::Taught,
            stick: None,
        }
    }

    pub fn is_taught_rule(&self) -> bool {
        matches!(self.appearance, Appearance::Taught)
    }

    /// A freshly trained forest, and its net (`yutstation train`).
    pub fn trained(forest: Ptr<ml::RTrees>, net: Option<Ptr<ml::ANN_MLP>>) -> Classifier {
        Classifier {
            appearance: match net {
                Some(n) => Appearance::Ensemble(forest, n),
                None => Appearance::Forest(forest),
            },
            stick: None,
        }
    }

    /// Whether the stick reader reads beside the appearance models.
    pub fn has_stick_reader(&self) -> bool {
        self.stick.is_some()
    }

    /// Read the faces of the sticks found in one frame (`sticks`): the
    /// appearance models on each one's features and, where there is a stick
    /// reader and the taught sticks' looks (`looks`), the reader on its
    /// pixels beside the taught faces, combined by [`with_stick_reader`].
    pub fn read(
        &self,
        taught: &Taught,
        looks: Option<&TaughtLooks>,
        sticks: &[Measured],
    ) -> opencv::Result<Vec<FaceProbs>> {
        // A station that reads with its own taught reader reads faces with it
        // alone: the models could not read its taught sticks
        // (`check_readable`). The stick reader still says which sticks stand
        // on their edge: it learned them whatever the faces looked like.
        if let Some(own) = &taught.taught_reader {
            let edge = if taught.edge_witness {
                self.edge_witness(sticks, looks)?
            } else {
                None
            };
            return Ok(sticks
                .iter()
                .enumerate()
                .map(|(i, s)| FaceProbs {
                    edge_witness: edge.as_ref().map(|e| e[i]),
                    ..FaceProbs::single(match &edge {
                        Some(e) => own.read_witnessed(s, e[i]),
                        None => own.read(s),
                    })
                })
                .collect());
        }
        let appearance = sticks
            .iter()
            .map(|s| self.probs(taught, &s.features))
            .collect::<opencv::Result<Vec<_>>>()?;
        Ok(match self.stick_reads(sticks, looks)? {
            Some(reads) => appearance
                .into_iter()
                .zip(reads)
                .map(|(a, r)| with_stick_reader(a, r))
                .collect(),
            None => appearance,
        })
    }

    /// The stick reader's "neither" for each stick, where there is a stick
    /// reader and the taught sticks' looks: its say that a stick stands on
    /// its edge or leans (`FaceProbs::edge_witness`).
    pub fn edge_witness(
        &self,
        sticks: &[Measured],
        looks: Option<&TaughtLooks>,
    ) -> opencv::Result<Option<Vec<f64>>> {
        Ok(self
            .stick_reads(sticks, looks)?
            .map(|reads| reads.iter().map(|r| r.faces[2]).collect()))
    }

    /// The stick reader's reading of each stick, where there is a stick
    /// reader and the taught sticks' looks.
    fn stick_reads(
        &self,
        sticks: &[Measured],
        looks: Option<&TaughtLooks>,
    ) -> opencv::Result<Option<Vec<reader::StickRead>>> {
        let (Some(reader), Some(looks)) = (&self.stick, looks) else {
            return Ok(None);
        };
        let found: Vec<Found> = sticks.iter().map(|s| s.found).collect();
        let mut planes = Vec::with_capacity(sticks.len() * reader::INPUT_LEN);
        let mut geo = Vec::with_capacity(sticks.len() * reader::N_GEO);
        for (i, s) in sticks.iter().enumerate() {
            reader::input(
                &s.patch,
                &s.found,
                s.nominal,
                &others_than(&found, i),
                looks,
                &mut planes,
            );
            geo.extend(reader::geo(&s.found, s.nominal));
        }
        reader.read(&planes, &geo).map(Some)
    }

    /// The forest's and the net's probabilities (front, back, neither) from
    /// precomputed model inputs ([`model_input`], [`net_input`] unturned).
    pub fn parts_of_inputs(
        &self,
        forest_in: &[f32],
        net_in: &[f32],
    ) -> opencv::Result<([f64; 3], Option<[f64; 3]>)> {
        Ok(match &self.appearance {
            Appearance::Forest(m) => (forest_votes(m, forest_in)?, None),
            Appearance::Ensemble(m, n) => {
                (forest_votes(m, forest_in)?, Some(net_votes(n, net_in)?))
            }
            Appearance::Taught => ([1.0 / 3.0; 3], None),
        })
    }

    pub fn probs(&self, taught: &Taught, f: &[f32; N_FEATURES]) -> opencv::Result<FaceProbs> {
        match &self.appearance {
            Appearance::Forest(_) | Appearance::Ensemble(..) => {
                let model_in = model_input(taught, f);
                let (a, b) = self.parts_of_inputs(&model_in, &net_input_from(&model_in, f))?;
                Ok(combine(a, b))
            }
            Appearance::Taught => {
                let sure = taught.taught_front(&f[..N_APPEAR]);
                let pf = 0.5 + (sure - 0.5) * (2.0 * TAUGHT_RULE_MAX - 1.0);
                let width = f[N_APPEAR] as f64;
                let neither = if width < 0.72 { 0.9 } else { 0.0 };
                Ok(FaceProbs::single([
                    pf * (1.0 - neither),
                    (1.0 - pf) * (1.0 - neither),
                    neither,
                ]))
            }
        }
    }
}

/// Train the picture net on net inputs and labels (`CLASS_*`): one hidden
/// layer, symmetric sigmoid, RPROP; inputs and outputs scaled by OpenCV from
/// the training data (the scaling is stored in the model). The rare
/// "neither" class is repeated `neither_weight` times.
pub fn train_net(
    inputs: &[Vec<f32>],
    labels: &[i32],
    hidden: i32,
    iterations: i32,
    neither_weight: usize,
) -> opencv::Result<Ptr<ml::ANN_MLP>> {
    let mut rows: Vec<&[f32]> = Vec::new();
    let mut targets: Vec<[f32; 3]> = Vec::new();
    for (x, &y) in inputs.iter().zip(labels) {
        let times = if y == CLASS_NEITHER {
            neither_weight
        } else {
            1
        };
        let mut t = [-1f32; 3];
        t[y as usize] = 1.0;
        for _ in 0..times {
            rows.push(x.as_slice());
            targets.push(t);
        }
    }
    let samples = Mat::from_slice_2d(&rows)?;
    let responses = Mat::from_slice_2d(&targets)?;
    let mut m = ml::ANN_MLP::create()?;
    let layers = Mat::from_slice(&[N_NET_INPUT as i32, hidden, 3])?.try_clone()?;
    m.set_layer_sizes(&layers)?;
    m.set_activation_function(ml::ANN_MLP_SIGMOID_SYM, 0.0, 0.0)?;
    m.set_train_method(ml::ANN_MLP_RPROP, 0.1, f64::from(f32::EPSILON))?;
    m.set_term_criteria(TermCriteria::new(
        opencv::core::TermCriteria_COUNT + opencv::core::TermCriteria_EPS,
        iterations,
        1e-5,
    )?)?;
    let data = ml::TrainData::create_def(&samples, ml::ROW_SAMPLE, &responses)?;
    m.train_with_data(&data, 0)?;
    Ok(m)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stick_reader_reads_the_faces_and_either_reader_can_see_neither() {
        let appearance = combine([0.2, 0.5, 0.3], Some([0.1, 0.8, 0.1]));
        let read = |faces| reader::StickRead { faces, mark: 0.1 };
        // The stick reader sure of a round face, the appearance models seeing
        // a stick on its edge (0.2 averaged): "neither" is theirs.
        let p = with_stick_reader(appearance, read([0.01, 0.97, 0.02]));
        assert_eq!((p.front, p.back), (0.01, 0.97));
        assert!((p.neither - 0.2).abs() < 1e-12, "{p:?}");
        assert_eq!(p.stick, Some([0.01, 0.97, 0.02]));
        assert_eq!(p.mark, Some(0.1));
        assert_eq!(p.readers, appearance.readers);
        // And its own "neither" when it sees more of one.
        let p = with_stick_reader(appearance, read([0.1, 0.3, 0.6]));
        assert_eq!(p.neither, 0.6);
    }
}
