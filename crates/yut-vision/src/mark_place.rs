//! The taught mark place read on a stick that others reach over, pure: which of
//! two crossing sticks lies on top (`lies_on`), and what shows of the mark
//! place where another reaches it (`mark_clear_of`). Measured with the frame
//! once the station's taught mark place is known
//! ([`read_marks_where_crossed`], called by `Detector::measure`), so the judge
//! weighs a value (`Evidence::mark_where_crossed`) and never the picture.

use crate::features::{
    column_reach, columns_covered, covered_pixels, foreground_beyond, foreground_beyond_except,
    mark_peak_seen, mark_peak_where, middle_shows, own_band, PL,
};
use crate::measure::Measured;
use crate::profile::{self, Taught};
use crate::sticks::{others_than, reaches_over, Found};

/// The other sticks of a frame whose footprints reach over stick `i`'s (by
/// index): where its mark place may be hidden, or another's edge pass for a
/// mark.
pub fn reaching_over(found: &[Found], i: usize) -> Vec<usize> {
    (0..found.len())
        .filter(|&j| j != i && reaches_over(&found[i], &found[j]))
        .collect()
}

/// Read the taught mark place of every stick of a frame that others reach
/// over (`Evidence::mark_where_crossed`): lying on top of all of them, its
/// whole place; else what shows of it (`mark_clear_of`). The other sticks'
/// evidence must be measured (`Evidence::of`): which lies on top is told from
/// it.
pub fn read_marks_where_crossed(taught: &Taught, sticks: &mut [Measured]) {
    let found: Vec<Found> = sticks.iter().map(|s| s.found).collect();
    let reads: Vec<Option<MarkRead>> = (0..sticks.len())
        .map(|i| {
            let over = reaching_over(&found, i);
            if over.is_empty() {
                return None;
            }
            // Lying on top of all of them, its whole face shows.
            let on_top = over.iter().all(|&j| lies_on(sticks, i, j));
            let over: Vec<Found> = over.iter().map(|&j| found[j]).collect();
            mark_clear_of(&sticks[i], &over, &others_than(&found, i), taught, on_top)
        })
        .collect();
    for (s, r) in sticks.iter_mut().zip(reads) {
        s.evidence.mark_where_crossed = r;
    }
}

/// Stick `i` lies on stick `j` where they cross when it shows as itself
/// there (its misfit, see [`crossing_misfit`], at most `ON_TOP_MISFIT`)
/// while `j` shows clearly unlike itself where `i` crosses it (at least
/// `ON_TOP_MISFIT`, and over twice `i`'s: `ON_TOP_RATIO`). Two sticks that
/// look alike where they cross (the same face up, or faces alike in a dim
/// hall) pass neither way, and the mark is taken as hidden: a stick under
/// another must never pass for the one on top, or the other's face would be
/// read as its mark place. (On the 22 stored sets this called 33 more clear
/// throws, none wrong; the bar on the one under cost 6.)
const ON_TOP_MISFIT: f32 = 0.2;
const ON_TOP_RATIO: f32 = 0.5;

/// Whether stick `i` lies on top of stick `j` where they cross (see
/// `ON_TOP_MISFIT`), from how each shows where the other crosses it
/// (`Evidence::misfit_under`, measured with the frame). A mark of its own
/// filling most of the crossing counts against it: it is then taken as lying
/// under, and its mark goes to the referee.
pub(crate) fn lies_on(sticks: &[Measured], i: usize, j: usize) -> bool {
    let misfit = |a: usize, b: usize| sticks[a].evidence.misfit_under.get(b).copied().flatten();
    match (misfit(i, j), misfit(j, i)) {
        (Some(top), Some(under)) => {
            top <= ON_TOP_MISFIT && under >= ON_TOP_MISFIT && top < ON_TOP_RATIO * under
        }
        _ => false,
    }
}

/// Another stick's outline is grown by this many stick widths before the
/// mark of a stick it reaches over is read: lying on another, it is raised
/// by the other's thickness (about half a width), so its shadow falls beside
/// it; and the fit's error.
const MARK_CLEARANCE: f64 = 0.6;

