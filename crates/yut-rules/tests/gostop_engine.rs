//! The hand engine: 제3장 (forfeit wins) and 제4장 (play rules) article by article on
//! arranged deals, the readings documented in `engine.rs`, a fixed-seed full game,
//! and property tests over random hands.

use proptest::prelude::*;
use yut_rules::gostop::engine::{Forfeit, GwangSale};
use yut_rules::gostop::{
    deal, deal_deck, random_hand, score, Card, CardSet, Decision, HandPhase, HandState, Layout,
    Month, Outcome, Preset, Report, Sheet, Table,
};

fn cards(ids: &str) -> Vec<Card> {
    ids.split_whitespace().map(Card::named).collect()
}

/// An arranged hand (seat 0 plays first), past the shaking phase.
fn start(hands: &[&str], piles: &[&str], floor: &str, stock: &str) -> HandState {
    start_with(Preset::Tongilan, hands, piles, floor, stock)
}

fn start_with(
    preset: Preset,
    hands: &[&str],
    piles: &[&str],
    floor: &str,
    stock: &str,
) -> HandState {
    let layout = Layout {
        preset,
        hands: hands.iter().map(|h| cards(h)).collect(),
        piles: piles.iter().map(|p| cards(p)).collect(),
        floor: cards(floor),
        stock: cards(stock),
    };
    let mut s = HandState::from_layout(&layout).unwrap();
    while matches!(s.phase(), HandPhase::Declaring { .. }) {
        s = s.apply(Decision::Ready).unwrap();
    }
    s
}

fn play(s: &HandState, card: &str) -> HandState {
    let action = Decision::Play {
        card: Card::named(card),
        take: None,
    };
    s.apply(action)
        .unwrap_or_else(|e| panic!("{e}; legal: {:?}", s.legal_actions()))
}

fn play_take(s: &HandState, card: &str, take: &str) -> HandState {
    s.apply(Decision::Play {
        card: Card::named(card),
        take: Some(Card::named(take)),
    })
    .unwrap()
}

fn set(ids: &str) -> CardSet {
    CardSet::of(&cards(ids))
}

fn pile(s: &HandState, seat: usize) -> CardSet {
    s.seat(seat).pile
}

fn settlement(s: &HandState) -> &score::Settlement {
    match s.outcome() {
        Some(Outcome::Stop { settlement, .. }) => settlement,
        other => panic!("not a stop: {other:?}"),
    }
}

// ---------------------------------------------------------------- 제3장

#[test]
fn art_3_1_four_card_dealt_wins_and_everyone_pays_double_base() {
    let layout = Layout {
        preset: Preset::Tongilan,
        hands: vec![
            cards("5피1 1광 1띠 1피1 1피2"),
            cards("2피1"),
            cards("3피1"),
        ],
        piles: vec![],
        floor: cards("4피1"),
        stock: cards("6피1 6피2 7피1 7피2 8피1 8피2 9피1"),
    };
    let s = HandState::from_layout(&layout).unwrap();
    assert_eq!(
        s.outcome(),
        Some(&Outcome::Forfeit {
            winner: 0,
            reason: Forfeit::FourCard(Month::new(1).unwrap()),
            payments: vec![(1, 6), (2, 6)],
        })
    );
    assert_eq!(Forfeit::FiveGwang.article(), "제3장 2조");
    assert!(s.legal_actions().is_empty());
}

#[test]
fn art_3_1_four_card_at_a_table_of_five_is_paid_by_all_four_dealt() {
    // Seat 2 is dealt all of month 12.
    let mut deck = round_robin();
    let month12: Vec<usize> = (0..48)
        .filter(|&i| deck[i].month().number() == 12)
        .collect();
    for (k, &i) in month12.iter().enumerate() {
        deck.swap(i, 14 + k);
    }
    let s = deal_deck(&Table::new(Preset::Tongilan, 5).unwrap(), &deck).unwrap();
    let Some(Outcome::Forfeit {
        winner,
        reason,
        payments,
    }) = s.outcome()
    else {
        panic!("{:?}", s.phase());
    };
    assert_eq!(
        (*winner, *reason),
        (2, Forfeit::FourCard(Month::new(12).unwrap()))
    );
    assert_eq!(payments, &vec![(0, 6), (1, 6), (3, 6), (4, 6)]);
}

