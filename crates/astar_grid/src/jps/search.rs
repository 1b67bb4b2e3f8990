//! The jump point search loop: [`Searcher::find_path_jps`] over a [`JumpGrid`].
//!
//! Successors are found the way Harabor and Grastien's JPS2 finds them: straight jumps scan 64
//! cells per word of the bit-packed grid, and a diagonal jump does not stop at the cells where
//! its straight side scans find jump points; those jump points become successors of the
//! expanded node directly, reached by a diagonal run followed by a straight run.

use super::bits::{BitMatrix, ScanStop};
use super::scratch::{JumpNode, JumpScratch};
use super::{JpsOptions, JumpGrid};
use crate::closest::{flood_to_closest, turning_points};
use crate::endpoints::{EndpointMap, validate_bounds_and_start, validate_endpoints};
use crate::links::{LinkBound, Links};
use crate::search::OpenEntry;
use crate::{
    Cell, Limit, Movement, Path, SearchError, SearchResult, SearchStats, SearchStatus, Searcher,
};

impl Searcher {
    /// Finds a shortest path with jump point search: the same cost as
    /// [`Searcher::find_path`] with the default eight-connected, no-corner-cutting movement
    /// (and `options.cost`), usually with far fewer expansions.
    ///
    /// The path holds every cell, as A* returns it, unless [`JpsOptions::full_path`] is off:
    /// then it holds waypoints, the start, the jump points the path passes and the cells where
    /// it turns, and the goal, so that consecutive waypoints lie on one straight or diagonal
    /// line. [`SearchStats::expanded`] counts expanded jump points.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, Searcher};
    ///
    /// let grid = Grid::from_ascii(
    ///     "........
    ///      .######.
    ///      ...#....",
    /// )?;
    /// let jump_grid = JumpGrid::new(&grid)?;
    /// let mut searcher = Searcher::new();
    /// let options = JpsOptions::default().with_full_path(false);
    /// let result = searcher.find_path_jps(&jump_grid, Cell::new(0, 1), Cell::new(7, 1), &options)?;
    /// let path = result.found().expect("reachable");
    /// assert_eq!(path.cost, 9.0);
    /// assert_eq!(path.cells, [Cell::new(0, 1), Cell::new(0, 0), Cell::new(7, 0), Cell::new(7, 1)]);
    ///
    /// let full = searcher.find_path_jps(&jump_grid, Cell::new(0, 1), Cell::new(7, 1), &JpsOptions::default())?;
    /// assert_eq!(full.found().expect("reachable").cells.len(), 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// With [`JpsOptions::closest_reachable`], an unreachable or blocked goal gives the path to
    /// the reachable cell closest to it, found by a flood of the start's region:
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, JpsOptions, JumpGrid, SearchStatus, Searcher};
    ///
    /// let grid = Grid::from_ascii(
    ///     "...#..
    ///      ...#..",
    /// )?;
    /// let jump_grid = JumpGrid::new(&grid)?;
    /// let options = JpsOptions::default().with_closest_reachable(true);
    /// let result = Searcher::new().find_path_jps(&jump_grid, Cell::new(0, 0), Cell::new(5, 1), &options)?;
    /// assert_eq!(result.status, SearchStatus::NoPath);
    /// let path = result.partial().expect("the closest reachable cell");
    /// assert_eq!(path.end(), Some(Cell::new(2, 1)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Searcher::find_path`]: an empty grid, a start or goal outside the grid or blocked
    /// (a blocked goal is searched with [`JpsOptions::closest_reachable`]), an invalid cost
    /// model; [`SearchError::Unsupported`] for a cost model whose diagonal is cheaper than a
    /// straight step or dearer than two. An unreachable goal is not an error but a result
    /// with [`SearchStatus::NoPath`].
    ///
    /// The grid's links are followed ([`JumpGrid::update_links`]): a link's two ends are
    /// consecutive cells of the path, full or not.
    pub fn find_path_jps(
        &mut self,
        grid: &JumpGrid,
        start: Cell,
        goal: Cell,
        options: &JpsOptions,
    ) -> Result<SearchResult, SearchError> {
        if options.closest_reachable {
            validate_bounds_and_start(grid, start, goal)?;
        } else {
            validate_endpoints(grid, start, goal)?;
        }
        options.validate()?;
        let links = grid.links();
        if !grid.is_walkable(goal) {
            // Only with `closest_reachable`: no jump can end at a blocked goal.
            return Ok(self.flood_jump_grid(grid, start, goal, options, SearchStats::default()));
        }
        let stride = grid.stride();
        let scratch = &mut self.jump;
        scratch.reset(grid.padded_len(), stride);
        let (goal_x, goal_y) = (goal.x as usize + 1, goal.y as usize + 1);
        let (straight, diagonal) = (options.cost.straight(), options.cost.diagonal());
        if links.has_steps() {
            let rows = grid.rows();
            self.link_bound.prepare(
                links.steps(),
                (stride, |index: usize| {
                    rows.get(index / stride, index % stride)
                }),
                (goal_x as u32, goal_y as u32),
                |a: (u32, u32), b: (u32, u32)| {
                    let (dx, dy) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
                    octile(straight, diagonal, dx as usize, dy as usize)
                },
            );
        }
        let search = JumpSearch {
            rows: grid.rows(),
            columns: grid.columns(),
            scratch,
            links: (links, &self.link_bound),
            stride,
            goal_x,
            goal_y,
            straight,
            diagonal,
            stats: SearchStats::default(),
        };
        let padded_start = (start.x as usize + 1, start.y as usize + 1, start == goal);
        let max_expansions = options.max_expansions.unwrap_or(u32::MAX);
        // Links or none, chosen once: a grid without links runs code with no link tests in it.
        let (status, goal_slot, stats) = if links.has_steps() {
            search.start_and_run::<true>(padded_start, max_expansions)
        } else {
            search.start_and_run::<false>(padded_start, max_expansions)
        };
        if status == SearchStatus::NoPath && options.closest_reachable {
            return Ok(self.flood_jump_grid(grid, start, goal, options, stats));
        }
        let path = goal_slot.map(|slot| jump_path(&self.jump.nodes, slot, options.full_path));
        Ok(SearchResult {
            status,
            path,
            stats,
            trace: None,
        })
    }

    /// The closest-reachable answer for an unreachable or blocked `goal`: a flood of the start's
    /// region under jump point search's movement rule, its counters added to `stats`.
    fn flood_jump_grid(
        &mut self,
        grid: &JumpGrid,
        start: Cell,
        goal: Cell,
        options: &JpsOptions,
        stats: SearchStats,
    ) -> SearchResult {
        let flood = flood_to_closest(
            &mut self.flood,
            grid,
            Movement::EIGHT,
            options.cost,
            start,
            &[goal],
        );
        let mut path = flood.path;
        if !options.full_path {
            path.cells = turning_points(&path.cells);
        }
        SearchResult {
            status: SearchStatus::NoPath,
            path: Some(path),
            stats: SearchStats {
                expanded: stats.expanded.saturating_add(flood.settled),
                pushed: stats.pushed.saturating_add(flood.pushed),
            },
            trace: None,
        }
    }
}

