//! The station's decisions that are not rules of the game: what a camera verdict
//! becomes as a match event, when the (simulated) thrower may throw, and the demo's
//! stand-ins for the placer and the referee. Pure: values in, values out.

use rand::seq::SliceRandom;
use rand::Rng;
use yut_match::MatchLog;
use yut_match::{
    self, EvidenceRef, MatchSetup, MatchState, Player, Posture, SticksRead, TeamSetup,
};
use yut_rules::yut::{legal_moves, GameState, Move, Phase, ThrowResult};
use yut_sensor::HeightCheck;
use yut_vision::{self, Reason};

/// The id of a vision reason, as flags and the API spell it.
pub fn reason_id(r: Reason) -> &'static str {
    match r {
        Reason::OnEdge => "on_edge",
        Reason::Leaning => "leaning",
        Reason::OnLine => "on_line",
        Reason::LowConfidence => "low_confidence",
        Reason::StickCount => "stick_count",
        Reason::MarkUnclear => "mark_unclear",
        Reason::Touching => "touching",
    }
}

/// What the camera saw (and the sensor measured) as the match's verdict on a throw.
/// The reading is always carried as the station's proposal; any reason the vision
/// gives, or a throw below the required height, is a flag, and a flagged verdict is
/// never called automatically: the referee decides.
pub fn referee_verdict(
    v: &yut_vision::ThrowReading,
    evidence: Option<EvidenceRef>,
    height: &HeightCheck,
) -> yut_match::Verdict {
    let mut flags: Vec<String> = v
        .reasons
        .iter()
        .map(|r| reason_id(*r).to_string())
        .collect();
    if v.result.is_none() && flags.is_empty() {
        flags.push("undecided".into());
    }
    let height_mm = match height {
        HeightCheck::Pass { apex_mm, .. } => Some(*apex_mm),
        HeightCheck::Violation { apex_mm, margin_cm } => {
            flags.push(format!(
                "too_low: the sticks rose to {:.2} m, {margin_cm:.1} cm short of the required height (낙?)",
                apex_mm / 1000.0
            ));
            Some(*apex_mm)
        }
        HeightCheck::Unmeasured(_) => None,
    };
    yut_match::Verdict {
        result: Some(v.result.unwrap_or(v.best_guess)),
        confidence: Some(v.confidence as f32),
        evidence: evidence.into_iter().collect(),
        flags,
        height_mm: height_mm.map(|h| h.round().max(0.0) as u32),
        manual: false,
        sticks: None,
        clip: None,
    }
}

/// The sticks of a reading as the journal keeps them for the fairness
/// statistics: one letter per stick found (`yut_match::SticksRead`), with the
/// names of the stick set and the mat.
pub fn sticks_read(v: &yut_vision::ThrowReading, set: &str, mat: &str) -> SticksRead {
    use yut_vision::{Face, Placement};
    let faces = v
        .sticks
        .iter()
        .map(|s| match (s.placement, s.face) {
            (Placement::OffMat, _) => 'X',
            (_, Face::Front) if s.marked => 'M',
            (_, Face::Front) => 'F',
            (_, Face::Back) => 'R',
            (_, Face::Unsure) => '?',
        })
        .collect();
    SticksRead {
        set: set.to_string(),
        mat: mat.to_string(),
        faces,
    }
}

/// Whether a throw may be made now, as the simulated camera needs to know: a new
/// throw is thrown only when `due`, and only once the match has recorded the
/// previous one (`throws` grows, or a new game begins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThrowGate {
    pub game: u32,
    pub throws: u32,
    pub due: bool,
}

/// The gate for the station as it stands at `now`.
pub fn throw_gate(station: &MatchLog, now: yut_match::Millis) -> ThrowGate {
    let Some(m) = station.current() else {
        return ThrowGate::default();
    };
    ThrowGate {
        game: station.game_number(),
        throws: m.throws().count() as u32,
        due: m.started()
            && !m.is_over()
            && m.game().phase() == Phase::Throw
            && m.awaiting_call().is_none()
            && m.timeout_running(now).is_none(),
    }
}

/// The line-up used when a game is registered without one: two teams of three
/// seated throwers (shoulder height 65 cm) and a placer, who is the coach.
pub fn default_setup() -> MatchSetup {
    let team = |name: &str, players: [&str; 4]| TeamSetup {
        name: name.into(),
        throwers: players[..3]
            .iter()
            .map(|p| Player::thrower(p, Posture::Seated, 65))
            .collect(),
        placer: Player::placer(players[3]),
    };
    MatchSetup::new([
        team("청", ["김하나", "이두리", "박세나", "최코치"]),
        team("홍", ["정다섯", "강여섯", "조일곱", "윤코치"]),
    ])
}

/// The demo's placer: a legal move, preferring one that captures or finishes a
/// piece, otherwise any.
pub fn auto_move(game: &GameState, rng: &mut impl Rng) -> Option<Move> {
    let moves = legal_moves(game);
    let good: Vec<&Move> = moves
        .iter()
        .filter(|m| {
            yut_rules::yut::apply(game, &yut_rules::yut::GameEvent::Move(**m))
                .map(|after| {
                    let me = game.turn();
                    let them = 1 - me;
                    after.teams()[me].finished > game.teams()[me].finished
                        || after.teams()[them].waiting > game.teams()[them].waiting
                })
                .unwrap_or(false)
        })
        .collect();
    if good.is_empty() {
        moves.choose(rng).copied()
    } else {
        good.choose(rng).map(|m| **m)
    }
}

