//! A goal's shared tree of ways to it as the agents on it read it: the newest version the
//! plugin published ([`SharedTree`]), what it is read off ([`RouteTree`]: a tree of shortest
//! paths over the map, or a view of the goal's sector field), and one agent's route on it
//! ([`SharedRoute`]), whose cells and waypoints are read from the tree on demand.

use crate::NavVersion;
use crate::map::{CellGeometry, CrowdCostLayer};
use astar_grid::{
    Cell, CostModel, GoalTree, Grid, Movement, SectorFieldView, SmoothingOptions, smooth_path_cells,
};
use bevy::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::sync::{Arc, PoisonError, RwLock};

/// What a goal's shared routes are read off: every cell's next step towards the goal and its
/// cost.
#[derive(Clone, Debug)]
pub(crate) enum RouteTree {
    /// A tree of shortest paths over the map (a goal's shared tree).
    Goal(Arc<GoalTree>),
    /// A view of the goal's sector field over the hierarchy, which answers for the sectors it
    /// measured (hierarchical requests).
    Sectors(Arc<SectorFieldView>),
}

impl RouteTree {
    /// The cell to step onto from `cell`, as the tree was made on its grid; `None` at the goal
    /// and where the tree does not reach the goal (or does not answer). Read without the grid,
    /// as a tree of shortest paths is: a version is published with the grid it was made on.
    pub(crate) fn next_step(&self, cell: Cell) -> Option<Cell> {
        match self {
            Self::Goal(tree) => tree.next_step(cell),
            Self::Sectors(view) => view.next_measured_step(cell),
        }
    }

    /// The cost from `cell` to the goal; `None` where the tree does not reach the goal from it
    /// (or does not answer there).
    pub(crate) fn cost_at(&self, cell: Cell) -> Option<f64> {
        match self {
            Self::Goal(tree) => tree.cost_at(cell),
            Self::Sectors(view) => view.cost_at(cell),
        }
    }

    /// The cells from `cell` to the goal along the tree on `grid`, and their cost; `None`
    /// where it does not reach the goal from `cell`.
    pub(crate) fn path_from(&self, grid: &Grid, cell: Cell) -> Option<astar_grid::Path> {
        match self {
            Self::Goal(tree) => tree.path_from(grid, cell).ok().flatten(),
            Self::Sectors(view) => view.path_from(grid, cell),
        }
    }

    /// The algorithm whose answers it gives.
    pub(crate) const fn algorithm(&self) -> crate::PathAlgorithm {
        match self {
            Self::Goal(_) => crate::PathAlgorithm::FlowField,
            Self::Sectors(_) => crate::PathAlgorithm::Hierarchical,
        }
    }

    /// Whether it is `tree`.
    pub(crate) fn is_goal_tree(&self, tree: &Arc<GoalTree>) -> bool {
        matches!(self, Self::Goal(own) if Arc::ptr_eq(own, tree))
    }
}

/// One version of a goal's tree, with what reading it needs.
#[derive(Debug)]
pub(crate) struct PublishedTree {
    /// The tree: every cell's next step towards the goal and its cost.
    pub tree: RouteTree,
    /// The grid of the agent kind the tree matches.
    pub grid: Arc<Grid>,
    /// The map version of `grid`.
    pub map_version: NavVersion,
    /// Where the cells lie in the world.
    pub geometry: CellGeometry,
    /// The size of the agent kind's footprint, for the waypoints' centres.
    pub size: u8,
    /// Whether the tree covers every cell that reaches the goal; a first build still
    /// growing publishes the cells it has settled, nearest the goal, whose routes are final.
    pub complete: bool,
    /// The cells whose change made this version out of the one before, as boxes; `None` when
    /// they are not known (a first or whole build): every route may have moved.
    pub changed: Option<ChangedCells>,
    /// The crowd's cost layer the tree weighs on top of `grid`'s costs, and the cost model of
    /// its steps.
    pub crowd: Option<(Arc<CrowdCostLayer>, CostModel)>,
}

/// A box of cells, both corners included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellBox {
    pub min: Cell,
    pub max: Cell,
}

