//! The board graph, checked as data: counts, names, links, junctions, and every
//! route from every station.

use std::collections::{BTreeSet, HashSet};
use yut_rules::yut::board::{describe, Exits, Pass, BOARD, ENTRY};
use yut_rules::yut::{Diagonal, StationId};

use StationId as S;

#[test]
fn twenty_nine_stations_with_unique_ids_and_names() {
    assert_eq!(StationId::ALL.len(), 29);
    let ids: HashSet<_> = StationId::ALL.iter().map(|s| s.id()).collect();
    let names: HashSet<_> = StationId::ALL.iter().map(|s| s.korean()).collect();
    assert_eq!(ids.len(), 29);
    assert_eq!(names.len(), 29);
    for (index, station) in StationId::ALL.iter().enumerate() {
        assert_eq!(
            BOARD[index].id, *station,
            "BOARD is in StationId::ALL order"
        );
        assert_eq!(station.id().parse::<StationId>().unwrap(), *station);
        assert!(station.id().is_ascii());
    }
    assert!("moo".parse::<StationId>().is_err());
}

#[test]
fn outer_ring_is_twenty_stations_counterclockwise_from_chammeogi() {
    let expected = [
        "chammeogi",
        "do",
        "gae",
        "geol",
        "yut",
        "mo",
        "dwit_do",
        "dwit_gae",
        "dwit_geol",
        "dwit_yut",
        "dwit_mo",
        "jji_do",
        "jji_gae",
        "jji_geol",
        "jji_yut",
        "jji_mo",
        "nal_do",
        "nal_gae",
        "nal_geol",
        "nal_yut",
    ];
    let mut at = ENTRY;
    let mut ring = vec![S::Chammeogi];
    while at != S::Chammeogi {
        ring.push(at);
        at = match at.info().pass {
            Pass::To(next) => next,
            other => panic!("outer station {at} passes {other:?}"),
        };
    }
    let ring: Vec<&str> = ring.iter().map(|s| s.id()).collect();
    assert_eq!(ring, expected);
    let korean: Vec<&str> = [S::Chammeogi, S::Mo, S::DwitMo, S::JjiMo, S::NalYut]
        .iter()
        .map(|s| s.korean())
        .collect();
    assert_eq!(korean, ["참먹이", "모", "뒷모", "찌모", "날윷"]);
}

#[test]
fn diagonals_meet_at_bang() {
    let chain = |start: StationId, n: usize| {
        let mut at = start;
        let mut out = vec![];
        for _ in 0..n {
            at = match at.info().pass {
                Pass::To(next) => next,
                other => panic!("{at} passes {other:?}"),
            };
            out.push(at.id());
        }
        out
    };
    assert_eq!(chain(S::MoDo, 2), ["mo_gae", "bang"]);
    assert_eq!(chain(S::DwitMoDo, 2), ["dwit_mo_gae", "bang"]);
    assert_eq!(chain(S::SokYut, 2), ["sok_mo", "jji_mo"]);
    assert_eq!(chain(S::Bangsugi, 2), ["anjji", "chammeogi"]);
    assert_eq!(
        S::Bang.info().pass,
        Pass::AlongDiagonal {
            from_mo: S::SokYut,
            from_dwit_mo: S::Bangsugi
        }
    );
    assert_eq!(
        S::Bang.info().sets_diagonal,
        &[
            (S::MoGae, Diagonal::FromMo),
            (S::DwitMoGae, Diagonal::FromDwitMo)
        ]
    );
}

#[test]
fn junction_choices() {
    assert_eq!(S::Mo.info().exits, Exits::Choice(&[S::DwitDo, S::MoDo]));
    assert_eq!(
        S::DwitMo.info().exits,
        Exits::Choice(&[S::JjiDo, S::DwitMoDo])
    );
    assert_eq!(
        S::Bang.info().exits,
        Exits::ByDiagonal {
            from_mo: &[S::SokYut, S::Bangsugi],
            from_dwit_mo: &[S::Bangsugi]
        }
    );
    // 찌모 is a corner with a single exit.
    assert_eq!(S::JjiMo.info().exits, Exits::Straight);
    assert_eq!(S::JjiMo.forward_links(), [S::NalDo]);
    let junctions: Vec<_> = BOARD
        .iter()
        .filter(|s| s.exits != Exits::Straight)
        .map(|s| s.id)
        .collect();
    assert_eq!(junctions, [S::Mo, S::DwitMo, S::Bang]);
}

#[test]
fn thirty_two_forward_links() {
    let links: usize = StationId::ALL.iter().map(|s| s.forward_links().len()).sum();
    // 20 around the ring, 3 on each of the four half-diagonals.
    assert_eq!(links, 32);
    let described = describe();
    assert_eq!(described.stations.len(), 29);
    assert_eq!(described.start, S::Chammeogi);
    let json = serde_json::to_value(&described).unwrap();
    assert_eq!(json["stations"][5]["id"], "mo");
    assert_eq!(json["stations"][5]["name"], "모");
    assert_eq!(
        json["stations"][5]["forward"],
        serde_json::json!(["dwit_do", "mo_do"])
    );
}

/// Every route a piece can take from `at`, choosing at each junction where it
/// stops: the routes walked one station at a time, as the placer would with 도s.
fn routes_to_finish(
    at: StationId,
    diagonal: Option<Diagonal>,
    depth: usize,
    seen: &mut BTreeSet<Vec<StationId>>,
    path: &mut Vec<StationId>,
) {
    assert!(depth < 40, "a route loops: {path:?}");
    if at == S::Chammeogi && !path.is_empty() {
        seen.insert(path.clone());
        return;
    }
    let exits: Vec<StationId> = match at.info().exits {
        Exits::Choice(c) => c.to_vec(),
        Exits::ByDiagonal {
            from_mo,
            from_dwit_mo,
        } => match diagonal {
            Some(Diagonal::FromMo) => from_mo.to_vec(),
            _ => from_dwit_mo.to_vec(),
        },
        Exits::Straight => match at.info().pass {
            Pass::To(next) => vec![next],
            Pass::Finish => vec![ENTRY],
            Pass::AlongDiagonal { .. } => unreachable!("방 has exits"),
        },
    };
    for next in exits {
        let memory = next
            .info()
            .sets_diagonal
            .iter()
            .find(|(from, _)| *from == at)
            .map(|(_, d)| *d)
            .or(diagonal);
        path.push(next);
        routes_to_finish(next, memory, depth + 1, seen, path);
        path.pop();
    }
}

#[test]
fn every_route_from_every_station_ends_at_chammeogi() {
    let mut all = BTreeSet::new();
    routes_to_finish(S::Chammeogi, None, 0, &mut all, &mut Vec::new());
    // From the start: the ring (20 stations), 모's diagonal turning home at 방 (11)
    // or going straight on to 찌모 (16), and 뒷모's diagonal (16).
    let mut lengths: Vec<usize> = all.iter().map(|r| r.len()).collect();
    lengths.sort();
    assert_eq!(lengths, [11, 16, 16, 20], "{all:?}");
    let visited: HashSet<StationId> = all.iter().flatten().copied().collect();
    assert_eq!(visited.len(), 29, "every station lies on some route");
    // And from every station, with either diagonal memory, every route is finite.
    for station in StationId::ALL {
        for memory in [None, Some(Diagonal::FromMo), Some(Diagonal::FromDwitMo)] {
            let mut routes = BTreeSet::new();
            routes_to_finish(station, memory, 0, &mut routes, &mut Vec::new());
            assert!(!routes.is_empty(), "no route home from {station}");
        }
    }
}
