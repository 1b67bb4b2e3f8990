//! Crowd flows through the core's [`Crowd`]: random small crossings and corridors between two
//! rooms, fifty agents queueing at a door one cell wide, and two flows through a corridor one
//! agent wide. At every step no disc overlaps a wall and no two discs sink into each other
//! beyond [`OVERLAP_TOLERANCE`]; every agent arrives within a bound derived from its scene.

use std::fmt;

pub mod common;

use astar_grid::crowd::{
    AvoidanceSettings, Crowd, CrowdAgent, Vector, disc_fits, footprint_radius,
};
use astar_grid::{Cell, CostModel, FlowField, Grid, Movement};
use common::crowd_scenes::{
    CrowdScene as Scene, SceneAgent as Walker, corridor_from, distinct_cells, raw_agent,
    walkable_cells,
};
use common::flow_following::{centre, follow};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// The time step of every run: 60 steps a second.
const STEP: f32 = 1.0 / 60.0;

/// How near the centre of its goal cell an agent has arrived (and leaves the crowd), in cells.
const ARRIVAL: f32 = 0.1;

/// The deepest two discs may sink into each other at any one moment, as a share of the smaller
/// radius: `(r1 + r2 - distance) / r`.
///
/// ORCA keeps discs apart only while its linear program is feasible. When a crowd presses (a
/// queue at a door, agents pinned between a wall and a neighbour) it is not, and the planner
/// takes the velocity of the least violation, so two discs may sink into each other a little
/// for a moment; a wall that shortens one agent's move but not its neighbour's does the same.
/// A quarter of the radius (0.11 cells for a one-cell footprint) is such a passing overlap;
/// anything deeper is agents walking through each other. Runs of a correct crowd stay far
/// below it (the corridor runs of `crowd.rs` show about 1%).
const OVERLAP_TOLERANCE: f32 = 0.25;

/// Seconds a scene's bound allows for knots: the knot rules of [`Crowd::step`] wait a patience
/// of 3 s before the last of a knot steps aside, for up to eight times a third of it when it
/// is stuck again and again, so a few knots in a row cost up to a minute.
const KNOT_ALLOWANCE: f32 = 60.0;

/// The flow field of `goal` on `grid` (eight directions, octile costs).
fn field_to(grid: &Grid, goal: Cell) -> FlowField {
    FlowField::build(grid, &[goal], Movement::EIGHT, CostModel::Octile).expect("a walkable goal")
}

/// What a run showed.
#[derive(Debug, Default)]
struct Run {
    /// Seconds until the last agent left the crowd, if all did within the run.
    finished: Option<f32>,
    /// The deepest overlap of two discs seen, as a share of the smaller radius.
    worst_overlap: f32,
    /// Where it was seen: the step and the two walkers.
    worst_at: (usize, usize, usize),
    /// The first disc seen overlapping a wall: the step, the walker and where it stood.
    in_wall: Option<(usize, usize, Vector)>,
    /// The walkers still there at the end of the run, and where they stood.
    left_behind: Vec<(usize, Vector)>,
}

/// Checks the agents after `step` (`ids` naming each one's walker) against the walls of
/// `grid` and against each other, keeping the first wall overlap and the deepest disc overlap
/// in `run`.
fn check_step(run: &mut Run, step: usize, grid: &Grid, agents: &[CrowdAgent], ids: &[usize]) {
    for (index, agent) in agents.iter().enumerate() {
        if run.in_wall.is_none() && !disc_fits(grid, agent.position, agent.radius) {
            run.in_wall = Some((step, ids[index], agent.position));
        }
        for (other_index, other) in agents.iter().enumerate().skip(index + 1) {
            let distance = (agent.position - other.position).length();
            let overlap = (agent.radius + other.radius - distance) / agent.radius.min(other.radius);
            if overlap > run.worst_overlap {
                run.worst_overlap = overlap;
                run.worst_at = (step, ids[index], ids[other_index]);
            }
        }
    }
}