impl CellBox {
    /// The box around `cells`; `None` when there are none.
    pub(crate) fn around(cells: impl IntoIterator<Item = Cell>) -> Option<Self> {
        cells.into_iter().fold(None, |found: Option<Self>, cell| {
            Some(found.map_or(
                Self {
                    min: cell,
                    max: cell,
                },
                |found| Self {
                    min: Cell::new(found.min.x.min(cell.x), found.min.y.min(cell.y)),
                    max: Cell::new(found.max.x.max(cell.x), found.max.y.max(cell.y)),
                },
            ))
        })
    }

    /// Whether the two boxes share a cell.
    pub(crate) const fn meets(&self, other: &Self) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }
}

/// The cells whose change made a version of a tree, as up to [`CHANGED_BOXES`] boxes: the box
/// of the cells edited, and a box for each end of the link changed, so that a door whose ends
/// lie far apart does not mark the map between them; with more links changed, one box round
/// them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChangedCells {
    boxes: [Option<CellBox>; CHANGED_BOXES],
}

/// Boxes a [`ChangedCells`] holds at most.
const CHANGED_BOXES: usize = 3;

impl ChangedCells {
    /// The change of `cells` and of the links whose ends are `ends`; `None` when there are
    /// none (the change is then not known).
    pub(crate) fn of(cells: &[Cell], ends: &[Cell]) -> Option<Self> {
        let mut boxes = [None; CHANGED_BOXES];
        if ends.len() < CHANGED_BOXES {
            boxes[0] = CellBox::around(cells.iter().copied());
            for (slot, &end) in boxes[1..].iter_mut().zip(ends) {
                *slot = CellBox::around([end]);
            }
        } else {
            boxes[0] = CellBox::around(cells.iter().chain(ends).copied());
        }
        boxes.iter().any(Option::is_some).then_some(Self { boxes })
    }

    /// The change of the cells of `changed`.
    #[cfg(test)]
    pub(crate) const fn of_box(changed: CellBox) -> Self {
        Self {
            boxes: [Some(changed), None, None],
        }
    }

    /// The boxes.
    pub(crate) fn boxes(&self) -> impl Iterator<Item = CellBox> + '_ {
        self.boxes.iter().flatten().copied()
    }

    /// Whether a changed cell may lie in `other`: one of the boxes meets it.
    pub(crate) fn meets(&self, other: &CellBox) -> bool {
        self.boxes().any(|changed| changed.meets(other))
    }
}

/// The newest version's number and changed cells, as a follower reads them every frame
/// without a lock: a sequence count, odd while a publication writes them.
#[derive(Debug)]
struct LatestChange {
    sequence: AtomicU64,
    /// `min.x`, `min.y`, `max.x`, `max.y` of each box of a [`ChangedCells`]; a `min.x` above
    /// `max.x` says there is no such box, and none at all that the change is not known.
    corners: [AtomicU32; 4 * CHANGED_BOXES],
}

impl Default for LatestChange {
    /// No version yet, its change not known.
    fn default() -> Self {
        Self {
            sequence: AtomicU64::new(0),
            corners: core::array::from_fn(|index| AtomicU32::new(u32::from(index % 4 == 0))),
        }
    }
}

impl LatestChange {
    /// Records the changed cells of the version being published; the caller holds the tree's
    /// write lock, so publications do not overlap.
    fn write(&self, changed: Option<ChangedCells>) {
        self.sequence.fetch_add(1, Ordering::AcqRel);
        let boxes = changed.map_or([None; CHANGED_BOXES], |changed| changed.boxes);
        for (slots, changed) in self.corners.chunks(4).zip(boxes) {
            let corners = changed.map_or([1, 0, 0, 0], |changed| {
                [changed.min.x, changed.min.y, changed.max.x, changed.max.y]
            });
            for (slot, value) in slots.iter().zip(corners) {
                slot.store(value, Ordering::Relaxed);
            }
        }
        self.sequence.fetch_add(1, Ordering::Release);
    }