/// Follows parents back from the node in `slot` (the goal) and returns the path as waypoints
/// or, with `full_path`, as every cell. Allocates the returned path only.
///
/// A node is reached from its parent by a diagonal run followed by a straight run (either may
/// be empty). The waypoints are the nodes on the path plus the corner between the two runs where
/// both are there, so that consecutive waypoints lie on one straight or diagonal line. A node
/// reached by a link follows its parent directly: the link's two ends are consecutive cells.
fn jump_path(nodes: &[JumpNode], slot: usize, full_path: bool) -> Path {
    let length = jump_path_length(nodes, slot, full_path);
    // Filled from the goal backwards.
    let mut cells = vec![Cell::default(); length];
    let mut next_free = length;
    let mut push = |cell: Cell| {
        next_free -= 1;
        cells[next_free] = cell;
    };
    let mut current = slot;
    loop {
        let here = cell_of(&nodes[current]);
        let parent = nodes[current].parent as usize;
        if parent == current {
            push(here);
            break;
        }
        let there = cell_of(&nodes[parent]);
        if nodes[current].via_link {
            // A link: one step, however far.
            push(here);
        } else if full_path {
            push_run_back(here, there, &mut push);
        } else {
            push(here);
            if let Some(corner) = corner_between(there, here) {
                push(corner);
            }
        }
        current = parent;
    }
    Path {
        cells,
        cost: nodes[slot].g,
    }
}

