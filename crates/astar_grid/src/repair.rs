//! Local path repair: splicing a detour into a path where cells that it crosses became blocked.

use crate::{
    Cell, Grid, Limit, Movement, Path, SearchError, SearchOptions, SearchStats, SearchStatus,
    SearchWindow, Searcher, Weighting,
};
use std::collections::HashMap;

/// How [`Searcher::repair_path`] searches.
///
/// A broken stretch of the path is repaired by a search from the last intact cell before it to
/// the first intact cell after it. That search is bounded twice: it only looks inside the
/// bounding box of the path cells it replaces, widened by [`splice_margin`](Self::splice_margin)
/// cells on every side, and all splices of one repair together expand at most
/// [`splice_expansions`](Self::splice_expansions) cells. A detour that needs more than that is
/// not local, and the whole path is searched again instead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepairOptions {
    /// Movement, costs, heuristic and limits of every search (splices and the full search). Its
    /// window and expansion limit also bound the splices; its partial-path, closest-reachable and
    /// trace flags are ignored.
    pub search: SearchOptions,
    /// How far, in cells, a detour may stray from the bounding box of the path cells it
    /// replaces. Default 8.
    pub splice_margin: u32,
    /// The most cells all splice searches of one repair may expand together before the repair
    /// falls back to a full search; 0 always searches the whole path again. Default 4096.
    pub splice_expansions: u32,
    /// Whether the path to repair was a cheapest path when it was found, and the grid has
    /// changed since only by blocking cells (no cell opened, no terrain cost changed). An
    /// untouched path then stays a cheapest one, since blocking cells makes no other path
    /// cheaper, and [`RepairedPath::optimal`] says so. The repair cannot tell this by itself.
    /// Default false.
    pub optimal_input: bool,
}

impl Default for RepairOptions {
    fn default() -> Self {
        Self {
            search: SearchOptions::default(),
            splice_margin: 8,
            splice_expansions: 4096,
            optimal_input: false,
        }
    }
}

impl RepairOptions {
    /// The default bounds with these search options.
    #[must_use]
    pub fn new(search: SearchOptions) -> Self {
        Self {
            search,
            ..Self::default()
        }
    }

    /// Sets how far a detour may stray from the cells it replaces.
    #[must_use]
    pub const fn with_splice_margin(mut self, cells: u32) -> Self {
        self.splice_margin = cells;
        self
    }

    /// Sets how many cells the splice searches may expand together.
    #[must_use]
    pub const fn with_splice_expansions(mut self, expansions: u32) -> Self {
        self.splice_expansions = expansions;
        self
    }

    /// Says whether the path to repair was a cheapest path and the grid has only had cells
    /// blocked since (see [`RepairOptions::optimal_input`]).
    #[must_use]
    pub const fn with_optimal_input(mut self, optimal: bool) -> Self {
        self.optimal_input = optimal;
        self
    }
}

/// How a path was repaired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repair {
    /// No cell of the path was blocked and every step is still allowed: the path is returned
    /// unchanged (with its cost recomputed on the current grid) and no search ran. It is as
    /// good as it was: optimal when [`RepairOptions::optimal_input`] says it was.
    Untouched,
    /// Each broken stretch was replaced by a local detour; the rest of the path is unchanged,
    /// except that loops the detours formed with it were cut out.
    Spliced {
        /// How many separate detours were spliced in.
        detours: usize,
    },
    /// A local detour was not found within the bounds, so the path was searched again from its
    /// first cell to its last.
    FullSearch,
    /// The full search proved that the last cell cannot be reached from the first any more.
    NoPath,
    /// A limit of [`RepairOptions::search`] stopped the full search before it found a path.
    LimitReached(Limit),
}