#[test]
fn art_3_2_five_gwang_dealt_wins_and_everyone_pays_15() {
    let layout = Layout {
        preset: Preset::Tongilan,
        hands: vec![cards("2피1"), cards("1광 3광 8광 11광 12광"), cards("3피1")],
        piles: vec![],
        floor: cards("4피1"),
        stock: cards("6피1 6피2 7피1 7피2 8피1 8피2 9피1"),
    };
    let s = HandState::from_layout(&layout).unwrap();
    assert_eq!(
        s.outcome(),
        Some(&Outcome::Forfeit {
            winner: 1,
            reason: Forfeit::FiveGwang,
            payments: vec![(0, 15), (2, 15)],
        })
    );
}

#[test]
fn art_3_3_three_seolsa_win_the_game() {
    let s = start(
        &["1피1 2피1 3피1", "5피1 6피1 9피1"],
        &[],
        "1광 2열 3광",
        "1피2 7피1 2피2 8피1 3피2 10피1",
    );
    let s = play(&s, "1피1");
    assert_eq!(s.seat(0).seolsa, 1);
    let s = play(&s, "5피1");
    let s = play(&s, "2피1");
    assert_eq!(s.seat(0).seolsa, 2);
    let s = play(&s, "6피1");
    let s = play(&s, "3피1");
    assert_eq!(
        s.outcome(),
        Some(&Outcome::Forfeit {
            winner: 0,
            reason: Forfeit::ThreeSeolsa,
            payments: vec![(1, 10)],
        })
    );
}

#[test]
fn art_3_3_three_seolsa_counts_the_last_card() {
    // Seat 1 makes its third 설사 on the very last flip ("마지막도 유효").
    let s = start(
        &["5피1 6피1 9피1", "1피1 2피1 3피1"],
        &[],
        "1광 2열 3광",
        "7피1 1피2 8피1 2피2 10피1 3피2",
    );
    let mut s = s;
    for (a, b) in [("5피1", "1피1"), ("6피1", "2피1"), ("9피1", "3피1")] {
        s = play(&s, a);
        s = play(&s, b);
    }
    assert_eq!(s.stock_len(), 0);
    assert!(matches!(
        s.outcome(),
        Some(Outcome::Forfeit {
            winner: 1,
            reason: Forfeit::ThreeSeolsa,
            ..
        })
    ));
}

#[test]
fn a_floor_dealt_four_of_a_month_is_a_misdeal() {
    let layout = Layout {
        preset: Preset::Tongilan,
        hands: vec![cards("2피1"), cards("3피1")],
        piles: vec![],
        floor: cards("1광 1띠 1피1 1피2"),
        stock: cards("6피1 6피2"),
    };
    assert_eq!(
        HandState::from_layout(&layout).unwrap().outcome(),
        Some(&Outcome::Misdeal)
    );
}

// ---------------------------------------------------------------- 제4장

#[test]
fn art_4_1_pansseuri_each_opponent_gives_a_pi() {
    let s = start(
        &["1피1 5피1", "6피1 7피1", "9피1 10피1"],
        &["", "3피1", "11쌍피 9열"],
        "1광 2열",
        "2피1 3피2 4피2 6피2 7피2 9피2",
    );
    let s = play(&s, "1피1");
    assert!(s.floor().is_empty());
    // A single 피 when there is one; a 쌍피 when not; never 9열.
    assert_eq!(pile(&s, 0), set("1광 1피1 2열 2피1 3피1 11쌍피"));
    assert_eq!(pile(&s, 1), CardSet::EMPTY);
    assert_eq!(pile(&s, 2), set("9열"));
    assert_eq!(s.phase(), &HandPhase::Playing { seat: 1 });
}