/// The number of cells [`jump_path`] returns for the path ending at the node in `slot`.
#[inline(always)]
fn jump_path_length(nodes: &[JumpNode], slot: usize, full_path: bool) -> usize {
    let mut length = 1;
    let mut current = slot;
    while nodes[current].parent as usize != current {
        let parent = nodes[current].parent as usize;
        let (here, there) = (cell_of(&nodes[current]), cell_of(&nodes[parent]));
        length += if nodes[current].via_link {
            1
        } else if full_path {
            here.x.abs_diff(there.x).max(here.y.abs_diff(there.y)) as usize
        } else {
            1 + usize::from(corner_between(there, here).is_some())
        };
        current = parent;
    }
    length
}

/// The cell of `node` (whose coordinates are padded).
#[inline(always)]
fn cell_of(node: &JumpNode) -> Cell {
    Cell::new(node.x - 1, node.y - 1)
}

/// The corner between the diagonal and the straight run from `there` to `here`, if there are
/// both.
#[inline(always)]
fn corner_between(there: Cell, here: Cell) -> Option<Cell> {
    let (run_x, run_y) = (here.x.abs_diff(there.x), here.y.abs_diff(there.y));
    let diagonal = run_x.min(run_y);
    let toward = |from: u32, to: u32| {
        if to > from {
            from + diagonal
        } else {
            from - diagonal
        }
    };
    (diagonal > 0 && run_x != run_y)
        .then(|| Cell::new(toward(there.x, here.x), toward(there.y, here.y)))
}

/// Pushes the cells from `here` back to `there`, `here` included and `there` not: the search's
/// route reversed, straight first, then diagonally.
#[inline(always)]
fn push_run_back(here: Cell, there: Cell, push: &mut impl FnMut(Cell)) {
    let (mut x, mut y) = (here.x, here.y);
    while (x, y) != (there.x, there.y) {
        push(Cell::new(x, y));
        let (run_x, run_y) = (x.abs_diff(there.x), y.abs_diff(there.y));
        if run_x >= run_y {
            x = if x > there.x { x - 1 } else { x + 1 };
        }
        if run_y >= run_x {
            y = if y > there.y { y - 1 } else { y + 1 };
        }
    }
}

impl EndpointMap for JumpGrid {
    fn has_no_cells(&self) -> bool {
        self.is_empty()
    }

    fn holds(&self, cell: Cell) -> bool {
        self.contains(cell)
    }

    fn is_open(&self, cell: Cell) -> bool {
        self.is_walkable(cell)
    }
}

/// One search in progress. Coordinates are padded (`x + 1`, `y + 1`), as in the node array.
struct JumpSearch<'a, const LINKS: bool = false> {
    rows: &'a BitMatrix,
    columns: &'a BitMatrix,
    scratch: &'a mut JumpScratch,
    /// The grid's links, and the heuristic's bound over them: read only when `LINKS`, the
    /// grid having open links.
    links: (&'a Links, &'a LinkBound),
    stride: usize,
    goal_x: usize,
    goal_y: usize,
    straight: f64,
    diagonal: f64,
    stats: SearchStats,
}

