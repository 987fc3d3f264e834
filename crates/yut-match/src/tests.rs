//! Unit and property tests of the match machine, run against the real rules engine.

use super::setup::tests::team;
use super::*;
use proptest::prelude::*;
use yut_rules::yut::{legal_moves, Phase, ThrowResult, ThrowerRotation};
use ThrowResult::*;

fn setup(rotation: ThrowerRotation) -> MatchSetup {
    let mut s = MatchSetup::new([team("청"), team("홍")]);
    s.options.rules.thrower_rotation = rotation;
    s
}

/// A started game; events are applied at 1 s steps unless given a time.
struct Run {
    s: MatchState,
    now: Millis,
}

impl Run {
    fn new(rotation: ThrowerRotation) -> Run {
        Run::with(setup(rotation))
    }
    fn with(setup: MatchSetup) -> Run {
        let mut r = Run {
            s: MatchState::new(setup).unwrap(),
            now: 0,
        };
        r.ok(Action::Start);
        r
    }
    fn try_do(&mut self, action: Action) -> Result<(), MatchError> {
        self.now += 1000;
        self.s = apply(&self.s, &MatchEvent::new(self.now, action))?;
        Ok(())
    }
    fn ok(&mut self, action: Action) {
        let text = format!("{action:?}");
        self.try_do(action)
            .unwrap_or_else(|e| panic!("{text} refused: {e}"));
    }
    fn throw(&mut self, r: ThrowResult) {
        self.ok(Action::Throw {
            verdict: Verdict::entered(r),
        })
    }
    /// Make the first legal move until a throw is owed again.
    fn play_moves(&mut self) {
        while self.s.game().phase() == Phase::Move {
            let mv = legal_moves(self.s.game())[0];
            self.ok(Action::Move(mv));
        }
    }
    fn next(&self) -> (usize, String) {
        let n = self.s.next_thrower().expect("a throw is due");
        (n.team, n.player.name)
    }
}

#[test]
fn per_throw_rotation_carries_over_between_turns() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    assert_eq!(r.next(), (0, "청1".into()));
    r.throw(Yut);
    assert_eq!(
        r.next(),
        (0, "청2".into()),
        "the extra throw is by the next thrower"
    );
    r.throw(Do);
    r.play_moves();
    assert_eq!(r.next(), (1, "홍1".into()));
    r.throw(Gae);
    r.play_moves();
    assert_eq!(
        r.next(),
        (0, "청3".into()),
        "carried over from the last turn"
    );
    r.throw(Geol);
    r.play_moves();
    r.throw(Nak);
    assert_eq!(r.next(), (0, "청1".into()), "the rotation wraps");
    let throwers: Vec<_> = r.s.throws().map(|t| t.thrower.clone()).collect();
    assert_eq!(throwers, ["청1", "청2", "홍1", "청3", "홍2"]);
}

#[test]
fn per_turn_rotation_gives_each_turn_to_one_thrower() {
    let mut r = Run::new(ThrowerRotation::PerTurn);
    r.throw(Mo);
    assert_eq!(
        r.next(),
        (0, "청1".into()),
        "extra throws stay with the turn's thrower"
    );
    r.throw(Yut);
    r.throw(Gae);
    r.play_moves();
    assert_eq!(r.next(), (1, "홍1".into()));
    r.throw(Do);
    r.play_moves();
    assert_eq!(
        r.next(),
        (0, "청2".into()),
        "the next turn starts with the next thrower"
    );
    r.throw(Nak);
    assert_eq!(r.next(), (1, "홍2".into()));
}

#[test]
fn a_throw_by_the_wrong_player_is_nak_and_uses_the_slot() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.throw(Do);
    assert_eq!(r.s.game().phase(), Phase::Move);
    r.ok(Action::WrongPlayer {
        throw: 1,
        wrong: true,
    });
    assert_eq!(r.s.game().phase(), Phase::Throw);
    assert_eq!(r.next(), (1, "홍1".into()), "낙 ends the turn");
    assert_eq!(
        r.s.game_record().events[0],
        yut_rules::yut::GameEvent::Throw(Nak)
    );
    r.throw(Nak);
    assert_eq!(r.next(), (0, "청2".into()));
    assert_eq!(r.s.overrides().len(), 1);
    assert_eq!(r.s.overrides()[0].to, Nak);
}

