//! The flow field engine, for [`PathAlgorithm::FlowField`](crate::PathAlgorithm::FlowField)
//! requests, and the store of goals' shared trees: fields (the core's [`GoalTree`], 5 bytes a
//! cell), one per goal, movement rule, cost model and agent kind, built and updated in the
//! background, and kept while a request needs them or an agent holds a route on them, within
//! [`PathfindingSettings::max_flow_fields`]. A flow-field request's path is read off its field;
//! a goal's crowd gets routes on it ([`crate::goal_tree`]), and each finished build or update
//! is published to them. It honours every request whose start and goal are valid (a bad one
//! fails at dispatch, as no field could answer it); the heuristic, weight, window and limits do
//! not apply, and it records no trace.

use super::goal_batch::GoalBatches;
use super::{EngineAnswer, SearchJob};
use crate::background::{BackgroundTask, MainThreadWork, Placement, slice_point};
use crate::goal_tree::{ChangedCells, PublishedTree, RouteTree, SharedTree};
use crate::kinds::KindKey;
use crate::map::{
    AgentLayers, CellGeometry, CrowdCostLayer, CrowdCosts, CrowdLayerChange, same_layer,
};
use crate::{
    NavChange, NavChanged, NavGrid, NavVersion, Path, PathAlgorithm, PathFound, PathRequest,
    PathfindingSettings, PathfindingStats, TerrainProfiles,
};
use astar_grid::{
    Cell, CostModel, FlowField, FlowFieldError, GoalTree, Grid, Movement, SearchOptions,
    SearchResult, SearchStats, SearchStatus, TreeGrowth,
};
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use std::sync::Arc;

/// What makes two requests share a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FieldKey {
    goal: Cell,
    movement: Movement,
    /// The cost model by value (it holds no floats).
    cost: CostModel,
    /// The agent kind, whose grid the field is built on.
    kind: KindKey,
}

impl FieldKey {
    /// The field that answers requests for `goal` under `movement` and `cost`, for agents of
    /// `kind`.
    pub(crate) const fn new(
        goal: Cell,
        movement: Movement,
        cost: CostModel,
        kind: KindKey,
    ) -> Self {
        Self {
            goal,
            movement,
            cost,
            kind,
        }
    }

    /// The field that answers `job`.
    pub(crate) const fn of_job(job: &SearchJob) -> Self {
        Self::new(job.goal, job.options.movement, job.options.cost, job.kind)
    }

    /// The agent kind whose grid the field is built on.
    pub(crate) const fn kind(&self) -> KindKey {
        self.kind
    }

    /// The goal.
    pub(crate) const fn goal(&self) -> Cell {
        self.goal
    }

    /// The search options of the field's movement rule and cost model.
    pub(crate) fn options(&self) -> SearchOptions {
        SearchOptions {
            movement: self.movement,
            cost: self.cost,
            ..SearchOptions::default()
        }
    }
}

/// A field and the grid snapshot it matches.
struct ReadyField {
    field: Arc<GoalTree>,
    snapshot: Arc<Grid>,
    /// The [`NavGrid::id`] of the grid the snapshot was taken of: a field of another grid is
    /// never updated, only built anew.
    grid_id: u64,
    /// The map version of `snapshot`.
    map_version: NavVersion,
    /// The box of the cells whose change made this field out of the one before; `None` for a
    /// whole build.
    changed: Option<ChangedCells>,
    /// The crowd's cost layer the field weighs, added to `snapshot`'s costs.
    crowd: Option<Arc<CrowdCostLayer>>,
}

/// A build or update running in the background, on `snapshot`.
struct FieldBuild {
    task: BackgroundTask<Result<BuiltField, FlowFieldError>>,
    snapshot: Arc<Grid>,
    grid_id: u64,
    /// The map version of `snapshot`.
    map_version: NavVersion,
    incremental: bool,
    /// The crowd's cost layer the build weighs.
    crowd: Option<Arc<CrowdCostLayer>>,
}

/// What a background build or update gives back.
struct BuiltField {
    field: GoalTree,
    /// The box of the cells an update redid from (the cells whose crowd cost changed
    /// included, which only the task works out); `None` for a whole build.
    changed: Option<ChangedCells>,
}

/// What bringing a field up to date starts from: the field, the map's changed cells since it
/// was built and the ends of its changed links, and the move of the crowd's cost layer since,
/// whose cells change too.
struct FieldUpdate {
    field: Arc<GoalTree>,
    cells: Vec<Cell>,
    ends: Vec<Cell>,
    crowd: Option<Arc<CrowdLayerChange>>,
}