impl<'a> JumpSearch<'a> {
    /// This search, following links when `LINKS`: relaxes the start (padded `x`, `y`) and
    /// runs (unless the start is the goal, `found`); returns the status, the goal's slot when
    /// found, and the work done.
    fn start_and_run<const LINKS: bool>(
        self,
        (x, y, found): (usize, usize, bool),
        max_expansions: u32,
    ) -> (SearchStatus, Option<usize>, SearchStats) {
        let mut search = JumpSearch::<'a, LINKS> {
            rows: self.rows,
            columns: self.columns,
            scratch: self.scratch,
            links: self.links,
            stride: self.stride,
            goal_x: self.goal_x,
            goal_y: self.goal_y,
            straight: self.straight,
            diagonal: self.diagonal,
            stats: self.stats,
        };
        search.relax(x, y, 0.0, 0);
        let (status, slot) = if found {
            // Found where it starts, in the slot the start was just given: nothing to expand,
            // whatever the limit.
            (SearchStatus::Found, Some(0))
        } else {
            search.run(max_expansions)
        };
        (status, slot, search.stats)
    }
}

impl<const LINKS: bool> JumpSearch<'_, LINKS> {
    /// Expands jump points until the goal is expanded, the open list runs dry or the limit hits.
    /// Returns the status and, when found, the goal's slot.
    ///
    /// The limit is reported only when a node is left to expand: a search whose open list holds
    /// nothing but stale entries once `max_expansions` nodes are expanded has proved that there
    /// is no path, and says so, as A* does.
    fn run(&mut self, max_expansions: u32) -> (SearchStatus, Option<usize>) {
        loop {
            if self.stats.expanded >= max_expansions {
                let open = &mut self.scratch.open;
                while open
                    .peek()
                    .is_some_and(|top| self.scratch.nodes[top.id() as usize].closed)
                {
                    open.pop();
                }
                if !open.is_empty() {
                    return (SearchStatus::LimitReached(Limit::Expansions), None);
                }
            }
            let Some(entry) = self.scratch.open.pop() else {
                return (SearchStatus::NoPath, None);
            };
            let slot = entry.id() as usize;
            let node = &mut self.scratch.nodes[slot];
            if node.closed {
                continue; // stale: the node was expanded through a cheaper entry
            }
            node.closed = true;
            let node = *node;
            self.stats.expanded += 1;
            let (x, y) = (node.x as usize, node.y as usize);
            if x == self.goal_x && y == self.goal_y {
                return (SearchStatus::Found, Some(slot));
            }
            if LINKS && node.via_link {
                self.expand_start(x, y, node.g, slot);
            } else {
                let parent = self.scratch.nodes[node.parent as usize];
                self.expand(x, y, slot, parent.x as usize, parent.y as usize, node.g);
            }
            if LINKS {
                for step in self.links.0.steps_from(y * self.stride + x) {
                    let (to_x, to_y) = (
                        step.to as usize % self.stride,
                        step.to as usize / self.stride,
                    );
                    if self.rows.get(to_y, to_x) {
                        self.relax_by(to_x, to_y, node.g + step.cost, (slot, true));
                    }
                }
            }
        }
    }

    /// Generates the successors of the node in `slot` at `(x, y)`, reached from
    /// `(parent_x, parent_y)` at cost `g`.
    ///
    /// Directions are compile-time parameters below this point, so the code for each direction
    /// has no direction tests in it: the one choice made here replaces a hard-to-predict branch
    /// in every scan.
    fn expand(
        &mut self,
        x: usize,
        y: usize,
        slot: usize,
        parent_x: usize,
        parent_y: usize,
        g: f64,
    ) {
        if (parent_x, parent_y) == (x, y) {
            return self.expand_start(x, y, g, slot);
        }
        // The last run into this node was straight along the longer axis of the displacement
        // from the parent, or diagonal when both axes are equal. The direction is folded into
        // one number so that choosing the code for it is a single (table) jump.
        let (run_x, run_y) = (x.abs_diff(parent_x), y.abs_diff(parent_y));
        let axis = usize::from(run_x >= run_y) + usize::from(run_x > run_y);
        let direction = axis * 4 + usize::from(x > parent_x) * 2 + usize::from(y > parent_y);
        match direction {
            0 | 2 => self.expand_vertical::<-1>(x, y, g, slot),
            1 | 3 => self.expand_vertical::<1>(x, y, g, slot),
            4 => self.expand_diagonal::<-1, -1>(x, y, g, slot),
            5 => self.expand_diagonal::<-1, 1>(x, y, g, slot),
            6 => self.expand_diagonal::<1, -1>(x, y, g, slot),
            7 => self.expand_diagonal::<1, 1>(x, y, g, slot),
            8 | 9 => self.expand_horizontal::<-1>(x, y, g, slot),
            _ => self.expand_horizontal::<1>(x, y, g, slot),
        }
    }

    /// The start has every direction.
    fn expand_start(&mut self, x: usize, y: usize, g: f64, slot: usize) {
        self.jump_horizontal::<1>(x, y, g, slot);
        self.jump_horizontal::<-1>(x, y, g, slot);
        self.jump_vertical::<1>(x, y, g, slot);
        self.jump_vertical::<-1>(x, y, g, slot);
        self.jump_diagonal::<1, 1>(x, y, g, slot);
        self.jump_diagonal::<-1, 1>(x, y, g, slot);
        self.jump_diagonal::<-1, -1>(x, y, g, slot);
        self.jump_diagonal::<1, -1>(x, y, g, slot);
    }

    /// After a diagonal run: its two straight components and the diagonal itself (no corner
    /// cutting leaves a diagonal move no forced neighbours).
    fn expand_diagonal<const DX: isize, const DY: isize>(
        &mut self,
        x: usize,
        y: usize,
        g: f64,
        slot: usize,
    ) {
        self.jump_horizontal::<DX>(x, y, g, slot);
        self.jump_vertical::<DY>(x, y, g, slot);
        self.jump_diagonal::<DX, DY>(x, y, g, slot);
    }

    /// After a run east (`DX` 1) or west (-1): onwards, and where the row above or below opens
    /// up just here (blocked behind, free beside), up or down and diagonally forwards.
    fn expand_horizontal<const DX: isize>(&mut self, x: usize, y: usize, g: f64, slot: usize) {
        self.jump_horizontal::<DX>(x, y, g, slot);
        let behind = x.wrapping_add_signed(-DX);
        if !self.rows.get(y - 1, behind) && self.rows.get(y - 1, x) {
            self.jump_vertical::<-1>(x, y, g, slot);
            self.jump_diagonal::<DX, -1>(x, y, g, slot);
        }
        if !self.rows.get(y + 1, behind) && self.rows.get(y + 1, x) {
            self.jump_vertical::<1>(x, y, g, slot);
            self.jump_diagonal::<DX, 1>(x, y, g, slot);
        }
    }

    /// After a run south (`DY` 1) or north (-1): the mirror image of
    /// [`JumpSearch::expand_horizontal`].
    fn expand_vertical<const DY: isize>(&mut self, x: usize, y: usize, g: f64, slot: usize) {
        self.jump_vertical::<DY>(x, y, g, slot);
        let behind = y.wrapping_add_signed(-DY);
        if !self.columns.get(x - 1, behind) && self.columns.get(x - 1, y) {
            self.jump_horizontal::<-1>(x, y, g, slot);
            self.jump_diagonal::<-1, DY>(x, y, g, slot);
        }
        if !self.columns.get(x + 1, behind) && self.columns.get(x + 1, y) {
            self.jump_horizontal::<1>(x, y, g, slot);
            self.jump_diagonal::<1, DY>(x, y, g, slot);
        }
    }

    /// Jumps east (`DX` 1) or west (-1) from `(x, y)` (reached at cost `g`) and adds the jump
    /// point found, if any, as a successor of `parent`.
    #[inline]
    fn jump_horizontal<const DX: isize>(&mut self, x: usize, y: usize, g: f64, parent: usize) {
        let stop = self.scan_horizontal::<DX>(x, y);
        if let Some(jump_x) = successor::<DX>(stop, x, y == self.goal_y, self.goal_x) {
            let g = g + self.straight * jump_x.abs_diff(x) as f64;
            self.relax(jump_x, y, g, parent);
        }
    }

    /// Jumps south (`DY` 1) or north (-1) from `(x, y)`; as [`JumpSearch::jump_horizontal`].
    #[inline]
    fn jump_vertical<const DY: isize>(&mut self, x: usize, y: usize, g: f64, parent: usize) {
        let stop = self.scan_vertical::<DY>(x, y);
        if let Some(jump_y) = successor::<DY>(stop, y, x == self.goal_x, self.goal_y) {
            let g = g + self.straight * jump_y.abs_diff(y) as f64;
            self.relax(x, jump_y, g, parent);
        }
    }

    /// Runs diagonally from `(x, y)` while the step is allowed, scanning straight along both
    /// axes of the run from every cell it reaches; every jump point found (and the goal, if the
    /// run meets it) becomes a successor of `parent`.
    fn jump_diagonal<const DX: isize, const DY: isize>(
        &mut self,
        x: usize,
        y: usize,
        g: f64,
        parent: usize,
    ) {
        let (mut x, mut y) = (x, y);
        let mut next_x = x.wrapping_add_signed(DX);
        let mut next_y = y.wrapping_add_signed(DY);
        // A diagonal step needs both cells beside it free (no corner cutting). After the first
        // step the straight scans tell whether those are free.
        if !(self.rows.get(y, next_x) && self.rows.get(next_y, x)) {
            return;
        }
        // How many steps away the goal is, if it lies on this diagonal.
        let goal_steps = {
            let (run_x, run_y) = (self.goal_x.wrapping_sub(x), self.goal_y.wrapping_sub(y));
            let steps_x = if DX > 0 { run_x } else { run_x.wrapping_neg() };
            let steps_y = if DY > 0 { run_y } else { run_y.wrapping_neg() };
            if steps_x == steps_y {
                u32::try_from(steps_x).unwrap_or(u32::MAX)
            } else {
                u32::MAX
            }
        };
        let mut steps = 0u32;
        while self.rows.get(next_y, next_x) {
            (x, y) = (next_x, next_y);
            steps += 1;
            let diagonal_cost = g + self.diagonal * f64::from(steps);
            if steps == goal_steps {
                self.relax(x, y, diagonal_cost, parent);
                return;
            }
            // A cell a link leaves from is a jump point wherever the run meets it.
            if LINKS && self.rows.is_marked(y, x) {
                self.relax(x, y, diagonal_cost, parent);
            }
            (next_x, next_y) = (x.wrapping_add_signed(DX), y.wrapping_add_signed(DY));
            let across = self.scan_horizontal::<DX>(x, y);
            let along = self.scan_vertical::<DY>(x, y);
            if let Some(jump_x) = successor::<DX>(across, x, y == self.goal_y, self.goal_x) {
                let g = diagonal_cost + self.straight * jump_x.abs_diff(x) as f64;
                self.relax(jump_x, y, g, parent);
            }
            if let Some(jump_y) = successor::<DY>(along, y, x == self.goal_x, self.goal_y) {
                let g = diagonal_cost + self.straight * jump_y.abs_diff(y) as f64;
                self.relax(x, jump_y, g, parent);
            }
            let across_blocked = !across.jump && across.position == next_x;
            let along_blocked = !along.jump && along.position == next_y;
            if across_blocked || along_blocked {
                return;
            }
        }
    }

    /// Scans east (`DX` 1) or west (-1) from `(x, y)`.
    #[inline]
    fn scan_horizontal<const DX: isize>(&self, x: usize, y: usize) -> ScanStop {
        if DX > 0 {
            self.rows.scan_increasing(y, x)
        } else {
            self.rows.scan_decreasing(y, x)
        }
    }

    /// Scans south (`DY` 1) or north (-1) from `(x, y)`.
    #[inline]
    fn scan_vertical<const DY: isize>(&self, x: usize, y: usize) -> ScanStop {
        if DY > 0 {
            self.columns.scan_increasing(x, y)
        } else {
            self.columns.scan_decreasing(x, y)
        }
    }

    /// Offers the cell `(x, y)` at cost `g` through the node in slot `parent`, by a jump.
    #[inline]
    fn relax(&mut self, x: usize, y: usize, g: f64, parent: usize) {
        self.relax_by(x, y, g, (parent, false));
    }

    /// Offers the cell `(x, y)` at cost `g` through the node in slot `parent`, by a link when
    /// `via_link`, else by a jump.
    #[inline]
    fn relax_by(&mut self, x: usize, y: usize, g: f64, (parent, via_link): (usize, bool)) {
        let cell = y * self.stride + x;
        let scratch = &mut *self.scratch;
        let slot = match scratch.slot_of(cell) {
            Some(slot) => {
                // Known (open or expanded): only a clearly cheaper route counts, and it reopens
                // an expanded node.
                let node = &mut scratch.nodes[slot];
                if g >= node.g * (1.0 - REOPEN_MARGIN) {
                    return;
                }
                node.g = g;
                node.parent = parent as u32;
                node.closed = false;
                node.via_link = via_link;
                slot
            }
            None => scratch.add((x, y, cell), g, (parent, via_link)),
        };
        // The octile distance: exact on open ground, and never more than the true cost; over
        // links, the bound that knows them.
        let (straight, diagonal) = (self.straight, self.diagonal);
        let mut h = octile(
            straight,
            diagonal,
            x.abs_diff(self.goal_x),
            y.abs_diff(self.goal_y),
        );
        if LINKS {
            let (at, bound) = ((x as u32, y as u32), self.links.1);
            h = bound.estimate(h, at, |a, b| {
                let (dx, dy) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
                octile(straight, diagonal, dx as usize, dy as usize)
            });
        }
        scratch.open.push(OpenEntry::new(g + h, g, slot as u32));
        self.stats.pushed += 1;
    }
}

