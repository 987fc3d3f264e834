//! What rendering costs, by part: a look's renderer made (its bare mat and
//! floor worked out once), a throw rendered with it, and a throw rendered
//! with no renderer kept (as `yut_sim::render` does). Training renders tens
//! of thousands of throws (`scripts/retrain`), so this is most of a retrain's
//! time.
//!
//! `cargo bench -p yut-sim --bench render`, on a quiet machine.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use yut_sim::{HardCase, Look, Renderer};

fn rendering(c: &mut Criterion) {
    // A training look and a wide-angle world look, at the training size.
    let looks = [
        Look::random(3, 1280, 720),
        Look::world(1_300_045, 1280, 720),
    ];
    let mut group = c.benchmark_group("render_1280x720");
    group.sample_size(20);
    for look in &looks {
        let name = format!("look {}", look.seed);
        let scene = yut_sim::throw_scene(look, 7, Some(HardCase::HARD[0])).0;
        group.bench_function(format!("{name}: renderer made"), |b| {
            b.iter(|| black_box(Renderer::new(look)))
        });
        let renderer = Renderer::new(look);
        group.bench_function(format!("{name}: throw with the renderer"), |b| {
            b.iter(|| black_box(renderer.render(&scene)))
        });
        group.bench_function(format!("{name}: throw alone"), |b| {
            b.iter(|| black_box(yut_sim::render(look, &scene)))
        });
    }
    group.finish();
}

criterion_group!(benches, rendering);
criterion_main!(benches);
