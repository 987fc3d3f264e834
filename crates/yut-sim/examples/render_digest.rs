//! A digest of each of 96 rendered pictures (16 looks, plain and world: the
//! empty mat, a teaching shot, three hard cases, a hand over the sticks), one
//! line each. The renderer must keep every byte through a speed-up
//! (ARCHITECTURE.md, invariants): run this before and after and compare.
//!
//! `cargo run --release -p yut-sim --example render_digest > before.txt`

use yut_sim::{empty_scene, render, teach_scene_shot, throw_scene, throw_sequence, HardCase, Look};

/// FNV-1a over the picture's bytes.
fn digest(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn main() {
    let seeds = [
        3u64, 17, 1_000_123, 1_300_045, 1_400_297, 1_500_025, 55, 1_200_007,
    ];
    for (i, &seed) in seeds.iter().enumerate() {
        for world in [false, true] {
            let look = if world {
                Look::world(seed, 1280, 720)
            } else {
                Look::random(seed, 1280, 720)
            };
            let mut scenes = vec![empty_scene(&look), teach_scene_shot(&look, "back", 1)];
            for k in 0..3u64 {
                let case = HardCase::HARD[k as usize % HardCase::HARD.len()];
                scenes.push(throw_scene(&look, k * 77 + i as u64, Some(case)).0);
            }
            let sequence = throw_sequence(&look, seed, 1, 10, 3);
            let handed = sequence.frames.iter().find(|f| f.scene.hand.is_some());
            scenes.extend(handed.map(|f| f.scene.clone()));
            for scene in &scenes {
                let picture = render(&look, scene);
                println!("{seed} {world} {:016x}", digest(&picture.data));
            }
        }
    }
}