#[test]
fn art_4_1_pansseuri_not_on_the_last_card() {
    let s = start(
        &["2피1", "1피1"],
        &["5피1", ""],
        "1광 4열 2열 3광",
        "3피1 4피1",
    );
    let s = play(&s, "2피1");
    let s = play(&s, "1피1");
    assert!(s.floor().is_empty());
    assert!(
        pile(&s, 0).contains(Card::named("5피1")),
        "no 피 on the last card"
    );
    assert_eq!(s.outcome(), Some(&Outcome::Draw));
}

#[test]
fn art_4_2_seolsa_leaves_the_three_on_the_floor() {
    let s = start(
        &["1피1 5피1", "6피1 7피1"],
        &[],
        "1광",
        "1피2 8피1 9피1 10피1",
    );
    let s = play(&s, "1피1");
    assert_eq!(s.floor(), set("1광 1피1 1피2"));
    assert_eq!(pile(&s, 0), CardSet::EMPTY);
    assert_eq!(s.seat(0).seolsa, 1);
}

#[test]
fn art_4_2_seolsa_on_the_last_card_takes_the_three() {
    // Reading: 2조 excludes the last card, so the player takes them; 제3장 3조 still
    // counts it as a 설사.
    let s = start(&["5피1", "1피1"], &[], "1광", "6피1 1피2");
    let s = play(&s, "5피1");
    let s = play(&s, "1피1");
    assert_eq!(pile(&s, 1), set("1광 1피1 1피2"));
    assert_eq!(s.seat(1).seolsa, 1);
    assert_eq!(s.outcome(), Some(&Outcome::Draw));
}

#[test]
fn art_4_3_seolsa_batameokgi_a_seolsa_stack() {
    let s = start(
        &["1피1 5피1", "1띠 6피1", "7피1 9피1"],
        &["2피1", "", "3피1"],
        "1광",
        "1피2 8피1 10피1 11피1 12열 4열",
    );
    let s = play(&s, "1피1");
    assert_eq!(s.seat(0).seolsa, 1);
    let s = play(&s, "1띠");
    assert_eq!(pile(&s, 1), set("1광 1띠 1피1 1피2 2피1 3피1"));
    assert_eq!(s.floor(), set("8피1"));
}

#[test]
fn art_4_3_seolsa_batameokgi_three_dealt_taken_by_the_flip() {
    let s = start(
        &["5피1 6피1", "7피1 9피1"],
        &["", "3피1"],
        "2열 2띠 2피1",
        "2피2 8피1 10피1 11피1",
    );
    let s = play(&s, "5피1");
    assert_eq!(pile(&s, 0), set("2열 2띠 2피1 2피2 3피1"));
    assert_eq!(pile(&s, 1), CardSet::EMPTY);
}

#[test]
fn art_4_3_seolsa_batameokgi_not_on_the_last_card() {
    let s = start(
        &["5피1", "2피2"],
        &["3피1", ""],
        "2열 2띠 2피1",
        "6피1 7피1",
    );
    let s = play(&s, "5피1");
    let s = play(&s, "2피2");
    assert_eq!(pile(&s, 1), set("2열 2띠 2피1 2피2"));
    assert_eq!(pile(&s, 0), set("3피1"));
}

#[test]
fn art_4_4_ttadak_takes_all_four_and_a_pi() {
    let s = start(
        &["1띠 5피1", "6피1 7피1"],
        &["", "3피1 3피2"],
        "1광 1피1 12열",
        "1피2 8피1 9피1 10피1",
    );
    let s = play_take(&s, "1띠", "1광");
    assert_eq!(pile(&s, 0), set("1광 1띠 1피1 1피2 3피1"));
    assert_eq!(pile(&s, 1), set("3피2"));
}

#[test]
fn art_4_4_ttadak_pays_on_the_last_card_too() {
    // Reading: 4조 has no "마지막 패는 제외".
    let s = start(
        &["5피1", "1띠"],
        &["3피1", ""],
        "1광 1피1 12열",
        "6피1 1피2",
    );
    let s = play(&s, "5피1");
    let s = play_take(&s, "1띠", "1광");
    assert_eq!(pile(&s, 1), set("1광 1띠 1피1 1피2 3피1"));
}

