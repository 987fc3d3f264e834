//! Go-Stop throughput: hands simulated per second (deal + random legal play to the
//! end, per table size) and scores per second (settling finished hands, and parsing
//! plus settling `gostop-score/1` sheets).
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use yut_rules::gostop::{random_hand, score, Outcome, Preset, Report, Sheet, Table};

fn hands(c: &mut Criterion) {
    let mut group = c.benchmark_group("gostop_hands");
    group.throughput(Throughput::Elements(1));
    for players in [2, 3, 5] {
        let table = Table::new(Preset::Tongilan, players).unwrap();
        let mut seed = 0u64;
        group.bench_function(format!("random_hand/{players}p"), |b| {
            b.iter(|| {
                seed += 1;
                random_hand(black_box(&table), seed).unwrap()
            })
        });
    }
    group.finish();
}

fn scoring(c: &mut Criterion) {
    // Finished hands from the engine: real piles, go counts and shakes.
    let table = Table::new(Preset::Tongilan, 3).unwrap();
    let finished: Vec<_> = (0..)
        .filter_map(|seed| match random_hand(&table, seed).unwrap().outcome() {
            Some(Outcome::Stop { hand, .. }) => Some(hand.clone()),
            _ => None,
        })
        .take(256)
        .collect();
    let names: Vec<String> = ["갑", "을", "병"].iter().map(|s| s.to_string()).collect();
    let sheets: Vec<String> = finished
        .iter()
        .map(|h| serde_json::to_string(&Sheet::from_hand(&names, h)).unwrap())
        .collect();

    let mut group = c.benchmark_group("gostop_scores");
    group.throughput(Throughput::Elements(finished.len() as u64));
    group.bench_function("settle", |b| {
        b.iter(|| {
            for h in &finished {
                black_box(score::settle(black_box(h)));
            }
        })
    });
    group.bench_function("parse_check_settle_sheet", |b| {
        b.iter(|| {
            for s in &sheets {
                black_box(Report::of(&Sheet::parse(black_box(s)).unwrap()));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, hands, scoring);
criterion_main!(benches);
