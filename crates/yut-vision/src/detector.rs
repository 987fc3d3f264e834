//! One station's judge, pure: its calibration, taught set, empty-mat reference and
//! models together, and the stages of judging a still frame run in order
//! (measure, read, judge), with the finer look ([`crate::finer_look`]) at a
//! throw found in pieces where the station's referee's calls showed it right.

use crate::calibrate::Calibration;
use crate::classify::{self, Classifier};
use crate::finer_look;
use crate::mark_place::read_marks_where_crossed;
use crate::measure::{measure_placed, nominal_px, station_reference, Measured};
use crate::profile::Taught;
use crate::reader;
use crate::settle;
use crate::sticks::{Found, Reference, Split};
use crate::verdict::{judge, ThrowReading};
use opencv::core::Mat;
use opencv::prelude::*;
use yut_rules::yut::ThrowResult;

/// Everything needed to judge frames from one station.
pub struct Detector {
    pub calibration: Calibration,
    pub taught: Taught,
    pub reference: Reference,
    /// The same at the finer look's smaller disc
    /// ([`Reference::with_finer_specks`]).
    pub finer: Reference,
    pub empty: Mat,
    pub classifier: Classifier,
    /// The taught faces as the stick reader sees them (`Taught::seen`), for
    /// a profile taught since the reader.
    pub looks: Option<reader::TaughtLooks>,
}

impl Detector {
    pub fn new(
        calibration: Calibration,
        taught: Taught,
        empty: Mat,
        classifier: Classifier,
    ) -> opencv::Result<Detector> {
        let reference = station_reference(&empty, &taught)?;
        Ok(Detector {
            finer: reference.clone().with_finer_specks(),
            reference,
            looks: taught.seen.as_ref().map(reader::TaughtSticks::looks),
            calibration,
            taught,
            empty,
            classifier,
        })
    }

    /// The settle tracker's bars for this station's sticks
    /// ([`settle::Config::for_stick`]): a taught stick's share of the frame
    /// at the mat's centre.
    pub fn settle_config(&self) -> settle::Config {
        let centre = self.calibration.map.to_px([0.0, 0.0]);
        let (l, w) = nominal_px(
            &self.calibration,
            self.taught.length_cm,
            self.taught.width_cm,
            centre,
        );
        let frame = f64::from(self.empty.cols()) * f64::from(self.empty.rows());
        settle::Config::for_stick(l * w / frame.max(1.0))
    }

    /// Judge one still frame.
    pub fn detect(&self, frame: &Mat) -> opencv::Result<ThrowReading> {
        Ok(self.judge_frame(frame)?.reading)
    }

    /// Judge one still frame as the station does: the usual look, and where
    /// it refers the throw for its count of sticks at a station that takes
    /// the finer look ([`finer_look::FinerLook::taken`]), the finer look's
    /// call if it makes one.
    pub fn judge_frame(&self, frame: &Mat) -> opencv::Result<Judged> {
        let usual = self.judged_with(&self.reference, frame, &|_, _| {})?;
        // A station taught with the finer disc sees with it already.
        let finer_than_usual = self.finer.speck_disc() < self.reference.speck_disc();
        if !finer_than_usual || !finer_look::wanted(&usual.reading) {
            return Ok(usual);
        }
        if !self.taught.finer_look.taken() {
            return Ok(Judged {
                finer_on_trial: self.taught.finer_look.on_trial(),
                ..usual
            });
        }
        let finer = self.judged_with(&self.finer, frame, &|_, _| {})?;
        Ok(match finer.reading.result {
            Some(call) => Judged {
                finer_call: Some(call),
                ..finer
            },
            None => usual,
        })
    }

    /// [`Detector::judge_frame`]'s usual look alone, each stick's placement
    /// passed through `place` (`eval --true-placement`).
    pub fn judge_placed(
        &self,
        frame: &Mat,
        place: &dyn Fn(&mut Found, (f64, f64)),
    ) -> opencv::Result<Judged> {
        self.judged_with(&self.reference, frame, place)
    }