#[test]
fn two_events_in_one_turn_take_two_pi() {
    // 따닥 that also clears the floor: 판쓸이 too.
    let s = start(
        &["1띠 5피1", "6피1 7피1"],
        &["", "3피1 3피2"],
        "1광 1피1",
        "1피2 8피1 9피1 10피1",
    );
    let s = play_take(&s, "1띠", "1광");
    assert_eq!(pile(&s, 1), CardSet::EMPTY);
    assert_eq!(pile(&s, 0).len(), 6);
}

const ELEVEN_PI: &str = "1피1 1피2 2피1 2피2 3피1 3피2 4피1 4피2 5피1 5피2 6피1";

#[test]
fn art_4_5_pi_replenish_after_a_go() {
    let s = start(
        &["7열 9띠 10띠", "8피1 12띠 11피1"],
        &[ELEVEN_PI, ""],
        "7피1 8광 8열 9피1 10피1",
        "3광 8피2 11광 6열 4열 2열",
    );
    // 12 피 = 3 points: 고.
    let s = play(&s, "7열");
    assert_eq!(
        s.phase(),
        &HandPhase::GoStop {
            seat: 0,
            deferred: false
        }
    );
    let s = s.apply(Decision::Go).unwrap();
    assert_eq!((s.seat(0).go, s.seat(0).go_points), (1, 3));
    // 따닥 by seat 1 takes a 피 back: seat 0 falls to 2 points.
    let s = play_take(&s, "8피1", "8광");
    assert_eq!(s.points(0), 2);
    // Winning the 피 back is not enough: 3 points is not more than at the 고.
    let s = play(&s, "9띠");
    assert_eq!(s.points(0), 3);
    assert_eq!(s.phase(), &HandPhase::Playing { seat: 1 });
    let s = play(&s, "12띠");
    // One point more: now seat 0 may stop.
    let s = play(&s, "10띠");
    assert_eq!(s.points(0), 4);
    assert_eq!(
        s.phase(),
        &HandPhase::GoStop {
            seat: 0,
            deferred: false
        }
    );
    let s = s.apply(Decision::Stop).unwrap();
    assert_eq!(settlement(&s).base, 4 + 1);
}

/// Seat 0 at 11 피 clears the floor without taking a 피 and receives seat 1's 피.
fn deferred_position() -> HandState {
    start(
        &["8열 9열", "10열 11광"],
        &[ELEVEN_PI, "7피1 7피2"],
        "8광 12열",
        "12띠 5열 6열 4열",
    )
}

#[test]
fn art_4_6_points_made_by_received_pi_are_decided_next_turn() {
    let s = play(&deferred_position(), "8열");
    assert_eq!(s.points(0), 3, "the received 피 make 12");
    assert!(s.seat(0).deferred);
    assert_eq!(s.phase(), &HandPhase::Playing { seat: 1 });
    let s = play(&s, "10열");
    assert_eq!(
        s.phase(),
        &HandPhase::GoStop {
            seat: 0,
            deferred: true
        }
    );
    // A stop now counts the received 피.
    let stopped = s.apply(Decision::Stop).unwrap();
    assert_eq!(settlement(&stopped).points.total, 3);
    assert!(pile(&stopped, 0).contains(Card::named("7피1")));
    // A 고 now is followed by the same player's turn.
    let went = s.apply(Decision::Go).unwrap();
    assert_eq!(went.phase(), &HandPhase::Playing { seat: 0 });
    assert_eq!(went.seat(0).go, 1);
}

