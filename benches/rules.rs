//! Rules engine throughput (filled in with the engine).
use criterion::{criterion_group, criterion_main, Criterion};

fn placeholder(c: &mut Criterion) {
    c.bench_function("result_parse", |b| {
        b.iter(|| "backdo".parse::<yutstation::rules::yut::ThrowResult>())
    });
}

criterion_group!(benches, placeholder);
criterion_main!(benches);
