//! `bevy_northstar` 0.7's `NorthstarPlugin` as a contender: its own grid (an `OrdinalGrid`
//! with the `NoCornerCutting` filter, as in `pathbench compare`), agents with `AgentPos` and
//! `Pathfind`, towers blocked with `Grid::set_nav` and `Grid::build`.
//!
//! Its model differs from this project's plugin in ways the game code here has to make up for,
//! as the crate's `reroute` example does:
//! - searches run inside its `pathfind` system, on the main thread, at most
//!   `max_pathfinding_agents_per_frame` (128) agents a frame, with no result cache;
//! - a map edit does not touch existing paths: after each placement the game finds the agents
//!   whose path ahead crosses the tower, removes their `Path` and `NextPos` and inserts
//!   `Pathfind` again (timed as the placement's reaction);
//! - its systems hand out one cell at a time as `NextPos`; moving the agent there, setting
//!   `AgentPos` and removing `NextPos` is game code (timed per frame as game code).

use super::map::{Routes, TowerMap};
use super::record::{Counters, FrameStamps, Placement, Repath, RepathWatch, Watched, stamp};
use super::{Contender, NorthstarSearch, Scenario, cell_center};
use crate::compare::northstar::build_grid;
use astar_grid::Cell;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_northstar::path::Path as NorthstarPath;
use bevy_northstar::prelude::{
    AgentPos, Nav, NextPos, NorthstarPlugin, OrdinalGrid, OrdinalNeighborhood, Pathfind,
    PathfindArgs, PathfindMode, PathfindingFailed, PathingSet,
};
use std::time::{Duration, Instant};

/// An agent of the benchmark: its number, how many walks it started and its goal.
#[derive(Component)]
struct Walker {
    index: usize,
    life: u32,
    goal: Cell,
}

/// Searches the plugin ran: new `Path` and `PathfindingFailed` components.
#[derive(Resource, Default)]
struct SearchCount(u64);

/// Counts the paths and failures added since the last frame (every search in this scenario
/// adds one of the two: the game removes an agent's path before asking for a new one).
fn count_searches(
    paths: Query<(), Added<NorthstarPath>>,
    failures: Query<(), Added<PathfindingFailed>>,
    mut count: ResMut<SearchCount>,
) {
    count.0 += (paths.iter().count() + failures.iter().count()) as u64;
}

/// The crate's position of `cell` (layer 0).
fn position(cell: Cell) -> UVec3 {
    UVec3::new(cell.x, cell.y, 0)
}

/// The cell of a crate position.
fn cell_of(position: UVec3) -> Cell {
    Cell::new(position.x, position.y)
}

/// The request an agent sends: to its goal, with the chosen search.
fn request(goal: Cell, search: NorthstarSearch) -> Pathfind {
    Pathfind::new(position(goal)).mode(mode(search))
}

/// The crate's routes on the map, for placing towers where its agents walk.
pub struct NorthstarRoutes {
    grid: OrdinalGrid,
    mode: PathfindMode,
}

impl NorthstarRoutes {
    /// Routes searched with `search` on `map`.
    pub fn new(map: &TowerMap, search: NorthstarSearch) -> Self {
        Self {
            grid: build_grid(&map.grid),
            mode: mode(search),
        }
    }
}

impl Routes for NorthstarRoutes {
    fn route(&mut self, from: Cell, to: Cell) -> Option<Vec<Cell>> {
        let mut args = PathfindArgs::new(position(from), position(to)).mode(self.mode);
        let path = self.grid.pathfind(&mut args)?;
        // The crate's paths leave out the start cell.
        Some(
            core::iter::once(from)
                .chain(path.path().iter().map(|&position| cell_of(position)))
                .collect(),
        )
    }

    fn block(&mut self, cell: Cell) {
        self.grid.set_nav(position(cell), Nav::Impassable);
        self.grid.build();
    }
}

/// The crate's `PathfindMode` for the chosen search.
const fn mode(search: NorthstarSearch) -> PathfindMode {
    match search {
        NorthstarSearch::Refined => PathfindMode::Refined,
        NorthstarSearch::Astar => PathfindMode::AStar,
    }
}

/// The headless app: the plugin, the grid entity, the agents and the timestamp systems.
fn build_app(scenario: &Scenario, search: NorthstarSearch) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        NorthstarPlugin::<OrdinalNeighborhood>::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(
        Scenario::frame_duration(),
    ))
    .init_resource::<FrameStamps>()
    .init_resource::<SearchCount>()
    .add_systems(
        Update,
        (
            stamp::<0>.before(PathingSet),
            stamp::<5>.after(PathingSet),
            count_searches.after(stamp::<5>),
        ),
    );
    app.world_mut().spawn(build_grid(&scenario.map.grid));
    app.world_mut()
        .spawn_batch(
            scenario
                .first_cells
                .iter()
                .enumerate()
                .map(|(index, &cell)| {
                    let goal = scenario.goal_of(index);
                    (
                        AgentPos(position(cell)),
                        request(goal, search),
                        Transform::from_translation(cell_center(cell).extend(0.0)),
                        Walker {
                            index,
                            life: 0,
                            goal,
                        },
                    )
                })
                .collect::<Vec<_>>(),
        )
        .for_each(drop);
    app.finish();
    app.cleanup();
    app
}

