//! Rules engine throughput: random full games per second, and legal-move
//! generations per second on positions taken from real random games.
//!
//! `cargo bench --bench rules`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::{rngs::StdRng, SeedableRng};
use std::hint::black_box;
use yut_rules::yut::random::{next_event, play_random_game, StickModel};
use yut_rules::yut::{apply, legal_moves, GameRecord, GameState, Phase, RulesConfig};

fn new_record() -> GameRecord {
    GameRecord::new(["청".into(), "홍".into()], 4, RulesConfig::default())
}

fn full_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_full_game");
    group.throughput(Throughput::Elements(1));
    let sticks = StickModel::default();
    let mut seed = 0u64;
    group.bench_function("play", |b| {
        b.iter_batched(
            || {
                seed += 1;
                StdRng::seed_from_u64(seed)
            },
            |mut rng| black_box(play_random_game(new_record(), &sticks, &mut rng, 100_000)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// Positions in the move phase, collected from a few random games.
fn move_positions() -> Vec<GameState> {
    let sticks = StickModel::default();
    let mut positions = Vec::new();
    for seed in 0..20 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut state = new_record().initial_state();
        while let Some(event) = next_event(&state, &sticks, &mut rng) {
            if state.phase() == Phase::Move {
                positions.push(state.clone());
            }
            state = apply(&state, &event).unwrap();
        }
    }
    positions
}

fn legal_move_generation(c: &mut Criterion) {
    let positions = move_positions();
    let mut group = c.benchmark_group("legal_moves");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("generate", |b| {
        b.iter(|| {
            for state in &positions {
                black_box(legal_moves(black_box(state)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, full_games, legal_move_generation);
criterion_main!(benches);
