//! Property tests over random legal games.

use proptest::prelude::*;
use rand::{rngs::StdRng, Rng, SeedableRng};
use yut_rules::yut::random::{next_event, StickModel};
use yut_rules::yut::{
    apply, legal_moves, Destination, GameEvent, GameRecord, GameState, Move, Origin, Phase,
    RulesConfig, StationId, ThrowResult, ThrowerRotation,
};

const MAX_EVENTS: usize = 20_000;

fn check_invariants(state: &GameState, before: Option<&GameState>) {
    let per_team = state.pieces_per_team();
    for (i, team) in state.teams().iter().enumerate() {
        assert_eq!(
            team.waiting + team.on_board() + team.finished,
            per_team,
            "team {i} lost or gained a piece: {state:?}"
        );
        if let Some(before) = before {
            assert!(
                team.finished >= before.teams()[i].finished,
                "a finished piece came back"
            );
        }
        let mut stations: Vec<_> = team.stacks.iter().map(|s| s.station).collect();
        stations.dedup();
        assert_eq!(
            stations.len(),
            team.stacks.len(),
            "two stacks of one team on a station"
        );
        assert!(team.stacks.iter().all(|s| s.pieces > 0));
    }
    for stack in &state.teams()[0].stacks {
        assert!(
            state.teams()[1]
                .stacks
                .iter()
                .all(|s| s.station != stack.station),
            "both teams on {}",
            stack.station
        );
    }
    match state.phase() {
        Phase::Over => {
            assert!(state.pending().is_empty() && state.throws_owed() == 0);
            let winner = state.winner().expect("over means a winner");
            assert_eq!(state.teams()[winner].finished, per_team);
        }
        Phase::Move => assert!(
            !legal_moves(state).is_empty(),
            "move phase without a legal move"
        ),
        Phase::Throw => assert!(legal_moves(state).is_empty()),
    }
}

/// Every (result, from, to) the record format can express.
fn any_move(rng: &mut StdRng) -> Move {
    let origins: Vec<Origin> = std::iter::once(Origin::Waiting)
        .chain(StationId::ALL.into_iter().map(Origin::Station))
        .collect();
    let destinations: Vec<Destination> = std::iter::once(Destination::Finished)
        .chain(StationId::ALL.into_iter().map(Destination::Station))
        .collect();
    Move {
        result: ThrowResult::ALL[rng.gen_range(0..ThrowResult::ALL.len())],
        from: origins[rng.gen_range(0..origins.len())],
        to: destinations[rng.gen_range(0..destinations.len())],
    }
}

fn play(
    seed: u64,
    front: f64,
    nak: f64,
    pieces: u8,
    rotation: ThrowerRotation,
) -> (GameRecord, Vec<GameState>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let sticks = StickModel {
        front_probability: front,
        nak_probability: nak,
    };
    let mut record = GameRecord::new(
        ["청".into(), "홍".into()],
        pieces,
        RulesConfig {
            thrower_rotation: rotation,
        },
    );
    let mut states = vec![record.initial_state()];
    while let Some(event) = next_event(states.last().unwrap(), &sticks, &mut rng) {
        let state = states.last().unwrap();
        // Whatever else could be sent now is accepted exactly when it is legal.
        let probe = any_move(&mut rng);
        let legal = legal_moves(state);
        assert_eq!(
            apply(state, &GameEvent::Move(probe)).is_ok(),
            legal.contains(&probe),
            "apply and legal_moves disagree on {probe:?}"
        );
        for mv in &legal {
            assert!(
                apply(state, &GameEvent::Move(*mv)).is_ok(),
                "listed move {mv:?} refused"
            );
        }
        // Applying in place is `apply`: the same next state, or the same refusal
        // with the state left exactly as it was.
        for probe in [
            GameEvent::Move(probe),
            GameEvent::Throw(ThrowResult::Backdo),
            event,
        ] {
            let mut in_place = state.clone();
            match (apply(state, &probe), in_place.apply_in_place(&probe)) {
                (Ok(next), Ok(())) => assert_eq!(in_place, next),
                (Err(refused), Err(also)) => {
                    assert_eq!(refused, also);
                    assert_eq!(&in_place, state, "a refused event changed the state");
                }
                (a, b) => panic!("apply {a:?} but in place {b:?} for {probe:?}"),
            }
        }
        assert_eq!(
            apply(state, &GameEvent::Throw(ThrowResult::Do)).is_ok(),
            state.phase() == Phase::Throw
        );
        let next = apply(state, &event).expect("chosen among legal events");
        check_invariants(&next, Some(state));
        record.events.push(event);
        states.push(next);
        assert!(record.events.len() < MAX_EVENTS, "game did not end");
    }
    (record, states)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_games_conserve_pieces_and_end_with_a_winner(
        seed in any::<u64>(),
        front in 0.3f64..0.8,
        nak in 0.0f64..0.2,
        pieces in 1u8..=4,
        per_turn in any::<bool>(),
    ) {
        let rotation = if per_turn { ThrowerRotation::PerTurn } else { ThrowerRotation::PerThrow };
        let (record, states) = play(seed, front, nak, pieces, rotation);
        let last = states.last().unwrap();
        prop_assert_eq!(last.phase(), Phase::Over);
        prop_assert!(last.winner().is_some());

        // Replaying the record reproduces the state at every step, also after a
        // round trip through its JSON form.
        let reread = GameRecord::parse(&record.to_json_pretty()).unwrap();
        prop_assert_eq!(&reread, &record);
        let mut state = reread.initial_state();
        prop_assert_eq!(&state, &states[0]);
        for (event, expected) in reread.events.iter().zip(&states[1..]) {
            state = apply(&state, event).unwrap();
            prop_assert_eq!(&state, expected);
        }
        prop_assert_eq!(&reread.replay().unwrap(), last);
    }
}