    /// The newest version's number and changed cells; `None` while a publication writes them.
    fn read(&self) -> Option<(u64, Option<ChangedCells>)> {
        let before = self.sequence.load(Ordering::Acquire);
        if before % 2 == 1 {
            return None;
        }
        let corners = self
            .corners
            .each_ref()
            .map(|slot| slot.load(Ordering::Relaxed));
        fence(Ordering::Acquire);
        if self.sequence.load(Ordering::Relaxed) != before {
            return None;
        }
        let boxes = core::array::from_fn(|index| {
            let [min_x, min_y, max_x, max_y] =
                [0, 1, 2, 3].map(|corner| corners[index * 4 + corner]);
            (min_x <= max_x).then(|| CellBox {
                min: Cell::new(min_x, min_y),
                max: Cell::new(max_x, max_y),
            })
        });
        let changed = ChangedCells { boxes };
        Some((
            before / 2,
            changed.boxes().next().is_some().then_some(changed),
        ))
    }
}

/// The newest published version of one goal's tree, held by the plugin's store and by every
/// agent on it: publishing a new version is one write, whatever the number of agents.
#[derive(Debug, Default)]
pub(crate) struct SharedTree {
    current: RwLock<Option<Arc<PublishedTree>>>,
    /// The versions published (0 before the first), and the newest one's change box.
    latest: LatestChange,
}

impl SharedTree {
    /// Makes `tree` the version every agent on it reads from now on.
    pub(crate) fn publish(&self, tree: PublishedTree) {
        let changed = tree.changed;
        let replaced = self.swap(Some(Arc::new(tree)), true, changed);
        drop(replaced);
    }

    /// Makes `tree` the version read from now on without counting a new version: a version
    /// that answers alike wherever the one before answered (it answers for more cells), or
    /// whose walks are as legal on the same grid (a goal's sector field renewed after the view
    /// before it was patched for that grid), so that the agents on the tree need not look
    /// again.
    pub(crate) fn publish_alike(&self, tree: PublishedTree) {
        let replaced = self.swap(Some(Arc::new(tree)), false, None);
        drop(replaced);
    }

    /// Withdraws the tree: a new version with none to read, whose change is not known, so
    /// that every agent on it looks again and finds no way on.
    pub(crate) fn withdraw(&self) {
        let replaced = self.swap(None, true, None);
        drop(replaced);
    }

    /// Puts `version` in place under the lock, counted as a new version with the cells
    /// `changed` when `counted`, and returns the version it replaced, for the caller to drop
    /// once the lock is released: freeing a large version (a huge map's field) under the lock
    /// would keep every reader waiting, on the main thread too, while a background thread of
    /// idle priority frees it.
    fn swap(
        &self,
        version: Option<Arc<PublishedTree>>,
        counted: bool,
        changed: Option<ChangedCells>,
    ) -> Option<Arc<PublishedTree>> {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let replaced = core::mem::replace(&mut *current, version);
        if counted {
            self.latest.write(changed);
        }
        replaced
    }

    /// The newest version, if one was published.
    pub(crate) fn current(&self) -> Option<Arc<PublishedTree>> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many versions were published: a reader that saw another number reads again.
    pub(crate) fn generation(&self) -> u64 {
        self.latest.sequence.load(Ordering::Acquire) / 2
    }

    /// The number of the newest version and the cells whose change made it, read without a
    /// lock; `None` while a publication is being written.
    pub(crate) fn latest_change(&self) -> Option<(u64, Option<ChangedCells>)> {
        self.latest.read()
    }
}

/// One agent's route on a shared tree: from `start` along the tree's next steps to the goal.
#[derive(Clone, Debug)]
pub(crate) struct SharedRoute {
    /// The goal's tree.
    pub tree: Arc<SharedTree>,
    /// Where the route starts (the request's start when it was served).
    pub start: Cell,
    /// Whether the request asked for smoothed waypoints.
    pub smoothing: bool,
    /// The request's movement rule, for smoothing.
    pub movement: Movement,
}

/// How many cells of one straight run a follower walks before it reads the tree again.
const MOST_CELLS_A_RUN: usize = 32;

