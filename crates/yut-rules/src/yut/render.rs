//! The board drawn as text for people: Korean names, pieces, and what happens next.
//!
//! Pure: it returns text; the caller prints it.

use super::board::StationId;
use super::game::{legal_moves, Destination, GameState, Origin, Phase};
use std::fmt::Write;
use unicode_width::UnicodeWidthStr;

/// Grid cell (column, row) of each station on a 7×7 drawing: 참먹이 bottom right,
/// pieces run up the right side to 모, left along the top to 뒷모, down to 찌모 and
/// back along the bottom. The middle row and column hold only 방.
fn cell(station: StationId) -> (usize, usize) {
    use StationId as S;
    match station {
        S::Chammeogi => (6, 6),
        S::Do => (6, 5),
        S::Gae => (6, 4),
        S::Geol => (6, 2),
        S::Yut => (6, 1),
        S::Mo => (6, 0),
        S::DwitDo => (5, 0),
        S::DwitGae => (4, 0),
        S::DwitGeol => (2, 0),
        S::DwitYut => (1, 0),
        S::DwitMo => (0, 0),
        S::JjiDo => (0, 1),
        S::JjiGae => (0, 2),
        S::JjiGeol => (0, 4),
        S::JjiYut => (0, 5),
        S::JjiMo => (0, 6),
        S::NalDo => (1, 6),
        S::NalGae => (2, 6),
        S::NalGeol => (4, 6),
        S::NalYut => (5, 6),
        S::MoDo => (5, 1),
        S::MoGae => (4, 2),
        S::Bang => (3, 3),
        S::DwitMoDo => (1, 1),
        S::DwitMoGae => (2, 2),
        S::SokYut => (2, 4),
        S::SokMo => (1, 5),
        S::Bangsugi => (4, 4),
        S::Anjji => (5, 5),
    }
}

const CELL_WIDTH: usize = 9;

fn pad(text: &str) -> String {
    let width = text.width();
    let left = (CELL_WIDTH.saturating_sub(width)) / 2;
    let right = CELL_WIDTH.saturating_sub(width + left);
    format!("{}{}{}", " ".repeat(left), text, " ".repeat(right))
}

/// A short marker per team: the first letter of its name (A/B if they clash).
fn markers(state: &GameState) -> [String; 2] {
    let first = |i: usize| {
        state.teams()[i]
            .name
            .chars()
            .next()
            .map(String::from)
            .unwrap_or_default()
    };
    let (a, b) = (first(0), first(1));
    if a == b || a.is_empty() {
        ["A".into(), "B".into()]
    } else {
        [a, b]
    }
}

/// A station and its Korean name, e.g. `모(mo)`.
pub fn station_label(station: StationId) -> String {
    format!("{}({})", station.korean(), station.id())
}

pub fn origin_label(origin: Origin) -> String {
    match origin {
        Origin::Waiting => "대기(waiting)".into(),
        Origin::Station(s) => station_label(s),
    }
}

pub fn destination_label(destination: Destination) -> String {
    match destination {
        Destination::Finished => "남(finished)".into(),
        Destination::Station(s) => station_label(s),
    }
}

/// Draw the board with every station's Korean name and the pieces on it.
pub fn draw_board(state: &GameState) -> String {
    let markers = markers(state);
    let mut names = vec![vec![String::new(); 7]; 7];
    let mut pieces = vec![vec![String::new(); 7]; 7];
    for station in StationId::ALL {
        let (col, row) = cell(station);
        names[row][col] = station.korean().to_string();
        pieces[row][col] = "·".into();
    }
    for (team_index, team) in state.teams().iter().enumerate() {
        for stack in &team.stacks {
            let (col, row) = cell(stack.station);
            pieces[row][col] = format!("[{}{}]", markers[team_index], stack.pieces);
        }
    }
    let mut out = String::new();
    for row in 0..7 {
        let name_line: String = names[row].iter().map(|n| pad(n)).collect();
        let piece_line: String = pieces[row].iter().map(|p| pad(p)).collect();
        let _ = writeln!(out, "{}", name_line.trim_end());
        let _ = writeln!(out, "{}", piece_line.trim_end());
    }
    out
}

/// The board plus whose turn, pending results, teams and legal moves.
pub fn describe_state(state: &GameState) -> String {
    let markers = markers(state);
    let mut out = draw_board(state);
    out.push('\n');
    for (i, team) in state.teams().iter().enumerate() {
        let _ = writeln!(
            out,
            "[{}] {}: 대기 {} · 판 위 {} · 남 {} / {}",
            markers[i],
            team.name,
            team.waiting,
            team.on_board(),
            team.finished,
            state.pieces_per_team()
        );
    }
    let turn = &state.teams()[state.turn()].name;
    match state.phase() {
        Phase::Over => {
            let _ = writeln!(out, "경기 종료 (game over): {turn} 승리 (wins)");
        }
        Phase::Throw => {
            let _ = writeln!(
                out,
                "{turn} 던질 차례 (to throw); 남은 결과 (pending): {}; 더 던질 횟수 (throws owed): {}",
                pending_text(state),
                state.throws_owed()
            );
        }
        Phase::Move => {
            let _ = writeln!(
                out,
                "{turn} 말 놓을 차례 (to move); 남은 결과 (pending): {}; 더 던질 횟수 (throws owed): {}",
                pending_text(state),
                state.throws_owed()
            );
            let _ = writeln!(out, "가능한 수 (legal moves):");
            for mv in legal_moves(state) {
                let _ = writeln!(
                    out,
                    "  {} {}: {} → {}",
                    mv.result.korean(),
                    mv.result.id(),
                    origin_label(mv.from),
                    destination_label(mv.to)
                );
            }
        }
    }
    out
}

fn pending_text(state: &GameState) -> String {
    if state.pending().is_empty() {
        return "없음 (none)".into();
    }
    state
        .pending()
        .iter()
        .map(|r| format!("{}({})", r.korean(), r.id()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The board itself for people: every station and its forward links.
pub fn describe_board() -> String {
    let mut out = String::new();
    for station in StationId::ALL {
        let links: Vec<String> = station
            .forward_links()
            .into_iter()
            .map(station_label)
            .collect();
        let links = if station == StationId::Chammeogi {
            format!(
                "{} (출발), 지나면 남 (passing it finishes)",
                links.join(", ")
            )
        } else {
            links.join(", ")
        };
        let label = station_label(station);
        let padding = " ".repeat(22usize.saturating_sub(label.width()));
        let _ = writeln!(out, "{label}{padding}→ {links}");
    }
    out
}