/// The octile distance over `run_x` columns and `run_y` rows with these step costs.
#[inline]
fn octile(straight: f64, diagonal: f64, run_x: usize, run_y: usize) -> f64 {
    let (long, short) = (run_x.max(run_y) as f64, run_x.min(run_y) as f64);
    straight * (long - short) + diagonal * short
}

/// How much cheaper, relatively, a new route to a known node must be to replace the old one (and
/// to expand the node again if it was expanded already). Routes of the same length can differ in
/// their last bits by rounding; the margin keeps them from counting as improvements, and the
/// most it can cost a path is of the order of this fraction of its length.
const REOPEN_MARGIN: f64 = 1e-10;

/// Where a straight scan from `from` in direction `STEP` yields a successor: the goal when it
/// lies on the scanned line (`goal_on_line`) at `goal` before the stop, else the jump point if
/// the scan found one.
#[inline]
fn successor<const STEP: isize>(
    stop: ScanStop,
    from: usize,
    goal_on_line: bool,
    goal: usize,
) -> Option<usize> {
    if goal_on_line {
        // The last walkable cell the scan reached.
        let last = if stop.jump {
            stop.position
        } else {
            stop.position.wrapping_add_signed(-STEP)
        };
        let goal_reached = if STEP > 0 {
            from < goal && goal <= last
        } else {
            last <= goal && goal < from
        };
        if goal_reached {
            return Some(goal);
        }
    }
    stop.jump.then_some(stop.position)
}