impl PublishedTree {
    /// Where an agent standing on `from` heads next: the last cell of the straight run of
    /// next steps from it (at most [`MOST_CELLS_A_RUN`] cells, and no step along a link of
    /// the grid: a link is a run of its own), and that cell's footprint centre; `None` at the
    /// goal and where the goal cannot be reached.
    pub(crate) fn run_from(&self, from: Cell) -> Option<(Cell, Vec2)> {
        let first = self.tree.next_step(from)?;
        let links = !self.grid.links().is_empty();
        let by_link = |from: Cell, to: Cell| links && self.grid.link_step(from, to).is_some();
        if by_link(from, first) {
            return Some((first, self.geometry.footprint_center(first, self.size)));
        }
        let step = (
            i64::from(first.x) - i64::from(from.x),
            i64::from(first.y) - i64::from(from.y),
        );
        let mut end = first;
        for _ in 1..MOST_CELLS_A_RUN {
            match self.tree.next_step(end) {
                Some(next)
                    if (
                        i64::from(next.x) - i64::from(end.x),
                        i64::from(next.y) - i64::from(end.y),
                    ) == step
                        && !by_link(end, next) =>
                {
                    end = next;
                }
                _ => break,
            }
        }
        Some((end, self.geometry.footprint_center(end, self.size)))
    }

    /// Where an agent standing on `cell` heads next when the tree changed under it:
    /// [`PublishedTree::run_from`] where the cell reaches the goal, else (the cell was blocked
    /// under the agent, or cut off) the neighbour that reaches it most cheaply, to step out
    /// onto first; `None` at the goal and where no neighbour reaches it.
    pub(crate) fn way_on_from(&self, cell: Cell) -> Option<(Cell, Vec2)> {
        if self.tree.cost_at(cell).is_some() {
            return self.run_from(cell);
        }
        let neighbours = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)));
        let out = neighbours
            .filter_map(|(dx, dy)| cell.offset(dx, dy))
            .filter_map(|next| Some((self.tree.cost_at(next)?, next)))
            .min_by(|a, b| a.0.total_cmp(&b.0))?
            .1;
        Some((out, self.geometry.footprint_center(out, self.size)))
    }

    /// Whether the tree, weighing the crowd, offers an agent on `from` heading straight for
    /// `waypoint` (then on along the tree) a way cheaper than that one by more than `margin`
    /// straight steps:
    /// the straight line's cost, counted cell by cell on the grid with the crowd's costs added,
    /// plus the tree's cost from the waypoint, against the tree's cost from `from`. False for a
    /// tree that weighs no crowd, and where the tree reaches neither cell; true when the line
    /// crosses a wall (the map changed under it).
    pub(crate) fn offers_a_better_way(&self, from: Cell, waypoint: Cell, steps: f64) -> bool {
        let Some((crowd, cost)) = &self.crowd else {
            return false;
        };
        let (Some(best), Some(after)) = (self.tree.cost_at(from), self.tree.cost_at(waypoint))
        else {
            return false;
        };
        let line = line_cost(&self.grid, crowd, (from, waypoint), *cost);
        let margin = steps * cost.straight();
        line.is_none_or(|line| line + after > best + margin)
    }

    /// The anchor the footprint centred at `position` stands on, if inside the grid.
    pub(crate) fn anchor_at(&self, position: Vec2) -> Option<Cell> {
        let bounds = (self.grid.width(), self.grid.height());
        self.geometry.footprint_anchor(position, self.size, bounds)
    }
}

