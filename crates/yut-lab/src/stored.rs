//! `eval --from-dump`: stored looks ([`crate::dump`]) judged again in seconds, with
//! what each guard costs and catches, other bars (`--bars`), a grid of bars
//! (`--sweep`) and one CSV row per stick (`--csv`).
//!
//! Not pure: it reads the dumps (and `--probs`), writes `--csv` and prints the report.

use anyhow::{Context, Result};
use std::io::Write as _;
use std::path::Path;
use yut_vision::calibrate::Shape;
use yut_vision::classify::{self, CLASS_BACK, CLASS_FRONT, CLASS_NEITHER};
use yut_vision::features::N_APPEAR;

use crate::eval::{
    quantile, sorted, stick_detail, taught_place, EvalArgs, EvalTally, NEAR_EDGE_CM,
};
use crate::{dump, load_classifier, InputError};

/// `eval --from-dump`: the same figures from stored looks, plus the per-stick
/// reading against the truth (features recomputed, no rendering).
pub fn run(a: &EvalArgs) -> Result<()> {
    let classifier = load_classifier(&a.model)?;
    let mut tally = EvalTally::default();
    // Per true class (front, back, neither): read front, back, unsure.
    let mut sticks_read = [[0usize; 3]; 3];
    // Flat and round sticks by the model's probability of their true face,
    // lone and sharing a blob: under 0.5, 0.7, 0.85, 0.95, and above.
    let mut right_prob = [[0usize; 5]; 2];
    // How far the finder placed each stick from the truth: offset across (in
    // nominal widths) and angle (degrees), lone and shared.
    let mut placement: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    // How far inside the mat the station puts sticks lying near its edge,
    // less the truth (cm): round mats, square mats. The calls on or off the
    // mat hang on it.
    let mut near_edge: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut doubts = DoubtTally::default();
    let files = dump::dump_files(&a.from_dump)?;
    let mut judged = Vec::new();
    let mut left_out = 0usize;
    // Looks of families `--finish` or `--leave-out` set aside (`--world`).
    let mut other_families = 0usize;
    let given_probs = a.probs.as_ref().map(|p| read_probs(p)).transpose()?;
    let mut csv = match &a.csv {
        Some(p) => {
            let mut w = std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("writing {}", p.display()))?,
            );
            writeln!(w, "look,throw,case,ambiguous,truth_result,called,stick,label,up,dist_px,shared,blob,width,length,band,front,back,neither,f_front,f_back,f_neither,n_front,n_back,n_neither,s_front,s_back,s_neither,face,doubts,marked,mark,mark_covered,reasons,inside,min_corner,t_inside,t_placement,width_px,taught_along,taught_off,edge_witness")?;
            Some(w)
        }
        None => None,
    };
    for f in &files {
        // With `--world`, the stored looks are world looks: each is counted
        // by its family, and `--finish` and `--leave-out` choose among them.
        let family = match a.world {
            false => None,
            true => {
                let finish = dump::world_finish(f, a.width, a.height)?;
                if !a.judges(finish) {
                    other_families += 1;
                    continue;
                }
                Some(finish.name())
            }
        };
        let mut d = dump::LookDump::read(f)?;
        // Said, not skipped silently: a look left out changes every figure
        // below, and a model that refuses looks must not pass for a better one.
        // As the rendering run did: a station that cannot read its own
        // teaching pictures refuses to be taught.
        let taught = std::iter::once(&d.teach)
            .chain(&d.more)
            .try_for_each(|set| yut_vision::teach::sticks_on_mat(set, &d.calibration.mat))
            .and_then(|()| d.teach.learn())
            .and_then(|mut t| {
                yut_vision::check_readable(&classifier, &mut t, &d.teach, &d.more).map(|r| (t, r))
            });
        let (taught, readability) = match taught {
            Ok(t) => t,
            Err(e) => {
                eprintln!("look {} left out: teach: {e}", d.seed);
                left_out += 1;
                if let Some(family) = family {
                    tally.count_family_refusal(family);
                }
                continue;
            }
        };
        // As the station's detector does once it knows its taught mark place.
        for t in &mut d.throws {
            yut_vision::mark_place::read_marks_where_crossed(&taught, &mut t.sticks);
        }
        let looks = taught
            .seen
            .as_ref()
            .map(yut_vision::reader::TaughtSticks::looks);
        let mut look_probs = Vec::new();
        let (clear_before, right_before) = (tally.clear, tally.clear_right);
        for (k, t) in d.throws.iter().enumerate() {
            let probs = match &given_probs {
                None => classifier.read(&taught, looks.as_ref(), &t.sticks)?,
                // Another reader's output laid beside the forest and the net,
                // combined as the station combines its own stick reader.
                Some(table) => t
                    .sticks
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let q = table.get(&(d.seed, k, i)).with_context(|| {
                            format!("--probs has no row for look {} throw {k} stick {i}", d.seed)
                        })?;
                        let read = yut_vision::reader::StickRead {
                            faces: q.0,
                            mark: q.1,
                        };
                        Ok(classify::with_stick_reader(
                            classifier.probs(&taught, &s.features)?,
                            read,
                        ))
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            let v = yut_vision::judge_with(
                &d.calibration,
                &taught,
                &t.sticks,
                &probs,
                &a.bars.unwrap_or_default(),
            );
            if let Some(w) = csv.as_mut() {
                for (i, ((s, r), p)) in t.sticks.iter().zip(&v.sticks).zip(&probs).enumerate() {
                    let near = dump::nearest_truth(&t.truth, &s.found);
                    let rd = p.readers.unwrap_or([[f64::NAN; 3]; 2]);
                    let sr = p.stick.unwrap_or([f64::NAN; 3]);
                    let (inside, corner) = s.inside_mat(&d.calibration.mat);
                    // Where the station's own taught reader places it (on its
                    // axis, off it), where it reads with one.
                    let (along, off) = taught
                        .taught_reader
                        .as_ref()
                        .map_or((f64::NAN, f64::NAN), |own| own.place(&s.features));
                    writeln!(
                        w,
                        "{},{k},{:?},{},{},{},{i},{},{:.3},{:.1},{},{:.3},{:.3},{:.3},{:.3},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:?},{},{},{:.4},{},{},{:.2},{:.2},{:.2},{:?},{:.1},{:.3},{:.3},{:.4}",
                        d.seed,
                        t.truth.case,
                        t.truth.ambiguous,
                        t.truth.result,
                        v.result_id(),
                        dump::label(&t.truth, s).map_or(-1, |l| l),
                        near.map_or(f64::NAN, |n| n.0.up),
                        near.map_or(f64::NAN, |n| n.1),
                        s.found.shared,
                        s.found.blob_ratio,
                        s.features[N_APPEAR],
                        s.features[N_APPEAR + 1],
                        s.features[yut_vision::features::BAND_WIDTH],
                        p.front,
                        p.back,
                        p.neither,
                        rd[0][0],
                        rd[0][1],
                        rd[0][2],
                        rd[1][0],
                        rd[1][1],
                        rd[1][2],
                        sr[0],
                        sr[1],
                        sr[2],
                        r.face,
                        r.doubts.iter().map(|d| format!("{d:?}")).collect::<Vec<_>>().join("|"),
                        near.is_some_and(|n| n.0.marked),
                        p.mark.unwrap_or(f64::NAN),
                        t.truth.mark_covered,
                        v.reasons.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join("|"),
                        inside,
                        corner,
                        near.map_or(f64::NAN, |n| d.calibration.mat.inside_by(n.0.center_cm)),
                        near.map(|n| n.0.placement),
                        s.nominal.1,
                        along,
                        off,
                        p.edge_witness.unwrap_or(f64::NAN),
                    )?;
                }
            }
            for ((s, r), p) in t.sticks.iter().zip(&v.sticks).zip(&probs) {
                if let Some(l) = dump::label(&t.truth, s) {
                    if let Some((ts, _)) = dump::nearest_truth(&t.truth, &s.found) {
                        let (dx, dy) = (
                            ts.center_px[0] - s.found.center[0],
                            ts.center_px[1] - s.found.center[1],
                        );
                        let across =
                            (-dx * s.found.dir[1] + dy * s.found.dir[0]).abs() / s.nominal.1;
                        let da = (r.angle_deg - ts.angle_deg).rem_euclid(180.0);
                        placement[usize::from(s.found.shared)].push((across, da.min(180.0 - da)));
                        let mat = &d.calibration.mat;
                        let truly_inside = mat.inside_by(ts.center_cm);
                        if truly_inside.abs() < NEAR_EDGE_CM {
                            let shape = usize::from(mat.shape == Shape::Square);
                            near_edge[shape].push(s.inside_mat(mat).0 - truly_inside);
                        }
                    }
                    if l != CLASS_NEITHER {
                        let pr = if l == CLASS_FRONT { p.front } else { p.back };
                        let bin = [0.5, 0.7, 0.85, 0.95].iter().filter(|b| pr >= **b).count();
                        right_prob[usize::from(s.found.shared)][bin] += 1;
                    }
                    let col = match r.face {
                        yut_vision::Face::Front => 0,
                        yut_vision::Face::Back => 1,
                        yut_vision::Face::Unsure => 2,
                    };
                    sticks_read[l as usize][col] += 1;
                    doubts.add(l, t.truth.to_refer(), p, &r.doubts);
                    if a.verbose && col < 2 && col as i32 != l {
                        println!(
                            "look {} throw {k} ({:?}): true class {l} read {:?} at {:?} shared {} size {:.2}×{:.2} blob {:.2}",
                            d.seed, t.truth.case, r.face, s.found.center.map(|v| v.round()), s.found.shared,
                            s.features[N_APPEAR], s.features[N_APPEAR + 1], s.found.blob_ratio
                        );
                    }
                }
            }
            let ok = tally.add_case(
                Some(t.truth.case),
                t.truth.result,
                t.truth.to_refer(),
                &v,
                0.0,
            );
            tally.add_mark_covered(&t.truth, &v);
            if let Some(family) = family {
                tally.add_family(family, t.truth.result, t.truth.to_refer(), &v);
            }
            if !ok && a.verbose {
                println!(
                    "look {} throw {k} ({:?}): truth {} → {} reasons {:?}",
                    d.seed,
                    t.truth.case,
                    t.truth.result,
                    v.result_id(),
                    v.reasons
                );
                for (s, (r, p)) in t.sticks.iter().zip(v.sticks.iter().zip(&probs)) {
                    let own = taught
                        .taught_reader
                        .as_ref()
                        .map_or(String::new(), |own| format!(", {}", taught_place(own, s)));
                    println!("    {}{own}", stick_detail(&t.truth, s, r, p));
                }
            }
            look_probs.push(probs);
        }
        if let Some(family) = family {
            tally.count_family_look(family);
        }
        if a.verbose {
            println!(
                "look {}: clear throws called right {}/{} (readability {:.2}; taught band: flat {:.2}, round {:.2}; taught area: flat {:.2}, round {:.2})",
                d.seed,
                tally.clear_right - right_before,
                tally.clear - clear_before,
                readability,
                taught.front_mean[yut_vision::features::BAND_WIDTH],
                taught.back_mean[yut_vision::features::BAND_WIDTH],
                taught.front_area,
                taught.back_area,
            );
        }
        if a.sweep {
            judged.push(Judged {
                look: d,
                taught,
                probs: look_probs,
            });
        }
    }
    if let Some(mut w) = csv {
        w.flush()?;
    }
    let stored = files.len() - other_families;
    let head = match left_out {
        0 => format!("stored: {stored} looks"),
        n => format!("stored: {stored} looks, {n} left out (teaching refused)"),
    };
    let head = match other_families {
        0 => head,
        n => format!("{head}; {n} of other families not judged"),
    };
    tally.print(&head);
    for (name, row) in ["front", "back", "neither"].iter().zip(sticks_read) {
        println!(
            "  true {name:7} sticks read front {:5}  back {:5}  unsure {:5}",
            row[0], row[1], row[2]
        );
    }
    for (name, v) in ["lone", "shared"].iter().zip(&placement) {
        let across = sorted(v.iter().map(|p| p.0).collect());
        let angle = sorted(v.iter().map(|p| p.1).collect());
        println!(
            "  {name:6} sticks placed off the truth: across median {:.2} / p90 {:.2} widths, angle median {:.1}° / p90 {:.1}°",
            quantile(&across, 0.5),
            quantile(&across, 0.9),
            quantile(&angle, 0.5),
            quantile(&angle, 0.9)
        );
    }
    for (name, v) in ["round", "square"].iter().zip(near_edge) {
        let off = sorted(v.iter().map(|e| e.abs()).collect());
        println!(
            "  sticks within {NEAR_EDGE_CM} cm of a {name:6} mat's edge, placed in from it against the truth: median {:+.2} cm, off by median {:.2} / p90 {:.2} / p99 {:.2} cm ({} sticks)",
            quantile(&sorted(v), 0.5),
            quantile(&off, 0.5),
            quantile(&off, 0.9),
            quantile(&off, 0.99),
            off.len()
        );
    }
    for (name, row) in ["lone", "shared"].iter().zip(right_prob) {
        println!(
            "  {name:6} sticks by probability of their true face: <0.5 {:5}  0.5-0.7 {:5}  0.7-0.85 {:5}  0.85-0.95 {:5}  >=0.95 {:5}",
            row[0], row[1], row[2], row[3], row[4]
        );
    }
    doubts.print();
    if a.sweep {
        sweep(&judged);
    }
    Ok(())
}