#[test]
fn substitutions_only_by_the_coach_among_registered_players() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    let sub = |by: &str, a: &str, b: &str| Action::Substitute {
        team: 0,
        requested_by: by.into(),
        swap: [a.into(), b.into()],
    };
    let err = r.try_do(sub("청1", "청1", "청3")).unwrap_err();
    assert!(matches!(err, MatchError::NotCoach { .. }), "{err}");
    let err = r.try_do(sub("청-coach", "청1", "홍1")).unwrap_err();
    assert!(matches!(err, MatchError::NotRegistered { .. }), "{err}");
    assert!(matches!(
        r.try_do(sub("청-coach", "청2", "청2")),
        Err(MatchError::SwapWithSelf)
    ));
    // The placer registered no stance: they cannot become a thrower.
    let err = r.try_do(sub("청-coach", "청-coach", "청1")).unwrap_err();
    assert!(matches!(err, MatchError::NoStance { .. }), "{err}");

    r.ok(sub("청-coach", "청1", "청3"));
    assert_eq!(r.next(), (0, "청3".into()), "the order changed by the swap");
    r.throw(Nak);
    r.throw(Nak);
    assert_eq!(r.next(), (0, "청2".into()));
    assert_eq!(r.s.throws().next().unwrap().thrower, "청3");
    assert_eq!(r.s.substitutions().len(), 1);
}

#[test]
fn swapping_the_placer_with_a_thrower_moves_the_coach_role() {
    let mut s = setup(ThrowerRotation::PerThrow);
    s.teams[1].placer.stance = Some(Stance {
        posture: Posture::Standing,
        height_cm: 100,
    });
    let mut r = Run::with(s);
    r.ok(Action::Substitute {
        team: 1,
        requested_by: "홍-coach".into(),
        swap: ["홍1".into(), "홍-coach".into()],
    });
    assert_eq!(r.s.lineup(1).coach().name, "홍1");
    assert_eq!(r.s.lineup(1).thrower(0).name, "홍-coach");
    // The old coach may no longer request; the new one may. A protest by the old
    // coach is now a warning.
    let old = r.try_do(Action::Substitute {
        team: 1,
        requested_by: "홍-coach".into(),
        swap: ["홍2".into(), "홍3".into()],
    });
    assert!(matches!(old, Err(MatchError::NotCoach { .. })));
    r.ok(Action::Protest {
        team: 1,
        by: "홍-coach".into(),
        throw: None,
        note: "that was 모".into(),
    });
    r.ok(Action::Protest {
        team: 1,
        by: "홍1".into(),
        throw: None,
        note: String::new(),
    });
    assert_eq!(r.s.warnings().len(), 1);
    assert_eq!(r.s.warnings()[0].player, "홍-coach");
    assert_eq!(r.s.protests().len(), 1);
    assert_eq!(r.s.protests()[0].player, "홍1");
}

#[test]
fn protests_and_warnings_are_recorded() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.throw(Gae);
    r.ok(Action::Protest {
        team: 1,
        by: "홍2".into(),
        throw: Some(1),
        note: "개가 아니라 걸".into(),
    });
    r.ok(Action::Protest {
        team: 1,
        by: "홍-coach".into(),
        throw: Some(1),
        note: String::new(),
    });
    assert_eq!(r.s.warnings().len(), 1);
    assert_eq!(r.s.warnings()[0].throw, Some(1));
    assert_eq!(r.s.protests().len(), 1);
    assert!(matches!(
        r.try_do(Action::Protest {
            team: 1,
            by: "nobody".into(),
            throw: None,
            note: String::new()
        }),
        Err(MatchError::NotRegistered { .. })
    ));
    assert!(matches!(
        r.try_do(Action::Protest {
            team: 0,
            by: "청1".into(),
            throw: Some(9),
            note: String::new()
        }),
        Err(MatchError::NoSuchThrow(9))
    ));
}

fn at(s: &MatchState, t: Millis, action: Action) -> MatchState {
    apply(s, &MatchEvent::new(t, action)).unwrap()
}