/// The result of [`Searcher::repair_path`].
#[derive(Clone, Debug, PartialEq)]
pub struct RepairedPath {
    /// The repaired path, from the same first cell to the same last cell; `None` for
    /// [`Repair::NoPath`] and [`Repair::LimitReached`].
    pub path: Option<Path>,
    /// How the path was repaired.
    pub repair: Repair,
    /// Whether `path` is guaranteed to be a cheapest path: after a full search, when its
    /// options are optimal ([`SearchOptions::is_optimal`]); for an untouched path, when
    /// [`RepairOptions::optimal_input`] says the path was a cheapest one and only blocking
    /// cells changed the grid since (opening cells or changing costs can make another path
    /// cheaper, and the repair cannot see what changed). A splice keeps the rest of the old
    /// path and is usually not optimal; callers that care can search again in the background.
    pub optimal: bool,
    /// Work of all searches the repair ran, added up.
    pub stats: SearchStats,
}

/// Why a path could not be repaired.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum RepairError {
    /// The path has no cells.
    #[error("the path is empty")]
    EmptyPath,
    /// A cell of the path lies outside the grid.
    #[error("path cell {index}, {cell}, is outside the grid")]
    OutOfBounds {
        /// Position of the cell in the path.
        index: usize,
        /// The cell.
        cell: Cell,
    },
    /// Two consecutive cells of the path are not neighbours under the movement rule (or are the
    /// same cell).
    #[error("path cells {index} and {} are not neighbours", index + 1)]
    NotAdjacent {
        /// Position of the first of the two cells in the path.
        index: usize,
    },
    /// The path's first cell is blocked: there is nothing to start from.
    #[error("the path's first cell {0} is blocked")]
    StartBlocked(Cell),
    /// The path's last cell is blocked: no path can reach it.
    #[error("the path's last cell {0} is blocked")]
    GoalBlocked(Cell),
    /// The search options are invalid, or the full search refused to run.
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// A broken stretch of a path: the path cells from `entry` to `exit` (both intact and walkable)
/// are replaced by a detour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stretch {
    entry: usize,
    exit: usize,
}

