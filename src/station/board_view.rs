//! The board as the pages draw it (`GET /api/board`): the rules engine's 29 stations
//! with their ids and Korean names, the forward links of its board table, and a
//! position for each on a ROUND board. Pure and computed once; the pages hold no
//! board knowledge of their own, so a page can never draw a link the rules lack.
//!
//! Positions are in a 100 × 100 box with the centre (방) at (50, 50), `y` growing
//! downwards as in SVG. The outer ring is a circle of radius [`RADIUS`]: 참먹이 at
//! the bottom right (−45°), forward counter-clockwise, so 도개걸윷 climb the right
//! side to 모 at the top right (45°), 뒷도…뒷모 run to the top left (135°), 찌도…찌모
//! down to the bottom left (225°) and 날도…날윷 back to 참먹이. The diagonals cross
//! at 방, each station a third of the radius from the next.

use serde::Serialize;
use yut_rules::yut::board::{Exits, Pass, BOARD};
use yut_rules::yut::StationId;

/// Radius of the outer ring in the 100 × 100 box.
pub const RADIUS: f64 = 40.0;

/// One station as drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StationView {
    pub id: &'static str,
    pub korean: &'static str,
    pub x: f64,
    pub y: f64,
    /// A corner or the centre (참먹이, 모, 뒷모, 찌모, 방): drawn larger.
    pub big: bool,
}

/// The board for the pages.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardView {
    /// Every station, in `StationId::ALL` order.
    pub stations: Vec<StationView>,
    /// Forward links `[from, to]`: where a piece passing through goes, plus every
    /// exit of a junction.
    pub links: Vec<[&'static str; 2]>,
    /// Where a new piece lands first.
    pub entry: &'static str,
    /// Where a piece finishes by passing.
    pub home: &'static str,
}

/// Angle (degrees, counter-clockwise from the +x axis) and fraction of the radius.
fn polar(station: StationId) -> (f64, f64) {
    use StationId as S;
    let ix = station as usize;
    if ix < 20 {
        return (-45.0 + 18.0 * ix as f64, 1.0);
    }
    let third = 1.0 / 3.0;
    match station {
        S::MoDo => (45.0, 2.0 * third),
        S::MoGae => (45.0, third),
        S::Bang => (0.0, 0.0),
        S::DwitMoDo => (135.0, 2.0 * third),
        S::DwitMoGae => (135.0, third),
        S::SokYut => (225.0, third),
        S::SokMo => (225.0, 2.0 * third),
        S::Bangsugi => (-45.0, third),
        S::Anjji => (-45.0, 2.0 * third),
        _ => unreachable!("the outer ring is the first 20 stations"),
    }
}

fn position(station: StationId) -> (f64, f64) {
    let (deg, r) = polar(station);
    let a = deg.to_radians();
    let round = |v: f64| (v * 100.0).round() / 100.0;
    (
        round(50.0 + RADIUS * r * a.cos()),
        round(50.0 - RADIUS * r * a.sin()),
    )
}