/// The cost of walking the straight line of cells from `from` to `to` on `grid` with the
/// crowd's costs added (each step priced by `cost` and multiplied by the cost of the cell it
/// enters, as a tree prices it); `None` when the line crosses a blocked cell.
fn line_cost(
    grid: &Grid,
    crowd: &CrowdCostLayer,
    (from, to): (Cell, Cell),
    cost: CostModel,
) -> Option<f64> {
    let (dx, dy) = (
        i64::from(to.x) - i64::from(from.x),
        i64::from(to.y) - i64::from(from.y),
    );
    let steps = dx.abs().max(dy.abs());
    let mut total = 0.0;
    let mut at = from;
    for step in 1..=steps {
        // The cell the line is in after `step` of `steps` equal steps, rounded.
        let along = |delta: i64, start: u32| {
            let offset = (2 * delta * step + steps).div_euclid(2 * steps);
            u32::try_from(i64::from(start) + offset).ok()
        };
        let next = Cell::new(along(dx, from.x)?, along(dy, from.y)?);
        let entered = grid.cost(next).filter(|&terrain| terrain > 0)?;
        let price = if next.x != at.x && next.y != at.y {
            cost.diagonal()
        } else {
            cost.straight()
        };
        total += price * (f64::from(entered) + f64::from(crowd.extra_at(next)));
        at = next;
    }
    Some(total)
}

impl PartialEq for SharedRoute {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.tree, &other.tree)
            && self.start == other.start
            && self.smoothing == other.smoothing
            && self.movement == other.movement
    }
}

impl SharedRoute {
    /// Whether the newest tree reaches the goal from the start ([`SharedRoute::cells`] is then
    /// not empty), read without following the route.
    pub(crate) fn reaches_goal(&self) -> bool {
        self.tree
            .current()
            .is_some_and(|published| published.tree.cost_at(self.start).is_some())
    }

    /// The cells from the start to the goal on the newest tree; empty where it cannot reach
    /// the goal (or before a tree was published).
    pub(crate) fn cells(&self) -> Arc<[Cell]> {
        self.cells_from(self.start)
    }

    /// The cell after `cell` on the newest tree; `None` at the goal, where the tree does not
    /// reach it, and before a tree was published.
    pub(crate) fn next_cell(&self, cell: Cell) -> Option<Cell> {
        let published = self.tree.current()?;
        published.tree.next_step(cell)
    }

    /// The cells from `cell` to the goal on the newest tree; empty where it cannot reach the
    /// goal (or before a tree was published).
    pub(crate) fn cells_from(&self, cell: Cell) -> Arc<[Cell]> {
        self.tree
            .current()
            .and_then(|published| published.tree.path_from(&published.grid, cell))
            .map(|path| path.cells.into())
            .unwrap_or_default()
    }

    /// The cost of the route on the newest tree, summed along its steps; 0 where there is
    /// none.
    pub(crate) fn cost(&self) -> f64 {
        self.tree
            .current()
            .and_then(|published| published.tree.path_from(&published.grid, self.start))
            .map_or(0.0, |path| path.cost)
    }

    /// The world waypoints of [`SharedRoute::cells`]: every cell's footprint centre, or the
    /// smoothed ones when the request asked for smoothing.
    pub(crate) fn waypoints(&self) -> Arc<[Vec2]> {
        self.tree
            .current()
            .and_then(|published| self.waypoints_on(&published, self.start))
            .unwrap_or_default()
    }