/// Runs `walkers` on `grid` for at most `horizon` seconds with `settings`: each agent (radius
/// `footprint_radius(1)`) follows the flow field of its goal and leaves the crowd once within
/// [`ARRIVAL`] of it. After every step `watch` sees the step, the agents and their walkers' ids.
fn simulate(
    grid: &Grid,
    walkers: &[Walker],
    settings: AvoidanceSettings,
    horizon: f32,
    mut watch: impl FnMut(usize, &[CrowdAgent], &[usize]),
) -> Run {
    let fields: Vec<FlowField> = walkers.iter().map(|w| field_to(grid, w.goal)).collect();
    let mut agents: Vec<CrowdAgent> = walkers
        .iter()
        .map(|walker| {
            let mut agent =
                CrowdAgent::new(centre(walker.start), footprint_radius(1), walker.speed);
            agent.priority = walker.priority;
            agent
        })
        .collect();
    let mut ids: Vec<usize> = (0..walkers.len()).collect();
    let mut crowd = Crowd::new(settings);
    let mut run = Run::default();
    for step in 1..=(horizon / STEP) as usize {
        for (agent, &id) in agents.iter_mut().zip(&ids) {
            agent.preferred_velocity = follow(agent, &fields[id], (walkers[id].goal, grid), STEP);
        }
        crowd.step(&mut agents, grid, STEP);
        check_step(&mut run, step, grid, &agents, &ids);
        watch(step, &agents, &ids);
        let mut index = 0;
        while index < agents.len() {
            if (agents[index].position - centre(walkers[ids[index]].goal)).length() < ARRIVAL {
                agents.swap_remove(index);
                ids.swap_remove(index);
                crowd.swap_remove(index);
            } else {
                index += 1;
            }
        }
        if agents.is_empty() {
            run.finished = Some(step as f32 * STEP);
            return run;
        }
    }
    run.left_behind = ids
        .iter()
        .zip(&agents)
        .map(|(&id, a)| (id, a.position))
        .collect();
    run
}

/// Seconds `walker` takes to walk its flow-field path at its speed, nobody in the way.
fn walk_time(grid: &Grid, walker: &Walker) -> f32 {
    let cost = field_to(grid, walker.goal).cost_at(walker.start);
    cost.expect("the goal is reachable") as f32 / walker.speed
}

/// The bound on a scene's time, in seconds: twice the slowest walk (room to go round those in
/// the way), plus, when the scene has a passage of length `L`, `n (L + 1) / v` for its `n`
/// agents at the slowest speed `v` (in the worst order they take the passage one at a time,
/// each entering it and clearing it by a body length, under a cell), plus [`KNOT_ALLOWANCE`].
fn scene_bound(scene: &Scene) -> f32 {
    let grid = &scene.grid;
    let slowest_walk = scene
        .agents
        .iter()
        .map(|w| walk_time(grid, w))
        .fold(0.0, f32::max);
    let slowest_speed = scene
        .agents
        .iter()
        .map(|w| w.speed)
        .fold(f32::MAX, f32::min);
    let queue = scene.passage.map_or(0.0, |length| {
        scene.agents.len() as f32 * (length as f32 + 1.0) / slowest_speed
    });
    2.0 * slowest_walk + queue + KNOT_ALLOWANCE
}

/// A crossing: a grid of 8 to 16 by 6 to 12 cells, open or walled across its middle column
/// with a door one or two cells wide, and 2 to 10 agents at distinct cells heading for
/// distinct cells anywhere on it.
fn crossing_scene() -> impl Strategy<Value = Scene> {
    let shape = (8u32..=16, 6u32..=12, any::<bool>(), 0.0..1.0f32, 1u32..=2);
    (shape, prop::collection::vec(raw_agent(0.5), 2..=10)).prop_map(|(shape, raw)| {
        let (width, height, walled, door, door_width) = shape;
        let first = ((height - door_width) as f32 * door) as u32;
        let grid = Grid::from_fn(width, height, |cell| {
            u8::from(
                !walled || cell.x != width / 2 || (first..first + door_width).contains(&cell.y),
            )
        });
        let cells = walkable_cells(&grid, |_| true);
        let starts = distinct_cells(&cells, raw.iter().map(|r| r.0));
        let goals = distinct_cells(&cells, raw.iter().map(|r| r.1));
        let walkers = (starts.into_iter().zip(goals).zip(&raw))
            .map(|((start, goal), r)| Walker {
                start,
                goal,
                speed: r.2,
                priority: 0,
            })
            .collect();
        Scene {
            grid,
            agents: walkers,
            passage: walled.then_some(1),
        }
    })
}

/// Corridor scenes: rooms 4 to 6 cells wide and 4 to 8 high, a corridor 2 to 8 cells long and
/// 1 to 3 wide, 2 to 10 agents in one flow or both, the flows' priorities equal or not.
fn corridor_scene() -> impl Strategy<Value = Scene> {
    let shape = (4u32..=6, 4u32..=8, 2u32..=8, 1u32..=3, 0.0..1.0f32);
    let agents = prop::collection::vec(raw_agent(0.5), 2..=10);
    let priorities = prop_oneof![Just((0, 0)), Just((1, 0)), Just((0, 1))];
    (shape, agents, any::<bool>(), priorities)
        .prop_map(|(shape, raw, one, priorities)| corridor_from(shape, &raw, one, priorities))
}