/// The mark score of a stick that others reach over (`over`: their
/// footprints overlap its own), read only where the taught mark lies
/// (`Taught::mark_span`; `others`, all the other sticks, are painted over).
/// Where a stick of `over` (grown by `MARK_CLEARANCE`) or the foreground
/// past the stick's long edges reaches there, the place is read pixel by
/// pixel on what shows, and only where its core shows whole ([`mark_core`],
/// `MARK_CORE_CLEARANCE`; ADR 0087): the read is then `partial`, and calls
/// only where the stick reader's mark head agrees. `None` when the core does
/// not show, or when the rest of what shows of the stick reads as a mark
/// while the taught place does not (the fit may be off along the stick).
/// When the stick lies on top of all of `over` (`on_top`, see [`lies_on`])
/// its whole face shows: the taught place is read whatever reaches there.
fn mark_clear_of(
    s: &Measured,
    over: &[Found],
    others: &[Found],
    taught: &Taught,
    on_top: bool,
) -> Option<MarkRead> {
    let (erased, band) = own_band(&s.patch, &s.found, s.nominal, others);
    // Within `MARK_CLEARANCE` of another stick: the place's columns count as
    // covered there, and foreground beside the stick there is that stick's
    // (its blurred edge, its shadow).
    let near = covered_pixels(&s.found, s.nominal, over, MARK_CLEARANCE * s.nominal.1);
    let grown = columns_covered(&near);
    let beyond = foreground_beyond(&s.patch, band);
    let covered: [bool; PL] = std::array::from_fn(|i| !on_top && (grown[i] || beyond[i]));
    let [lo, hi] = taught.mark_span;
    let in_span: [bool; PL] = std::array::from_fn(|i| (lo..=hi).contains(&column_reach(i)));
    let elsewhere: [bool; PL] = std::array::from_fn(|i| !in_span[i] && !covered[i]);
    let rest = mark_peak_where(&erased, band, &elsewhere);
    let partial = (0..PL).any(|i| in_span[i] && covered[i]);
    let at_mark = if partial {
        // Another stick reaches over the place: read what shows of it, pixel
        // by pixel, where the place's core shows whole.
        let hidden = covered_pixels(&s.found, s.nominal, over, MARK_CORE_CLEARANCE * s.nominal.1);
        let unexplained = foreground_beyond_except(&s.patch, band, &near);
        let core = mark_core(taught.mark_span)?;
        if (0..PL).any(|i| core[i] && unexplained[i]) || !middle_shows(band, &core, &hidden) {
            return None;
        }
        let shows: [bool; PL] = std::array::from_fn(|i| in_span[i] && !unexplained[i]);
        mark_peak_seen(&erased, band, &shows, &hidden)
    } else {
        mark_peak_where(&erased, band, &in_span)
    };
    (at_mark >= taught.mark_threshold || rest < taught.mark_threshold).then_some(MarkRead {
        score: f64::from(at_mark),
        partial,
    })
}

/// The taught mark place read on a stick others reach over
/// (`mark_clear_of`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkRead {
    /// The mark score over what shows of the place.
    pub score: f64,
    /// Another stick (grown by `MARK_CLEARANCE`) reaches over the place,
    /// not its core (`mark_core`).
    pub partial: bool,
}

/// The margin (stick widths) by which another stick's outline is grown
/// before the core of a mark place it reaches over is taken to show
/// ([`mark_clear_of`]): under [`MARK_CLEARANCE`], since what shows is only
/// trusted where the stick reader's mark head reads the same.
const MARK_CORE_CLEARANCE: f64 = 0.2;

/// The share of the taught mark place, about its middle, that must show
/// whole for a stick another reaches over to have its mark read on what
/// shows ([`mark_core`]). The taught place is the mark's reach padded by
/// `MARK_SPAN_PAD` each way, and a mark is read by windows of three columns
/// at its strongest, which lie about its middle: with the middle half of the
/// place in view (and the middle half of the stick's inner rows there), a
/// mark there shows its strongest columns whatever covers the rest. (The
/// generator's truth counts a mark as hidden only where another stick lies
/// over its middle; the station keeps a further `MARK_CLEARANCE` of the
/// other's width.)
const MARK_CORE_SHARE: f32 = 0.5;

/// The columns of the middle [`MARK_CORE_SHARE`] of the taught mark place.
/// The place is a reach from the stick's middle (either end may lie first),
/// so a place starting at the middle is one stretch across it, and its core
/// the columns within that share of its reach; one further out lies towards
/// both ends, and both cores count. `None` where teaching found no place
/// (the whole stick): there a mark could be anywhere.
pub(crate) fn mark_core(span: [f32; 2]) -> Option<[bool; PL]> {
    if span == profile::WHOLE_STICK {
        return None;
    }
    let [lo, hi] = span;
    let trim = (1.0 - MARK_CORE_SHARE) / 2.0;
    let core = if lo <= 0.0 {
        0.0..=hi * MARK_CORE_SHARE
    } else {
        lo + trim * (hi - lo)..=hi - trim * (hi - lo)
    };
    let cols: [bool; PL] = std::array::from_fn(|i| core.contains(&column_reach(i)));
    cols.contains(&true).then_some(cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_place_s_core_is_its_middle_half_at_either_end_and_none_for_the_whole_stick() {
        let reaches = |cols: [bool; PL]| -> Vec<f32> {
            (0..PL).filter(|&i| cols[i]).map(column_reach).collect()
        };
        // A place across the stick's middle: one stretch, within half its
        // reach of the middle.
        let middle = mark_core([0.0, 0.12]).unwrap();
        let r = reaches(middle);
        assert!(r.iter().all(|&x| x <= 0.06), "{r:?}");
        assert!(middle[PL / 2 - 1] && middle[PL / 2]);
        assert_eq!(
            (0..PL / 2).filter(|&i| middle[i]).count(),
            (PL / 2..PL).filter(|&i| middle[i]).count()
        );
        // A place towards the ends: its middle half, at both ends (either
        // end may lie first), and not the stick's middle.
        let ends = mark_core([0.2, 0.4]).unwrap();
        let r = reaches(ends);
        assert!(r.iter().all(|&x| (0.25..=0.35).contains(&x)), "{r:?}");
        assert!(ends[..PL / 2].contains(&true) && ends[PL / 2..].contains(&true));
        assert!(!ends[PL / 2]);
        // No place taught: a mark could be anywhere.
        assert_eq!(mark_core(profile::WHOLE_STICK), None);
    }
}