#[test]
fn art_4_7_received_pi_do_not_count_when_the_stop_did_not_need_them() {
    let s = start(
        &["8열 2열", "3피1 4열"],
        &["1광 3광", "7피1 7피2"],
        "8광 12열",
        "12띠 5열 6열 10열",
    );
    let s = play(&s, "8열");
    assert_eq!(
        s.phase(),
        &HandPhase::GoStop {
            seat: 0,
            deferred: false
        }
    );
    assert!(pile(&s, 0).contains(Card::named("7피1")));
    let s = s.apply(Decision::Stop).unwrap();
    assert!(!pile(&s, 0).contains(Card::named("7피1")), "returned");
    assert_eq!(pile(&s, 1), set("7피1 7피2"));
    assert_eq!(settlement(&s).points.total, 3);
}

#[test]
fn art_4_8_returned_pi_pardon_pibak() {
    let s = start(
        &["8열 2열", "3광 4열"],
        &[ELEVEN_PI, "7피1 7피2 9피1 9피2 10피1 10피2"],
        "8피1 12열",
        "12띠 5열 6열 10열",
    );
    let s = play(&s, "8열");
    // 13 피 with the received one, 12 without: qualifies without it.
    assert_eq!(s.points(0), 4);
    assert_eq!(s.seat(1).pile.len(), 5);
    let s = s.apply(Decision::Stop).unwrap();
    let st = settlement(&s);
    assert_eq!(st.points.total, 3, "won on 피");
    assert_eq!(st.losers[0].pi, 6);
    assert!(st.losers[0].multipliers.is_empty(), "피박사면");
}

/// Months round-robin (1광 2열 3광 … 12광 1띠 …): no hand of 7 holds a month twice
/// and no floor four of a month.
fn round_robin() -> [Card; 48] {
    std::array::from_fn(|i| Card::from_index((i % 12) * 4 + i / 12).unwrap())
}

fn choose(mut s: HandState, choices: &[Decision]) -> HandState {
    for &a in choices {
        s = s.apply(a).unwrap();
    }
    s
}

#[test]
fn art_4_9_nobody_sits_out_two_games_in_a_row() {
    let table = Table::new(Preset::Tongilan, 4).unwrap();
    let s = deal_deck(&table, &round_robin()).unwrap();
    assert_eq!(s.phase(), &HandPhase::Choosing { seat: 0 });
    let s = choose(s, &[Decision::Join, Decision::SitOut]);
    // Three must play: seats 2 and 3 have no choice left.
    assert_eq!(s.legal_actions(), vec![Decision::Join]);
    let s = choose(s, &[Decision::Join, Decision::Join]);
    assert_eq!(s.active(), &[0, 2, 3]);
    let next = s.next_table();
    assert_eq!(next.sat_out_last, vec![false, true, false, false]);
    let s = deal_deck(&next, &round_robin()).unwrap();
    let s = choose(s, &[Decision::Join]);
    assert_eq!(s.phase(), &HandPhase::Choosing { seat: 1 });
    assert_eq!(s.legal_actions(), vec![Decision::Join], "의무방어전");
    assert!(s.apply(Decision::SitOut).is_err());
}

#[test]
fn art_4_9_random_tables_never_sit_anyone_out_twice() {
    for seats in [4, 5] {
        let mut table = Table::new(Preset::Tongilan, seats).unwrap();
        for seed in 0..60 {
            let s = random_hand(&table, seed).unwrap();
            let next = s.next_table();
            if s.outcome() == Some(&Outcome::Misdeal) {
                // No game was played: the same table deals again.
                assert_eq!(next, table);
                continue;
            }
            for seat in 0..seats {
                assert!(
                    !(table.sat_out_last[seat] && next.sat_out_last[seat]),
                    "seat {seat}"
                );
            }
            if !s.active().is_empty() {
                assert_eq!(s.active().len(), 3);
            }
            table = next;
        }
    }
}

#[test]
fn art_4_10_gwang_sold_at_two_points_each_paid_up_front() {
    let table = Table::new(Preset::Tongilan, 4).unwrap();
    let s = deal_deck(&table, &round_robin()).unwrap();
    // Seat 1 holds 8광 11광 12광.
    let s = choose(
        s,
        &[
            Decision::Join,
            Decision::SitOut,
            Decision::Join,
            Decision::Join,
        ],
    );
    assert_eq!(
        s.gwang_sales(),
        &[GwangSale {
            seller: 1,
            gwang: 3,
            each_pays: 6
        }]
    );
    assert_eq!(s.stock_len(), 21, "the seller's hand goes under the stock");
    assert_eq!(s.seat(1).hand, CardSet::EMPTY);
    assert_eq!(s.phase(), &HandPhase::Declaring { seat: 0 });
}