/// What went wrong in `run`, if anything: a disc in a wall, two discs overlapping beyond
/// [`OVERLAP_TOLERANCE`], or agents that had not all arrived within `bound` seconds.
fn flow_failure(run: &Run, bound: f32) -> Option<String> {
    if let Some((step, walker, position)) = run.in_wall {
        return Some(format!(
            "step {step}: walker {walker} at {position:?} in a wall"
        ));
    }
    if run.worst_overlap > OVERLAP_TOLERANCE {
        let (step, first, second) = run.worst_at;
        return Some(format!(
            "step {step}: walkers {first} and {second} overlap by {} of the radius",
            run.worst_overlap
        ));
    }
    (!run.finished.is_some_and(|time| time <= bound)).then(|| {
        format!(
            "all arrived after {:?} s, bound {bound} s; still there at the end (walker, \
             position): {:?}",
            run.finished, run.left_behind
        )
    })
}

/// Panics unless `run` of `scene` shows no [`flow_failure`] within `bound` seconds.
fn assert_flowed(run: &Run, scene: &impl fmt::Display, bound: f32) {
    if let Some(failure) = flow_failure(run, bound) {
        panic!("{failure}\n{scene}");
    }
}

proptest! {
    // A fixed seed: each run checks the same scenes, so a failure is not a matter of luck.
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: RngSeed::Fixed(0x666c_6f77),
        failure_persistence: None,
        // A failing scene runs to its bound, thousands of steps: a few shrinks show it.
        max_shrink_iters: 16,
        ..ProptestConfig::default()
    })]

    /// Random crossings and corridor scenes: at every step no disc overlaps a wall and no two
    /// overlap beyond [`OVERLAP_TOLERANCE`], and every agent arrives within [`scene_bound`].
    #[test]
    fn random_flows_keep_apart_and_arrive(
        scene in prop_oneof![crossing_scene(), corridor_scene()],
    ) {
        let bound = scene_bound(&scene);
        let run = simulate(&scene.grid, &scene.agents, AvoidanceSettings::default(), bound, |_, _, _| {});
        let failure = flow_failure(&run, bound);
        prop_assert!(failure.is_none(), "{}\n{scene}", failure.unwrap_or_default());
    }
}

/// The column of the wall of the door scene; its door is the one open cell of it, at row 4.
const DOOR_WALL: u32 = 10;

/// The door scene: a near room (columns 0 to 9) and a far room (columns 11 to 20), ten rows
/// each, parted by a wall with a door one cell wide. Fifty agents at 2 cells a second fill
/// the five columns of the near room next to the wall, one to a cell, and head each for its own
/// cell of the five far columns of the far room: the nearer an agent starts to the door, the
/// farther from it its goal, so that those through first walk out of the others' way.
fn door_scene() -> Scene {
    let grid = Grid::from_fn(21, 10, |cell| u8::from(cell.x != DOOR_WALL || cell.y == 4));
    let door = centre(Cell::new(DOOR_WALL, 4));
    let from_door = |cell: &Cell| (centre(*cell) - door).length();
    let mut starts = walkable_cells(&grid, |cell| (5..DOOR_WALL).contains(&cell.x));
    let mut goals = walkable_cells(&grid, |cell| cell.x >= 16);
    starts.sort_by(|a, b| from_door(a).total_cmp(&from_door(b)));
    goals.sort_by(|a, b| from_door(b).total_cmp(&from_door(a)));
    let walkers = (starts.into_iter().zip(goals))
        .map(|(start, goal)| Walker {
            start,
            goal,
            speed: 2.0,
            priority: 0,
        })
        .collect();
    Scene {
        grid,
        agents: walkers,
        passage: Some(1),
    }
}

/// What the door test sees of each agent: when its centre first stood past the wall, whether
/// it stands there now, and every time one was seen back on the near side.
struct DoorWatch {
    /// By walker: the second at which its centre first stood past the wall.
    passed: Vec<Option<f32>>,
    /// By walker: whether its centre stood past the wall when last seen.
    through: Vec<bool>,
    /// Every return to the near side: the step, the walker and where it stood.
    back_passes: Vec<(usize, usize, Vector)>,
}

impl DoorWatch {
    /// Nobody through yet, of `count` agents.
    fn new(count: usize) -> Self {
        Self {
            passed: vec![None; count],
            through: vec![false; count],
            back_passes: Vec::new(),
        }
    }

    /// Looks at the agents after `step` (`ids` naming their walkers): one whose centre is past
    /// the wall is through; one through that is seen left of the wall again passed back.
    fn see(&mut self, step: usize, agents: &[CrowdAgent], ids: &[usize]) {
        for (agent, &id) in agents.iter().zip(ids) {
            if agent.position.x >= (DOOR_WALL + 1) as f32 {
                self.through[id] = true;
                self.passed[id].get_or_insert(step as f32 * STEP);
            } else if self.through[id] && agent.position.x < DOOR_WALL as f32 {
                self.through[id] = false;
                self.back_passes.push((step, id, agent.position));
            }
        }
    }
}

