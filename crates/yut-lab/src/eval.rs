//! `yutstation eval`: the vision measured on generated throws of held-out looks
//! (rendered here and judged as a station would), with its calls counted against
//! the truth; `--from-dump` ([`crate::stored`]) and `--photoreal`
//! ([`crate::photoreal`]) measure stored looks and photo sets instead.
//!
//! Not pure: it renders, may write dumps, and prints the report.

use crate::station::set_up_station;
use crate::{dump, load_classifier, say, say_lowered_bar, to_mat, InputError};
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;
use yut_rules::yut::ThrowResult;
use yut_sim::{self, Finish, Look, HELD_OUT_LOOK_BASE};
use yut_vision::features::N_APPEAR;
use yut_vision::files::DEFAULT_MODEL;
use yut_vision::settle::{self, SettleEvent, Tracker};
use yut_vision::{self, ThrowReading};

#[derive(Args)]
pub struct EvalArgs {
    /// Generated throws in all.
    #[arg(long, default_value_t = 500)]
    pub(crate) throws: usize,
    /// Held-out looks to spread them over.
    #[arg(long, default_value_t = 5)]
    pub(crate) looks: usize,
    /// First held-out look (offset from the held-out base).
    #[arg(long, default_value_t = 0)]
    pub(crate) look_offset: u64,
    #[arg(long, default_value_t = 1280)]
    pub(crate) width: u32,
    #[arg(long, default_value_t = 720)]
    pub(crate) height: u32,
    /// Throw sequences to run through the settle tracker (watch latency).
    #[arg(long, default_value_t = 4)]
    pub(crate) sequences: usize,
    #[arg(long, default_value = DEFAULT_MODEL)]
    pub(crate) model: PathBuf,
    /// Evaluate on a photo set laid out like shared/data/photoreal-dev instead.
    #[arg(long)]
    pub(crate) photoreal: Option<PathBuf>,
    /// Print every wrong or undecided throw (with `--from-dump`, also each of
    /// its sticks: what held it, its truth against its fit, what each reader
    /// gave and where a station's own taught reader places it; with
    /// `--photoreal`, each of its sticks against its truth: its width, what
    /// each reader gave).
    #[arg(long)]
    pub(crate) verbose: bool,
    /// Also store every look's measured sticks here (see `--from-dump`).
    #[arg(long)]
    pub(crate) dump: Option<PathBuf>,
    /// With `--from-dump`: judge the stored throws under a grid of calling
    /// thresholds and print the best set for each count of silent errors.
    #[arg(long)]
    pub(crate) sweep: bool,
    /// Measure stored looks (written by `--dump`) instead of rendering: the
    /// features are recomputed, so a feature or model change is measured in
    /// seconds. Figures to report come from a rendering run.
    #[arg(long, num_args = 1..)]
    pub(crate) from_dump: Vec<PathBuf>,
    /// Diagnosis: move every found stick to the true pose of the nearest true
    /// stick before reading it (a stick lying on a face at the full taught
    /// width), so the figures show the face reader alone (the finder's
    /// placement errors taken out; how many sticks it found stays its own).
    #[arg(long)]
    pub(crate) true_placement: bool,
    /// With `--from-dump`: judge under these calling bars instead of the
    /// shipped ones: FACE_CALL,READER_FACE_CALL,FACE_CALL_SHARED,NEITHER_MAX,MARK_CALL,MIN_CONF,CROSSED
    /// (as `--sweep` prints them).
    #[arg(long, value_parser = parse_bars, requires = "from_dump")]
    pub(crate) bars: Option<yut_vision::Thresholds>,
    /// With `--from-dump`: also write one CSV row per found stick (its truth,
    /// fit, readers, doubts, mark, place against the mat edge, and where a
    /// station's own taught reader places it) to this file, for analysis.
    #[arg(long, requires = "from_dump")]
    pub(crate) csv: Option<PathBuf>,
    /// With `--from-dump`: read each stick's face probabilities from this CSV
    /// (`look,throw,stick,front,back,neither,mark`, as
    /// `tools/train_reader.py --probs` writes) in place of the stick reader's,
    /// laid beside the forest and the net as the station combines them, to
    /// judge another reader's output under the shipped verdict (experiments).
    #[arg(long, requires = "from_dump")]
    pub(crate) probs: Option<PathBuf>,
    /// Draw the held-out looks from the wider world (`Look::world`: every
    /// finish of the round face, mats of any colour, hard, soft and mixed
    /// lights, tilts to 25°, wide-angle lenses to k1 = −0.2) instead of the
    /// world the shipped models learned from; figures are printed by finish.
    /// With `--from-dump`: the stored looks are world looks, counted by
    /// finish and chosen by `--finish` and `--leave-out`.
    #[arg(long)]
    pub(crate) world: bool,
    /// With `--world`: only looks whose round face has one of these finishes
    /// (repeat; plain, bark, oiled, varnished, stained, painted-dark,
    /// painted-colour): a family judged apart from the ones a change was
    /// measured on.
    #[arg(long = "finish", requires = "world")]
    pub(crate) finishes: Vec<Finish>,
    /// With `--world`: leave these finishes out (repeat).
    #[arg(long = "leave-out", requires = "world")]
    pub(crate) left_out: Vec<Finish>,
    /// A stand-in referee calls every referred throw (its truth), and every
    /// throw the finer look called, and the stations learn from the calls as
    /// a station does (its taught reader's faces, where it reads with one,
    /// and the finer look's record); the figures show how their referrals
    /// fall, throw by throw, beside the same throws judged with only what the
    /// station was taught, and the silent errors the calls introduced.
    #[arg(long)]
    pub(crate) learn: bool,
    /// With `--learn`: the share of referred throws the stand-in referee calls
    /// wrong (another result, drawn at random): what wrong calls teach.
    #[arg(long, default_value_t = 0.0, requires = "learn")]
    pub(crate) wrong_calls: f64,
    /// Teach each station in this many shots: after the first, the sticks are
    /// moved round the mat and turned, and shot again, as the station asks a
    /// crew to where it reads with its own taught reader. The further shots
    /// are stored with `--dump`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=8))]
    pub(crate) teach_shots: u64,
}