impl Searcher {
    /// Repairs `path` after cells of `grid` were blocked, searching as little as it can.
    ///
    /// The path is checked against the grid as it is now, so the caller need not say which
    /// cells changed. A path position is broken when its cell is blocked, and a step when it is
    /// no longer allowed (a diagonal step whose corner cell was blocked, under
    /// [`CornerRule::Both`](crate::CornerRule::Both) or [`CornerRule::One`](crate::CornerRule::One)).
    /// Broken positions and steps that touch or overlap form one stretch; each stretch is
    /// replaced by a detour found by a search from the last intact cell before it to the first
    /// intact cell after it, bounded as [`RepairOptions`] says. Several separate stretches get
    /// several splices, which share the expansion budget. Loops between a detour and the kept
    /// path are cut out, which only lowers the cost. When any splice fails (no detour inside its
    /// window, budget spent) the whole path is searched again from its first cell to its last.
    ///
    /// To repair from an agent's current position, pass the rest of its path
    /// (`&path.cells[progress..]`): the first cell is where the repaired path starts and where a
    /// full search starts from.
    ///
    /// The first and last cells are kept fixed: if either is blocked the repair fails with
    /// [`RepairError::StartBlocked`] or [`RepairError::GoalBlocked`] (pick a new goal, or move
    /// the agent off the blocked cell).
    ///
    /// Cost: one pass over the path, then the splice searches (at most
    /// [`RepairOptions::splice_expansions`] expansions together) and, when they fail, one full
    /// search.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Repair, RepairOptions, SearchOptions, Searcher};
    ///
    /// let mut grid = Grid::new(32, 16);
    /// let mut searcher = Searcher::new();
    /// let (start, goal) = (Cell::new(0, 8), Cell::new(31, 8));
    /// let path = searcher.find_path(&grid, start, goal, &SearchOptions::default())?.path.expect("open grid");
    ///
    /// // Something now stands in the way, halfway along.
    /// grid.set_blocked(Cell::new(15, 8), true)?;
    /// grid.set_blocked(Cell::new(16, 8), true)?;
    /// let repaired = searcher.repair_path(&grid, &path.cells, &RepairOptions::default())?;
    /// assert_eq!(repaired.repair, Repair::Spliced { detours: 1 });
    /// assert!(!repaired.optimal);
    /// let new_path = repaired.path.expect("a detour exists");
    /// assert_eq!(new_path.cells.first(), Some(&start));
    /// assert_eq!(new_path.cells.last(), Some(&goal));
    /// assert!(!new_path.cells.contains(&Cell::new(15, 8)));
    ///
    /// // Nothing on the path changed: no search runs.
    /// let again = searcher.repair_path(&grid, &new_path.cells, &RepairOptions::default())?;
    /// assert_eq!(again.repair, Repair::Untouched);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`RepairError`] for an empty path, a path that leaves the grid or takes a step that is not
    /// to a neighbour under the movement rule nor along a link of the grid (open or closed:
    /// [`Grid::add_link`]), a blocked first or last cell, invalid search
    /// options, or a full search that refuses to run (such as a window without the first cell).
    pub fn repair_path(
        &mut self,
        grid: &Grid,
        path: &[Cell],
        options: &RepairOptions,
    ) -> Result<RepairedPath, RepairError> {
        let (&start, &goal) = path
            .first()
            .zip(path.last())
            .ok_or(RepairError::EmptyPath)?;
        validate(grid, path, options)?;
        let movement = options.search.movement;
        let stretches = broken_stretches(grid, path, movement);
        if stretches.is_empty() {
            return Ok(RepairedPath {
                path: Some(Path {
                    cells: path.to_vec(),
                    cost: path_cost(grid, path, options),
                }),
                repair: Repair::Untouched,
                optimal: options.optimal_input,
                stats: SearchStats::default(),
            });
        }
        let mut stats = SearchStats::default();
        if let Some(detours) = self.splice_detours(grid, path, &stretches, options, &mut stats) {
            let cells = cut_loops(splice(path, &stretches, detours));
            let cost = path_cost(grid, &cells, options);
            return Ok(RepairedPath {
                path: Some(Path { cells, cost }),
                repair: Repair::Spliced {
                    detours: stretches.len(),
                },
                optimal: false,
                stats,
            });
        }
        let full = SearchOptions {
            partial_path: false,
            closest_reachable: false,
            trace: false,
            ..options.search
        };
        let result = self.find_path(grid, start, goal, &full)?;
        add_stats(&mut stats, result.stats);
        let (repair, optimal) = match result.status {
            SearchStatus::Found => (Repair::FullSearch, options.search.is_optimal()),
            SearchStatus::NoPath => (Repair::NoPath, false),
            SearchStatus::LimitReached(limit) => (Repair::LimitReached(limit), false),
        };
        Ok(RepairedPath {
            path: result.path.filter(|_| repair == Repair::FullSearch),
            repair,
            optimal,
            stats,
        })
    }

    /// Searches a detour for every stretch, or returns `None` as soon as one is not found within
    /// the bounds.
    fn splice_detours(
        &mut self,
        grid: &Grid,
        path: &[Cell],
        stretches: &[Stretch],
        options: &RepairOptions,
        stats: &mut SearchStats,
    ) -> Option<Vec<Vec<Cell>>> {
        let mut budget = options.splice_expansions;
        let mut detours = Vec::with_capacity(stretches.len());
        for stretch in stretches {
            if budget == 0 {
                return None;
            }
            let replaced = &path[stretch.entry..=stretch.exit];
            let window = splice_window(replaced, options.splice_margin, options.search.window)?;
            let search = SearchOptions {
                window: Some(window),
                max_expansions: Some(
                    options
                        .search
                        .max_expansions
                        .map_or(budget, |max| max.min(budget)),
                ),
                partial_path: false,
                closest_reachable: false,
                trace: false,
                ..options.search
            };
            let (entry, exit) = (path[stretch.entry], path[stretch.exit]);
            let result = self.find_path(grid, entry, exit, &search).ok()?;
            add_stats(stats, result.stats);
            budget = budget.saturating_sub(result.stats.expanded);
            match result.status {
                SearchStatus::Found => detours.push(result.path?.cells),
                SearchStatus::NoPath | SearchStatus::LimitReached(_) => return None,
            }
        }
        Some(detours)
    }
}