#[test]
fn art_4_10_bi_gwang_alone_sells_only_at_a_table_of_five() {
    let mut deck = round_robin();
    deck.swap(11, 21); // seat 3 gets 12광 alone
    let four = deal_deck(&Table::new(Preset::Tongilan, 4).unwrap(), &deck).unwrap();
    let four = choose(four, &[Decision::Join, Decision::Join, Decision::Join]);
    assert_eq!(
        four.legal_actions(),
        vec![Decision::SitOut],
        "three already play"
    );
    let four = choose(four, &[Decision::SitOut]);
    assert_eq!(four.active(), &[0, 1, 2]);
    assert!(four.gwang_sales().is_empty());
    let five = deal_deck(&Table::new(Preset::Tongilan, 5).unwrap(), &deck).unwrap();
    let five = choose(
        five,
        &[
            Decision::Join,
            Decision::Join,
            Decision::SitOut,
            Decision::SitOut,
            Decision::Join,
        ],
    );
    assert_eq!(five.active(), &[0, 1, 4]);
    assert_eq!(
        five.gwang_sales(),
        &[GwangSale {
            seller: 3,
            gwang: 1,
            each_pays: 2
        }]
    );
    assert_eq!(five.stock_len(), 21);
}

// ---------------------------------------------------------------- 흔들기, 폭탄

#[test]
fn shakes_are_declared_before_the_first_card_and_multiply() {
    let layout = Layout {
        preset: Preset::Tongilan,
        hands: vec![cards("1광 1띠 1피1 3광"), cards("5피1 6피1 7피1 9피1")],
        piles: vec![cards("8광 11광"), vec![]],
        floor: cards("3피1 2열"),
        stock: cards("10피1 10피2 11피1 11피2 12열 12띠 4열 4띠"),
    };
    let s = HandState::from_layout(&layout).unwrap();
    let month1 = Month::new(1).unwrap();
    assert_eq!(
        s.legal_actions(),
        vec![Decision::Shake(month1), Decision::Ready]
    );
    let s = s.apply(Decision::Shake(month1)).unwrap();
    assert_eq!(s.legal_actions(), vec![Decision::Ready]);
    let s = choose(s, &[Decision::Ready, Decision::Ready]);
    // 3광 takes 3피1: 1광 3광 8광 11광 = 4광.
    let s = play(&s, "3광");
    let s = s.apply(Decision::Stop).unwrap();
    let st = settlement(&s);
    // 3광 8광 11광: 3 points, doubled by the shake.
    assert_eq!(st.base, 3);
    assert_eq!(st.losers[0].factor, 2);
    assert_eq!(st.losers[0].pays, 6);
    assert_eq!(st.losers[0].multipliers[0].article, "제2장 10조");
}

#[test]
fn bomb_takes_four_a_pi_each_counts_as_a_shake_and_gives_two_flips() {
    let s = start(
        &["1광 1띠 1피1 5피1", "6피1 7피1 9피1 10피1"],
        &["", "3피1"],
        "1피2 12열",
        "2피1 8피1 2피2 8피2 11피1 11피2 4열 4띠",
    );
    let month1 = Month::new(1).unwrap();
    assert!(s.legal_actions().contains(&Decision::Bomb(month1)));
    let s = s.apply(Decision::Bomb(month1)).unwrap();
    assert_eq!(pile(&s, 0), set("1광 1띠 1피1 1피2 3피1"));
    assert_eq!((s.seat(0).shakes, s.seat(0).flips), (1, 2));
    assert_eq!(s.seat(0).hand, set("5피1"));
    let s = play(&s, "6피1");
    assert!(s.legal_actions().contains(&Decision::FlipOnly));
    let s = s.apply(Decision::FlipOnly).unwrap();
    assert_eq!(s.seat(0).flips, 1);
    assert_eq!(s.phase(), &HandPhase::Playing { seat: 1 });
}

