//! `yutstation game random`: an automatic game with random throws and a random
//! placer, printed turn by turn on the terminal board (no camera, no station).
//!
//! Shell: the terminal.

use clap::Args;
use rand::{rngs::StdRng, SeedableRng};
use yut_rules::yut::{apply, random, render, GameEvent, GameRecord, Phase, RulesConfig};

#[derive(Args)]
pub struct RandomArgs {
    /// Seed for the random throws and placer (a fixed seed replays the same game).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print only each event and the final board.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: RandomArgs) -> anyhow::Result<()> {
    let seed = args.seed.unwrap_or_else(rand::random);
    let mut rng = StdRng::seed_from_u64(seed);
    let sticks = random::StickModel::default();
    let record = GameRecord::new(["청".into(), "홍".into()], 4, RulesConfig::default());
    let mut state = record.initial_state();
    println!("yutstation game random: 청 vs 홍, random throws and placer (seed {seed})\n");
    let mut events = 0usize;
    while let Some(event) = random::next_event(&state, &sticks, &mut rng) {
        let team = state.teams()[state.turn()].name.clone();
        state = apply(&state, &event)?;
        events += 1;
        match event {
            GameEvent::Throw(result) => println!("{team}: {}! ({})", result.korean(), result.id()),
            GameEvent::Move(mv) => println!(
                "{team}: {} {} → {}",
                mv.result.korean(),
                render::origin_label(mv.from),
                render::destination_label(mv.to)
            ),
        }
        let turn_ended = state.phase() == Phase::Throw && state.teams()[state.turn()].name != team;
        if !args.quiet && (turn_ended || state.phase() == Phase::Over) {
            println!("\n{}", render::describe_state(&state));
        }
    }
    if args.quiet {
        println!("\n{}", render::describe_state(&state));
    }
    println!("{events} events. Replay this game with: yutstation game random --seed {seed}");
    Ok(())
}