/// Checks what would make a repair meaningless: cells outside the grid, steps that are not to a
/// neighbour, blocked ends, invalid options.
fn validate(grid: &Grid, path: &[Cell], options: &RepairOptions) -> Result<(), RepairError> {
    let search = &options.search;
    if !search.weighting.is_valid() {
        return Err(SearchError::InvalidWeight(match search.weighting {
            Weighting::Static(weight) => weight,
            Weighting::Dynamic { epsilon } => epsilon,
        })
        .into());
    }
    if !search.cost.is_valid() {
        return Err(SearchError::InvalidCostModel.into());
    }
    for (index, &cell) in path.iter().enumerate() {
        if !grid.contains(cell) {
            return Err(RepairError::OutOfBounds { index, cell });
        }
    }
    for (index, step) in path.windows(2).enumerate() {
        let neighbours = search
            .movement
            .neighborhood
            .are_neighbours(step[0], step[1]);
        // A step to a cell that is no neighbour must be a link's (a link closed since breaks
        // it, and it is repaired as a blocked step is).
        if !neighbours && !grid.links().leads(step[0], step[1]) {
            return Err(RepairError::NotAdjacent { index });
        }
    }
    let (start, goal) = (path[0], path[path.len() - 1]);
    if !grid.is_walkable(start) {
        return Err(RepairError::StartBlocked(start));
    }
    if !grid.is_walkable(goal) {
        return Err(RepairError::GoalBlocked(goal));
    }
    if let Some(window) = search.window
        && !window.contains(start)
    {
        return Err(SearchError::StartOutsideWindow(start).into());
    }
    Ok(())
}

/// The broken stretches of a path whose ends are walkable, in path order, merged where they
/// overlap or share a cell, so that every entry and exit is intact and no two stretches share a
/// cell.
fn broken_stretches(grid: &Grid, path: &[Cell], movement: Movement) -> Vec<Stretch> {
    let mut stretches: Vec<Stretch> = Vec::new();
    let mut add = |entry: usize, exit: usize| match stretches.last_mut() {
        Some(last) if entry <= last.exit => last.exit = last.exit.max(exit),
        _ => stretches.push(Stretch { entry, exit }),
    };
    for index in 1..path.len() {
        let (from, to) = (path[index - 1], path[index]);
        if !grid.is_walkable(to) {
            // The ends are walkable, so a blocked cell has an intact neighbour on each side
            // unless those are blocked too, which then extend the stretch.
            add(index - 1, index + 1);
        } else if grid.is_walkable(from)
            && !movement.allows_step_on(grid, from, to)
            && !grid.has_open_link(from, to)
        {
            add(index - 1, index);
        }
    }
    stretches
}

/// The window of a splice search: the bounding box of the replaced cells widened by `margin`,
/// within the caller's window. `None` when the two do not overlap around both ends.
fn splice_window(
    replaced: &[Cell],
    margin: u32,
    outer: Option<SearchWindow>,
) -> Option<SearchWindow> {
    let mut min = *replaced.first()?;
    let mut max = min;
    for cell in replaced {
        min = Cell::new(min.x.min(cell.x), min.y.min(cell.y));
        max = Cell::new(max.x.max(cell.x), max.y.max(cell.y));
    }
    let mut window = SearchWindow::new(
        Cell::new(min.x.saturating_sub(margin), min.y.saturating_sub(margin)),
        Cell::new(max.x.saturating_add(margin), max.y.saturating_add(margin)),
    );
    if let Some(outer) = outer {
        window = SearchWindow::new(
            Cell::new(window.min.x.max(outer.min.x), window.min.y.max(outer.min.y)),
            Cell::new(window.max.x.min(outer.max.x), window.max.y.min(outer.max.y)),
        );
    }
    let ends = [replaced.first()?, replaced.last()?];
    ends.iter()
        .all(|&&end| window.contains(end))
        .then_some(window)
}

/// The path with each stretch replaced by its detour (which starts at the stretch's entry and
/// ends at its exit).
fn splice(path: &[Cell], stretches: &[Stretch], detours: Vec<Vec<Cell>>) -> Vec<Cell> {
    let mut cells = Vec::with_capacity(path.len());
    let mut kept_from = 0;
    for (stretch, detour) in stretches.iter().zip(detours) {
        cells.extend_from_slice(&path[kept_from..stretch.entry]);
        cells.extend(detour);
        kept_from = stretch.exit + 1;
    }
    cells.extend_from_slice(&path[kept_from..]);
    cells
}