#[test]
fn a_flip_onto_two_of_its_month_asks_which_to_take() {
    let s = start(
        &["5피1 6피1", "7피1 9피1"],
        &[],
        "2열 2피1",
        "2피2 8피1 10피1 11피1",
    );
    let s = play(&s, "5피1");
    assert_eq!(
        s.phase(),
        &HandPhase::ChooseFlip {
            seat: 0,
            flip: Card::named("2피2")
        }
    );
    assert_eq!(
        s.legal_actions(),
        vec![
            Decision::TakeFlip(Card::named("2열")),
            Decision::TakeFlip(Card::named("2피1"))
        ]
    );
    let s = s.apply(Decision::TakeFlip(Card::named("2열"))).unwrap();
    assert_eq!(pile(&s, 0), set("2열 2피2"));
    assert_eq!(s.floor(), set("2피1 5피1"));
}

#[test]
fn illegal_actions_are_refused_and_change_nothing() {
    let s = start(
        &["5피1 6피1", "7피1 9피1"],
        &[],
        "2열 2피1",
        "2피2 8피1 10피1 11피1",
    );
    let before = s.clone();
    let mut t = s.clone();
    assert!(t
        .apply_mut(Decision::Play {
            card: Card::named("7피1"),
            take: None
        })
        .is_err());
    assert!(t.apply_mut(Decision::Go).is_err());
    assert_eq!(t, before);
}

// ---------------------------------------------------------------- full games

/// Play a hand with a fixed policy: the first legal action, 스톱 when allowed.
fn scripted(table: &Table, seed: u64) -> (HandState, usize) {
    let mut s = deal(table, seed).unwrap();
    let mut steps = 0;
    while s.outcome().is_none() {
        let actions = s.legal_actions();
        let a = if actions.contains(&Decision::Stop) {
            Decision::Stop
        } else {
            actions[0]
        };
        s = s.apply(a).unwrap();
        steps += 1;
    }
    (s, steps)
}

#[test]
fn fixed_seed_full_game() {
    let table = Table::new(Preset::Tongilan, 3).unwrap();
    let dealt = deal(&table, 2026).unwrap();
    // The same seed deals the same cards (ChaCha8): a replay stays a replay.
    assert_eq!(dealt, deal(&table, 2026).unwrap());
    assert_ne!(dealt.seat(0).hand, deal(&table, 2027).unwrap().seat(0).hand);
    let hand: Vec<&str> = dealt.seat(0).hand.iter().map(|c| c.id()).collect();
    assert_eq!(hand.len(), 7);
    assert_eq!((dealt.floor().len(), dealt.stock_len()), (6, 21));

    let (end, steps) = scripted(&table, 2026);
    assert_eq!(end, scripted(&table, 2026).0, "deterministic");
    assert!(steps >= 3);
    assert_eq!(end.all_cards(), (CardSet::DECK, 48));
    match end.outcome().unwrap() {
        Outcome::Stop {
            hand, settlement, ..
        } => {
            assert!(score::best_points(Preset::Tongilan, hand.piles[hand.winner]) >= 3);
            assert_eq!(settlement, &score::settle(hand));
        }
        Outcome::Draw => {
            assert_eq!(end.stock_len(), 0);
            for &seat in end.active() {
                assert!(end.points(seat) < end.bar(seat));
            }
        }
        other => panic!("seed 2026 deals a playable hand, got {other:?}"),
    }
}

#[test]
fn random_hands_reach_every_kind_of_ending() {
    let mut seen = [false; 4];
    for players in [2, 3] {
        let table = Table::new(Preset::Tongilan, players).unwrap();
        for seed in 0..400 {
            let s = random_hand(&table, seed).unwrap();
            match s.outcome().unwrap() {
                Outcome::Stop { .. } => seen[0] = true,
                Outcome::Draw => seen[1] = true,
                Outcome::Forfeit {
                    reason: Forfeit::ThreeSeolsa,
                    ..
                } => seen[2] = true,
                Outcome::Forfeit { .. } => seen[3] = true,
                Outcome::Misdeal => {}
            }
        }
    }
    assert_eq!(seen, [true; 4], "stop, 나가리, three 설사, dealt forfeit");
}