/// Given readings (`eval --from-dump --probs`): each stick's (front, back,
/// neither) and, where given, its mark, by (look seed, throw, stick).
type GivenProbs = std::collections::HashMap<(u64, usize, usize), ([f64; 3], f64)>;

/// `eval --from-dump --probs`: read the given readings' CSV.
fn read_probs(path: &Path) -> Result<GivenProbs> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut table = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let v: Vec<&str> = line.split(',').collect();
        let bad = || {
            InputError(format!(
                "{}:{}: expected look,throw,stick,front,back,neither,mark",
                path.display(),
                n + 1
            ))
        };
        if v.len() != 7 {
            return Err(bad().into());
        }
        let num = |i: usize| v[i].trim().parse::<f64>().map_err(|_| bad());
        table.insert(
            (num(0)? as u64, num(1)? as usize, num(2)? as usize),
            ([num(3)?, num(4)?, num(5)?], num(6)?),
        );
    }
    Ok(table)
}

/// What each guard of the verdict costs and catches: of the sticks it kept
/// from being read, how many lay on a face in a clear throw with the readers
/// right and past the lone bar (what it cost), and how many lay on their edge
/// or leaned (what it caught); "alone" counts the sticks no other guard held.
#[derive(Default)]
struct DoubtTally {
    cost: std::collections::BTreeMap<yut_vision::Doubt, (usize, usize)>,
    caught_wrong: std::collections::BTreeMap<yut_vision::Doubt, (usize, usize)>,
    caught: std::collections::BTreeMap<yut_vision::Doubt, (usize, usize)>,
}

