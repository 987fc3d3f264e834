//! 제2장 (점수) article by article, the `common` preset, and the `gostop-score/1`
//! sheet checks.

use yut_rules::gostop::score::{self, article, Category, MultiplierKind, COMMON};
use yut_rules::gostop::{CardSet, HandResult, Preset, Report, Settlement, Sheet, SheetError};

fn pile(ids: &str) -> CardSet {
    CardSet::named(&ids.split_whitespace().collect::<Vec<_>>())
}

/// `n` single 피 from months 1..=10 (two per month), deck order.
fn pis(n: usize) -> String {
    let all: Vec<String> = (1..=10)
        .flat_map(|m| [format!("{m}피1"), format!("{m}피2")])
        .collect();
    all[..n].join(" ")
}

fn settle(preset: Preset, piles: &[&str], go: u32, shakes: u32) -> Settlement {
    score::settle(&HandResult {
        preset,
        piles: piles.iter().map(|p| pile(p)).collect(),
        winner: 0,
        go,
        shakes,
        called_go: Vec::new(),
    })
}

fn line(s: &Settlement, category: Category) -> Option<&score::Line> {
    s.points.lines.iter().find(|l| l.category == category)
}

fn has(s: &Settlement, loser: usize, kind: MultiplierKind) -> Option<(u32, &'static str)> {
    s.losers[loser]
        .multipliers
        .iter()
        .find(|m| m.kind == kind)
        .map(|m| (m.factor, m.article))
}

fn sheet_json(
    preset: &str,
    players: &[&str],
    winner: &str,
    captured: &[(&str, &str)],
    go: u32,
) -> String {
    let captured: serde_json::Map<String, serde_json::Value> = captured
        .iter()
        .map(|(p, ids)| {
            let ids: Vec<&str> = ids.split_whitespace().collect();
            (p.to_string(), serde_json::json!(ids))
        })
        .collect();
    serde_json::json!({
        "format": "gostop-score/1",
        "preset": preset,
        "players": players,
        "winner": winner,
        "captured": captured,
        "go": go,
        "shakes": 0
    })
    .to_string()
}

