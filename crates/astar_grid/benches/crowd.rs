//! Crowd steps: the neighbour rebuild, the velocity planning (and the neighbour queries in it)
//! and the move within walls, separately, for 2,000 and 10,000 agents on a 256 x 256 grid with walls.

use astar_grid::crowd::{
    AvoidanceSettings, Crowd, CrowdAgent, NeighbourGrid, PlanningContext, Vector, VelocityPlanner,
    move_agents, nearest_legal_position,
};
use astar_grid::{Cell, Grid};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A 256 x 256 grid with a few long walls, each with gaps, and some towers.
fn walled_grid() -> Grid {
    let mut grid = Grid::new(256, 256);
    for wall in 1..8u32 {
        let x = wall * 32;
        grid.fill_rect(Cell::new(x, 8), Cell::new(x, 247), 0);
        grid.fill_rect(
            Cell::new(x, 100 + wall * 4),
            Cell::new(x, 103 + wall * 4),
            1,
        );
    }
    for tower in 0..200u32 {
        let (x, y) = ((tower * 37) % 250 + 2, (tower * 91) % 250 + 2);
        grid.fill_rect(Cell::new(x, y), Cell::new(x + 1, y + 1), 0);
    }
    grid
}

/// A deterministic sequence of numbers in [0, 1).
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `count` agents of radius 0.4 and speed 4 spread over a band covering a fifth of the map,
/// each preferring its own direction, after one second (60 steps) of avoiding each other, so
/// that their velocities are those of a running crowd rather than random.
fn crowd(grid: &Grid, count: usize) -> Vec<CrowdAgent> {
    let mut agents = scattered(grid, count);
    let mut crowd = Crowd::new(AvoidanceSettings::default());
    for _ in 0..60 {
        crowd.step(&mut agents, grid, 1.0 / 60.0);
    }
    agents
}

/// `count` agents of radius 0.4 and speed 4 at random legal positions in the band, each
/// preferring a random direction and moving at half of that velocity.
fn scattered(grid: &Grid, count: usize) -> Vec<CrowdAgent> {
    let mut sequence = Sequence(7);
    let mut agents = Vec::with_capacity(count);
    while agents.len() < count {
        let point = Vector::new(sequence.next() * 256.0, 102.0 + sequence.next() * 51.0);
        if let Some(position) = nearest_legal_position(grid, point, 0.4, 4.0) {
            let mut agent = CrowdAgent::new(position, 0.4, 4.0);
            let angle = sequence.next() * core::f32::consts::TAU;
            agent.preferred_velocity = Vector::new(angle.cos(), angle.sin()) * 4.0;
            agent.velocity = agent.preferred_velocity * 0.5;
            agents.push(agent);
        }
    }
    agents
}

fn stages(criterion: &mut Criterion) {
    let grid = walled_grid();
    let settings = AvoidanceSettings::default();
    let dt = 1.0 / 60.0;
    for count in [2_000, 10_000] {
        let agents = crowd(&grid, count);
        let mut neighbours = NeighbourGrid::new();
        neighbours.rebuild(&agents, settings.bucket_size());
        criterion.bench_function(&format!("crowd/{count}/rebuild_neighbours"), |bench| {
            bench.iter(|| neighbours.rebuild(black_box(&agents), settings.bucket_size()));
        });
        let mut found = Vec::new();
        criterion.bench_function(&format!("crowd/{count}/neighbour_queries"), |bench| {
            bench.iter(|| {
                for (index, agent) in agents.iter().enumerate() {
                    neighbours.nearest(
                        agent.position,
                        Some(index),
                        settings.neighbour_distance,
                        settings.max_neighbours,
                        &mut found,
                    );
                    black_box(&found);
                }
            });
        });
        let context = PlanningContext {
            agents: &agents,
            neighbours: &neighbours,
            grid: &grid,
            settings: &settings,
            time_step: dt,
        };
        let mut planner = VelocityPlanner::new();
        let mut velocities = vec![Vector::ZERO; count];
        criterion.bench_function(&format!("crowd/{count}/plan_velocities"), |bench| {
            bench.iter(|| planner.plan_velocities(black_box(&context), 0..count, &mut velocities));
        });
        let mut moved = agents.clone();
        criterion.bench_function(&format!("crowd/{count}/move_agents"), |bench| {
            bench.iter(|| {
                moved.copy_from_slice(&agents);
                move_agents(black_box(&mut moved), &velocities, &grid, dt);
            });
        });
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
