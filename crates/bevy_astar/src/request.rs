//! The `PathRequest` component: what an agent asks for, and the bookkeeping that follows it.

use crate::kinds::KindKey;
use crate::{NavGrid, NavVersion, Path, ProfileId};
use astar_grid::{Cell, Movement, SearchOptions};
use bevy::prelude::*;
use core::time::Duration;
use std::sync::Arc;

use crate::map::PathFootprint;
use crate::outcome::SearchOutcome;

/// The search algorithm a request asks for. All of them but [`PathAlgorithm::Hierarchical`]
/// return optimal paths under the request's movement rule and cost model (A* unless its
/// options weight the heuristic or limit the search).
///
/// Matching on this enum needs a wildcard arm, so that adding an algorithm is not a breaking
/// change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Debug, Default, PartialEq, Hash)]
#[non_exhaustive]
pub enum PathAlgorithm {
    /// A* as configured by the request's [`SearchOptions`] (heuristic, weight, limits, window).
    /// When many optimal A* requests for one goal are dispatched in the same frame, they are
    /// answered together by one Dijkstra from the goal, at the same costs (see
    /// [`PathfindingSettings::goal_batch_min`](crate::PathfindingSettings::goal_batch_min)).
    #[default]
    AStar,
    /// Jump point search, much faster than A* on open maps, where it can honour the request:
    /// eight neighbours without corner cutting, the octile heuristic unweighted, no window or
    /// partial path, and a grid without terrain costs. Other requests run A*, with the same
    /// optimal cost, and so do all on a hexagonal map (jump point search has no hexagonal
    /// form); [`Path::algorithm`] says which ran. It records no trace, so the debug
    /// overlay draws its path only.
    JumpPoint,
    /// A flow field towards the goal, shared by every agent with the same goal, movement rule
    /// and cost model: the first request builds it in the background (one Dijkstra from the
    /// goal), later ones read their path from it, and map changes update it incrementally. For
    /// crowds heading to the same place. The heuristic, weight, window and limits do not apply,
    /// and no trace is recorded.
    FlowField,
    /// A search over the grid's sector hierarchy, for huge maps: a route across sectors of 64
    /// cells, refined into cells sector by sector. Far less work than A* or jump points on
    /// long paths over large maps; paths are legal and near optimal (within 1% on average on
    /// city-like maps, see the core's `HierarchyOptions::detour_per_crossing` for the bound),
    /// not always optimal. The hierarchy is made on the first such request and built in the
    /// background (requests run A* until nine sectors in ten are built); map changes mark the
    /// sectors they touch, which are searched cell by cell until rebuilt. Once the hierarchy
    /// has been built whole, requests for a goal that has had
    /// [`PathfindingSettings::goal_batch_min`](crate::PathfindingSettings::goal_batch_min) of
    /// them (over any number of frames) share the goal's sector flow field: it floods only the
    /// sectors the agents cross, each once for all of them (sectors a map change marked are
    /// built first, on a copy), and later requests for that goal read their paths off it while
    /// the map stays as it is. Agents of other
    /// kinds, requests with a weight, window, limit, partial or closest-reachable path, or
    /// trace, and every request on a hexagonal map run A*; [`Path::algorithm`] says which ran.
    /// No trace is recorded. With [`PathRequest::first_cells_fast`], an agent is shown the
    /// first cells of its path in the frame of its request, and searched on its own.
    Hierarchical,
}