#[test]
fn art_2_1_base_points_to_win() {
    assert_eq!(Preset::Tongilan.needed_points(3), 3);
    assert_eq!(Preset::Tongilan.needed_points(2), 3);
    assert_eq!(Preset::Common.needed_points(2), 7);
    assert_eq!(Preset::Common.needed_points(3), 3);
    // 3광 = 3 points: enough under the 통일안.
    let ok = sheet_json(
        "tongilan",
        &["갑", "을", "병"],
        "갑",
        &[("갑", "1광 3광 8광")],
        0,
    );
    assert!(Sheet::parse(&ok).is_ok());
    // 비삼광 = 2 points: one short.
    let short = sheet_json(
        "tongilan",
        &["갑", "을", "병"],
        "갑",
        &[("갑", "1광 3광 12광")],
        0,
    );
    let err = Sheet::parse(&short).unwrap_err();
    assert!(
        matches!(
            err,
            SheetError::BelowNeeded {
                points: 2,
                needed: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("제2장 1조"));
    // The same 3 points do not win 맞고 under `common`.
    let matgo = sheet_json("common", &["갑", "을"], "갑", &[("갑", "1광 3광 8광")], 0);
    assert!(matches!(
        Sheet::parse(&matgo),
        Err(SheetError::BelowNeeded { needed: 7, .. })
    ));
}

#[test]
fn art_2_2_yakdan_godori_and_the_three_dan() {
    let s = settle(Preset::Tongilan, &["2열 4열 8열 1띠 2띠 3띠", ""], 0, 0);
    let godori = line(&s, Category::Godori).unwrap();
    assert_eq!((godori.points, godori.article), (5, article::YAKDAN));
    let hong = line(&s, Category::Hongdan).unwrap();
    assert_eq!((hong.points, hong.article), (3, article::YAKDAN));
    assert_eq!(s.points.total, 8);
    let s = settle(Preset::Tongilan, &["6띠 9띠 10띠 4띠 5띠 7띠", ""], 0, 0);
    assert_eq!(line(&s, Category::Cheongdan).unwrap().points, 3);
    assert_eq!(line(&s, Category::Chodan).unwrap().points, 3);
    // Six 띠 also score as 띠 (common: 5 cards 1, +1 each).
    let tti = line(&s, Category::Tti).unwrap();
    assert_eq!((tti.points, tti.article), (2, COMMON));
    // 12띠 belongs to no 단, and two of a 단 make nothing.
    let s = settle(Preset::Tongilan, &["12띠 1띠 2띠 2열 4열", ""], 0, 0);
    assert_eq!(s.points.total, 0);
}

#[test]
fn art_2_3_five_gwang_is_15_plus_the_other_points() {
    let s = settle(
        Preset::Tongilan,
        &["1광 3광 8광 11광 12광 2열 4열 8열", ""],
        0,
        0,
    );
    let g = line(&s, Category::Gwang).unwrap();
    assert_eq!((g.points, g.article), (15, article::FIVE_GWANG));
    assert_eq!(s.points.total, 20, "고도리 is added to the 15");
    // The smaller 광 sets are not stated: common values, cited as such.
    for (cards, points) in [
        ("1광 3광 8광 11광", 4),
        ("1광 3광 8광", 3),
        ("1광 3광 12광", 2),
    ] {
        let s = settle(Preset::Tongilan, &[cards, ""], 0, 0);
        let g = line(&s, Category::Gwang).unwrap();
        assert_eq!((g.points, g.article), (points, COMMON), "{cards}");
    }
}

#[test]
fn art_2_4_meongtteong_seven_yeol_is_three_points_and_doubles() {
    let seven = "2열 4열 5열 6열 7열 10열 12열";
    let s = settle(Preset::Tongilan, &[seven, &pis(8)], 0, 0);
    let y = line(&s, Category::Yeol).unwrap();
    assert_eq!((y.cards, y.points, y.article), (7, 3, article::MEONGTTEONG));
    assert_eq!(
        has(&s, 0, MultiplierKind::Meongtteong),
        Some((2, article::MEONGTTEONG))
    );
    assert_eq!(s.losers[0].pays, 6);
    // Six 열끗: 2 points, no 멍텅.
    let s = settle(
        Preset::Tongilan,
        &["2열 4열 5열 6열 7열 10열 1광 3광 8광", ""],
        0,
        0,
    );
    assert_eq!(line(&s, Category::Yeol).unwrap().points, 2);
    assert_eq!(has(&s, 0, MultiplierKind::Meongtteong), None);
}

#[test]
fn art_2_5_pi_ten_make_one_point_and_twelve_make_a_win() {
    assert_eq!(score::pi_count(pile(&pis(9)), false), 9);
    let nine = settle(Preset::Tongilan, &[&pis(9), ""], 0, 0);
    assert!(line(&nine, Category::Pi).is_none());
    let ten = settle(Preset::Tongilan, &[&pis(10), ""], 0, 0);
    let l = line(&ten, Category::Pi).unwrap();
    assert_eq!((l.cards, l.points, l.article), (10, 1, article::PI));
    let twelve = settle(Preset::Tongilan, &[&pis(12), ""], 0, 0);
    assert_eq!(twelve.points.total, 3);
    // 쌍피 count two: 10 single + 11쌍피 = 12.
    let ssang = format!("{} 11쌍피", pis(10));
    assert_eq!(
        settle(Preset::Tongilan, &[&ssang, ""], 0, 0).points.total,
        3
    );
}

#[test]
fn art_2_6_pibak_only_when_the_win_counted_pi() {
    let winner = pis(12);
    let s = settle(Preset::Tongilan, &[&winner, "11피1 11피2"], 0, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak), Some((2, article::PIBAK)));
    assert_eq!(s.losers[0].pays, 6);
    // Won on 광: a loser with no 피 is not in 피박.
    let s = settle(Preset::Tongilan, &["1광 3광 8광", ""], 0, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak), None);
    assert_eq!(s.losers[0].pays, 3);
}