#[test]
fn the_game_clock_pauses_during_a_timeout() {
    let s = MatchState::new(setup(ThrowerRotation::PerThrow)).unwrap();
    assert_eq!(s.game_clock_ms(5_000), 0, "not started");
    let s = at(&s, 1_000, Action::Start);
    assert_eq!(s.game_clock_ms(11_000), 10_000);
    let s = at(&s, 11_000, Action::TimeoutStart { team: 1 });
    assert_eq!(s.timeouts_left(1), 0);
    assert_eq!(s.timeouts_left(0), 1);
    assert_eq!(s.game_clock_ms(40_000), 10_000, "paused");
    assert_eq!(s.timeout_running(41_000).unwrap().1, 30_000);
    // No throw during the timeout; no second timeout for the same team.
    let throw = Action::Throw {
        verdict: Verdict::entered(Do),
    };
    assert!(matches!(
        apply(&s, &MatchEvent::new(20_000, throw.clone())),
        Err(MatchError::InTimeout(_))
    ));
    // The timeout ends by itself after 60 s, at 71 s.
    assert!(s.timeout_running(71_000).is_none());
    assert_eq!(s.game_clock_ms(81_000), 20_000);
    let later = at(&s, 81_000, throw.clone());
    assert_eq!(later.timeouts()[0].end_ms, Some(71_000));
    assert_eq!(later.game_clock_ms(81_000), 20_000);
    assert!(matches!(
        apply(
            &later,
            &MatchEvent::new(82_000, Action::TimeoutStart { team: 1 })
        ),
        Err(MatchError::NoTimeoutsLeft { .. })
    ));
    // Ended early by the coach.
    let early = at(&s, 21_000, Action::TimeoutEnd);
    assert_eq!(early.game_clock_ms(31_000), 20_000);
    assert!(matches!(
        apply(&early, &MatchEvent::new(32_000, Action::TimeoutEnd)),
        Err(MatchError::NoTimeout)
    ));
}

#[test]
fn the_game_clock_may_run_during_timeouts_by_option() {
    let mut setup = setup(ThrowerRotation::PerThrow);
    setup.options.game_clock_runs_in_timeout = true;
    setup.options.timeouts_per_team = 2;
    setup.options.timeout_length_s = 30;
    let s = at(&MatchState::new(setup).unwrap(), 0, Action::Start);
    let s = at(&s, 10_000, Action::TimeoutStart { team: 0 });
    assert_eq!(s.game_clock_ms(25_000), 25_000);
    let s = at(&s, 50_000, Action::TimeoutStart { team: 0 });
    assert_eq!(s.timeouts()[0].end_ms, Some(40_000));
    assert_eq!(s.timeouts_left(0), 0);
}

#[test]
fn the_throw_clock_flags_expiry_without_ruling() {
    let s = at(
        &MatchState::new(setup(ThrowerRotation::PerThrow)).unwrap(),
        0,
        Action::Start,
    );
    let c = s.throw_clock(19_000).unwrap();
    assert!(!c.expired);
    assert_eq!(c.limit_ms, 20_000);
    assert!(s.throw_clock(20_001).unwrap().expired);
    // A late throw is still called as seen; it is only flagged.
    let s = at(
        &s,
        25_000,
        Action::Throw {
            verdict: Verdict::entered(Yut),
        },
    );
    let t = s.throws().next().unwrap();
    assert!(t.late);
    assert_eq!(t.effective(), Some(Yut));
    // The extra throw is due from the call on.
    assert_eq!(s.throw_clock(30_000).unwrap().elapsed_ms, 5_000);
    // No throw clock while a timeout runs; it restarts when the timeout ends.
    let s = at(&s, 30_000, Action::TimeoutStart { team: 0 });
    assert!(s.throw_clock(31_000).is_none());
    assert_eq!(s.throw_clock(95_000).unwrap().elapsed_ms, 5_000);
    // None while results are being moved.
    let s = at(
        &s,
        100_000,
        Action::Throw {
            verdict: Verdict::entered(Do),
        },
    );
    assert!(s.throw_clock(101_000).is_none());
    assert!(!s.throws().nth(1).unwrap().late);
}