    /// Learn from the referee's call `called` on a judged throw what it
    /// tells of the finer look ([`finer_look::FinerLook::learn`]): the call
    /// the finer look made (`judged.finer_call`), or at a trial throw
    /// (`judged.finer_on_trial`) the call it makes on `frame`, the throw's
    /// frame, looked at now. Whether the station now takes the finer look
    /// where it did not, or the other way round.
    pub fn learn_finer_look(
        &mut self,
        finer_call: Option<ThrowResult>,
        trial_frame: Option<&Mat>,
        called: ThrowResult,
    ) -> opencv::Result<bool> {
        let finer = match (finer_call, trial_frame) {
            (Some(call), _) => Some(call),
            (None, Some(frame)) => self.finer_call(frame)?,
            (None, None) => None,
        };
        let was_taken = self.taught.finer_look.taken();
        self.taught.finer_look.learn(finer, called);
        Ok(was_taken != self.taught.finer_look.taken())
    }

    /// What the finer look calls at a frame (`None` where it refers it too):
    /// the trial of it, at a throw the referee calls, where the station does
    /// not take it yet ([`Judged::finer_on_trial`]).
    pub fn finer_call(&self, frame: &Mat) -> opencv::Result<Option<ThrowResult>> {
        Ok(self
            .judged_with(&self.finer, frame, &|_, _| {})?
            .reading
            .result)
    }

    fn judged_with(
        &self,
        reference: &Reference,
        frame: &Mat,
        place: &dyn Fn(&mut Found, (f64, f64)),
    ) -> opencv::Result<Judged> {
        let sticks = self.measure_with(reference, frame, place)?;
        let probs = self.probs(&sticks)?;
        let reading = judge(&self.calibration, &self.taught, &sticks, &probs);
        Ok(Judged {
            sticks,
            probs,
            reading,
            finer_call: None,
            finer_on_trial: false,
        })
    }

    /// Find the sticks of one still frame and measure them at the taught size,
    /// the taught mark place read where sticks cross.
    pub fn measure(&self, frame: &Mat) -> opencv::Result<Vec<Measured>> {
        self.measure_with(&self.reference, frame, &|_, _| {})
    }

    /// [`Detector::measure`] against `reference`, each stick's placement
    /// passed through `place`.
    fn measure_with(
        &self,
        reference: &Reference,
        frame: &Mat,
        place: &dyn Fn(&mut Found, (f64, f64)),
    ) -> opencv::Result<Vec<Measured>> {
        let mut sticks = measure_placed(
            &self.calibration,
            reference,
            &self.empty,
            frame,
            (self.taught.length_cm, self.taught.width_cm),
            Split::Blobs {
                lone_area: f64::from(self.taught.front_area.max(self.taught.back_area)),
            },
            place,
            true,
        )?;
        read_marks_where_crossed(&self.taught, &mut sticks);
        Ok(sticks)
    }

    /// Face probabilities of measured sticks.
    pub fn probs(&self, sticks: &[Measured]) -> opencv::Result<Vec<classify::FaceProbs>> {
        self.classifier
            .read(&self.taught, self.looks.as_ref(), sticks)
    }

    /// Find the sticks of one still frame and read their faces (the verdict
    /// is `judge` of these).
    pub fn read(&self, frame: &Mat) -> opencv::Result<(Vec<Measured>, Vec<classify::FaceProbs>)> {
        let m = self.measure(frame)?;
        let probs = self.probs(&m)?;
        Ok((m, probs))
    }
}

/// One still frame judged as the station judges it ([`Detector::judge_frame`]).
pub struct Judged {
    /// The sticks as measured, by the look whose reading this is.
    pub sticks: Vec<Measured>,
    pub probs: Vec<classify::FaceProbs>,
    pub reading: ThrowReading,
    /// The finer look's call, where the station took it and called it: what
    /// the referee's call on this throw tells of the finer look.
    pub finer_call: Option<ThrowResult>,
    /// The usual look referred the throw for its count of sticks at a
    /// station where the finer look is on trial
    /// ([`finer_look::FinerLook::on_trial`]): the referee's call is a trial
    /// of it ([`Detector::finer_call`]).
    pub finer_on_trial: bool,
}