#[test]
fn art_2_7_basic_pi_is_six() {
    let winner = pis(12);
    let six = "11피1 11피2 12쌍피 9피1 9피2";
    let s = settle(Preset::Tongilan, &[&winner, six], 0, 0);
    assert_eq!(s.losers[0].pi, 6);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak), None, "6 피 is 기본피");
    let five = "11피1 11피2 12쌍피 9피1";
    let s = settle(Preset::Tongilan, &[&winner, five], 0, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak).map(|m| m.0), Some(2));
    // A loser counts 9열 as 쌍피: 4 + 2 = 6.
    let s = settle(Preset::Tongilan, &[&winner, "11피1 11피2 12쌍피 9열"], 0, 0);
    assert_eq!(s.losers[0].pi, 6);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak), None);
    // The 통일안 spares nobody: no 피 at all is 피박 too.
    let s = settle(Preset::Tongilan, &[&winner, ""], 0, 0);
    assert!(has(&s, 0, MultiplierKind::Pibak).is_some());
}

#[test]
fn art_2_8_each_successful_go_adds_a_point() {
    let s = settle(Preset::Tongilan, &["1광 3광 8광 2열 4열 8열", ""], 2, 0);
    assert_eq!((s.points.total, s.go_bonus, s.base), (8, 2, 10));
    assert_eq!(s.losers[0].pays, 10);
    assert!(Report::of(
        &Sheet::parse(&sheet_json(
            "tongilan",
            &["갑", "을"],
            "갑",
            &[("갑", "1광 3광 8광 2열 4열 8열")],
            2
        ))
        .unwrap()
    )
    .render()
    .contains(article::GO));
}

#[test]
fn art_2_9_three_go_doubles_and_each_further_go_doubles_again() {
    let cards = "1광 3광 8광 2열 4열 8열";
    let s = settle(Preset::Tongilan, &[cards, ""], 3, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Go), Some((2, article::THREE_GO)));
    assert_eq!(s.losers[0].pays, (8 + 3) * 2);
    let s = settle(Preset::Tongilan, &[cards, ""], 4, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Go), Some((4, COMMON)));
    assert_eq!(s.losers[0].pays, (8 + 4) * 4);
    let s = settle(Preset::Tongilan, &[cards, ""], 2, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Go), None);
}

#[test]
fn art_2_10_shaking_doubles() {
    let s = settle(Preset::Tongilan, &["1광 3광 8광", "", ""], 0, 1);
    assert_eq!(has(&s, 0, MultiplierKind::Shake), Some((2, article::SHAKE)));
    assert_eq!(has(&s, 1, MultiplierKind::Shake), Some((2, article::SHAKE)));
    assert_eq!(s.total_paid, 12);
}

#[test]
fn art_2_11_double_shake_quadruples() {
    let s = settle(Preset::Tongilan, &["1광 3광 8광", ""], 0, 2);
    assert_eq!(
        has(&s, 0, MultiplierKind::Shake),
        Some((4, article::DOUBLE_SHAKE))
    );
    assert_eq!(s.losers[0].pays, 12);
}

#[test]
fn multipliers_compound_per_loser() {
    // 12 피 + 7 열끗, 3 고, one shake; loser 0 has 2 피, loser 1 has 6.
    let winner = format!("{} 2열 4열 5열 6열 7열 10열 12열", pis(12));
    let s = settle(
        Preset::Tongilan,
        &[&winner, "11피1 11피2", "12쌍피 9피1 9피2 10피1 10피2"],
        3,
        1,
    );
    assert_eq!(s.base, 3 + 3 + 3);
    assert_eq!(s.losers[0].factor, 2 * 2 * 2 * 2);
    assert_eq!(s.losers[1].factor, 2 * 2 * 2);
    assert_eq!(s.total_paid, 9 * 16 + 9 * 8);
}

#[test]
fn gukjin_is_counted_the_way_that_pays_more() {
    // 10 피 + 9열: as 쌍피 it makes 12 피 = 3 points; as 열 nothing.
    let winner = format!("{} 9열", pis(10));
    let s = settle(Preset::Tongilan, &[&winner, &pis(0)], 0, 0);
    assert!(s.points.gukjin_as_pi);
    assert_eq!(s.points.total, 3);
    // Seven 열끗 with 9열: as 열 it is 3 points and 멍텅 ×2 (6), as 쌍피 2 points.
    let s = settle(
        Preset::Tongilan,
        &[
            "2열 4열 5열 6열 7열 10열 9열",
            "1피1 1피2 2피1 2피2 3피1 3피2",
        ],
        0,
        0,
    );
    assert!(!s.points.gukjin_as_pi);
    assert_eq!(s.losers[0].pays, 6);
}