impl EvalArgs {
    /// Whether looks of this finish are judged (`--finish`, `--leave-out`).
    pub(crate) fn judges(&self, finish: Finish) -> bool {
        (self.finishes.is_empty() || self.finishes.contains(&finish))
            && !self.left_out.contains(&finish)
    }
}

fn parse_bars(s: &str) -> Result<yut_vision::Thresholds, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>().map_err(|e| format!("{x:?}: {e}")))
        .collect::<Result<_, _>>()?;
    let [face_call, reader_face_call, face_call_shared, neither_max, mark_need, min_conf, crossed] =
        v[..]
    else {
        return Err(format!("seven numbers, not {}", v.len()));
    };
    Ok(yut_vision::Thresholds {
        face_call,
        reader_face_call,
        face_call_shared,
        neither_max,
        mark_need,
        min_conf,
        crossed,
    })
}

#[derive(Default)]
pub(crate) struct EvalTally {
    pub(crate) clear: usize,
    pub(crate) clear_right: usize,
    pub(crate) clear_undecided: usize,
    pub(crate) ambiguous: usize,
    pub(crate) ambiguous_referred: usize,
    pub(crate) silent: usize,
    pub(crate) total: usize,
    pub(crate) ms: Vec<f64>,
    /// Per generated hard case: how its clear throws went (photo sets have none).
    pub(crate) by_case: std::collections::BTreeMap<String, CaseTally>,
    /// Per family of looks (`--world`: the round face's finish).
    pub(crate) by_family: std::collections::BTreeMap<String, FamilyTally>,
    /// With `--learn`, per [`LEARN_BIN`] throws of a station.
    pub(crate) learning: Vec<LearnBin>,
    /// Clear throws whose one flat face has another stick over its mark
    /// (`ThrowTruth::mark_covered`): called right, referred, called wrong.
    pub(crate) mark_covered: [usize; 3],
}

/// Throws of a station per bin of the learning figures (`--learn`).
pub(crate) const LEARN_BIN: usize = 20;

/// How one bin of a learning station's throws went (`--learn`): judged as the
/// station judged them, having learned from the calls before, and as it would
/// have judged them with only what it was taught (the same frames, with the
/// taught set as it was before any call).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LearnBin {
    pub(crate) clear: usize,
    pub(crate) referred: usize,
    pub(crate) silent: usize,
    pub(crate) referred_untaught: usize,
    pub(crate) silent_untaught: usize,
    /// Called wrong having learned, where only what was taught referred the
    /// throw or called it right: silent errors the calls introduced.
    pub(crate) introduced: usize,
}