/// Removes every loop (a cell visited twice keeps only its first visit and continues from its
/// last), so the path is simple and no more expensive.
fn cut_loops(cells: Vec<Cell>) -> Vec<Cell> {
    let mut simple: Vec<Cell> = Vec::with_capacity(cells.len());
    let mut position: HashMap<Cell, usize> = HashMap::with_capacity(cells.len());
    for cell in cells {
        if let Some(&first) = position.get(&cell) {
            for removed in simple.drain(first + 1..) {
                position.remove(&removed);
            }
        } else {
            position.insert(cell, simple.len());
            simple.push(cell);
        }
    }
    simple
}

/// The sum of the step costs, added up in path order as the search does: a step onto a
/// neighbour as the cost model and the terrain price it, a link's as the cheaper of that and
/// its cost.
fn path_cost(grid: &Grid, cells: &[Cell], options: &RepairOptions) -> f64 {
    let (movement, cost) = (options.search.movement, options.search.cost);
    cells.windows(2).fold(0.0, |total, step| {
        total
            + grid
                .step_cost(step[0], step[1], movement, cost)
                .unwrap_or(f64::INFINITY)
    })
}

fn add_stats(total: &mut SearchStats, more: SearchStats) {
    total.expanded = total.expanded.saturating_add(more.expanded);
    total.pushed = total.pushed.saturating_add(more.pushed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(list: &[(u32, u32)]) -> Vec<Cell> {
        list.iter().copied().map(Cell::from).collect()
    }

    #[test]
    fn loops_are_cut_at_the_repeated_cell() {
        let looped = cells(&[(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (1, 0), (0, 1)]);
        assert_eq!(cut_loops(looped), cells(&[(0, 0), (1, 0), (0, 1)]));
        let simple = cells(&[(0, 0), (1, 1), (2, 2)]);
        assert_eq!(cut_loops(simple.clone()), simple);
    }

    #[test]
    fn overlapping_breaks_merge_into_one_stretch() {
        let mut grid = Grid::new(8, 1);
        let path: Vec<Cell> = (0..8).map(|x| Cell::new(x, 0)).collect();
        for x in [2, 3, 6] {
            grid.set_blocked(Cell::new(x, 0), true).unwrap();
        }
        assert_eq!(
            broken_stretches(&grid, &path, Movement::EIGHT),
            [Stretch { entry: 1, exit: 4 }, Stretch { entry: 5, exit: 7 }]
        );
    }

    #[test]
    fn a_blocked_corner_breaks_only_the_diagonal_step() {
        let mut grid = Grid::new(3, 3);
        let path = cells(&[(0, 0), (1, 1), (2, 1)]);
        grid.set_blocked(Cell::new(1, 0), true).unwrap();
        assert_eq!(
            broken_stretches(&grid, &path, Movement::EIGHT),
            [Stretch { entry: 0, exit: 1 }]
        );
        assert!(broken_stretches(&grid, &path, Movement::eight(crate::CornerRule::One)).is_empty());
    }

    #[test]
    fn the_splice_window_widens_the_replaced_cells_and_respects_the_outer_window() {
        let replaced = cells(&[(5, 5), (6, 4), (7, 5)]);
        assert_eq!(
            splice_window(&replaced, 2, None),
            Some(SearchWindow::new(Cell::new(3, 2), Cell::new(9, 7)))
        );
        let outer = SearchWindow::new(Cell::new(0, 0), Cell::new(8, 5));
        assert_eq!(
            splice_window(&replaced, 2, Some(outer)),
            Some(SearchWindow::new(Cell::new(3, 2), Cell::new(8, 5)))
        );
        let excluding = SearchWindow::new(Cell::new(0, 0), Cell::new(6, 9));
        assert_eq!(splice_window(&replaced, 2, Some(excluding)), None);
    }
}