#[test]
fn common_preset_has_gwangbak_gobak_and_spares_no_pi() {
    let s = score::settle(&HandResult {
        preset: Preset::Common,
        piles: vec![pile("1광 3광 8광"), pile("2피1"), pile("11광")],
        winner: 0,
        go: 0,
        shakes: 0,
        called_go: vec![false, false, true],
    });
    assert_eq!(has(&s, 0, MultiplierKind::Gwangbak), Some((2, COMMON)));
    assert_eq!(has(&s, 1, MultiplierKind::Gwangbak), None);
    assert_eq!(has(&s, 1, MultiplierKind::Gobak), Some((2, COMMON)));
    assert!(s.points.lines.iter().all(|l| l.article == COMMON));
    // 고박 and 광박 are not in the 통일안.
    let s = score::settle(&HandResult {
        preset: Preset::Tongilan,
        piles: vec![pile("1광 3광 8광"), pile("2피1"), pile("11광")],
        winner: 0,
        go: 0,
        shakes: 0,
        called_go: vec![false, false, true],
    });
    assert!(s.losers.iter().all(|l| l.multipliers.is_empty()));
    // common 맞고: a loser with no 피 at all is spared 피박; 7 피 is 피박 (기본 8).
    let winner = format!("{} 11쌍피 12쌍피", pis(12));
    let s = settle(Preset::Common, &[&winner, ""], 0, 0);
    assert_eq!(has(&s, 0, MultiplierKind::Pibak), None);
    let s = settle(Preset::Common, &[&winner, &pis(7)], 0, 0);
    assert!(has(&s, 0, MultiplierKind::Pibak).is_some());
}

#[test]
fn impossible_sheets_are_refused_naming_the_problem() {
    let p = &["갑", "을", "병"];
    let cases: Vec<(String, &str)> = vec![
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광 8광"), ("을", "3광")], 0),
            "card 3광 appears twice (갑 and 을)",
        ),
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광 8광 1피3")], 0),
            "unknown card id \"1피3\" in 갑's pile",
        ),
        (
            sheet_json(
                "tongilan",
                p,
                "갑",
                &[
                    ("갑", &Card48::all()),
                    ("을", "1광"),
                ],
                0,
            ),
            "49 cards captured, more than the 48 of a deck",
        ),
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광")], 0),
            "winner 갑 has 0 points, below the 3 needed",
        ),
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광 8광")], 1),
            "winner 갑 has 3 points, below the 4 needed",
        ),
        (
            sheet_json("tongilan", p, "정", &[("갑", "1광 3광 8광")], 0),
            "winner \"정\" is not one of the players",
        ),
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광 8광"), ("무", "")], 0),
            "captured cards for \"무\"",
        ),
        (
            sheet_json("tongilan", &["갑", "갑"], "갑", &[("갑", "1광 3광 8광")], 0),
            "player \"갑\" is listed twice",
        ),
        (
            sheet_json("tongilan", &["갑"], "갑", &[("갑", "1광 3광 8광")], 0),
            "1 players listed",
        ),
        (
            sheet_json("tongilan", p, "갑", &[("갑", "1광 3광 8광 1광")], 0),
            "card 1광 appears twice (갑 and again in 갑's pile)",
        ),
        (
            r#"{"format":"gostop-score/1","preset":"tongilan","players":["갑","을"],"winner":"갑","captured":{},"dealer":"을"}"#.to_string(),
            "unknown field `dealer`",
        ),
        (
            r#"{"format":"gostop-score/1","preset":"tongilan","players":["갑","을"],"winner":"갑","captured":{"갑":["1광","3광","8광"],"갑":["2열"]}}"#.to_string(),
            "player \"갑\" appears twice in captured",
        ),
        (
            r#"{"format":"gostop-score/2","preset":"tongilan","players":["갑","을"],"winner":"갑","captured":{}}"#.to_string(),
            "format is \"gostop-score/2\"",
        ),
        (
            r#"{"format":"gostop-score/1","preset":"house","players":["갑","을"],"winner":"갑","captured":{}}"#.to_string(),
            "unknown variant `house`",
        ),
    ];
    for (json, expected) in cases {
        let err = Sheet::parse(&json).expect_err(expected).to_string();
        assert!(
            err.contains(expected),
            "{err:?} should contain {expected:?}"
        );
        assert!(!err.contains('\n'), "one line: {err:?}");
    }
}