/// The stand-in referee's call on a referred throw: its truth, or with
/// probability `wrong` (drawn from the look and the throw) another result.
fn referee_call(truth: ThrowResult, wrong: f64, seed: u64, k: usize) -> ThrowResult {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed ^ (k as u64).wrapping_mul(0x9e37_79b9));
    if wrong > 0.0 && rng.gen_bool(wrong.min(1.0)) {
        let others: Vec<ThrowResult> = ThrowResult::ALL
            .into_iter()
            .filter(|r| *r != truth)
            .collect();
        others[rng.gen_range(0..others.len())]
    } else {
        truth
    }
}

/// How one family of looks went: its stations, the ones refused at set-up, and
/// its throws.
#[derive(Default)]
pub(crate) struct FamilyTally {
    pub(crate) looks: usize,
    pub(crate) refused: usize,
    pub(crate) clear: usize,
    pub(crate) right: usize,
    pub(crate) silent: usize,
    pub(crate) ambiguous: usize,
    pub(crate) ambiguous_referred: usize,
}

/// How the clear throws of one hard case went, with why the referred ones were.
#[derive(Default)]
pub(crate) struct CaseTally {
    clear: usize,
    right: usize,
    referred: usize,
    reasons: std::collections::BTreeMap<String, usize>,
}

impl EvalTally {
    pub(crate) fn add(
        &mut self,
        truth_result: ThrowResult,
        ambiguous: bool,
        v: &ThrowReading,
        ms: f64,
    ) -> bool {
        self.add_case(None, truth_result, ambiguous, v, ms)
    }

