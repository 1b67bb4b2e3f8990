//! What `pathbench agents --crowd` measures of a crowd, outside the timed systems: how deep the
//! agents stand in each other, and which stood still for more than five seconds short of
//! their goal; and the process's CPU time, every thread included.

use astar_grid::crowd::{CrowdAgent, Neighbour, NeighbourGrid, Vector, footprint_radius};
use bevy::prelude::*;
use bevy_astar::PathFollower;
use std::time::Duration;

/// Frames between two samples of the crowd.
pub const SAMPLE_EVERY: u64 = 10;
/// Seconds an agent may stand (move less than [`STILL_DISTANCE`] between samples) before it
/// counts as stuck.
pub const STUCK_SECONDS: f32 = 5.0;
/// Cells an agent must move between two samples not to count as standing still.
const STILL_DISTANCE: f32 = 0.05;

/// The crowd figures of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrowdFigures {
    /// Mean over agents and samples of how deep each stands in its nearest neighbour, as a
    /// fraction of the radius (0 when apart).
    pub penetration_mean: f64,
    /// The 99th percentile of the same.
    pub penetration_p99: f64,
    /// Agents that stood still for more than [`STUCK_SECONDS`] before reaching their goal.
    pub stuck: usize,
    /// Samples taken.
    pub samples: u64,
}

/// The meter's state: the samples so far and each agent's stillness.
#[derive(Resource, Default)]
pub struct CrowdMeter {
    measuring: bool,
    frame: u64,
    penetrations: Vec<f32>,
    /// Per agent (by its index): its position at the last sample and how long it has stood.
    still: Vec<(Vector, f32, bool)>,
    neighbours: NeighbourGrid,
    agents: Vec<CrowdAgent>,
    found: Vec<Neighbour>,
}

impl CrowdMeter {
    /// Starts the measurement: what the warm-up saw is forgotten.
    pub fn begin(&mut self) {
        self.measuring = true;
        self.frame = 0;
        self.penetrations.clear();
        self.still.clear();
    }

    /// The figures of the measurement so far.
    pub fn figures(&self) -> CrowdFigures {
        let mut sorted = self.penetrations.clone();
        sorted.sort_unstable_by(f32::total_cmp);
        let mean = if sorted.is_empty() {
            0.0
        } else {
            sorted.iter().map(|&value| f64::from(value)).sum::<f64>() / sorted.len() as f64
        };
        let p99 = sorted
            .get((sorted.len() as f64 * 0.99) as usize)
            .or(sorted.last())
            .map_or(0.0, |&value| f64::from(value));
        CrowdFigures {
            penetration_mean: mean,
            penetration_p99: p99,
            stuck: self.still.iter().filter(|(_, _, stuck)| *stuck).count(),
            samples: self.frame / SAMPLE_EVERY,
        }
    }
}

/// The agent's index in the benchmark, for the meter.
pub trait Indexed {
    /// Its index.
    fn index(&self) -> usize;
}

/// Samples the crowd every [`SAMPLE_EVERY`] frames of the measurement: the penetration of each
/// agent into its nearest neighbour, and how long each has stood still short of its goal.
pub fn meter_crowd<W: Component + Indexed>(
    mut meter: ResMut<CrowdMeter>,
    agents: Query<(&W, &Transform, &PathFollower)>,
) {
    if !meter.measuring {
        return;
    }
    meter.frame += 1;
    if !meter.frame.is_multiple_of(SAMPLE_EVERY) {
        return;
    }
    let meter = &mut *meter;
    let radius = footprint_radius(1);
    meter.agents.clear();
    let mut moving = Vec::with_capacity(agents.iter().len());
    for (walker, transform, follower) in &agents {
        let position = transform.translation.truncate();
        let position = Vector::new(position.x, position.y);
        meter.agents.push(CrowdAgent::new(position, radius, 1.0));
        moving.push((walker.index(), position, !follower.is_finished()));
    }
    meter.neighbours.rebuild(&meter.agents, 1.0);
    for (index, agent) in meter.agents.iter().enumerate() {
        meter.neighbours.nearest(
            agent.position,
            Some(index),
            2.0 * radius,
            1,
            &mut meter.found,
        );
        let depth = meter.found.first().map_or(0.0, |nearest| {
            (2.0 * radius - nearest.distance_squared.sqrt()).max(0.0) / radius
        });
        meter.penetrations.push(depth);
    }
    let elapsed = SAMPLE_EVERY as f32 / 60.0;
    for (index, position, walking) in moving {
        if meter.still.len() <= index {
            meter.still.resize(index + 1, (position, 0.0, false));
        }
        let (last, stood, stuck) = &mut meter.still[index];
        if walking && (position - *last).length() < STILL_DISTANCE {
            *stood += elapsed;
            *stuck |= *stood > STUCK_SECONDS;
        } else {
            *stood = 0.0;
        }
        *last = position;
    }
}

/// The CPU time this process has used, every thread included (Linux: `/proc/self/stat`, in
/// clock ticks of 10 ms); `None` elsewhere.
pub fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name in parentheses: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((user + system) * 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_cpu_time_grows_with_work() {
        let before = process_cpu_time().expect("Linux");
        let mut sum = 0_u64;
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_millis(100) {
            sum = sum.wrapping_add(std::hint::black_box(sum) ^ 7);
        }
        std::hint::black_box(sum);
        let after = process_cpu_time().expect("Linux");
        assert!(after > before, "{before:?} then {after:?}");
    }

    #[test]
    fn figures_take_the_mean_and_the_99th_percentile() {
        let meter = CrowdMeter {
            penetrations: (0..100).map(|value| value as f32 / 100.0).collect(),
            ..CrowdMeter::default()
        };
        let figures = meter.figures();
        assert!((figures.penetration_mean - 0.495).abs() < 1e-6);
        assert!((figures.penetration_p99 - 0.99).abs() < 1e-6);
    }
}