/// Starts a new walk at a spawn: moved there, path dropped, `Pathfind` inserted again.
fn restart(world: &mut World, scenario: &Scenario, search: NorthstarSearch, entity: Entity) {
    let Ok(mut agent) = world.get_entity_mut(entity) else {
        return;
    };
    let Some(mut walker) = agent.get_mut::<Walker>() else {
        return;
    };
    walker.life += 1;
    let spawn = scenario.spawn_for(walker.index, walker.life);
    let goal = walker.goal;
    agent
        .remove::<(NextPos, NorthstarPath, PathfindingFailed)>()
        .insert((
            AgentPos(position(spawn)),
            Transform::from_translation(cell_center(spawn).extend(0.0)),
            request(goal, search),
        ));
}

/// Moves every agent toward its `NextPos`; on arrival sets `AgentPos` and removes `NextPos`
/// so that the plugin hands out the next cell (the crate's examples' movement).
fn move_agents(world: &mut World, scenario: &Scenario) {
    let step = scenario.speed * Scenario::frame_duration().as_secs_f32();
    let mut agents = world.query::<(Entity, &mut AgentPos, &NextPos, &mut Transform)>();
    let mut arrived = Vec::new();
    for (entity, mut agent, next, mut transform) in agents.iter_mut(world) {
        let here = transform.translation.truncate();
        let target = cell_center(cell_of(next.0));
        let distance = here.distance(target);
        if distance <= step {
            transform.translation = target.extend(transform.translation.z);
            agent.0 = next.0;
            arrived.push(entity);
        } else {
            transform.translation += ((target - here) / distance * step).extend(0.0);
        }
    }
    for entity in arrived {
        world.entity_mut(entity).remove::<NextPos>();
    }
}

/// Restarts agents that reached their goal or whose search failed; returns (arrivals,
/// failures).
fn restart_finished(world: &mut World, scenario: &Scenario, search: NorthstarSearch) -> (u64, u64) {
    let mut agents = world.query::<(
        Entity,
        &Walker,
        &AgentPos,
        Has<NextPos>,
        Has<PathfindingFailed>,
    )>();
    let mut arrivals = Vec::new();
    let mut failures = Vec::new();
    for (entity, walker, agent, moving, failed) in agents.iter(world) {
        if failed {
            failures.push(entity);
        } else if agent.0 == position(walker.goal) && !moving {
            arrivals.push(entity);
        }
    }
    let counts = (arrivals.len() as u64, failures.len() as u64);
    for entity in arrivals.into_iter().chain(failures) {
        restart(world, scenario, search, entity);
    }
    counts
}

/// Whether every agent has a path (or is on its way to its next cell).
fn settled(world: &mut World) -> bool {
    let mut agents = world.query_filtered::<(Has<NorthstarPath>, Has<NextPos>), With<Walker>>();
    agents.iter(world).all(|(path, moving)| path || moving)
}

/// Agents waiting for a path: asked for one (`Pathfind`) and holding neither a path nor a next
/// cell.
fn waiting(world: &mut World) -> usize {
    let mut agents = world.query_filtered::<(), (
        With<Walker>,
        With<Pathfind>,
        Without<NorthstarPath>,
        Without<NextPos>,
    )>();
    agents.iter(world).count()
}

