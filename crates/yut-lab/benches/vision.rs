//! Judge time of a still frame at 1280×720, split by stage: finding and
//! measuring the sticks (foreground, split, refit, patches and features), the
//! features alone (recomputed from the patches), the two readers, and the
//! verdict. The floor is 30 ms for the whole on one core; `eval` reports the
//! whole per frame over many looks, this says where the time goes.
//!
//! `cargo bench --bench vision` (the default model must be in `models/`), on a
//! quiet machine. OpenCV works on one thread, as the station does. Criterion
//! times all 16 frames per iteration; its throughput line is frames per second.
//! A second group judges the slowest frame found on the wider world's looks.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use opencv::core::Mat;
use std::hint::black_box;
use yut_sim::{self, HardCase, Look, Scene, HELD_OUT_LOOK_BASE};
use yut_vision::calibrate::{calibrate, MatSpec};
use yut_vision::classify::Classifier;
use yut_vision::{self, refresh_all, sticks, Detector};

/// Two held-out looks whose throws are among the slowest to judge (many
/// shared blobs to split and refit), as `eval --look-offset 2700` renders them.
const LOOKS: [u64; 2] = [HELD_OUT_LOOK_BASE + 2700, HELD_OUT_LOOK_BASE + 2701];

fn render(look: &Look, scene: &Scene) -> Mat {
    yut_sim::render(look, scene).to_bgr_mat().unwrap()
}

/// A station for `look` and one frame of each hard case on it.
fn station(look: &Look) -> (Detector, Vec<Mat>) {
    let empty = render(
        look,
        &Scene {
            sticks: vec![],
            hand: None,
            noise_seed: 1,
        },
    );
    let spec: MatSpec = look.mat_arg().parse().unwrap();
    let cal = calibrate(&empty, spec).expect("the bench looks calibrate");
    let teach = |w: &str| render(look, &yut_sim::teach_scene(look, w));
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/stick-appearance.yml"
    );
    let classifier = Classifier::load(model).expect("the default model ships in models/");
    let t = yut_vision::teach(
        &cal,
        &empty,
        &[[&teach("front"), &teach("back"), &teach("marked")]],
        Some(&classifier),
    )
    .expect("the bench looks teach");
    let frames = HardCase::ALL
        .iter()
        .enumerate()
        .map(|(k, &case)| {
            render(
                look,
                &yut_sim::throw_scene(look, 101 + k as u64, Some(case)).0,
            )
        })
        .collect();
    (
        Detector::new(t.calibration, t.taught, empty, classifier).unwrap(),
        frames,
    )
}

fn judge_stages(c: &mut Criterion) {
    // The floor is for one core; the station's CLI sets the same.
    opencv::core::set_num_threads(1).unwrap();
    let stations: Vec<(Detector, Vec<Mat>)> = LOOKS
        .iter()
        .map(|&seed| station(&Look::random(seed, 1280, 720)))
        .collect();
    let frames: usize = stations.iter().map(|(_, f)| f.len()).sum();
    let measured: Vec<Vec<Vec<yut_vision::Measured>>> = stations
        .iter()
        .map(|(d, fs)| fs.iter().map(|f| d.measure(f).unwrap()).collect())
        .collect();
    let mut group = c.benchmark_group("judge_frame_1280x720");
    group.throughput(Throughput::Elements(frames as u64));
    group.sample_size(20);
    group.bench_function("whole", |b| {
        b.iter(|| {
            for (d, fs) in &stations {
                for f in fs {
                    black_box(d.detect(f).unwrap());
                }
            }
        })
    });
    group.bench_function("find_and_measure", |b| {
        b.iter(|| {
            for (d, fs) in &stations {
                for f in fs {
                    black_box(d.measure(f).unwrap());
                }
            }
        })
    });
    // The foreground mask alone (colour conversion, difference from the
    // empty mat, bridging), the start of finding.
    group.bench_function("foreground", |b| {
        b.iter(|| {
            for (d, fs) in &stations {
                let sc = sticks::work_scale(1280);
                let centre = d.calibration.map.to_px([0.0, 0.0]);
                let (_, w) = yut_vision::nominal_px(
                    &d.calibration,
                    d.taught.length_cm,
                    d.taught.width_cm,
                    centre,
                );
                for f in fs {
                    let fg = sticks::foreground(&sticks::to_lab(f).unwrap(), &d.reference).unwrap();
                    black_box(sticks::bridge(&fg, w * sc).unwrap());
                }
            }
        })
    });
    group.bench_function("features_only", |b| {
        b.iter(|| {
            for looks in &measured {
                for sticks in looks {
                    let mut s = sticks.clone();
                    refresh_all(&mut s);
                    black_box(s);
                }
            }
        })
    });
    group.bench_function("readers", |b| {
        b.iter(|| {
            for ((d, _), looks) in stations.iter().zip(&measured) {
                for sticks in looks {
                    black_box(d.probs(sticks).unwrap());
                }
            }
        })
    });
    let probs: Vec<Vec<_>> = stations
        .iter()
        .zip(&measured)
        .map(|((d, _), looks)| looks.iter().map(|s| d.probs(s).unwrap()).collect())
        .collect();
    group.bench_function("verdict", |b| {
        b.iter(|| {
            for (((d, _), looks), p) in stations.iter().zip(&measured).zip(&probs) {
                for (sticks, pr) in looks.iter().zip(p) {
                    black_box(yut_vision::judge(&d.calibration, &d.taught, sticks, pr));
                }
            }
        })
    });
    group.finish();
}

/// The slowest world frame found (`eval --world --look-offset 300184`,
/// throw 11: a pile of sticks to split and refit, on a look from the wider
/// world), judged whole.
fn judge_world_frame(c: &mut Criterion) {
    opencv::core::set_num_threads(1).unwrap();
    let look = Look::world(HELD_OUT_LOOK_BASE + 300_184, 1280, 720);
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/stick-appearance.yml"
    );
    let classifier = Classifier::load(model).expect("the default model ships in models/");
    let d = yut_lab::station::simulated_detector(&look, classifier).expect("the look teaches");
    let frame = render(&look, &yut_sim::numbered_throw(&look, 11).0);
    let mut group = c.benchmark_group("judge_world_frame_1280x720");
    group.sample_size(30);
    group.bench_function("look_1300184_throw_11", |b| {
        b.iter(|| black_box(d.detect(&frame).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, judge_stages, judge_world_frame);
criterion_main!(benches);