/// Everything kept for one field.
#[derive(Default)]
struct FieldSlot {
    /// The newest finished field.
    ready: Option<ReadyField>,
    /// The build running now.
    building: Option<FieldBuild>,
    /// Map changes since the snapshot of the newest field (finished or building).
    changes: Vec<Arc<NavChange>>,
    /// The [`FlowFields::frame`] in which a request last asked for the field.
    last_used: u64,
    /// The field's versions as the agents on it read them, when it is a goal's shared tree:
    /// each finished build or update is published to it.
    shared: Arc<SharedTree>,
    /// Whether agents were given routes on the field: map changes then update it at once,
    /// without waiting for a request, and it is kept while an agent holds a route on it.
    serves_routes: bool,
}

impl FieldSlot {
    /// Whether an agent's path holds a route on the field.
    fn has_routes(&self) -> bool {
        Arc::strong_count(&self.shared) > 1
    }

    /// Publishes the finished field to the agents on it, unless it is the version they read.
    fn publish(&self, key: FieldKey, geometry: CellGeometry) {
        let Some(ready) = &self.ready else {
            return;
        };
        let published = self.shared.current();
        if published
            .is_some_and(|tree| tree.tree.is_goal_tree(&ready.field) && tree.geometry == geometry)
        {
            return;
        }
        self.shared.publish(PublishedTree {
            tree: RouteTree::Goal(Arc::clone(&ready.field)),
            grid: Arc::clone(&ready.snapshot),
            map_version: ready.map_version,
            geometry,
            size: key.kind.size,
            complete: true,
            changed: ready.changed,
            crowd: ready.crowd.clone().map(|crowd| (crowd, key.cost)),
        });
    }
}

/// What building or updating a field needs of the frame: the navigation grid and its version,
/// where the work runs, and the most fields held.
#[derive(Clone, Copy)]
pub(crate) struct FieldContext<'a> {
    pub nav: &'a NavGrid,
    pub version: NavVersion,
    pub placement: Placement<'a>,
    pub capacity: usize,
}

/// What a goal's group of requests gets of its shared tree this frame.
pub(crate) enum TreeLookup {
    /// The tree matches the current grid: give the agents routes on it.
    Ready(Arc<SharedTree>),
    /// The tree is being built or updated: the group waits for it. A first build publishes
    /// the part it has settled as it goes: the agents whose start it reaches take their routes
    /// on it at once.
    Pending(Arc<SharedTree>),
    /// No tree can be held: the group is searched as a goal batch.
    Full,
}

/// What a request for a field gets this frame.
pub(crate) enum FieldLookup {
    /// The field matches the current grid: read the path from it.
    Ready(Arc<GoalTree>),
    /// The field is being built or updated; ask again next frame.
    Pending,
    /// The field is not held, and [`PathfindingSettings::max_flow_fields`] fields are, none of
    /// which can be let go of this frame: the request is searched alone instead.
    Full,
}

/// Map changes kept for one field's next incremental update; past this many it is built anew.
const MOST_CHANGES_KEPT: usize = 64;

/// Runs of [`release_flow_fields`] without a sweep after which it sweeps anyway, so that agents
/// whose removal it did not see (a schedule that runs less often than frames) are noticed.
const RUNS_BETWEEN_SWEEPS: u32 = 60;

/// The flow fields in use.
#[derive(Resource, Default)]
pub(crate) struct FlowFields {
    slots: HashMap<FieldKey, FieldSlot>,
    /// Counts the runs of [`release_flow_fields`], once a frame after dispatch (it moves on at
    /// the end of the run): the clock of least recent use.
    frame: u64,
    /// Fields let go of since the statistics last counted them ([`FlowFields::take_dropped`]).
    dropped_since_counted: usize,
    /// Runs of [`release_flow_fields`] since its last sweep.
    runs_since_sweep: u32,
    /// Shared trees published anew since [`announce_route_changes`] last ran, after the
    /// version their agents were given.
    updated_trees: Vec<Arc<SharedTree>>,
    /// The agents whose request a goal's tree could answer, per goal, as last counted
    /// ([`RUNS_BETWEEN_SWEEPS`] runs apart): a goal its agents reach a few at a time shares
    /// a tree once enough of them are about.
    agents_per_goal: HashMap<FieldKey, usize>,
    /// Whether a goal without a tree was asked for by fewer agents than make it share one
    /// since the last count: only then are the requests counted again.
    count_wanted: bool,
    /// The most agents the last count found for one goal.
    most_counted: usize,
    /// The crowd's cost layer that the shared trees weigh ([`CrowdCosts`]), as of the last
    /// [`poll_flow_fields`].
    crowd: Option<Arc<CrowdCostLayer>>,
    /// The latest move between two crowd cost layers that an update started with: the trees
    /// updated for the same move share it, and its cells are worked out once.
    crowd_change: Option<Arc<CrowdLayerChange>>,
}

impl FlowFields {
    /// Counts `updated`, a goal's routes a map change updated, for
    /// [`announce_route_changes`].
    pub(crate) fn note_updated(&mut self, updated: Option<Arc<SharedTree>>) {
        self.updated_trees.extend(updated);
    }