/// Blocks `tower` in the crate's grid (`set_nav` and `build`), restarts the agents standing on
/// it and asks for a new path for every agent whose path ahead (or next cell) is the tower;
/// returns the placement and the cut agents.
///
/// # Errors
/// When the world has no single grid.
fn place_tower(
    world: &mut World,
    scenario: &Scenario,
    search: NorthstarSearch,
    tower: Cell,
) -> Result<(Placement, Vec<Watched>), String> {
    let square: Vec<_> = scenario
        .tower_cells(tower)
        .into_iter()
        .map(position)
        .collect();
    let mut grids = world.query::<&mut OrdinalGrid>();
    let mut grid = grids
        .single_mut(world)
        .map_err(|error| format!("bevy_northstar grid: {error}"))?;
    let edit_started = Instant::now();
    for &cell in &square {
        grid.set_nav(cell, Nav::Impassable);
    }
    grid.build();
    let edit_time = edit_started.elapsed();

    let reaction_started = Instant::now();
    let mut agents = world.query::<(
        Entity,
        &Walker,
        &AgentPos,
        Option<&NextPos>,
        Option<&NorthstarPath>,
    )>();
    let mut crushed = Vec::new();
    let mut cut = Vec::new();
    for (entity, walker, agent, next, path) in agents.iter(world) {
        if square.contains(&agent.0) {
            crushed.push(entity);
        } else if next.is_some_and(|next| square.contains(&next.0))
            || path.is_some_and(|path| square.iter().any(|&cell| path.is_position_in_path(cell)))
        {
            cut.push(Watched {
                entity,
                life: walker.life,
                revision: 0,
            });
        }
    }
    for agent in &cut {
        let mut entity = world.entity_mut(agent.entity);
        let Some(goal) = entity.get::<Walker>().map(|walker| walker.goal) else {
            continue;
        };
        entity
            .remove::<(NextPos, NorthstarPath)>()
            .insert(request(goal, search));
    }
    let reaction_time = reaction_started.elapsed();
    let crushed_count = crushed.len();
    for entity in crushed {
        restart(world, scenario, search, entity);
    }
    let placement = Placement {
        tower,
        cut: cut.len(),
        // The game asks exactly the cut agents to search again.
        searched: cut.len(),
        crushed: crushed_count,
        frames_to_repath: None,
        left: 0,
        failed: 0,
        edit_time,
        reaction_time,
        checked: None,
    };
    Ok((placement, cut))
}

/// How a cut agent stands: a new path (its old one was removed) that avoids every blocked cell.
fn repath_status(world: &World, grid: &OrdinalGrid, agent: &Watched) -> Repath {
    let Ok(entity) = world.get_entity(agent.entity) else {
        return Repath::Left;
    };
    let Some(walker) = entity.get::<Walker>() else {
        return Repath::Left;
    };
    if walker.life != agent.life {
        return Repath::Left;
    }
    if entity.contains::<PathfindingFailed>() {
        return Repath::Failed;
    }
    let Some(path) = entity.get::<NorthstarPath>() else {
        return Repath::Waiting;
    };
    let next = entity.get::<NextPos>().map(|next| next.0);
    if path
        .path()
        .iter()
        .copied()
        .chain(next)
        .all(|cell| grid.is_passable(cell))
    {
        Repath::Done
    } else {
        Repath::Waiting
    }
}

/// `NorthstarPlugin` under the scenario, with the search `--northstar-mode` chose.
pub struct Northstar {
    search: NorthstarSearch,
}

impl Northstar {
    /// The contender running `search`.
    pub const fn new(search: NorthstarSearch) -> Self {
        Self { search }
    }
}

impl Contender for Northstar {
    fn library(&self) -> &'static str {
        "bevy_northstar"
    }

    fn search(&self) -> String {
        let mode = match self.search {
            NorthstarSearch::Refined => "HPA* refined (its default), 16x16 chunks",
            NorthstarSearch::Astar => "A* over the whole grid",
        };
        format!("{mode}; synchronous in its systems, at most 128 agents a frame, no result cache")
    }

    fn game_code(&self) -> Option<&'static str> {
        Some("move to NextPos")
    }

    fn routes(&self, map: &TowerMap) -> Option<Box<dyn Routes>> {
        Some(Box::new(NorthstarRoutes::new(map, self.search)))
    }

    fn build_app(&self, scenario: &Scenario) -> App {
        build_app(scenario, self.search)
    }

    fn plugin_spans(&self, stamps: &FrameStamps) -> Result<(Duration, Vec<Duration>), String> {
        Ok((stamps.between(0, 5)?, Vec::new()))
    }

    fn after_update(&self, world: &mut World, scenario: &Scenario) {
        move_agents(world, scenario);
    }

    fn settled(&self, world: &mut World) -> bool {
        settled(world)
    }

    fn restart_finished(&self, world: &mut World, scenario: &Scenario) -> (u64, u64) {
        restart_finished(world, scenario, self.search)
    }

    fn place_tower(
        &self,
        world: &mut World,
        scenario: &Scenario,
        tower: Cell,
    ) -> Result<(Placement, Vec<Watched>), String> {
        place_tower(world, scenario, self.search, tower)
    }

    fn update_watch(
        &self,
        world: &mut World,
        frame: u64,
        watch: &mut RepathWatch,
        placements: &mut [Placement],
    ) -> Result<(), String> {
        let mut grids = world.query::<&OrdinalGrid>();
        let grid = grids
            .single(world)
            .map_err(|error| format!("bevy_northstar grid: {error}"))?;
        watch.update(frame, placements, |agent| repath_status(world, grid, agent));
        Ok(())
    }

    fn waiting(&self, world: &mut World) -> usize {
        waiting(world)
    }

    fn counters(&self, world: &World) -> Counters {
        Counters {
            searches: world.resource::<SearchCount>().0,
            ..Counters::default()
        }
    }
}