struct Card48;
impl Card48 {
    fn all() -> String {
        yut_rules::gostop::Card::ALL
            .iter()
            .map(|c| c.id())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[test]
fn the_sample_sheet_of_the_score_sheet_page_scores() {
    let text = r#"{
      "format": "gostop-score/1",
      "preset": "tongilan",
      "players": ["갑", "을", "병"],
      "winner": "갑",
      "captured": { "갑": ["1광", "3광", "8광", "2열", "4열", "8열"], "을": ["1피1"], "병": [] },
      "go": 0,
      "shakes": 0
    }"#;
    let report = Report::of(&Sheet::parse(text).unwrap());
    assert_eq!(report.points.total, 8);
    assert_eq!(report.losers.len(), 2);
    assert!(report.losers.iter().all(|l| l.pays == 8));
    assert_eq!(report.total_paid, 16);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["format"], "gostop-settlement/1");
    assert_eq!(json["points"]["lines"][0]["article"], "common");
    assert_eq!(json["points"]["lines"][1]["article"], "제2장 2조");
}

#[test]
fn the_deck_ids_are_those_of_the_rules_page() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/gostop-rules.md");
    let doc = std::fs::read_to_string(path).expect("the project's Go-Stop rules page");
    // The deck table: rows `| <month> <name> | `id` `id` ... |`.
    let mut ids = Vec::new();
    for row in doc.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').collect();
        let month_cell = cells.get(1).map(|c| c.trim()).unwrap_or("");
        let month = month_cell.split(' ').next().unwrap_or("");
        if month.parse::<u8>().is_err() {
            continue;
        }
        ids.extend(cells[2].split('`').skip(1).step_by(2).map(str::to_string));
    }
    let ours: Vec<String> = yut_rules::gostop::Card::ALL
        .iter()
        .map(|c| c.id().to_string())
        .collect();
    assert_eq!(ids, ours);
}

/// 고 and shakes are counts a person types: near 2^32 they must be refused, never
/// wrapped into a settlement whose totals do not add up.
#[test]
fn go_near_two_to_the_32_is_refused_and_settling_never_wraps() {
    let winner = "1광 3광 8광 2열 4열 8열 1띠 2띠 3띠";
    for go in [u32::MAX, u32::MAX - 1, 1 << 31, 1 << 20] {
        let text = sheet_json("tongilan", &["갑", "을"], "갑", &[("갑", winner)], go);
        assert!(
            matches!(Sheet::parse(&text), Err(SheetError::BelowNeeded { .. })),
            "go {go}"
        );
    }
    // Every card to the winner: enough points for 40 고, but no payment of it
    // fits: refused, not wrapped.
    let all: Vec<&str> = yut_rules::gostop::Card::ALL
        .iter()
        .map(|c| c.id())
        .collect();
    let text = sheet_json(
        "tongilan",
        &["갑", "을"],
        "갑",
        &[("갑", &all.join(" "))],
        40,
    );
    let err = Sheet::parse(&text).unwrap_err();
    assert!(matches!(err, SheetError::TooLarge { .. }), "{err}");
    assert!(!err.to_string().contains('\n'));
    // The scorer itself saturates rather than wrapping (or panicking).
    for (go, shakes) in [
        (u32::MAX, 0),
        (40, 0),
        (33, 3),
        (0, u32::MAX),
        (u32::MAX, u32::MAX),
    ] {
        let s = settle(Preset::Tongilan, &[&all.join(" "), ""], go, shakes);
        let l = &s.losers[0];
        assert!(s.base >= s.points.total, "go {go}: base {}", s.base);
        assert!(
            l.pays >= s.base && s.total_paid >= l.pays,
            "go {go} shakes {shakes}"
        );
    }
}
