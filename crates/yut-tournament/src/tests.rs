//! The draw, the fold, results, assignment and standings, with games played by the
//! stand-in of [`crate::play`] through the real match machine.

use super::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use yut_match::{Entry, MatchLog};

/// A tournament of `n` sample teams, registered and drawn.
fn drawn(n: usize, format: Format, seed: u64) -> Tournament {
    let mut t = Tournament::default();
    let options = yut_match::MatchOptions {
        pieces_per_team: 2,
        ..Default::default()
    };
    t.apply(&OfficeEntry::Register {
        at_ms: 1,
        teams: sample_teams(n),
        format,
        options,
    })
    .unwrap();
    t.apply(&OfficeEntry::Draw { at_ms: 2, seed }).unwrap();
    t
}

/// Stations that play whatever they are assigned to the end, one entry at a time,
/// each keeping its own journal (the list of entries it sent).
struct Hall {
    t: Tournament,
    stations: BTreeMap<MatNo, (MatchLog, Vec<Entry>)>,
    now: u64,
}

impl Hall {
    fn new(t: Tournament, mats: u32) -> Hall {
        Hall {
            t,
            stations: (1..=mats).map(|m| (m, Default::default())).collect(),
            now: 10,
        }
    }

    fn send(&mut self, mat: MatNo, entry: Entry) {
        let (log, sent) = self.stations.get_mut(&mat).unwrap();
        log.apply(&entry).unwrap();
        sent.push(entry.clone());
        let id = sent.len() as i64;
        self.now += 1;
        self.t
            .apply(&OfficeEntry::Station {
                at_ms: self.now,
                mat,
                id,
                prev: id - 1,
                entry,
            })
            .unwrap();
    }

    /// Play until the final is decided; at most `steps` entries.
    fn run(&mut self, steps: usize, seed: u64) {
        let mats: BTreeSet<MatNo> = self.stations.keys().copied().collect();
        for _ in 0..steps {
            if self.t.is_complete() {
                return;
            }
            for (fixture, mat) in self.t.next_assignments(&mats) {
                self.now += 1;
                self.t
                    .apply(&OfficeEntry::Assign {
                        at_ms: self.now,
                        fixture,
                        mat,
                    })
                    .unwrap();
            }
            let busy = self.t.busy_mats();
            assert!(!busy.is_empty(), "nothing to play but not complete");
            for (mat, fixture) in busy {
                let (log, _) = &self.stations[&mat];
                let playing = log
                    .current()
                    .filter(|g| g.setup().fixture.as_deref() == Some(&fixture));
                let entry = match playing {
                    None => Entry::NewGame {
                        at_ms: self.now,
                        setup: self.t.setup_for(&fixture).unwrap(),
                    },
                    Some(_) => play::next_play(log, seed + mat as u64, self.now).unwrap(),
                };
                self.send(mat, entry);
            }
        }
        panic!("not finished in {steps} steps");
    }
}

