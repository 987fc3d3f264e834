//! How long a win-chance update takes on one core: `win_chances` with the
//! station's playouts from positions drawn from simulated games (the start, the
//! middle and the end of games alike). `cargo bench -p yut-insight`.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use yut_insight::chances::{win_chances, PLAYOUTS};
use yut_insight::placer::Placer;
use yut_insight::StickShares;
use yut_rules::yut::{legal_moves, GameEvent, GameRecord, GameState, Phase, RulesConfig};

const SHARES: StickShares = StickShares {
    marked: 0.55,
    plain: 0.6,
    nak: 0.02,
};

/// One position from each of a few simulated games, at a random point.
fn positions() -> Vec<GameState> {
    let mut rng = SmallRng::seed_from_u64(7);
    let sampler = SHARES.sampler();
    let placer = Placer::new(&SHARES);
    (0..24)
        .map(|_| {
            let mut state = GameRecord::new(["a".into(), "b".into()], 4, RulesConfig::default())
                .initial_state();
            let mut seen = vec![state.clone()];
            while state.phase() != Phase::Over {
                let e = match state.phase() {
                    Phase::Throw => GameEvent::Throw(sampler.throw(&mut rng)),
                    _ => GameEvent::Move(placer.choose(&state, &legal_moves(&state))),
                };
                state.apply_in_place(&e).unwrap();
                seen.push(state.clone());
            }
            seen.swap_remove(rng.gen_range(0..seen.len() - 1))
        })
        .collect()
}

fn update(c: &mut Criterion) {
    let positions = positions();
    let mut group = c.benchmark_group("win_chances");
    group.sample_size(20);
    let mut rng = SmallRng::seed_from_u64(1);
    let mut i = 0;
    group.bench_function("update_2000_playouts", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(win_chances(&positions[i], &SHARES, PLAYOUTS, &mut rng))
        })
    });
    group.finish();
}

criterion_group!(benches, update);
criterion_main!(benches);