/// What the demo's stand-in referee calls for a throw that waits: the rendered
/// truth when it is known, otherwise the station's proposal.
pub fn stand_in_call(m: &MatchState, truth: Option<ThrowResult>) -> Option<(u32, ThrowResult)> {
    let n = m.awaiting_call()?;
    let record = m.throws().find(|t| t.number == n)?;
    Some((
        n,
        truth.or(record.verdict.result).unwrap_or(ThrowResult::Nak),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yut_sensor::Unmeasured;
    use yut_vision::{Face, Placement, StickReading};

    fn vision_verdict(
        result: Option<ThrowResult>,
        reasons: Vec<Reason>,
    ) -> yut_vision::ThrowReading {
        yut_vision::ThrowReading {
            result,
            best_guess: ThrowResult::Gae,
            confidence: 0.9,
            reasons,
            sticks: vec![StickReading {
                center_px: [0.0, 0.0],
                center_cm: [0.0, 0.0],
                angle_deg: 0.0,
                face: Face::Front,
                marked: false,
                placement: Placement::OnMat,
                confidence: 0.9,
                doubts: vec![],
            }],
        }
    }

    #[test]
    fn a_clear_reading_is_called_and_an_unclear_one_goes_to_the_referee() {
        let none = HeightCheck::Unmeasured(Unmeasured::NoSensor);
        let clear = referee_verdict(&vision_verdict(Some(ThrowResult::Gae), vec![]), None, &none);
        assert_eq!(clear.automatic_call(), Some(ThrowResult::Gae));
        let unclear = referee_verdict(
            &vision_verdict(None, vec![Reason::OnEdge, Reason::LowConfidence]),
            None,
            &none,
        );
        assert_eq!(unclear.automatic_call(), None);
        assert_eq!(
            unclear.result,
            Some(ThrowResult::Gae),
            "the best guess is proposed"
        );
        assert_eq!(unclear.flags, vec!["on_edge", "low_confidence"]);
    }

    #[test]
    fn the_sticks_are_kept_one_letter_each() {
        let mut v = vision_verdict(Some(ThrowResult::Gae), vec![]);
        let stick = v.sticks[0].clone();
        v.sticks = vec![stick.clone(); 4];
        v.sticks[1].marked = true;
        v.sticks[2].face = Face::Back;
        v.sticks[3].face = Face::Unsure;
        let read = sticks_read(&v, "공식 A", "circle:160");
        assert_eq!(read.faces, "FMR?");
        assert_eq!(read.faces_up(), None, "a face not read");
        v.sticks[3].face = Face::Back;
        v.sticks[0].placement = Placement::OffMat;
        assert_eq!(sticks_read(&v, "a", "b").faces, "XMRR");
        v.sticks[0].placement = Placement::OnLine;
        let up = sticks_read(&v, "a", "b").faces_up().unwrap();
        assert_eq!(up.result(), ThrowResult::Gae);
    }

    #[test]
    fn a_throw_below_the_height_is_flagged_never_called() {
        let low = HeightCheck::Violation {
            apex_mm: 512.0,
            margin_cm: 13.8,
        };
        let v = referee_verdict(&vision_verdict(Some(ThrowResult::Mo), vec![]), None, &low);
        assert_eq!(v.automatic_call(), None);
        assert_eq!(v.height_mm, Some(512));
        assert!(v.flags[0].starts_with("too_low"), "{:?}", v.flags);
        let high = HeightCheck::Pass {
            apex_mm: 900.0,
            margin_cm: 25.0,
        };
        let v = referee_verdict(&vision_verdict(Some(ThrowResult::Mo), vec![]), None, &high);
        assert_eq!(v.automatic_call(), Some(ThrowResult::Mo));
        assert_eq!(v.height_mm, Some(900));
    }

    #[test]
    fn the_gate_opens_only_for_a_throw_that_is_due() {
        use yut_match::Entry;
        use yut_match::{Action, MatchEvent, Verdict};
        let mut st = MatchLog::default();
        assert!(!throw_gate(&st, 0).due);
        st.apply(&Entry::NewGame {
            at_ms: 0,
            setup: default_setup(),
        })
        .unwrap();
        assert!(!throw_gate(&st, 0).due, "not started");
        st.apply(&Entry::Event(MatchEvent::new(1, Action::Start)))
            .unwrap();
        assert_eq!(
            throw_gate(&st, 1),
            ThrowGate {
                game: 1,
                throws: 0,
                due: true
            }
        );
        let referred = Verdict::ambiguous("on_edge");
        st.apply(&Entry::Event(MatchEvent::new(
            2,
            Action::Throw { verdict: referred },
        )))
        .unwrap();
        assert_eq!(
            throw_gate(&st, 2),
            ThrowGate {
                game: 1,
                throws: 1,
                due: false
            }
        );
        st.apply(&Entry::Event(MatchEvent::new(
            3,
            Action::Call {
                throw: 1,
                result: ThrowResult::Do,
            },
        )))
        .unwrap();
        assert!(!throw_gate(&st, 3).due, "a move is due, not a throw");
        let m = st.current().unwrap();
        let mv = auto_move(m.game(), &mut rand::thread_rng()).expect("a 도 can be moved");
        st.apply(&Entry::Event(MatchEvent::new(4, Action::Move(mv))))
            .unwrap();
        assert_eq!(
            throw_gate(&st, 4),
            ThrowGate {
                game: 1,
                throws: 1,
                due: true
            }
        );
    }
}