    /// The field for `key` if it matches `grid`, the current grid of the key's agent kind;
    /// otherwise starts building (or updating) it unless a build is running already.
    ///
    /// A field not held yet is made room for within `capacity`: the least recently asked for
    /// of those no request asked for this frame is let go of (a finished one before one being
    /// built). When every field held was asked for this frame, the answer is
    /// [`FieldLookup::Full`], and nothing is started.
    pub(crate) fn request(
        &mut self,
        key: FieldKey,
        grid: &Arc<Grid>,
        context: FieldContext<'_>,
        stats: &mut PathfindingStats,
    ) -> FieldLookup {
        self.request_for(key, grid, (context, false), stats)
    }

    /// [`FlowFields::request`], marking the field as one agents hold routes on when
    /// `for_routes` is set (before a build starts, so that a first build publishes what it
    /// has settled as it goes).
    fn request_for(
        &mut self,
        key: FieldKey,
        grid: &Arc<Grid>,
        (context, for_routes): (FieldContext<'_>, bool),
        stats: &mut PathfindingStats,
    ) -> FieldLookup {
        let capacity = context.capacity;
        let room = |fields: &mut Self| capacity > 0 && fields.make_room(capacity - 1, true);
        if !self.slots.contains_key(&key) && !room(self) {
            stats.flow_field_fallbacks += 1;
            return FieldLookup::Full;
        }
        let slot = self.slots.entry(key).or_default();
        slot.last_used = self.frame;
        slot.serves_routes |= for_routes;
        if let Some(ready) = &slot.ready
            && Arc::ptr_eq(&ready.snapshot, grid)
        {
            return FieldLookup::Ready(Arc::clone(&ready.field));
        }
        if slot.building.is_none() {
            let crowd = for_routes.then_some(self.crowd.as_ref()).flatten();
            let grids = (grid, crowd, &mut self.crowd_change);
            slot.building = Some(start_build(key, slot, grids, context, stats));
            slot.changes.clear();
        }
        stats.flow_fields = self.slots.len();
        FieldLookup::Pending
    }

    /// The shared tree of `key`'s goal, for a group of requests to be given routes on it: as
    /// [`FlowFields::request`], marking the field as one agents hold routes on.
    pub(crate) fn request_tree(
        &mut self,
        key: FieldKey,
        grid: &Arc<Grid>,
        context: FieldContext<'_>,
        stats: &mut PathfindingStats,
    ) -> TreeLookup {
        let lookup = self.request_for(key, grid, (context, true), stats);
        let Some(slot) = self.slots.get_mut(&key) else {
            return TreeLookup::Full;
        };
        match lookup {
            FieldLookup::Ready(_) => {
                slot.publish(key, context.nav.geometry());
                TreeLookup::Ready(Arc::clone(&slot.shared))
            }
            FieldLookup::Pending => TreeLookup::Pending(Arc::clone(&slot.shared)),
            FieldLookup::Full => TreeLookup::Full,
        }
    }

    /// Whether `key`'s goal has a shared tree that agents hold routes on: later requests for
    /// the goal join it, however few.
    pub(crate) fn serves_routes(&self, key: &FieldKey) -> bool {
        self.slots
            .get(key)
            .is_some_and(|slot| slot.serves_routes && slot.has_routes())
    }

    /// How many agents' requests `key`'s tree could answer, as last counted.
    pub(crate) fn agents_for(&self, key: &FieldKey) -> usize {
        self.agents_per_goal.get(key).copied().unwrap_or(0)
    }

    /// Whether the last count found a goal with `enough` agents or more.
    pub(crate) const fn counted_any(&self, enough: usize) -> bool {
        self.most_counted >= enough
    }

    /// Whether agents hold routes on some tree.
    pub(crate) fn serves_any(&self) -> bool {
        self.slots.values().any(|slot| slot.serves_routes)
    }

    /// Has the requests counted again at the next count: a goal with too few agents gathered
    /// in a frame to share a tree asked.
    pub(crate) fn want_count(&mut self) {
        self.count_wanted = true;
    }

    /// Starts updating every shared tree agents hold routes on that no longer matches its
    /// kind's grid (a map change went past it) or the crowd's cost layer, so that the agents
    /// read the new routes as soon as it finishes, without asking.
    fn refresh_trees(
        &mut self,
        context: FieldContext<'_>,
        (layers, profiles): (&mut AgentLayers, &TerrainProfiles),
        stats: &mut PathfindingStats,
    ) {
        for (key, slot) in &mut self.slots {
            if !slot.serves_routes || slot.building.is_some() || !slot.has_routes() {
                continue;
            }
            let Ok(grid) = layers.grid_for(key.kind, context.nav, profiles) else {
                continue;
            };
            let crowd = self.crowd.as_ref();
            let current = slot.ready.as_ref().is_some_and(|ready| {
                Arc::ptr_eq(&ready.snapshot, &grid.snapshot)
                    && same_layer(ready.crowd.as_ref(), crowd)
            });
            if !current {
                let grids = (&grid.snapshot, crowd, &mut self.crowd_change);
                slot.building = Some(start_build(*key, slot, grids, context, stats));
                slot.changes.clear();
            }
        }
    }

    /// Records a published map change, so that the next build updates each field instead of
    /// building it anew. A field that a whole-map change, or more than
    /// [`MOST_CHANGES_KEPT`] changes, went past is let go of instead (and a build running for it
    /// dropped): the next request builds it anew, and a field nobody asks for meanwhile keeps
    /// no growing list.
    pub(crate) fn invalidate(&mut self, changed: &NavChanged) {
        for (key, slot) in &mut self.slots {
            let Some(change) = changed.change_for_kind(key.kind) else {
                continue;
            };
            if change.is_whole_map() || slot.changes.len() >= MOST_CHANGES_KEPT {
                slot.ready = None;
                slot.building = None;
                slot.changes.clear();
            } else {
                slot.changes.push(Arc::clone(change));
            }
        }
    }

    /// Lets go of the least recently asked for fields until at most `most` are held, finished
    /// fields before those being built (dropping a build cancels it), and sparing those asked
    /// for this frame when `spare_asked_for` is set; returns whether that many or fewer are held
    /// now. What it lets go of is counted until [`FlowFields::take_dropped`].
    fn make_room(&mut self, most: usize, spare_asked_for: bool) -> bool {
        if self.slots.len() <= most {
            return true;
        }
        let mut by_use: Vec<(bool, u64, FieldKey)> = self
            .slots
            .iter()
            .filter(|(_, slot)| !spare_asked_for || slot.last_used < self.frame)
            // A tree agents hold routes on stays: they would read it unchanged ever after.
            .filter(|(_, slot)| !slot.has_routes())
            .map(|(key, slot)| (slot.building.is_some(), slot.last_used, *key))
            .collect();
        by_use.sort_unstable_by_key(|&(building, last_used, _)| (building, last_used));
        let excess = self.slots.len() - most;
        for (_, _, key) in by_use.into_iter().take(excess) {
            self.slots.remove(&key);
            self.dropped_since_counted += 1;
        }
        self.slots.len() <= most
    }

    /// Drops the fields (finished or building) that no request in `needed` answers to, then
    /// the least recently asked for beyond `capacity` ([`FlowFields::make_room`]), sparing
    /// those asked for this frame unless they alone outnumber `capacity` (it was lowered).
    fn release(&mut self, needed: &HashSet<FieldKey>, capacity: usize) {
        let before = self.slots.len();
        let frame = self.frame;
        // A tree being built for a waiting group is asked for every frame until it is ready.
        self.slots.retain(|key, slot| {
            needed.contains(key)
                || slot.has_routes()
                || (slot.serves_routes && slot.last_used == frame)
        });
        self.dropped_since_counted += before - self.slots.len();
        if !self.make_room(capacity, true) {
            self.make_room(capacity, false);
        }
    }

    /// Writes into `stats` the fields held, the trees among them and their bytes.
    fn count_into(&self, stats: &mut PathfindingStats) {
        stats.flow_fields = self.slots.len();
        stats.goal_trees = self.trees();
        stats.flow_field_bytes = self.bytes();
    }

    /// Bytes held by the finished fields.
    fn bytes(&self) -> usize {
        self.slots
            .values()
            .filter_map(|slot| slot.ready.as_ref())
            .map(|ready| ready.field.memory_bytes())
            .sum()
    }

    /// How many of the fields held are shared trees that agents hold routes on.
    fn trees(&self) -> usize {
        self.slots.values().filter(|slot| slot.has_routes()).count()
    }

    /// How many fields were let go of since it was last asked.
    fn take_dropped(&mut self) -> u64 {
        core::mem::take(&mut self.dropped_since_counted) as u64
    }

    /// Starts a new frame of the clock of least recent use: fields asked for before it may be
    /// let go of to make room.
    fn next_frame(&mut self) {
        self.frame += 1;
    }

    /// Number of fields held, finished or building.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

/// The options under which A* answers a flow-field request as its field would
/// ([`FieldLookup::Full`]): an optimal path under the same movement rule and cost model, the
/// closest reachable cell when asked for, and no heuristic weight, window, limit or partial
/// path, none of which a field honours.
pub(crate) fn options_of_a_field(options: SearchOptions) -> SearchOptions {
    SearchOptions {
        movement: options.movement,
        cost: options.cost,
        closest_reachable: options.closest_reachable,
        ..SearchOptions::default()
    }
}

/// The field `request` reads its path from, if it is a flow-field request.
fn field_of(request: &PathRequest) -> Option<FieldKey> {
    (request.algorithm == PathAlgorithm::FlowField).then(|| {
        FieldKey::new(
            request.goal,
            request.options.movement,
            request.options.cost,
            KindKey::of(request),
        )
    })
}

/// Starts a background build of `key`'s field on `current`, its kind's grid now, with the
/// crowd's cost layer `crowd` added: an incremental update of the slot's field when only known
/// cells changed since its snapshot (the cells whose crowd cost changed included, worked out in
/// the background once for every tree making the same move, kept in `latest_change`), a full
/// build otherwise.
fn start_build(
    key: FieldKey,
    slot: &FieldSlot,
    (current, crowd, latest_change): (
        &Arc<Grid>,
        Option<&Arc<CrowdCostLayer>>,
        &mut Option<Arc<CrowdLayerChange>>,
    ),
    context: FieldContext<'_>,
    stats: &mut PathfindingStats,
) -> FieldBuild {
    let FieldContext {
        nav,
        version,
        placement,
        ..
    } = context;
    let snapshot = Arc::clone(current);
    let grid = Arc::clone(&snapshot);
    let mut update = incremental_update(key, slot, nav);
    let crowd = crowd.cloned();
    if let Some(update) = &mut update {
        let before = slot.ready.as_ref().and_then(|ready| ready.crowd.as_ref());
        update.crowd = CrowdLayerChange::between(latest_change, before, crowd.as_ref());
    }
    let incremental = update.is_some();
    if incremental {
        stats.flow_fields_updated += 1;
    } else {
        stats.flow_fields_built += 1;
    }
    // A tree no agent reads yet shows what its first build has settled as it goes.
    let partial = (slot.serves_routes && slot.shared.current().is_none()).then(|| PartialTree {
        shared: Arc::clone(&slot.shared),
        map_version: version,
        geometry: nav.geometry(),
        size: key.kind.size,
    });
    let grids = (grid, crowd.clone());
    let task = BackgroundTask::spawn(build_field(key, grids, update, partial), placement);
    FieldBuild {
        task,
        snapshot,
        grid_id: nav.id(),
        map_version: version,
        incremental,
        crowd,
    }
}

/// The slot's finished field and the map's cells changed since its snapshot, if it can be
/// brought up to date: it was built on `nav`, and no change since (published, or for the
/// navigation grid still pending) covers the whole map. The crowd's move is left for the
/// caller.
fn incremental_update(key: FieldKey, slot: &FieldSlot, nav: &NavGrid) -> Option<FieldUpdate> {
    let ready = slot
        .ready
        .as_ref()
        .filter(|ready| ready.grid_id == nav.id())?;
    let mut changes: Vec<&NavChange> = slot.changes.iter().map(Arc::as_ref).collect();
    // Derived grids change only when changes are published; the navigation grid holds the
    // edits not published yet.
    let pending = if key.kind.is_default() {
        nav.pending_changes()
    } else {
        NavChange::default()
    };
    changes.push(&pending);
    if changes.iter().any(|change| change.is_whole_map()) {
        return None;
    }
    let cells: HashSet<Cell> = changes
        .iter()
        .flat_map(|change| change.cells().map(|changed| changed.cell))
        .collect();
    let ends: HashSet<Cell> = changes
        .iter()
        .flat_map(|change| change.link_ends())
        .collect();
    Some(FieldUpdate {
        field: Arc::clone(&ready.field),
        cells: cells.into_iter().collect(),
        ends: ends.into_iter().collect(),
        crowd: None,
    })
}

/// Where a first build of a goal's tree publishes what it has settled as it goes.
struct PartialTree {
    shared: Arc<SharedTree>,
    map_version: NavVersion,
    geometry: CellGeometry,
    size: u8,
}

/// Slices of a first build between two publications of what it has settled
/// ([`PartialTree`]): each copies the tree.
const SLICES_BETWEEN_PARTIAL_TREES: u32 = 8;

/// Builds `key`'s field on `grid` with the crowd's cost layer added, a slice of cells at a time
/// (publishing what it has settled to `partial` every [`SLICES_BETWEEN_PARTIAL_TREES`] slices),
/// or brings the field of `update` up to date for its changed cells.
async fn build_field(
    key: FieldKey,
    (grid, crowd): (Arc<Grid>, Option<Arc<CrowdCostLayer>>),
    update: Option<FieldUpdate>,
    partial: Option<PartialTree>,
) -> Result<BuiltField, FlowFieldError> {
    // The tree is grown on the crowded costs; routes read off it are priced on `grid`.
    let crowded = crowd.as_ref().and_then(|crowd| crowd.apply(&grid));
    let weighed = crowded.as_ref().unwrap_or(&grid);
    if let Some(FieldUpdate {
        field,
        mut cells,
        ends,
        crowd,
    }) = update
    {
        if let Some(change) = crowd {
            cells.extend_from_slice(change.cells());
        }
        let changed = ChangedCells::of(&cells, &ends);
        let mut field = Arc::unwrap_or_clone(field);
        cells.extend_from_slice(&ends);
        field.update(weighed, &cells)?;
        return Ok(BuiltField { field, changed });
    }
    let mut growth = TreeGrowth::new(weighed, &[key.goal], key.movement, key.cost)?;
    let mut slices = 0;
    while !growth.advance(FlowField::PROCEED_INTERVAL) {
        slices += 1;
        if let Some(partial) = partial
            .as_ref()
            .filter(|_| slices % SLICES_BETWEEN_PARTIAL_TREES == 0)
        {
            partial.shared.publish(PublishedTree {
                tree: RouteTree::Goal(Arc::new(growth.settled_so_far())),
                grid: Arc::clone(&grid),
                map_version: partial.map_version,
                geometry: partial.geometry,
                size: partial.size,
                complete: false,
                changed: None,
                crowd: crowd.clone().map(|crowd| (crowd, key.cost)),
            });
        }
        slice_point().await;
    }
    Ok(BuiltField {
        field: growth.finish(),
        changed: None,
    })
}

/// Applies this frame's [`NavChanged`] messages to the flow fields.
pub(crate) fn invalidate_flow_fields(
    mut changes: MessageReader<NavChanged>,
    mut fields: ResMut<FlowFields>,
) {
    for message in changes.read() {
        fields.invalidate(message);
    }
}

/// Lets go of the flow fields no agent's request needs any more, and of the least recently
/// used beyond [`PathfindingSettings::max_flow_fields`]. It reads the requests only in frames
/// in which one changed or went away, or the fields outnumber the setting, and every
/// [`RUNS_BETWEEN_SWEEPS`] runs.
pub(crate) fn release_flow_fields(
    settings: Res<PathfindingSettings>,
    mut fields: ResMut<FlowFields>,
    mut stats: ResMut<PathfindingStats>,
    changed: Query<(), Changed<PathRequest>>,
    mut removed: RemovedComponents<PathRequest>,
    requests: Query<&PathRequest>,
) {
    let departed = removed.read().count() > 0;
    let over_capacity = fields.len() > settings.max_flow_fields;
    fields.runs_since_sweep += 1;
    let due = fields.runs_since_sweep >= RUNS_BETWEEN_SWEEPS;
    if due && settings.shared_goal_min_agents > 0 && fields.count_wanted {
        fields.count_wanted = false;
        fields.agents_per_goal = agents_per_goal(&requests);
        fields.most_counted = fields.agents_per_goal.values().copied().max().unwrap_or(0);
    }
    if fields.len() > 0 && (departed || over_capacity || due || !changed.is_empty()) {
        fields.runs_since_sweep = 0;
        let needed = fields_needed(&requests);
        fields.release(&needed, settings.max_flow_fields);
    }
    // Those let go of to make room in this frame's dispatch, and in the sweep.
    stats.flow_fields_dropped += fields.take_dropped();
    fields.count_into(&mut stats);
    // After the sweep, which spares the fields asked for in this frame's dispatch.
    fields.next_frame();
}

/// The fields the requests of `requests` read from.
fn fields_needed(requests: &Query<&PathRequest>) -> HashSet<FieldKey> {
    let mut needed = HashSet::new();
    let mut last = None;
    for key in requests.iter().filter_map(field_of) {
        // Agents sent to one goal usually come one after another: most inserts are skipped.
        if last != Some(key) {
            needed.insert(key);
            last = Some(key);
        }
    }
    needed
}

/// What [`poll_flow_fields`] reads besides the fields: the map, and what updating the shared
/// trees needs.
#[derive(SystemParam)]
pub(crate) struct FieldUpkeep<'w> {
    nav: Option<Res<'w, NavGrid>>,
    version: Res<'w, NavVersion>,
    settings: Res<'w, PathfindingSettings>,
    crowd: Res<'w, CrowdCosts>,
    work: Res<'w, MainThreadWork>,
    layers: ResMut<'w, AgentLayers>,
    profiles: Res<'w, TerrainProfiles>,
}

/// The agents of `requests` whose answer a goal's tree could give (optimal A* and jump point
/// requests, as [`GoalBatches::accepts`] takes them), counted per goal, movement rule, cost
/// model and agent kind.
fn agents_per_goal(requests: &Query<&PathRequest>) -> HashMap<FieldKey, usize> {
    let mut counts = HashMap::new();
    let mut run: Option<(FieldKey, usize)> = None;
    for request in requests {
        if !GoalBatches::accepts_options(request.algorithm, &request.options) {
            continue;
        }
        let key = FieldKey::new(
            request.goal,
            request.options.movement,
            request.options.cost,
            KindKey::of(request),
        );
        // Agents sent to one goal usually come one after another: one count per run of them.
        match &mut run {
            Some((last, count)) if *last == key => *count += 1,
            _ => {
                if let Some((last, count)) = run.replace((key, 1)) {
                    *counts.entry(last).or_insert(0) += count;
                }
            }
        }
    }
    if let Some((last, count)) = run {
        *counts.entry(last).or_insert(0) += count;
    }
    counts
}

/// Collects finished field builds, so that waiting requests read them in this frame's dispatch,
/// and publishes each to the agents holding routes on it; then starts updating the shared
/// trees a map change went past.
pub(crate) fn poll_flow_fields(
    mut fields: ResMut<FlowFields>,
    mut stats: ResMut<PathfindingStats>,
    mut upkeep: FieldUpkeep,
) {
    let geometry = upkeep.nav.as_deref().map(NavGrid::geometry);
    let fields = &mut *fields;
    let updated = &mut fields.updated_trees;
    for (key, slot) in &mut fields.slots {
        let Some(result) = slot
            .building
            .as_mut()
            .and_then(|build| build.task.check_ready())
        else {
            continue;
        };
        let Some(FieldBuild {
            snapshot,
            grid_id,
            map_version,
            incremental,
            crowd,
            ..
        }) = slot.building.take()
        else {
            continue;
        };
        match result {
            Ok(BuiltField { field, changed }) => {
                slot.ready = Some(ReadyField {
                    field: Arc::new(field),
                    snapshot,
                    grid_id,
                    map_version,
                    changed,
                    crowd,
                });
                if let Some(geometry) = geometry.filter(|_| slot.serves_routes) {
                    let was_complete = slot.shared.current().is_some_and(|tree| tree.complete);
                    if was_complete && slot.has_routes() {
                        updated.push(Arc::clone(&slot.shared));
                    }
                    slot.publish(*key, geometry);
                }
            }
            Err(error) => {
                // The goal was checked on this snapshot, so only an inconsistent update lands
                // here; the next request builds the field from scratch.
                warn!(
                    "flow field {} failed ({error}); it will be rebuilt",
                    if incremental { "update" } else { "build" }
                );
                slot.ready = None;
            }
        }
    }
    fields.crowd.clone_from(&upkeep.crowd.layer);
    if let Some(nav) = upkeep.nav.as_deref() {
        let context = FieldContext {
            nav,
            version: *upkeep.version,
            placement: Placement {
                thread: upkeep.settings.search_thread,
                queue: &upkeep.work,
            },
            capacity: upkeep.settings.max_flow_fields,
        };
        let kinds = (&mut *upkeep.layers, &*upkeep.profiles);
        fields.refresh_trees(context, kinds, &mut stats);
    }
    fields.count_into(&mut stats);
}

/// Whether a goal's shared tree changed since the last announcement
/// ([`announce_route_changes`]'s run condition).
pub(crate) fn trees_updated(fields: Res<FlowFields>) -> bool {
    !fields.updated_trees.is_empty()
}

/// With [`PathfindingSettings::announce_shared_route_changes`], sends [`PathFound`] (a message
/// and an entity event) to every agent holding a route on a shared tree that a map change
/// updated this frame, all at once; without it, reads no agent. Runs only when a tree was
/// updated ([`trees_updated`]).
pub(crate) fn announce_route_changes(
    settings: Res<PathfindingSettings>,
    mut fields: ResMut<FlowFields>,
    agents: Query<(Entity, &Path)>,
    mut found: MessageWriter<PathFound>,
    mut commands: Commands,
) {
    let updated = core::mem::take(&mut fields.updated_trees);
    if !settings.announce_shared_route_changes {
        return;
    }
    let on_updated = |path: &Path| {
        path.shared_route()
            .is_some_and(|route| updated.iter().any(|tree| Arc::ptr_eq(tree, &route.tree)))
    };
    let changed: Vec<PathFound> = agents
        .iter()
        .filter(|(_, path)| on_updated(path))
        .map(|(entity, _)| PathFound { entity })
        .collect();
    for &event in &changed {
        commands.trigger(event);
    }
    found.write_batch(changed);
}

/// Whether `job`'s answer can be read off `field`, up to date with `grid`: the field reaches
/// its start, or it asks for no closest reachable cell (a start the field does not reach then
/// has no path). A start it does not reach with the closest reachable cell asked for is left to
/// A*, which finds that cell.
pub(super) fn answers(grid: &Grid, field: &GoalTree, job: &SearchJob) -> bool {
    !job.options.closest_reachable
        || (grid.is_walkable(job.goal) && field.cost_at(job.start).is_some())
}

/// Reads `job`'s path off `field`, up to date with `grid` ([`answers`] says when it can).
pub(super) fn run(grid: &Grid, field: &GoalTree, job: &SearchJob) -> EngineAnswer {
    let result = grid
        .check_endpoints(job.start, job.goal)
        .map(|()| field_result(field.path_from(grid, job.start).ok().flatten()));
    EngineAnswer {
        result,
        algorithm: PathAlgorithm::FlowField,
        cacheable: true,
    }
}

/// A path read off a flow field (or none), as a search result.
pub(crate) fn field_result(path: Option<astar_grid::Path>) -> SearchResult {
    let status = if path.is_some() {
        SearchStatus::Found
    } else {
        SearchStatus::NoPath
    };
    SearchResult {
        status,
        path,
        stats: SearchStats::default(),
        trace: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NavCellChange;
    use bevy::tasks::{AsyncComputeTaskPool, TaskPool};

    fn key(x: u32) -> FieldKey {
        FieldKey::new(
            Cell::new(x, 0),
            Movement::EIGHT,
            CostModel::Octile,
            KindKey::DEFAULT,
        )
    }

    /// A slot holding a finished field for `key` on `grid`, last asked for in `last_used`.
    fn ready_slot(grid: &Arc<Grid>, key: FieldKey, last_used: u64) -> FieldSlot {
        let field = GoalTree::build(grid, &[key.goal], key.movement, key.cost).expect("goal");
        FieldSlot {
            ready: Some(ReadyField {
                field: Arc::new(field),
                snapshot: Arc::clone(grid),
                grid_id: 1,
                map_version: NavVersion::default(),
                changed: None,
                crowd: None,
            }),
            last_used,
            ..FieldSlot::default()
        }
    }

    fn edit(x: u32) -> NavChange {
        NavChange::from_cells([NavCellChange {
            cell: Cell::new(x, 3),
            before: 1,
            after: 0,
        }])
    }

    #[test]
    fn a_field_nobody_asks_for_keeps_no_growing_list_of_changes() {
        let grid = Arc::new(Grid::new(8, 8));
        let mut fields = FlowFields::default();
        fields.slots.insert(key(0), ready_slot(&grid, key(0), 0));
        for step in 0..MOST_CHANGES_KEPT {
            fields.invalidate(&NavChanged::navigation_only(edit(step as u32 % 8)));
        }
        let slot = &fields.slots[&key(0)];
        assert!(slot.ready.is_some());
        assert_eq!(slot.changes.len(), MOST_CHANGES_KEPT);
        fields.invalidate(&NavChanged::navigation_only(edit(1)));
        let slot = &fields.slots[&key(0)];
        assert!(slot.ready.is_none() && slot.changes.is_empty());
        // A whole-map change lets go of the field at once.
        fields.slots.insert(key(1), ready_slot(&grid, key(1), 0));
        fields.invalidate(&NavChanged::navigation_only(NavChange::whole_map()));
        assert!(fields.slots[&key(1)].ready.is_none());
    }

    #[test]
    fn finished_fields_are_let_go_of_for_capacity_before_fields_being_built() {
        AsyncComputeTaskPool::get_or_init(TaskPool::default);
        let grid = Arc::new(Grid::new(8, 8));
        let mut fields = FlowFields {
            frame: 5,
            ..FlowFields::default()
        };
        // The least recently used slot is the one still being built.
        let building = FieldSlot {
            building: Some(FieldBuild {
                task: BackgroundTask::spawn(
                    core::future::pending(),
                    Placement {
                        thread: crate::SearchThread::TaskPool,
                        queue: &MainThreadWork::default(),
                    },
                ),
                snapshot: Arc::clone(&grid),
                grid_id: 1,
                map_version: NavVersion::default(),
                incremental: false,
                crowd: None,
            }),
            last_used: 0,
            ..FieldSlot::default()
        };
        fields.slots.insert(key(0), building);
        fields.slots.insert(key(1), ready_slot(&grid, key(1), 1));
        fields.slots.insert(key(2), ready_slot(&grid, key(2), 2));
        let needed: HashSet<FieldKey> = [key(0), key(1), key(2)].into_iter().collect();
        fields.release(&needed, 2);
        assert_eq!(fields.take_dropped(), 1);
        assert!(fields.slots.contains_key(&key(0)));
        assert!(!fields.slots.contains_key(&key(1)));
        // With room for one, the build goes too once no finished field is left to drop.
        fields.release(&needed, 1);
        assert_eq!(fields.take_dropped(), 1);
        assert!(fields.slots.contains_key(&key(0)));
        fields.release(&needed, 0);
        assert_eq!(fields.take_dropped(), 1);
        assert!(fields.slots.is_empty());
        // Fields no request needs go whatever the capacity.
        fields.slots.insert(key(1), ready_slot(&grid, key(1), 1));
        fields.slots.insert(key(2), ready_slot(&grid, key(2), 2));
        fields.release(&HashSet::new(), 10);
        assert_eq!(fields.take_dropped(), 2);
    }
}