/// The forward links of the board table.
fn links() -> Vec<[&'static str; 2]> {
    let mut out: Vec<[&'static str; 2]> = Vec::new();
    let mut add = |a: StationId, b: StationId| {
        let link = [a.id(), b.id()];
        if !out.contains(&link) {
            out.push(link);
        }
    };
    for row in &BOARD {
        match row.pass {
            Pass::To(next) => add(row.id, next),
            Pass::Finish => {}
            Pass::AlongDiagonal {
                from_mo,
                from_dwit_mo,
            } => {
                add(row.id, from_mo);
                add(row.id, from_dwit_mo);
            }
        }
        match row.exits {
            Exits::Straight => {}
            Exits::Choice(to) => to.iter().for_each(|&t| add(row.id, t)),
            Exits::ByDiagonal {
                from_mo,
                from_dwit_mo,
            } => from_mo
                .iter()
                .chain(from_dwit_mo)
                .for_each(|&t| add(row.id, t)),
        }
    }
    out
}

/// The board view (cheap; the server builds it once).
pub fn board_view() -> BoardView {
    use StationId as S;
    BoardView {
        stations: StationId::ALL
            .iter()
            .map(|&s| {
                let (x, y) = position(s);
                StationView {
                    id: s.id(),
                    korean: s.korean(),
                    x,
                    y,
                    big: matches!(s, S::Chammeogi | S::Mo | S::DwitMo | S::JjiMo | S::Bang),
                }
            })
            .collect(),
        links: links(),
        entry: yut_rules::yut::board::ENTRY.id(),
        home: S::Chammeogi.id(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn at(view: &BoardView, id: &str) -> (f64, f64) {
        let s = view.stations.iter().find(|s| s.id == id).unwrap();
        (s.x, s.y)
    }

    #[test]
    fn all_29_stations_with_names_at_distinct_places() {
        let view = board_view();
        assert_eq!(view.stations.len(), 29);
        let ids: BTreeSet<_> = view.stations.iter().map(|s| s.id).collect();
        assert_eq!(ids.len(), 29);
        for (a, s) in view.stations.iter().enumerate() {
            assert!(!s.korean.is_empty());
            assert!((0.0..=100.0).contains(&s.x) && (0.0..=100.0).contains(&s.y));
            for t in &view.stations[a + 1..] {
                let d = ((s.x - t.x).powi(2) + (s.y - t.y).powi(2)).sqrt();
                assert!(d > 5.0, "{} and {} are {d:.2} apart", s.id, t.id);
            }
        }
        assert_eq!(view.stations.iter().filter(|s| s.big).count(), 5);
    }

    #[test]
    fn corners_sit_where_players_expect_them() {
        let view = board_view();
        let (cx, cy) = at(&view, "bang");
        assert_eq!((cx, cy), (50.0, 50.0));
        // y grows downwards: bottom right, top right, top left, bottom left.
        let (x, y) = at(&view, "chammeogi");
        assert!(x > 50.0 && y > 50.0);
        let (x, y) = at(&view, "mo");
        assert!(x > 50.0 && y < 50.0);
        let (x, y) = at(&view, "dwit_mo");
        assert!(x < 50.0 && y < 50.0);
        let (x, y) = at(&view, "jji_mo");
        assert!(x < 50.0 && y > 50.0);
        // 도개걸윷 climb the right side.
        let ys: Vec<f64> = ["chammeogi", "do", "gae", "geol", "yut", "mo"]
            .iter()
            .map(|id| at(&view, id).1)
            .collect();
        assert!(ys.windows(2).all(|w| w[1] < w[0]), "{ys:?}");
        // Each diagonal is a straight line from its corner through 방.
        for (corner, a, b) in [
            ("mo", "mo_do", "mo_gae"),
            ("dwit_mo", "dwit_mo_do", "dwit_mo_gae"),
            ("jji_mo", "sok_mo", "sok_yut"),
            ("chammeogi", "anjji", "bangsugi"),
        ] {
            let (kx, ky) = at(&view, corner);
            for (id, frac) in [(a, 2.0 / 3.0), (b, 1.0 / 3.0)] {
                let (x, y) = at(&view, id);
                assert!((x - (cx + (kx - cx) * frac)).abs() < 0.02, "{id}");
                assert!((y - (cy + (ky - cy) * frac)).abs() < 0.02, "{id}");
            }
        }
    }

    #[test]
    fn links_are_exactly_the_board_tables_forward_links() {
        let view = board_view();
        let links: BTreeSet<(&str, &str)> = view.links.iter().map(|[a, b]| (*a, *b)).collect();
        assert_eq!(links.len(), view.links.len(), "no link twice");
        let mut expected = BTreeSet::new();
        for &s in &StationId::ALL {
            // Every station the rules let a piece reach next, whether passing or
            // starting there.
            let info = s.info();
            if let Pass::To(n) = info.pass {
                expected.insert((s.id(), n.id()));
            }
            if let Exits::Choice(to) = info.exits {
                expected.extend(to.iter().map(|t| (s.id(), t.id())));
            }
        }
        expected.insert(("bang", "sok_yut"));
        expected.insert(("bang", "bangsugi"));
        assert_eq!(links, expected);
        // 19 outer links (none out of 참먹이), 2 out of 모 and 뒷모 onto the
        // diagonals, 2+2 into 방, 2 out of 방, 2+2 out to the corners.
        assert_eq!(links.len(), 19 + 2 + 4 + 2 + 4);
        for (a, b) in &links {
            assert!(view.stations.iter().any(|s| s.id == *a));
            assert!(view.stations.iter().any(|s| s.id == *b));
        }
        assert_eq!(view.entry, "do");
        assert!(!links.iter().any(|(a, _)| *a == "chammeogi"));
    }

    #[test]
    fn serialises_for_the_pages() {
        let json = serde_json::to_value(board_view()).unwrap();
        assert_eq!(json["stations"][22]["korean"], "방");
        assert_eq!(json["links"][0], serde_json::json!(["do", "gae"]));
    }
}