    /// The world waypoints of the route from `from` on version `published` of the tree, as
    /// [`SharedRoute::waypoints`] gives them from the start; `None` where it does not reach
    /// the goal.
    pub(crate) fn waypoints_on(
        &self,
        published: &PublishedTree,
        from: Cell,
    ) -> Option<Arc<[Vec2]>> {
        let path = published.tree.path_from(&published.grid, from)?;
        let cells = if self.smoothing {
            smooth_path_cells(
                &published.grid,
                &path.cells,
                self.movement,
                SmoothingOptions::default(),
            )
            .unwrap_or(path.cells)
        } else {
            path.cells
        };
        Some(
            cells
                .iter()
                .map(|&cell| published.geometry.footprint_center(cell, published.size))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_meet_when_they_share_a_cell() {
        let run = CellBox::around([Cell::new(2, 3), Cell::new(9, 3)]).expect("two cells");
        assert_eq!(run.min, Cell::new(2, 3));
        assert_eq!(run.max, Cell::new(9, 3));
        let at = |x, y| CellBox::around([Cell::new(x, y)]).expect("a cell");
        assert!(run.meets(&at(9, 3)) && run.meets(&at(2, 3)) && run.meets(&at(5, 3)));
        assert!(!run.meets(&at(10, 3)) && !run.meets(&at(5, 4)) && !run.meets(&at(1, 3)));
        assert!(CellBox::around([]).is_none());
    }

    /// A 9 x 5 room with a wall across column 4 but for gaps at rows 0 and 4, the goal east of
    /// it on row 2, and a crowd of 3 on each cell of column 3 at row 0 and 1 (before the north
    /// gap), as a tree weighing the crowd publishes it.
    fn crowded_room() -> PublishedTree {
        let grid = Grid::from_fn(9, 5, |cell| u8::from(cell.x != 4 || cell.y % 4 == 0));
        let standing = [Cell::new(3, 0), Cell::new(3, 1)].repeat(3);
        let crowd = CrowdCostLayer::of_cells((9, 5), standing, 1.0).expect("a crowd");
        let crowded = crowd.apply(&grid).expect("the same size");
        let goal = Cell::new(8, 2);
        let tree = GoalTree::build(&crowded, &[goal], Movement::EIGHT, CostModel::Octile)
            .expect("a walkable goal");
        PublishedTree {
            tree: RouteTree::Goal(Arc::new(tree)),
            grid: Arc::new(grid),
            map_version: NavVersion::default(),
            geometry: CellGeometry::default(),
            size: 1,
            complete: true,
            changed: None,
            crowd: Some((Arc::new(crowd), CostModel::Octile)),
        }
    }

    #[test]
    fn a_tree_weighing_the_crowd_offers_a_better_way_round_it() {
        let published = crowded_room();
        let from = Cell::new(1, 2);
        // Through the crowd to the north gap: dearer than the south gap's way by 6 or more.
        assert!(published.offers_a_better_way(from, Cell::new(4, 0), 2.0));
        // The tree's own way, through the south gap, is the best.
        assert!(!published.offers_a_better_way(from, Cell::new(4, 4), 2.0));
        // With a margin above what the crowd costs, it does not count.
        assert!(!published.offers_a_better_way(from, Cell::new(4, 0), 50.0));
        // A line through the wall: the map changed under the route.
        assert!(published.offers_a_better_way(Cell::new(3, 2), Cell::new(5, 2), 2.0));
        // A tree that weighs no crowd offers nothing.
        let plain = PublishedTree {
            crowd: None,
            ..crowded_room()
        };
        assert!(!plain.offers_a_better_way(from, Cell::new(4, 0), 2.0));
    }

    #[test]
    fn the_latest_change_reads_the_newest_version_and_its_box() {
        let latest = LatestChange::default();
        assert_eq!(latest.read(), Some((0, None)));
        let changed = ChangedCells::of(&[Cell::new(4, 5), Cell::new(6, 1)], &[]);
        latest.write(changed);
        assert_eq!(latest.read(), Some((1, changed)));
        latest.write(None);
        assert_eq!(latest.read(), Some((2, None)));
        // A door's two ends far apart: two boxes of a cell each, and nothing between them.
        let door = ChangedCells::of(&[Cell::new(9, 9)], &[Cell::new(0, 0), Cell::new(40, 40)]);
        latest.write(door);
        let (_, read) = latest.read().expect("no publication under way");
        assert_eq!(read, door);
        let door = door.expect("cells changed");
        assert_eq!(door.boxes().count(), 3);
        let between = CellBox::around([Cell::new(20, 20), Cell::new(25, 25)]).expect("cells");
        assert!(!door.meets(&between));
        assert!(door.meets(&CellBox::around([Cell::new(40, 40)]).expect("a cell")));
        // Three links' ends or more: one box round everything.
        let ends = [0, 10, 20].map(|x| Cell::new(x, x));
        let many = ChangedCells::of(&[], &ends).expect("cells changed");
        assert_eq!(many.boxes().count(), 1);
        assert!(many.meets(&between));
        assert_eq!(ChangedCells::of(&[], &[]), None);
        // While a publication writes, readers are told to read again.
        latest.sequence.fetch_add(1, Ordering::AcqRel);
        assert_eq!(latest.read(), None);
    }
}