    pub(crate) fn add_case(
        &mut self,
        case: Option<yut_sim::HardCase>,
        truth_result: ThrowResult,
        ambiguous: bool,
        v: &ThrowReading,
        ms: f64,
    ) -> bool {
        if let (Some(case), false) = (case, ambiguous) {
            let c = self.by_case.entry(format!("{case:?}")).or_default();
            c.clear += 1;
            match v.result {
                Some(r) if r == truth_result => c.right += 1,
                None => {
                    c.referred += 1;
                    for r in &v.reasons {
                        *c.reasons.entry(format!("{r:?}")).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        self.total += 1;
        self.ms.push(ms);
        let mut ok = true;
        if ambiguous {
            self.ambiguous += 1;
            if v.result.is_none() {
                self.ambiguous_referred += 1;
            } else {
                ok = false;
            }
        } else {
            self.clear += 1;
            match v.result {
                Some(r) if r == truth_result => self.clear_right += 1,
                None => {
                    self.clear_undecided += 1;
                    ok = false;
                }
                _ => ok = false,
            }
        }
        if let Some(r) = v.result {
            if r != truth_result {
                self.silent += 1;
            }
        }
        ok
    }

    /// Count a throw of a family of looks (`--world`).
    pub(crate) fn add_family(
        &mut self,
        family: &str,
        truth_result: ThrowResult,
        ambiguous: bool,
        v: &ThrowReading,
    ) {
        let f = self.by_family.entry(family.to_string()).or_default();
        if ambiguous {
            f.ambiguous += 1;
            f.ambiguous_referred += usize::from(v.result.is_none());
        } else {
            f.clear += 1;
            f.right += usize::from(v.result == Some(truth_result));
        }
        f.silent += usize::from(v.result.is_some_and(|r| r != truth_result));
    }

    /// Count a throw judged at a learning station (`--learn`), by its place
    /// in the station's throws: `v` as judged having learned from the calls
    /// before it, `untaught` with only what the station was taught.
    pub(crate) fn add_learning(
        &mut self,
        k: usize,
        ambiguous: bool,
        v: &ThrowReading,
        untaught: &ThrowReading,
        truth: ThrowResult,
    ) {
        let bin = k / LEARN_BIN;
        if self.learning.len() <= bin {
            self.learning.resize(bin + 1, LearnBin::default());
        }
        let b = &mut self.learning[bin];
        let wrong = |v: &ThrowReading| v.result.is_some_and(|r| r != truth);
        if !ambiguous {
            b.clear += 1;
            b.referred += usize::from(v.result.is_none());
            b.referred_untaught += usize::from(untaught.result.is_none());
        }
        b.silent += usize::from(wrong(v));
        b.silent_untaught += usize::from(wrong(untaught));
        b.introduced += usize::from(wrong(v) && !wrong(untaught));
    }

    /// Count a station of a family that was set up.
    pub(crate) fn count_family_look(&mut self, family: &str) {
        self.by_family.entry(family.to_string()).or_default().looks += 1;
    }

    /// Count a station of a family refused at calibration or teaching.
    pub(crate) fn count_family_refusal(&mut self, family: &str) {
        self.by_family
            .entry(family.to_string())
            .or_default()
            .refused += 1;
    }

    /// Count a generated throw whose deciding mark no camera can see (counted
    /// with the ambiguous ones).
    pub(crate) fn add_mark_covered(&mut self, truth: &yut_sim::ThrowTruth, v: &ThrowReading) {
        if truth.mark_covered && !truth.ambiguous {
            let k = match v.result {
                Some(r) if r == truth.result => 0,
                None => 1,
                Some(_) => 2,
            };
            self.mark_covered[k] += 1;
        }
    }

    pub(crate) fn print(&self, title: &str) {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                f64::NAN
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        let ms = sorted(self.ms.clone());
        let q = |f: f64| quantile(&ms, f);
        println!("{title}");
        println!(
            "  unambiguous throws called right: {:.2}% ({}/{}; {} referred, {} wrong)",
            pct(self.clear_right, self.clear),
            self.clear_right,
            self.clear,
            self.clear_undecided,
            self.clear - self.clear_right - self.clear_undecided
        );
        println!(
            "  silent errors (confident and wrong): {:.2}% ({}/{})",
            pct(self.silent, self.total),
            self.silent,
            self.total
        );
        println!(
            "  ambiguous throws referred: {:.2}% ({}/{})",
            pct(self.ambiguous_referred, self.ambiguous),
            self.ambiguous_referred,
            self.ambiguous
        );
        println!(
            "  per-frame judge time: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            q(0.5),
            q(0.95),
            q(1.0)
        );
        let [covered_right, covered_referred, covered_wrong] = self.mark_covered;
        let covered = covered_right + covered_referred + covered_wrong;
        if covered > 0 {
            println!(
                "  of the ambiguous throws, {covered} are a 도 or 뒷도 whose mark lies under another stick (no camera sees it): {covered_referred} referred, {covered_right} called right by luck, {covered_wrong} wrong"
            );
        }
        if !self.learning.is_empty() {
            println!(
                "  learning from the referee, by {LEARN_BIN} throws of each station: clear throws referred, silent errors; the same throws judged with only what was taught:"
            );
            for (i, b) in self.learning.iter().enumerate() {
                println!(
                    "    throws {:4}–{:4}: {:6.2}% referred ({}/{}), {} silent; only taught: {:6.2}% referred, {} silent",
                    i * LEARN_BIN + 1,
                    (i + 1) * LEARN_BIN,
                    pct(b.referred, b.clear),
                    b.referred,
                    b.clear,
                    b.silent,
                    pct(b.referred_untaught, b.clear),
                    b.silent_untaught,
                );
            }
            let introduced: usize = self.learning.iter().map(|b| b.introduced).sum();
            println!(
                "    silent errors the calls introduced (called wrong having learned, referred or right with only what was taught): {introduced}"
            );
        }
        if !self.by_family.is_empty() {
            println!(
                "  by family: stations set up (refused), clear throws called right, silent errors, ambiguous referred:"
            );
        }
        for (family, f) in &self.by_family {
            println!(
                "    {family:15} {:3} ({:2})  {:6.2}% ({}/{})  silent {} of {}  ambiguous {:6.2}% ({}/{})",
                f.looks,
                f.refused,
                pct(f.right, f.clear),
                f.right,
                f.clear,
                f.silent,
                f.clear + f.ambiguous,
                pct(f.ambiguous_referred, f.ambiguous),
                f.ambiguous_referred,
                f.ambiguous
            );
        }
        if !self.by_case.is_empty() {
            println!(
                "  clear throws by hard case (called right / clear; referred, with their reasons):"
            );
        }
        for (case, c) in &self.by_case {
            println!(
                "    {case:9} {:6.2}% ({}/{}; {} referred: {:?})",
                pct(c.right, c.clear),
                c.right,
                c.clear,
                c.referred,
                c.reasons
            );
        }
    }
}

/// `yutstation eval`.
pub fn run(a: EvalArgs) -> Result<()> {
    if let Some(dir) = &a.photoreal {
        return crate::photoreal::run(dir, &a.model, a.verbose);
    }
    if !a.from_dump.is_empty() {
        return crate::stored::run(&a);
    }
    if a.looks == 0 || a.throws == 0 {
        return Err(InputError("--looks and --throws must be at least 1".into()).into());
    }
    let bar = ProgressBar::new(a.throws as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} throws, {elapsed} elapsed, eta {eta} {msg}",
    )?);
    let mut tally = EvalTally::default();
    let mut failed_looks = Vec::new();
    let mut latencies = Vec::new();
    let mut watch_calls = (0usize, 0usize, 0usize); // calls, throws, calls while moving
    let per_look = a.throws.div_ceil(a.looks);
    let mut done = 0;
    let mut look_i = 0u64;
    let mut stations = 0;
    // The slowest frame judged (ms, look, throw), so it can be found again
    // (`simulate --look L --throws K+1`) and profiled.
    let mut slowest: Option<(f64, u64, usize)> = None;
    while done < a.throws {
        let seed = HELD_OUT_LOOK_BASE + a.look_offset + look_i;
        look_i += 1;
        if look_i > a.looks as u64 * 4 + 10 && !a.world {
            break;
        }
        let look = if a.world {
            let look = Look::world(seed, a.width, a.height);
            let finish = look.sticks.finish;
            if !a.judges(finish) {
                continue;
            }
            look
        } else {
            Look::random(seed, a.width, a.height)
        };
        if failed_looks.len() > a.looks * 4 + 10 {
            break;
        }
        let renderer = yut_sim::Renderer::new(&look);
        let station = match set_up_station(&renderer, load_classifier(&a.model)?, a.teach_shots) {
            Ok(s) => s,
            Err(e) => {
                say(&bar, format!("look {seed}: {e:#}"));
                failed_looks.push(seed);
                if a.world {
                    tally.count_family_refusal(look.sticks.finish.name());
                }
                continue;
            }
        };
        let mut det = station.detector;
        say_lowered_bar(&bar, seed, &det);
        let mut dump = dump::LookDump::new(seed, &det.calibration, station.set, station.more);
        // What the station was taught, before any call (`--learn` judges each
        // throw with it too).
        let untaught = det.taught.clone();
        stations += 1;
        for k in 0..per_look.min(a.throws - done) {
            let (scene, truth) = yut_sim::numbered_throw(&look, k as u64);
            let img = to_mat(&renderer.render(&scene))?;
            let t = Instant::now();
            let judged = if a.true_placement {
                det.judge_placed(&img, &|s, nominal| place_at_truth(s, nominal, &truth))?
            } else {
                det.judge_frame(&img)?
            };
            let (sticks, v) = (judged.sticks, judged.reading);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if slowest.is_none_or(|(worst, ..)| ms > worst) {
                slowest = Some((ms, seed, k));
            }
            // A throw whose deciding mark lies under another stick counts with
            // the ambiguous ones: no camera sees the mark.
            let ambiguous = truth.to_refer();
            let ok = tally.add_case(Some(truth.case), truth.result, ambiguous, &v, ms);
            tally.add_mark_covered(&truth, &v);
            if a.world {
                tally.add_family(look.sticks.finish.name(), truth.result, ambiguous, &v);
            }
            if a.learn {
                // The same frame judged with only what the station was taught.
                let learned = std::mem::replace(&mut det.taught, untaught.clone());
                let v_untaught = det.judge_frame(&img)?.reading;
                det.taught = learned;
                tally.add_learning(k, ambiguous, &v, &v_untaught, truth.result);
                if v.result.is_none() || judged.finer_call.is_some() {
                    let called = referee_call(truth.result, a.wrong_calls, seed, k);
                    let trial = judged.finer_on_trial.then_some(&img);
                    if det.learn_finer_look(judged.finer_call, trial, called)? {
                        let now = if det.taught.finer_look.taken() {
                            "takes"
                        } else {
                            "gives up"
                        };
                        say(
                            &bar,
                            format!(
                                "look {seed}: {now} the finer look after throw {k} ({:?})",
                                det.taught.finer_look
                            ),
                        );
                    }
                    if let Some(own) = det.taught.taught_reader.as_mut() {
                        yut_vision::taught_reader::learn_call(
                            own,
                            &sticks,
                            &v,
                            called,
                            &format!("look {seed} throw {k}"),
                        );
                    }
                }
            }
            if !ok && a.verbose {
                say(&bar, format!(
                    "look {seed} throw {k} ({:?}): truth {} ambiguous {} → {} best {} reasons {:?} faces {:?} truth faces {:?}",
                    truth.case,
                    truth.result,
                    truth.ambiguous,
                    v.result_id(),
                    v.best_guess,
                    v.reasons,
                    v.sticks.iter().map(|s| (s.face, (s.confidence * 100.0).round())).collect::<Vec<_>>(),
                    truth.sticks.iter().map(|s| s.face).collect::<Vec<_>>()
                ));
            }
            if a.dump.is_some() {
                dump.throws.push(dump::ThrowDump { truth, sticks });
            }
            done += 1;
            bar.inc(1);
        }
        if let Some(dir) = &a.dump {
            dump.write(dir)?;
        }
        if a.world {
            tally.count_family_look(look.sticks.finish.name());
        }
        if stations <= a.sequences {
            let seq = yut_sim::throw_sequence(&look, seed, 2, 30, 12);
            let empty_mat = settle::empty_mat(&det.empty)?;
            let mut tracker = Tracker::new(det.settle_config());
            let mut prev: Option<settle::Small> = None;
            watch_calls.1 += seq.throws.len();
            for fr in &seq.frames {
                let img = to_mat(&renderer.render(&fr.scene))?;
                let small = settle::small_grey(&img)?;
                let stats = settle::frame_stats(fr.t_ms, &small, prev.as_ref(), &empty_mat)?;
                prev = Some(small);
                if let Some(SettleEvent::Judge { .. }) = tracker.update(stats) {
                    let t = Instant::now();
                    let _ = det.detect(&img)?;
                    let ms = t.elapsed().as_secs_f64() * 1000.0;
                    watch_calls.0 += 1;
                    if !matches!(fr.phase, yut_sim::FramePhase::Still { .. }) {
                        watch_calls.2 += 1;
                        if a.verbose {
                            say(
                                &bar,
                                format!(
                                    "look {seed}: judged while moving at {} ms ({:?}, throw {})",
                                    fr.t_ms, fr.phase, fr.throw
                                ),
                            );
                        }
                    }
                    // Latency from the first frame where the sticks lay still.
                    if let Some(first) = seq.frames.iter().find(|f| {
                        f.throw == fr.throw && f.phase == yut_sim::FramePhase::Still { first: true }
                    }) {
                        latencies.push(fr.t_ms as f64 - first.t_ms as f64 + ms);
                    }
                }
            }
        }
    }
    bar.finish();
    tally.print(&format!(
        "generated: {} throws in {} held-out looks at {}x{} (looks from {}; {} looks refused calibration/teaching)",
        tally.total,
        stations,
        a.width,
        a.height,
        HELD_OUT_LOOK_BASE + a.look_offset,
        failed_looks.len()
    ));
    if let Some((ms, look, k)) = slowest {
        println!("  slowest frame: look {look} throw {k}, {ms:.1} ms");
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "  watch: {} calls for {} throws ({} while moving); latency after the sticks stop: median {:.0} ms, max {:.0} ms",
        watch_calls.0,
        watch_calls.1,
        watch_calls.2,
        latencies.get(latencies.len() / 2).copied().unwrap_or(f64::NAN),
        latencies.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// Move a found stick to the pose of the nearest true stick (`--true-placement`).
fn place_at_truth(
    s: &mut yut_vision::sticks::Found,
    nominal: (f64, f64),
    truth: &yut_sim::ThrowTruth,
) {
    if let Some((t, dist)) = dump::nearest_truth(truth, s) {
        if dist < s.length * 0.5 {
            let a = t.angle_deg.to_radians();
            s.center = t.center_px;
            // Counter-clockwise as viewed, image y down.
            s.dir = [a.cos(), -a.sin()];
            // A stick lying on a face covers its full width (the finder may
            // have fitted it slim, or as on its edge).
            if t.face != yut_sim::TruthFace::Ambiguous {
                s.width = nominal.1;
            }
        }
    }
}

/// One stick of a referred or wrong throw, for `eval --from-dump --verbose`:
/// what held it (its doubts), its truth against its fit, the fitted width and
/// band (in taught widths), and what each reader gave.
pub(crate) fn stick_detail(
    truth: &yut_sim::ThrowTruth,
    s: &yut_vision::Measured,
    r: &yut_vision::StickReading,
    p: &yut_vision::classify::FaceProbs,
) -> String {
    let truth_face = dump::nearest_truth(truth, &s.found).map(|(ts, _)| {
        format!(
            "{:?} up {:.2} at {:?} {:.0}°",
            ts.face,
            ts.up,
            ts.center_px.map(|v| v.round()),
            ts.angle_deg,
        )
    });
    let round2 = |x: [f64; 3]| x.map(|v| (v * 100.0).round() / 100.0);
    format!(
        "stick at {:?} {:.0}°: {:?}, doubts {:?}; truth {}; shared {}, size {:.2}×{:.2}, band {:.2}, blob {:.2}; front {:.2} back {:.2} neither {:.2}, readers {:?}, stick reader {:?}",
        s.found.center.map(|v| v.round()),
        r.angle_deg,
        r.face,
        r.doubts,
        truth_face.unwrap_or_else(|| "none near".into()),
        s.found.shared,
        s.features[N_APPEAR],
        s.features[N_APPEAR + 1],
        s.features[yut_vision::features::BAND_WIDTH],
        s.found.blob_ratio,
        p.front,
        p.back,
        p.neither,
        p.readers.map(|r| r.map(round2)),
        p.stick.map(round2),
    )
}

/// Where a station's own taught reader places a stick, for the `--verbose`
/// listings: on its axis (−1 round face, +1 flat face) and off it (spreads).
pub(crate) fn taught_place(
    own: &yut_vision::taught_reader::TaughtReader,
    m: &yut_vision::Measured,
) -> String {
    let (along, off) = own.place(&m.features);
    format!("taught reader at {along:.2} on the axis, {off:.2} off it")
}

/// How near the mat's edge (cm, by the truth) a stick's placement counts in
/// `eval --from-dump`'s figure for the calibration at the edge.
pub(crate) const NEAR_EDGE_CM: f64 = 25.0;

/// The value at share `f` (0..1) of the sorted values `sorted` (NaN when
/// there are none).
pub(crate) fn quantile(sorted: &[f64], f: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 - 1.0) * f).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// `v` sorted, for [`quantile`].
pub(crate) fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throws_whose_mark_no_camera_sees_count_as_ambiguous() {
        let look = yut_sim::Look::random(yut_sim::HELD_OUT_LOOK_BASE, 320, 200);
        let (_, mut truth) = yut_sim::numbered_throw(&look, 0);
        truth.ambiguous = false;
        truth.mark_covered = true;
        let v = ThrowReading {
            result: None,
            best_guess: truth.result,
            confidence: 0.0,
            reasons: vec![],
            sticks: vec![],
        };
        let mut t = EvalTally::default();
        t.add(truth.result, truth.to_refer(), &v, 1.0);
        t.add_mark_covered(&truth, &v);
        assert_eq!((t.clear, t.ambiguous, t.ambiguous_referred), (0, 1, 1));
        assert_eq!(t.mark_covered, [0, 1, 0]);
    }

    #[test]
    fn learning_counts_only_the_silent_errors_the_calls_introduced() {
        use yut_rules::yut::ThrowResult::{Do, Gae, Geol};
        let read = |result| ThrowReading {
            result,
            best_guess: result.unwrap_or(Gae),
            confidence: 1.0,
            reasons: vec![],
            sticks: vec![],
        };
        let mut t = EvalTally::default();
        // Throw 0, a clear 개: called wrong having learned, referred with only
        // what was taught: introduced.
        t.add_learning(0, false, &read(Some(Geol)), &read(None), Gae);
        // Throw 1: wrong either way: not introduced.
        t.add_learning(1, false, &read(Some(Do)), &read(Some(Do)), Gae);
        // Throw 2: learning called what only taught referred, right.
        t.add_learning(2, false, &read(Some(Gae)), &read(None), Gae);
        // Throw 20, an ambiguous one, in the next bin: wrong having learned,
        // right with only what was taught: introduced, and no clear throw.
        t.add_learning(20, true, &read(Some(Do)), &read(Some(Gae)), Gae);
        let first = LearnBin {
            clear: 3,
            referred: 0,
            silent: 2,
            referred_untaught: 2,
            silent_untaught: 1,
            introduced: 1,
        };
        let second = LearnBin {
            silent: 1,
            introduced: 1,
            ..LearnBin::default()
        };
        assert_eq!(t.learning, vec![first, second]);
    }
}