#[test]
fn a_throw_entered_by_hand_is_the_referee_s_manual_entry_not_the_camera_s() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.ok(Action::Throw {
        verdict: Verdict::manual(Gae),
    });
    let t = r.s.throws().next().unwrap();
    assert_eq!(t.call.unwrap().by, CallSource::Manual);
    assert_eq!(r.s.game().pending(), &[Gae]);
    // Journaled as such: the flag survives the journal, and an entry written
    // before it existed reads as it did.
    let json = serde_json::to_string(&Verdict::manual(Gae)).unwrap();
    assert!(json.contains(r#""manual":true"#), "{json}");
    let old: Verdict = serde_json::from_str(r#"{"result":"gae"}"#).unwrap();
    assert_eq!(old, Verdict::entered(Gae));
    assert!(!serde_json::to_string(&old).unwrap().contains("manual"));
}

#[test]
fn an_ambiguous_throw_waits_for_the_referee() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.ok(Action::Throw {
        verdict: Verdict::ambiguous("stick on edge"),
    });
    assert_eq!(r.s.awaiting_call(), Some(1));
    assert!(r.s.next_thrower().is_none());
    assert!(r.s.throw_clock(r.now + 1).is_none());
    let err = r
        .try_do(Action::Throw {
            verdict: Verdict::entered(Do),
        })
        .unwrap_err();
    assert_eq!(err, MatchError::AwaitingCall(1));
    r.ok(Action::Call {
        throw: 1,
        result: Mo,
    });
    assert_eq!(r.s.awaiting_call(), None);
    assert_eq!(r.s.game().pending(), &[Mo]);
    assert_eq!(r.next(), (0, "청2".into()));
    let t = r.s.throws().next().unwrap();
    assert_eq!(t.call.unwrap().by, CallSource::Referee);
    assert!(
        r.s.overrides().is_empty(),
        "a first call is not an override"
    );
}

#[test]
fn an_override_invalidates_the_moves_made_with_the_old_call() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.throw(Geol);
    let geol_move = legal_moves(r.s.game())
        .into_iter()
        .find(|m| m.result == Geol)
        .unwrap();
    r.ok(Action::Move(geol_move));
    assert_eq!(r.s.game().turn(), 1);
    // The referee corrects 걸 to 개 after the move was made.
    r.ok(Action::Call {
        throw: 1,
        result: Gae,
    });
    let inv = r.s.last_invalidated();
    assert_eq!(inv.len(), 1);
    assert_eq!(
        inv[0].event(),
        Some(yut_rules::yut::GameEvent::Move(geol_move))
    );
    assert!(!inv[0].reason.is_empty());
    assert_eq!(r.s.game().phase(), Phase::Move);
    assert_eq!(r.s.game().pending(), &[Gae]);
    assert_eq!(r.s.overrides()[0].from, Some(Geol));
    // The placer re-enters the move with the corrected result.
    let gae_move = legal_moves(r.s.game())[0];
    r.ok(Action::Move(gae_move));
    assert!(r.s.last_invalidated().is_empty());
    let record = r.s.game_record();
    assert_eq!(
        record.events,
        [
            yut_rules::yut::GameEvent::Throw(Gae),
            yut_rules::yut::GameEvent::Move(gae_move)
        ]
    );
    assert_eq!(record.replay().unwrap(), *r.s.game());
    assert!(matches!(r.s.items()[1].status, Status::Invalidated(_)));
}

#[test]
fn an_override_that_changes_whose_turn_it_is_invalidates_later_throws() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    r.throw(Do);
    r.play_moves();
    r.throw(Gae); // 홍
    r.ok(Action::Call {
        throw: 1,
        result: Yut,
    });
    // 청 now owes another throw: the 도 move and 홍's throw no longer stand.
    let inv = r.s.last_invalidated();
    assert_eq!(inv.len(), 2, "{inv:?}");
    assert!(inv[1].reason.contains("turn"), "{}", inv[1].reason);
    assert_eq!(r.s.game().turn(), 0);
    assert_eq!(r.next(), (0, "청2".into()));
    assert!(matches!(
        r.try_do(Action::Call {
            throw: 2,
            result: Do
        }),
        Err(MatchError::ThrowInvalidated(2))
    ));
}

#[test]
fn undo_takes_back_the_last_move_only() {
    let mut r = Run::new(ThrowerRotation::PerThrow);
    assert_eq!(r.try_do(Action::Undo), Err(MatchError::NothingToUndo));
    r.throw(Yut);
    r.throw(Gae);
    let before = r.s.game().clone();
    let mv = legal_moves(r.s.game())[0];
    r.ok(Action::Move(mv));
    assert_ne!(*r.s.game(), before);
    r.ok(Action::Undo);
    assert_eq!(*r.s.game(), before);
    assert_eq!(r.s.items()[2].status, Status::Undone);
    assert_eq!(r.try_do(Action::Undo), Err(MatchError::NothingToUndo));
}