#[test]
fn bracket_positions_keep_the_top_seeds_apart() {
    assert_eq!(draw::bracket_positions(4), vec![1, 4, 2, 3]);
    assert_eq!(draw::bracket_positions(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
}

#[test]
fn single_elimination_gives_the_byes_to_the_top_seeds() {
    let t = drawn(6, Format::SingleElimination, 3);
    let d = t.draw.as_ref().unwrap();
    assert_eq!(&d.lot[..4], &["Team 01", "Team 02", "Team 03", "Team 04"]);
    let byes: Vec<FixtureView> = t.bracket().into_iter().filter(|f| f.bye).collect();
    assert_eq!(byes.len(), 2);
    let through: BTreeSet<String> = byes
        .iter()
        .map(|f| f.teams.iter().flatten().next().unwrap().clone())
        .collect();
    assert_eq!(
        through,
        BTreeSet::from(["Team 01".into(), "Team 02".into()])
    );
    // The byes are decided without a mat; their winners wait in round 2.
    assert!(byes
        .iter()
        .all(|f| f.outcome.as_ref().unwrap().how == How::Bye));
    assert_eq!(d.fixtures.len(), 4 + 2 + 1);
}

#[test]
fn a_whole_knockout_of_16_on_8_mats_ends_with_one_champion() {
    let mut hall = Hall::new(drawn(16, Format::SingleElimination, 7), 8);
    hall.run(100_000, 7);
    let standings = hall.t.standings();
    assert_eq!(standings.len(), 16);
    let places: Vec<u32> = standings.iter().map(|s| s.place).collect();
    assert_eq!(places[..4], [1, 2, 3, 3]);
    assert_eq!(places[4..8], [5; 4]);
    assert_eq!(places[8..], [9; 8]);
    // Every fixture was played (no byes with 16) and no mat is held.
    assert!(hall
        .t
        .bracket()
        .iter()
        .all(|f| matches!(f.outcome.as_ref().unwrap().how, How::Played { .. })));
    assert!(hall.t.busy_mats().is_empty());
}

#[test]
fn the_fold_of_the_stations_streams_alone_gives_the_same_standings() {
    let mut hall = Hall::new(
        drawn(
            12,
            Format::Groups {
                groups: 2,
                advance: 2,
            },
            11,
        ),
        4,
    );
    hall.run(200_000, 11);
    let live = hall.t.standings();
    assert_eq!(live.len(), 12);
    // Rebuild: the registration and draw, then each station's stream whole, one
    // mat after another (another order than they arrived in); no assignments.
    let mut rebuilt = drawn(
        12,
        Format::Groups {
            groups: 2,
            advance: 2,
        },
        11,
    );
    for (mat, (_, sent)) in &hall.stations {
        for (i, e) in sent.iter().enumerate() {
            rebuilt
                .apply(&OfficeEntry::Station {
                    at_ms: 0,
                    mat: *mat,
                    id: i as i64 + 1,
                    prev: i as i64,
                    entry: e.clone(),
                })
                .unwrap();
        }
    }
    assert_eq!(rebuilt.standings(), live);
    assert!(rebuilt.is_complete());
}

#[test]
fn groups_play_every_pair_once_and_tables_are_complete() {
    let mut hall = Hall::new(
        drawn(
            10,
            Format::Groups {
                groups: 2,
                advance: 2,
            },
            5,
        ),
        5,
    );
    hall.run(200_000, 5);
    for table in hall.t.group_tables() {
        assert!(table.complete);
        assert_eq!(table.rows.len(), 5);
        for r in &table.rows {
            assert_eq!(r.played, 4);
        }
        let wins: u32 = table.rows.iter().map(|r| r.won).sum();
        assert_eq!(wins, 10);
        for w in table.rows.windows(2) {
            assert!(w[0].won >= w[1].won);
        }
    }
}

#[test]
fn duplicates_and_gaps_are_refused_and_change_nothing() {
    let mut t = drawn(4, Format::SingleElimination, 1);
    t.apply(&OfficeEntry::Assign {
        at_ms: 3,
        fixture: "K1-1".into(),
        mat: 1,
    })
    .unwrap();
    let entry = Entry::NewGame {
        at_ms: 5,
        setup: t.setup_for("K1-1").unwrap(),
    };
    let st = |id, prev| OfficeEntry::Station {
        at_ms: 6,
        mat: 1,
        id,
        prev,
        entry: entry.clone(),
    };
    t.apply(&st(1, 0)).unwrap();
    let before = t.clone();
    assert!(matches!(
        t.apply(&st(1, 0)),
        Err(OfficeError::Duplicate { .. })
    ));
    assert!(matches!(t.apply(&st(3, 2)), Err(OfficeError::Gap { .. })));
    assert_eq!(t, before);
}

#[test]
fn a_forfeit_decides_and_frees_the_mat_and_a_correction_overrides_a_played_result() {
    let mut hall = Hall::new(drawn(4, Format::SingleElimination, 2), 2);
    let mats = BTreeSet::from([1, 2]);
    let plan = hall.t.next_assignments(&mats);
    assert_eq!(plan.len(), 2);
    for (fixture, mat) in plan {
        hall.t
            .apply(&OfficeEntry::Assign {
                at_ms: 3,
                fixture,
                mat,
            })
            .unwrap();
    }
    let err = hall.t.apply(&OfficeEntry::Forfeit {
        at_ms: 4,
        fixture: "K1-2".into(),
        loser: 1,
        reason: " ".into(),
    });
    assert_eq!(err, Err(OfficeError::NoReason));
    hall.t
        .apply(&OfficeEntry::Forfeit {
            at_ms: 4,
            fixture: "K1-2".into(),
            loser: 1,
            reason: "did not come to the mat".into(),
        })
        .unwrap();
    assert_eq!(hall.t.busy_mats().len(), 1);
    hall.run(100_000, 2);
    let k11 = hall.t.fixture_view("K1-1").unwrap();
    let played = k11.outcome.clone().unwrap();
    assert!(matches!(played.how, How::Played { .. }));
    // The final is played; a correction of the semi-final now shows a conflict
    // on the final, which the office must settle.
    hall.t
        .apply(&OfficeEntry::Correct {
            at_ms: hall.now + 1,
            fixture: "K1-1".into(),
            winner: Some(1 - played.winner),
            reason: "video review after the game".into(),
        })
        .unwrap();
    let fin = hall.t.fixture_view("K2-1").unwrap();
    assert!(fin.conflict.is_some(), "{fin:?}");
    assert!(fin.outcome.is_none());
}

#[test]
fn the_roster_csv_reads_back_what_it_writes_and_names_the_bad_line() {
    let teams = sample_teams(5);
    let csv = roster::to_csv(&teams);
    assert_eq!(parse_csv(&csv).unwrap(), teams);
    let bad = csv.replacen("seated", "lying", 1);
    let e = parse_csv(&bad).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("lying"), "{e}");
    let short = format!("{}\n\"청룡, 서울\",,placer,김감독,,\n", roster::CSV_HEADER);
    let e = parse_csv(&short).unwrap_err().to_string();
    assert!(e.contains("청룡, 서울"), "{e}");
}

#[test]
fn the_mqtt_topics_parse_back() {
    assert_eq!(
        wire::parse_mat_topic(&wire::mat_topic(12, wire::EVENT)),
        Some((12, "event"))
    );
    assert_eq!(wire::parse_mat_topic("yut/v2/mat/1/event"), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_draw_seats_every_team_once(n in 2usize..40, seed in any::<u64>(), groups in 1u32..5) {
        let teams = sample_teams(n);
        let d = make_draw(&teams, Format::SingleElimination, seed).unwrap();
        let mut seen = BTreeSet::new();
        for f in d.fixtures.iter().filter(|f| matches!(f.stage, Stage::Knockout { round: 1, .. })) {
            for s in &f.slots {
                if let Slot::Team { name } = s {
                    prop_assert!(seen.insert(name.clone()));
                }
            }
            prop_assert!(f.slots.iter().any(|s| !matches!(s, Slot::Bye)));
        }
        prop_assert_eq!(seen.len(), n);
        if n >= 2 * groups as usize {
            let d = make_draw(&teams, Format::Groups { groups, advance: 1 + (groups == 1) as u32 }, seed).unwrap();
            let all: BTreeSet<&String> = d.groups.iter().flatten().collect();
            prop_assert_eq!(all.len(), n);
            for (g, members) in d.groups.iter().enumerate() {
                let m = members.len();
                let games = d.fixtures.iter().filter(|f| matches!(f.stage, Stage::Group { group, .. } if group as usize == g)).count();
                prop_assert_eq!(games, m * (m - 1) / 2);
            }
        }
    }
}

#[test]
fn a_referees_override_after_the_game_changes_the_result_the_office_folds() {
    let mut hall = Hall::new(drawn(2, Format::SingleElimination, 4), 1);
    hall.run(10_000, 4);
    assert!(hall.t.is_complete());
    // After the end, the referee at the mat calls throw 1 again: the station
    // journals an override, the game is folded afresh, and the office with it.
    let game = hall.stations[&1].0.current().unwrap().clone();
    let first = game.throws().next().unwrap().effective().unwrap();
    let other = if first == yut_rules::yut::ThrowResult::Nak {
        yut_rules::yut::ThrowResult::Do
    } else {
        yut_rules::yut::ThrowResult::Nak
    };
    let at_ms = hall.now + 1;
    hall.send(
        1,
        Entry::Event(yut_match::MatchEvent::new(
            at_ms,
            yut_match::Action::Call {
                throw: 1,
                result: other,
            },
        )),
    );
    let after = hall.stations[&1].0.current().unwrap();
    let winner = after.game().winner();
    let outcome = hall.t.outcome("K1-1");
    match winner {
        // The game goes on at the mat: no result until it ends again.
        None => {
            assert_eq!(outcome, None);
            assert!(!hall.t.is_complete());
        }
        Some(w) => {
            let name = after.team_name(w);
            let view = hall.t.fixture_view("K1-1").unwrap();
            assert_eq!(view.teams[outcome.unwrap().winner].as_deref(), Some(name));
        }
    }
}