impl DoubtTally {
    fn add(
        &mut self,
        label: i32,
        ambiguous: bool,
        p: &classify::FaceProbs,
        doubts: &[yut_vision::Doubt],
    ) {
        // The readers sure (at the lone bar) of the true face, or of the
        // other one.
        let sure_of = |front: bool| {
            let (this, other) = if front {
                (p.front, p.back)
            } else {
                (p.back, p.front)
            };
            this >= yut_vision::FACE_CALL && this > other
        };
        let book = match label {
            CLASS_NEITHER => &mut self.caught,
            CLASS_FRONT | CLASS_BACK if ambiguous => return,
            CLASS_FRONT | CLASS_BACK if sure_of(label == CLASS_FRONT) => &mut self.cost,
            CLASS_FRONT | CLASS_BACK if sure_of(label != CLASS_FRONT) => &mut self.caught_wrong,
            _ => return,
        };
        for d in doubts {
            let e = book.entry(*d).or_default();
            e.0 += 1;
            e.1 += usize::from(doubts.len() == 1);
        }
    }

    fn print(&self) {
        println!("  sticks each guard kept from being read (alone: held by no other guard):");
        for d in yut_vision::Doubt::ALL {
            let (c, ca) = self.cost.get(&d).copied().unwrap_or_default();
            let (w, wa) = self.caught_wrong.get(&d).copied().unwrap_or_default();
            let (k, ka) = self.caught.get(&d).copied().unwrap_or_default();
            println!(
                "    {:12} faces the readers had right {c:5} (alone {ca:5})   had wrong {w:5} (alone {wa:5})   on edge or leaning {k:5} (alone {ka:5})",
                format!("{d:?}")
            );
        }
    }
}