#[test]
fn refusals_leave_the_state_alone() {
    let s = MatchState::new(setup(ThrowerRotation::PerThrow)).unwrap();
    let throw = Action::Throw {
        verdict: Verdict::entered(Do),
    };
    assert_eq!(
        apply(&s, &MatchEvent::new(5, throw.clone())),
        Err(MatchError::NotStarted)
    );
    let s = at(&s, 100, Action::Start);
    assert!(matches!(
        apply(&s, &MatchEvent::new(50, throw)),
        Err(MatchError::TimeWentBack { .. })
    ));
    assert_eq!(
        apply(&s, &MatchEvent::new(200, Action::Start)),
        Err(MatchError::AlreadyStarted)
    );
    let s2 = at(
        &s,
        300,
        Action::Throw {
            verdict: Verdict::entered(Gae),
        },
    );
    // A move with a result that is not pending: the engine says why.
    let bad = apply(
        &s2,
        &MatchEvent::new(
            400,
            Action::Move(yut_rules::yut::Move {
                result: Mo,
                from: yut_rules::yut::Origin::Waiting,
                to: legal_moves(s2.game())[0].to,
            }),
        ),
    );
    assert!(matches!(bad, Err(MatchError::Rule(_))));
}

#[test]
fn events_round_trip_through_json() {
    let e = MatchEvent::new(
        12,
        Action::Throw {
            verdict: Verdict {
                result: Some(Backdo),
                confidence: Some(0.75),
                evidence: vec![EvidenceRef::try_from("ab".repeat(32)).unwrap()],
                flags: vec![],
                height_mm: None,
                ..Default::default()
            },
        },
    );
    let text = serde_json::to_string(&e).unwrap();
    assert_eq!(serde_json::from_str::<MatchEvent>(&text).unwrap(), e);
    assert!(EvidenceRef::try_from("xyz".to_string()).is_err());
    assert!(serde_json::from_str::<MatchEvent>(r#"{"at_ms":1,"action":"start","x":1}"#).is_err());
}

/// One step of a random match, chosen from what makes sense in the state.
#[derive(Debug, Clone)]
enum Step {
    Throw(u8, bool),
    Move(usize),
    Override(usize, u8),
    Wrong(usize),
    Undo,
    Timeout(usize),
    TimeoutEnd,
    Swap(usize, usize, usize),
    Wait(u32),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0u8..7, prop::bool::weighted(0.1)).prop_map(|(r, a)| Step::Throw(r, a)),
        8 => (0usize..16).prop_map(Step::Move),
        1 => (0usize..64, 0u8..7).prop_map(|(t, r)| Step::Override(t, r)),
        1 => (0usize..64).prop_map(Step::Wrong),
        1 => Just(Step::Undo),
        1 => (0usize..2).prop_map(Step::Timeout),
        1 => Just(Step::TimeoutEnd),
        1 => (0usize..2, 0usize..3, 0usize..3).prop_map(|(t, a, b)| Step::Swap(t, a, b)),
        2 => (0u32..90_000).prop_map(Step::Wait),
    ]
}