/// Asks for a path from `start` to `goal`; the result appears in the agent's [`Path`].
///
/// Adding it also adds a [`Path`] (status [`PathStatus::Queued`](crate::PathStatus::Queued)).
/// Removing it cancels the request: a search running for it alone stops, and its [`Path`] ends
/// [`PathStatus::Cancelled`](crate::PathStatus::Cancelled), cleared, so that a
/// [`PathFollower`](crate::PathFollower) on the agent stops where it stands.
/// Every change to the component (Bevy change detection) queues a new search; a request changed
/// several times before it is dispatched is searched once, for its last value. Use
/// [`Mut::set_if_neq`] or compare before writing to avoid needless searches.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// let request = PathRequest::new(Cell::new(0, 0), Cell::new(9, 4))
///     .with_options(SearchOptions::default().with_neighborhood(Neighborhood::Four))
///     .with_smoothing(true);
/// assert_eq!(request.goal, Cell::new(9, 4));
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Clone, Debug, PartialEq)]
#[require(Path, PathRequestState)]
pub struct PathRequest {
    /// Where the path starts.
    pub start: Cell,
    /// Where the path should end.
    pub goal: Cell,
    /// Movement rule, costs, heuristic and weight, limits. The `trace` flag is also set for
    /// agents marked with [`PathDebug`](crate::debug::PathDebug).
    pub options: SearchOptions,
    /// Which algorithm searches.
    pub algorithm: PathAlgorithm,
    /// Whether the world waypoints skip cells that a straight line can pass (the cell path in
    /// [`Path::cells`] is never changed). Smoothed segments may take any angle, so leave this off
    /// for agents that must move strictly four- or eight-connected.
    pub smoothing: bool,
    /// Whether each search starts where the agent is: when the request is dispatched, `start`
    /// becomes the cell its [`Transform`] stands on (if that cell is on the grid and walkable;
    /// this is not a change of the request). For agents that walk their paths: a path a map
    /// change cut is searched again from where the agent has got to, not from its first start,
    /// however long the agent waited in the queue. Off by default.
    pub start_at_agent: bool,
    /// The agent's terrain profile, registered in [`TerrainProfiles`](crate::TerrainProfiles):
    /// what each terrain value of the grid costs it, or whether it may enter it.
    pub profile: ProfileId,
    /// The side of the agent's square footprint in cells, 1 to
    /// [`MAX_AGENT_SIZE`](astar_grid::agent::MAX_AGENT_SIZE). `start`, `goal` and the path's
    /// cells are the footprint's top-left cells (anchors); see [`crate::kinds`]. On a hexagonal
    /// grid the footprint is the disc of hexes within `size - 1` steps of its centre, and the
    /// anchors are the centres.
    pub size: u8,
    /// With [`PathAlgorithm::Hierarchical`], whether the agent is shown the first cells of its
    /// path at once, to walk while the rest is searched. Off by default.
    ///
    /// Once the grid's hierarchy has been built whole, Dispatch finds the first cells on the
    /// main thread (a coarse route over the sectors, then a way out of the start's sector; tens
    /// of microseconds on a 4096 x 4096 map) and shows them in the agent's [`Path`]
    /// ([`Path::shows_first_cells`], status [`PathStatus::Searching`](crate::PathStatus::Searching)),
    /// so that a [`PathFollower`](crate::PathFollower) moves in the frame of the request. The
    /// rest is searched in the background from the last of them; the whole path then replaces
    /// them, beginning with the same cells, and the follower walks on.
    ///
    /// A request shown its first cells is searched on its own: it does not join its goal's
    /// batch or sector field, which answer crowds for one goal with less work in all. For
    /// orders given to a few agents at a time. Where the first cells cannot be had at once
    /// (the start and goal share a sector, a sector on the way is not built or was marked by a
    /// map change, the grid has links, or the hierarchy is still being built), and where the
    /// result cache or an identical search running answers it, the request is served as
    /// without it. Dispatch reads its clock after each request's first cells, and leaves the
    /// queue's rest to the next frame once its
    /// [`stage_budget`](crate::PathfindingSettings::stage_budget) is spent.
    pub first_cells_fast: bool,
}

/// A world position that lies outside the [`NavGrid`].
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum WorldPositionError {
    /// The start position is outside the grid.
    #[error("start position {0} is outside the navigation grid")]
    StartOutsideGrid(Vec2),
    /// The goal position is outside the grid.
    #[error("goal position {0} is outside the navigation grid")]
    GoalOutsideGrid(Vec2),
}

impl PathRequest {
    /// A request from `start` to `goal` with the default options (the Moving AI rules: eight
    /// neighbours, no corner cutting, octile costs), A*, and no smoothing.
    #[must_use]
    pub fn new(start: Cell, goal: Cell) -> Self {
        Self {
            start,
            goal,
            options: SearchOptions::default(),
            algorithm: PathAlgorithm::default(),
            smoothing: false,
            start_at_agent: false,
            profile: ProfileId::DEFAULT,
            size: 1,
            first_cells_fast: false,
        }
    }

    /// A request between the cells containing two world positions.
    ///
    /// # Errors
    /// [`WorldPositionError`] when either position lies outside the grid.
    pub fn from_world(nav: &NavGrid, start: Vec2, goal: Vec2) -> Result<Self, WorldPositionError> {
        let start_cell = nav
            .world_to_cell(start)
            .ok_or(WorldPositionError::StartOutsideGrid(start))?;
        let goal_cell = nav
            .world_to_cell(goal)
            .ok_or(WorldPositionError::GoalOutsideGrid(goal))?;
        Ok(Self::new(start_cell, goal_cell))
    }