/// One stored look with what the model read on each of its throws.
struct Judged {
    look: dump::LookDump,
    taught: yut_vision::profile::Taught,
    probs: Vec<Vec<classify::FaceProbs>>,
}

/// The threshold sets `eval --sweep` tries (the lone-stick bar the same with
/// the stick reader and without).
fn threshold_grid() -> impl Iterator<Item = yut_vision::Thresholds> {
    let mut grid = Vec::new();
    for face_call in [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95] {
        for face_call_shared in [0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99] {
            for neither_max in [0.15, 0.25, 0.35, 0.5] {
                for mark_need in [0.8, 0.9, 0.95] {
                    for min_conf in [0.2, 0.35] {
                        for crossed in [-1.0, 0.03, 0.15, 2.0] {
                            grid.push(yut_vision::Thresholds {
                                face_call,
                                reader_face_call: face_call,
                                face_call_shared,
                                neither_max,
                                mark_need,
                                min_conf,
                                crossed,
                            });
                        }
                    }
                }
            }
        }
    }
    grid.into_iter()
}

/// Stored throws judged under `th`: clear ones called right, silent errors,
/// ambiguous ones referred.
fn count_calls(judged: &[Judged], th: &yut_vision::Thresholds) -> (usize, usize, usize) {
    let (mut right, mut silent, mut referred) = (0, 0, 0);
    for j in judged {
        for (t, probs) in j.look.throws.iter().zip(&j.probs) {
            let v = yut_vision::judge_with(&j.look.calibration, &j.taught, &t.sticks, probs, th);
            let amb = t.truth.to_refer();
            match v.result {
                Some(r) if r != t.truth.result => silent += 1,
                Some(_) if !amb => right += 1,
                None if amb => referred += 1,
                _ => {}
            }
        }
    }
    (right, silent, referred)
}

/// Judge stored throws under a grid of thresholds; print, for each number of
/// silent errors, the set that calls the most clear throws right.
fn sweep(judged: &[Judged]) {
    let mut best: std::collections::BTreeMap<usize, (usize, usize, yut_vision::Thresholds)> =
        Default::default();
    let throws = || judged.iter().flat_map(|j| j.look.throws.iter());
    let ambiguous = throws().filter(|t| t.truth.to_refer()).count();
    let clear = throws().count() - ambiguous;
    for th in threshold_grid() {
        let (right, silent, referred) = count_calls(judged, &th);
        let e = best.entry(silent).or_insert((0, 0, th));
        if right > e.0 {
            *e = (right, referred, th);
        }
    }
    println!("sweep: best thresholds per silent-error count ({clear} clear, {ambiguous} ambiguous throws)");
    let mut top = 0;
    for (silent, (right, referred, th)) in best {
        if right <= top {
            continue;
        }
        top = right;
        println!(
            "  silent {silent:3}: clear right {:.1}% ({right}), ambiguous referred {:.1}%  {th:?}",
            100.0 * right as f64 / clear.max(1) as f64,
            100.0 * referred as f64 / ambiguous.max(1) as f64
        );
    }
}