fn action_for(s: &MatchState, step: &Step) -> Option<Action> {
    let n_throws = s.throws().count();
    Some(match *step {
        Step::Throw(r, ambiguous) => {
            if let Some(n) = s.awaiting_call() {
                return Some(Action::Call {
                    throw: n,
                    result: ThrowResult::ALL[r as usize],
                });
            }
            Action::Throw {
                verdict: if ambiguous {
                    Verdict::ambiguous("on edge")
                } else {
                    Verdict::entered(ThrowResult::ALL[r as usize])
                },
            }
        }
        Step::Move(i) => {
            let moves = legal_moves(s.game());
            Action::Move(*moves.get(i % moves.len().max(1))?)
        }
        Step::Override(t, r) if n_throws > 0 => Action::Call {
            throw: (t % n_throws) as ThrowNo + 1,
            result: ThrowResult::ALL[r as usize],
        },
        Step::Wrong(t) if n_throws > 0 => Action::WrongPlayer {
            throw: (t % n_throws) as ThrowNo + 1,
            wrong: true,
        },
        Step::Undo => Action::Undo,
        Step::Timeout(team) => Action::TimeoutStart { team },
        Step::TimeoutEnd => Action::TimeoutEnd,
        Step::Swap(team, a, b) => {
            let l = s.lineup(team);
            Action::Substitute {
                team,
                requested_by: l.coach().name.clone(),
                swap: [l.thrower(a).name.clone(), l.thrower(b).name.clone()],
            }
        }
        _ => return None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever the referee does, the board is exactly the engine's replay of the
    /// exported record, the game clock never runs ahead of time nor backwards, and
    /// every refusal leaves the state as it was.
    #[test]
    fn the_board_is_always_a_fold_of_the_record(
        per_turn in any::<bool>(),
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let rotation = if per_turn { ThrowerRotation::PerTurn } else { ThrowerRotation::PerThrow };
        let mut s = at(&MatchState::new(setup(rotation)).unwrap(), 0, Action::Start);
        let mut now: Millis = 0;
        let mut last_clock = 0;
        for st in &steps {
            if let Step::Wait(ms) = st {
                now += Millis::from(*ms);
                continue;
            }
            now += 500;
            let Some(action) = action_for(&s, st) else { continue };
            let invalid = |s: &MatchState| {
                s.items().iter().filter(|i| matches!(i.status, Status::Invalidated(_))).count()
            };
            let correction = matches!(action, Action::Call { .. } | Action::WrongPlayer { .. } | Action::Undo);
            match apply(&s, &MatchEvent::new(now, action)) {
                Ok(next) => {
                    // Exactly the newly invalidated inputs are reported, and only
                    // corrections invalidate anything.
                    let new = invalid(&next) - invalid(&s);
                    if correction {
                        prop_assert_eq!(new, next.last_invalidated().len());
                    } else {
                        prop_assert_eq!(new, 0);
                    }
                    prop_assert!(next.items().len() >= s.items().len(), "nothing is removed");
                    s = next;
                }
                Err(MatchError::Rule(_)) | Err(MatchError::InTimeout(_))
                | Err(MatchError::NothingToUndo) | Err(MatchError::NoTimeoutsLeft { .. })
                | Err(MatchError::NoTimeout) | Err(MatchError::ThrowInvalidated(_))
                | Err(MatchError::SwapWithSelf) | Err(MatchError::GameOver)
                | Err(MatchError::AwaitingCall(_)) => {}
                Err(e) => prop_assert!(false, "unexpected refusal: {e}"),
            }
            let replayed = s.game_record().replay().expect("the record replays");
            prop_assert_eq!(&replayed, s.game());
            let clock = s.game_clock_ms(now);
            prop_assert!(clock <= now && clock >= last_clock);
            last_clock = clock;
            for item in s.items() {
                if let (Input::Throw(t), Status::Active) = (&item.input, &item.status) {
                    prop_assert!(t.effective().is_some() || s.awaiting_call() == Some(t.number));
                }
            }
        }
    }

    /// Without corrections, throwers follow the registered order: per throw, each
    /// team's throws cycle through its three throwers; per turn, all throws of one
    /// turn are by one thrower and turns cycle.
    #[test]
    fn throwers_follow_the_rotation(
        per_turn in any::<bool>(),
        throws in prop::collection::vec(0u8..7, 1..80),
    ) {
        let rotation = if per_turn { ThrowerRotation::PerTurn } else { ThrowerRotation::PerThrow };
        let mut r = Run::new(rotation);
        let mut turn_of_throw = Vec::new();
        let mut turns = [0u32; 2];
        let mut last_team = None;
        for t in throws {
            if r.s.is_over() { break; }
            let team = r.s.game().turn();
            if last_team != Some(team) { turns[team] += 1; }
            last_team = Some(team);
            turn_of_throw.push(turns[team] - 1);
            r.throw(ThrowResult::ALL[t as usize]);
            r.play_moves();
        }
        let mut count = [0u32; 2];
        for (i, t) in r.s.throws().enumerate() {
            let k = if per_turn { turn_of_throw[i] } else { count[t.team] };
            count[t.team] += 1;
            let expected = format!("{}{}", r.s.team_name(t.team), k % 3 + 1);
            prop_assert_eq!(&t.thrower, &expected);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The game clock against a model: it counts the time since the start, less the
    /// time spent in timeouts (each ending early or after its full length), unless
    /// the option keeps it running. Timeouts never exceed the allowed count.
    #[test]
    fn the_game_clock_pauses_exactly_for_timeouts(
        runs_in_timeout in any::<bool>(),
        allowed in 0u32..3,
        length_s in 1u32..90,
        steps in prop::collection::vec((0u8..4, 0u64..100_000), 1..40),
    ) {
        let mut setup = setup(ThrowerRotation::PerThrow);
        setup.options.game_clock_runs_in_timeout = runs_in_timeout;
        setup.options.timeouts_per_team = allowed;
        setup.options.timeout_length_s = length_s;
        let len = Millis::from(length_s) * 1000;
        let start = 1_000;
        let mut s = at(&MatchState::new(setup).unwrap(), start, Action::Start);
        // The model.
        let (mut clock, mut last, mut timeout, mut used) = (0u64, start, None::<Millis>, [0u32; 2]);
        let advance = |t: Millis, clock: &mut u64, last: &mut Millis, timeout: &mut Option<Millis>| {
            if let Some(since) = *timeout {
                if t >= since + len {
                    *timeout = None;
                    if runs_in_timeout { *clock += since + len - *last; }
                    *last = since + len;
                }
            }
            if timeout.is_none() || runs_in_timeout { *clock += t - *last; }
            *last = t;
        };
        let mut now = start;
        for (kind, wait) in steps {
            now += wait;
            let team = (wait % 2) as usize;
            let action = match kind {
                0 => Action::TimeoutStart { team },
                1 => Action::TimeoutEnd,
                2 => Action::Protest { team, by: format!("{}1", s.team_name(team)), throw: None, note: String::new() },
                _ => Action::Throw { verdict: Verdict::entered(Nak) },
            };
            let result = apply(&s, &MatchEvent::new(now, action.clone()));
            advance(now, &mut clock, &mut last, &mut timeout);
            match (&action, result) {
                (Action::TimeoutStart { .. }, Ok(next)) => {
                    prop_assert!(timeout.is_none() && used[team] < allowed);
                    timeout = Some(now);
                    used[team] += 1;
                    s = next;
                }
                (Action::TimeoutStart { .. }, Err(_)) => {
                    prop_assert!(timeout.is_some() || used[team] >= allowed);
                }
                (Action::TimeoutEnd, Ok(next)) => {
                    prop_assert!(timeout.is_some());
                    timeout = None;
                    s = next;
                }
                (Action::TimeoutEnd, Err(_)) => prop_assert!(timeout.is_none()),
                (Action::Throw { .. }, Err(e)) => {
                    prop_assert!(timeout.is_some(), "{}", e);
                }
                (_, r) => s = r.unwrap(),
            }
            prop_assert_eq!(s.game_clock_ms(now), clock);
            prop_assert_eq!(s.timeouts_left(team), allowed - used[team]);
        }
        let later = now + 200_000;
        advance(later, &mut clock, &mut last, &mut timeout);
        prop_assert_eq!(s.game_clock_ms(later), clock);
        if runs_in_timeout {
            prop_assert_eq!(clock, later - start);
        }
    }
}

#[test]
fn the_sticks_read_say_their_faces_only_when_all_four_were_read() {
    let read = |faces: &str| SticksRead {
        set: "공식 1".into(),
        mat: "A".into(),
        faces: faces.into(),
    };
    let up = read("RMFR").faces_up().unwrap();
    assert_eq!(
        up,
        FacesUp {
            plain: 1,
            marked: true
        }
    );
    assert_eq!(up.result(), Gae);
    assert_eq!(read("RRRM").faces_up().unwrap().result(), Backdo);
    assert_eq!(read("RRRF").faces_up().unwrap().result(), Do);
    assert_eq!(read("RRRR").faces_up().unwrap().result(), Mo);
    for unsure in ["RRR", "RRRRR", "RR?F", "RRXF", "MMRR"] {
        assert_eq!(read(unsure).faces_up(), None, "{unsure}");
    }
    let v = Verdict {
        sticks: Some(read("FFMR")),
        ..Verdict::entered(Geol)
    };
    let text = serde_json::to_string(&v).unwrap();
    assert!(
        text.contains(r#""sticks":{"set":"공식 1","mat":"A","faces":"FFMR"}"#),
        "{text}"
    );
    assert_eq!(serde_json::from_str::<Verdict>(&text).unwrap(), v);
    // Entries written before sticks were kept still read.
    let old: Verdict = serde_json::from_str(r#"{"result":"do"}"#).unwrap();
    assert_eq!(old.sticks, None);
}