    /// Sets the search options.
    #[must_use]
    pub const fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the algorithm.
    #[must_use]
    pub const fn with_algorithm(mut self, algorithm: PathAlgorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Turns waypoint smoothing on or off.
    #[must_use]
    pub const fn with_smoothing(mut self, smoothing: bool) -> Self {
        self.smoothing = smoothing;
        self
    }

    /// Sets [`PathRequest::start_at_agent`]: searches start from the cell the agent stands on.
    #[must_use]
    pub const fn with_start_at_agent(mut self, start_at_agent: bool) -> Self {
        self.start_at_agent = start_at_agent;
        self
    }

    /// Sets [`PathRequest::profile`].
    #[must_use]
    pub const fn with_profile(mut self, profile: ProfileId) -> Self {
        self.profile = profile;
        self
    }

    /// Sets [`PathRequest::size`].
    #[must_use]
    pub const fn with_size(mut self, size: u8) -> Self {
        self.size = size;
        self
    }

    /// Sets [`PathRequest::first_cells_fast`]: with [`PathAlgorithm::Hierarchical`], the agent
    /// walks the first cells of its path while the rest is searched.
    ///
    /// ```
    /// use bevy_astar::prelude::*;
    ///
    /// let request = PathRequest::new(Cell::new(0, 0), Cell::new(4000, 3000))
    ///     .with_algorithm(PathAlgorithm::Hierarchical)
    ///     .with_first_cells_fast(true);
    /// assert!(request.first_cells_fast);
    /// ```
    #[must_use]
    pub const fn with_first_cells_fast(mut self, first_cells_fast: bool) -> Self {
        self.first_cells_fast = first_cells_fast;
        self
    }
}

impl KindKey {
    /// The kind of `request`.
    pub(crate) const fn of(request: &PathRequest) -> Self {
        Self {
            profile: request.profile,
            size: request.size,
        }
    }
}

/// Per-agent bookkeeping of the request systems.
#[derive(Component, Debug, Default)]
pub(crate) struct PathRequestState {
    /// The agent's place in the queue while it waits for dispatch.
    pub queued: Option<u64>,
    /// The queue place the agent was served at when it was sent to a running search: that
    /// search's answer is the one it waits for. Served again (its request written again
    /// meanwhile), it waits for the later search's answer only.
    pub searching_for: Option<u64>,
    /// When the agent's last search started ([`Time::elapsed`]).
    pub last_search: Option<Duration>,
    /// The result currently shown in the agent's [`Path`], checked against map changes; set
    /// through [`PathRequestState::set_applied`].
    pub applied: Option<Arc<SearchOutcome>>,
    /// The applied result's path when it found one, as invalidation reads it: kept here,
    /// beside the other agents' in the component's storage, so that the scan of a map change
    /// rules out most paths by their footprint, and checks the rest in the agent's [`Path`],
    /// without reading their results.
    pub found: Option<FoundPath>,
    /// The map version and the agent kind of the applied result, kept here for the same reason:
    /// the scan of a map change reads them for every agent.
    pub applied_on: Option<(NavVersion, KindKey)>,
    /// A found path that a map change cut: repaired rather than searched again when the agent
    /// is dispatched, if it still fits the request.
    pub cut_path: Option<Arc<SearchOutcome>>,
    /// The movement rule the request asked for before a hexagonal map replaced it with
    /// [`Movement::HEX`](astar_grid::Movement::HEX), given back on a map of another shape.
    pub requested_movement: Option<Movement>,
    /// Whether the agent was queued again to move from an A* path onto its goal's sector routes
    /// ([`queue_agents_onto_routes`](crate::invalidate::queue_agents_onto_routes)), and has not
    /// shown a hierarchical answer since: it is not queued so again.
    pub moved_onto_routes: bool,
}

impl PathRequestState {
    /// Whether the agent takes the answer of the search it was sent to at queue place
    /// `sequence`: it still waits for that search, or it has been queued again and not served
    /// yet (an answer that still matches its request then serves it).
    pub(crate) fn awaits(&self, sequence: u64) -> bool {
        self.queued.is_some() || self.searching_for == Some(sequence)
    }

    /// Records the result shown in the agent's [`Path`] (`None` while a new one is coming);
    /// returns the previous one, for [`RetiredOutcomes`](crate::outcome::RetiredOutcomes).
    #[must_use = "retire the previous outcome"]
    pub(crate) fn set_applied(
        &mut self,
        outcome: Option<Arc<SearchOutcome>>,
    ) -> Option<Arc<SearchOutcome>> {
        self.found = outcome.as_ref().and_then(|outcome| {
            outcome.found_footprint().map(|footprint| FoundPath {
                footprint,
                movement: outcome.options.movement,
                address: cells_address(&outcome.cells),
            })
        });
        self.applied_on = outcome
            .as_ref()
            .map(|outcome| (outcome.map_version, outcome.kind));
        core::mem::replace(&mut self.applied, outcome)
    }
}

/// An agent's found path as invalidation reads it: its footprint, its movement rule, and the
/// address its cells start at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FoundPath {
    /// Where the path and the corners of its diagonal steps lie.
    pub footprint: PathFootprint,
    /// The movement rule the path was searched under.
    pub movement: Movement,
    /// Where the outcome's cells start. The outcome is held while this is kept, so no other
    /// allocation can start there: a [`Path`] whose cells start there shows exactly them.
    address: usize,
}

impl FoundPath {
    /// The found path's cells, read from `path` while it still shows them (`None` once it
    /// shows others, which a user may have written).
    pub(crate) fn shown_in<'a>(&self, path: &'a Path) -> Option<&'a [Cell]> {
        let cells = path.own_cells();
        (cells_address(cells) == self.address).then_some(cells)
    }
}

/// The address `cells` start at.
fn cells_address(cells: &[Cell]) -> usize {
    cells.as_ptr() as usize
}

/// Makes `request` search again from `anchor`, where the agent stands (from wherever it stands
/// with [`PathRequest::start_at_agent`]).
pub(crate) fn search_again_from(request: &mut Mut<'_, PathRequest>, anchor: Option<Cell>) {
    match anchor {
        Some(anchor) if !request.start_at_agent && anchor != request.start => {
            request.start = anchor;
        }
        _ => request.set_changed(),
    }
}