// ---------------------------------------------------------------- properties

fn any_table() -> impl Strategy<Value = Table> {
    (
        2usize..=5,
        prop_oneof![Just(Preset::Tongilan), Just(Preset::Common)],
        0usize..5,
    )
        .prop_map(|(seats, preset, dealer)| {
            let mut t = Table::new(preset, seats).unwrap();
            t.dealer = dealer % seats;
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cards_are_conserved_through_any_hand(table in any_table(), seed: u64, choices: Vec<u16>) {
        let mut s = deal(&table, seed).unwrap();
        prop_assert_eq!(s.all_cards(), (CardSet::DECK, 48));
        let mut i = 0;
        while s.outcome().is_none() {
            let actions = s.legal_actions();
            prop_assert!(!actions.is_empty());
            let pick = choices.get(i).copied().unwrap_or((seed >> (i % 48)) as u16);
            s = s.apply(actions[pick as usize % actions.len()]).unwrap();
            prop_assert_eq!(s.all_cards(), (CardSet::DECK, 48));
            i += 1;
        }
    }

    #[test]
    fn the_engine_settlement_equals_the_scorer_on_its_final_piles(table in any_table(), seed: u64) {
        let s = random_hand(&table, seed).unwrap();
        if let Some(Outcome::Stop { hand, seats, settlement }) = s.outcome() {
            let names: Vec<String> = seats.iter().map(|s| format!("P{s}")).collect();
            let json = serde_json::to_string(&Sheet::from_hand(&names, hand)).unwrap();
            let checked = Sheet::parse(&json).map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
            prop_assert_eq!(&checked.hand, hand);
            let report = Report::of(&checked);
            prop_assert_eq!(report.total_paid, settlement.total_paid);
            prop_assert_eq!(&report.points, &settlement.points);
            let pays: Vec<u32> = report.losers.iter().map(|l| l.pays).collect();
            let engine_pays: Vec<u32> = settlement.losers.iter().map(|l| l.pays).collect();
            prop_assert_eq!(pays, engine_pays);
            // The piles are the engine's: the winner's points clear the bar.
            prop_assert!(score::best_points(hand.preset, hand.piles[hand.winner])
                >= hand.preset.needed_points(hand.piles.len()) + hand.go);
        }
    }
}

#[test]
fn art_4_6_a_deferred_decision_wins_if_the_hand_runs_out_first() {
    // Reading: no next turn comes, so the deferred player wins at the end if their
    // points still qualify, with the received 피.
    let s = start(
        &["8열", "10열"],
        &[ELEVEN_PI, "7피1 7피2"],
        "8광 12열",
        "12띠 5열",
    );
    let s = play(&s, "8열");
    assert!(s.seat(0).deferred);
    let s = play(&s, "10열");
    let st = settlement(&s);
    assert_eq!(s.outcome().and_then(Outcome::winner), Some(0));
    assert_eq!(st.points.total, 3);
}

#[test]
fn common_matgo_needs_seven_points_to_stop() {
    let hands = ["8열 2피1", "4열 5열"];
    let piles = ["1광 3광", ""];
    let (floor, stock) = ("8광 12열", "6열 7열 9열 10열");
    let tongilan = play(&start(&hands, &piles, floor, stock), "8열");
    assert_eq!(
        tongilan.phase(),
        &HandPhase::GoStop {
            seat: 0,
            deferred: false
        }
    );
    let common = play(
        &start_with(Preset::Common, &hands, &piles, floor, stock),
        "8열",
    );
    assert_eq!(common.bar(0), 7);
    assert_eq!(common.phase(), &HandPhase::Playing { seat: 1 });
}