/// Fifty agents (radius [`footprint_radius`]`(1)` = 0.35, 2 cells a second) pass a door one
/// cell wide: none ever overlaps a wall or another beyond [`OVERLAP_TOLERANCE`], none once
/// through is ever seen back on the near side (its centre left of the wall), and all arrive
/// within the bound. The run goes on to four times the bound, so that a failure shows how long
/// the crowd really took.
///
/// The bound: a door one cell wide lets one agent of diameter `2r = 0.7` through at a time, so
/// at best the agents stream through a body length apart, one every `2r / v` = 0.35 s, 17.5 s
/// for the fifty; the last one then still walks from the door to its goal, and the first one
/// from its start to the door, together under the longest walk `W / v` of any agent (about
/// 7.3 s). An agent cannot stream into the door, though: it must line up with it first, with
/// 0.15 of play each side, while those beside it press on it. The bound is four times
/// `50 * 2r / v + W / v` (about 99 s): room for a queue that lines up one by one, but not for
/// one that stalls (this scene took 270 s with radius 0.45 and a wall horizon of 0.5 s, and
/// about 60 to 80 s since).
#[test]
fn fifty_agents_queue_through_a_one_cell_door() {
    let scene = door_scene();
    let (count, speed) = (scene.agents.len(), scene.agents[0].speed);
    let passing = count as f32 * 2.0 * footprint_radius(1) / speed;
    let walk = (scene.agents.iter())
        .map(|w| walk_time(&scene.grid, w))
        .fold(0.0, f32::max);
    let bound = 4.0 * (passing + walk);
    let mut watch = DoorWatch::new(count);
    let settings = AvoidanceSettings::default();
    let run = simulate(
        &scene.grid,
        &scene.agents,
        settings,
        4.0 * bound,
        |step, agents, ids| {
            watch.see(step, agents, ids);
        },
    );
    let in_time = watch
        .passed
        .iter()
        .flatten()
        .filter(|&&time| time <= bound)
        .count();
    let summary = format!(
        "door: all arrived after {:?} s (bound {bound} s), {in_time} of {count} through by the \
         bound, {} back-passes, worst overlap {} of the radius",
        run.finished,
        watch.back_passes.len(),
        run.worst_overlap,
    );
    println!("{summary}");
    assert!(
        watch.back_passes.is_empty(),
        "{summary}; back-passes (step, walker, position), the first ones: {:?}",
        &watch.back_passes[..watch.back_passes.len().min(10)]
    );
    assert_flowed(&run, &format!("{summary}\n{scene}"), bound);
}

/// The corridor of the two-flow scene: two open rooms of 6 x 6 cells joined by a corridor one
/// cell wide and 10 long (row 2, columns 6 to 15). Five agents at 3 cells a second start in
/// each room on a dice-five pattern and head for the mirror-image cells in the other room; the
/// eastward flow has priority `priorities.0`, the westward `priorities.1`.
fn two_flow_scene(priorities: (u32, u32)) -> Scene {
    let grid = Grid::from_fn(22, 6, |cell| {
        u8::from(cell.x < 6 || cell.x >= 16 || cell.y == 2)
    });
    let spots = [(2, 2), (1, 1), (1, 3), (3, 1), (3, 3)];
    let mut walkers = Vec::new();
    for (east, priority) in [(true, priorities.0), (false, priorities.1)] {
        for &(x, y) in &spots {
            let (start, goal) = if east { (x, 21 - x) } else { (21 - x, x) };
            let (start, goal) = (Cell::new(start, y), Cell::new(goal, y));
            walkers.push(Walker {
                start,
                goal,
                speed: 3.0,
                priority,
            });
        }
    }
    Scene {
        grid,
        agents: walkers,
        passage: Some(10),
    }
}

/// Two flows of five agents each way through a corridor one agent wide, of different
/// priorities (either way round): nobody overlaps a wall or another beyond
/// [`OVERLAP_TOLERANCE`], and all arrive within [`scene_bound`] (the walk twice, the ten taking
/// the corridor one at a time, and the knot allowance: about 110 s).
#[test]
fn two_flows_pass_in_a_one_agent_corridor() {
    for priorities in [(1, 0), (0, 1)] {
        let scene = two_flow_scene(priorities);
        let bound = scene_bound(&scene);
        let settings = AvoidanceSettings::default();
        let run = simulate(&scene.grid, &scene.agents, settings, bound, |_, _, _| {});
        println!(
            "corridor {priorities:?}: all arrived in {:?} s (bound {bound} s), worst overlap {}",
            run.finished, run.worst_overlap
        );
        assert_flowed(&run, &scene, bound);
    }
}
