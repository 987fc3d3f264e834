//! Sequences: sticks tumbling in, bouncing, settling, lying still, then a hand
//! collecting them; ground truth (phase) for every frame.
//!
//! Pure and deterministic.

use crate::look::Look;
use crate::scene::{throw_scene, Hand, HardCase, Scene, StickPose, ThrowTruth};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FramePhase {
    Empty,
    /// Sticks flying, bouncing or settling.
    Moving,
    /// Every stick at rest; `first` marks the first still frame of a throw.
    Still {
        first: bool,
    },
    /// The hand is in view or sticks are being removed.
    Collecting,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SequenceFrame {
    pub t_ms: u64,
    pub scene: Scene,
    pub phase: FramePhase,
    /// Which throw of the sequence this frame belongs to.
    pub throw: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    pub frames: Vec<SequenceFrame>,
    pub throws: Vec<ThrowTruth>,
}

/// `throws` throws at `fps`; each lies still for `still_frames` before the hand
/// comes (use 1 or 2 to provoke an early pick-up).
pub fn throw_sequence(
    look: &Look,
    seed: u64,
    throws: usize,
    fps: u64,
    still_frames: usize,
) -> Sequence {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5e9);
    let dt = 1000 / fps;
    let mut frames = Vec::new();
    let mut truths = Vec::new();
    let mut t = 0u64;
    let mut noise = seed;
    let mut push = |frames: &mut Vec<SequenceFrame>, sticks: Vec<StickPose>, hand, phase, k| {
        noise = noise.wrapping_add(1);
        frames.push(SequenceFrame {
            t_ms: t,
            scene: Scene {
                sticks,
                hand,
                noise_seed: noise,
            },
            phase,
            throw: k,
        });
        t += dt;
    };
    for k in 0..throws {
        let (fin, truth) = throw_scene(
            look,
            seed.wrapping_mul(31).wrapping_add(k as u64),
            Some(HardCase::None),
        );
        truths.push(truth);
        for _ in 0..4 {
            push(&mut frames, vec![], None, FramePhase::Empty, k);
        }
        // Fly in from the thrower's side, bounce, settle.
        let side = rng.gen_range(0.0..std::f64::consts::TAU);
        let from = [
            side.cos() * look.mat_size_cm * 0.45,
            side.sin() * look.mat_size_cm * 0.45,
        ];
        let n_move = rng.gen_range(10..18);
        let spins: Vec<f64> = (0..4).map(|_| rng.gen_range(-6.0..6.0)).collect();
        let rolls: Vec<f64> = (0..4).map(|_| rng.gen_range(-9.0..9.0)).collect();
        for i in 0..n_move {
            let a = (i + 1) as f64 / (n_move + 1) as f64;
            // Sticks on a soft mat stop short: the last moving frame still
            // moves a centimetre or more.
            let e = 1.0 - (1.0 - a).powf(1.5);
            let bounce = ((a * 9.0).sin() * (1.0 - a)).abs() * 20.0;
            let sticks = fin
                .sticks
                .iter()
                .enumerate()
                .map(|(j, p)| {
                    let mut q = *p;
                    q.center = [
                        from[0] + (p.center[0] - from[0]) * e,
                        from[1] + (p.center[1] - from[1]) * e,
                    ];
                    q.yaw += spins[j] * (1.0 - e);
                    q.roll += rolls[j] * (1.0 - e);
                    q.z += bounce * (1.0 - e).min(1.0);
                    // Settling: a last small rock.
                    if i + 2 >= n_move {
                        q.yaw += 0.03 * ((i + 1) as f64 * 2.0).sin();
                    }
                    q
                })
                .collect();
            push(&mut frames, sticks, None, FramePhase::Moving, k);
        }
        for i in 0..still_frames {
            push(
                &mut frames,
                fin.sticks.clone(),
                None,
                FramePhase::Still { first: i == 0 },
                k,
            );
        }
        // The hand comes in, takes the sticks one by one, leaves.
        let mut left = fin.sticks.clone();
        let hand_from = [from[0] * 1.6, from[1] * 1.6];
        let mut hand_at = hand_from;
        while !left.is_empty() {
            let target = left[0].center;
            for i in 1..=3 {
                let a = i as f64 / 3.0;
                let c = [
                    hand_at[0] + (target[0] - hand_at[0]) * a,
                    hand_at[1] + (target[1] - hand_at[1]) * a,
                ];
                let hand = Some(Hand {
                    center: c,
                    yaw: side + std::f64::consts::PI,
                });
                push(&mut frames, left.clone(), hand, FramePhase::Collecting, k);
            }
            hand_at = target;
            left.remove(0);
        }
        for i in 1..=3 {
            let a = i as f64 / 3.0;
            let c = [
                hand_at[0] + (hand_from[0] * 1.5 - hand_at[0]) * a,
                hand_at[1] + (hand_from[1] * 1.5 - hand_at[1]) * a,
            ];
            let hand = Some(Hand {
                center: c,
                yaw: side + std::f64::consts::PI,
            });
            push(&mut frames, vec![], hand, FramePhase::Collecting, k);
        }
    }
    for _ in 0..4 {
        push(&mut frames, vec![], None, FramePhase::Empty, throws);
    }
    Sequence {
        frames,
        throws: truths,
    }
}
