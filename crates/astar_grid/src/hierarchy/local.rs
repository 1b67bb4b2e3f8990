//! Searches held inside one rectangle of cells: Dijkstra's algorithm from one cell to all
//! others, forwards or backwards (a sector's costs between its entrances, and a query's way in
//! and out of its sectors), and A* between two cells (one leg of a hierarchical path).

use crate::heuristic::HeuristicFn;
use crate::movement::DIRECTIONS;
use crate::search::{OpenEntry, OpenList};
use crate::{Cell, CostModel, Grid, Heuristic, Movement, Neighborhood};

/// A rectangle of cells, both corners inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub min: Cell,
    pub max: Cell,
}

impl Rect {
    pub(crate) const fn width(self) -> u32 {
        self.max.x - self.min.x + 1
    }

    pub(crate) const fn len(self) -> usize {
        self.width() as usize * (self.max.y - self.min.y + 1) as usize
    }

    pub(crate) const fn contains(self, cell: Cell) -> bool {
        cell.x >= self.min.x && cell.x <= self.max.x && cell.y >= self.min.y && cell.y <= self.max.y
    }

    /// The index of `cell` (inside the rectangle) in row-major order.
    pub(crate) const fn local(self, cell: Cell) -> usize {
        (cell.y - self.min.y) as usize * self.width() as usize + (cell.x - self.min.x) as usize
    }

    /// The cell at row-major `local`.
    pub(crate) const fn cell(self, local: usize) -> Cell {
        let width = self.width() as usize;
        Cell::new(
            self.min.x + (local % width) as u32,
            self.min.y + (local / width) as u32,
        )
    }
}

/// The rules every search of a hierarchy follows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepRules {
    pub movement: Movement,
    pub cost: CostModel,
    pub heuristic: HeuristicFn,
}

impl StepRules {
    pub(crate) fn new(movement: Movement, cost: CostModel) -> Self {
        let heuristic = HeuristicFn::new(
            Heuristic::default_for(movement.neighborhood),
            movement.neighborhood,
            cost,
        );
        Self {
            movement,
            cost,
            heuristic,
        }
    }

    /// The number of [`DIRECTIONS`] the movement takes.
    pub(crate) const fn directions(self) -> usize {
        match self.movement.neighborhood {
            Neighborhood::Four => 4,
            // `walk` leaves out the two diagonals a hexagonal grid lacks.
            Neighborhood::Eight | Neighborhood::Hex => 8,
        }
    }

    /// The padded index of the cell one step by `(dx, dy)` from the walkable cell at padded
    /// `index`, when the movement allows the step on `grid` as it is; `None` when the target
    /// is off the grid or blocked, or a corner forbids it. Reads the padded buffer, whose
    /// blocked border keeps every neighbour of a cell inside it.
    #[inline]
    pub(crate) fn walk(self, grid: &Grid, index: usize, (dx, dy): (i32, i32)) -> Option<usize> {
        let raw = grid.raw();
        let stride = grid.stride() as isize;
        let next = (index as isize + dy as isize * stride + dx as isize) as usize;
        if raw[next] == 0 {
            return None;
        }
        if dx != 0 && dy != 0 {
            let corner_a = raw[(index as isize + dx as isize) as usize] != 0;
            let corner_b = raw[(index as isize + dy as isize * stride) as usize] != 0;
            if !self.movement.allows_step(dx, dy, corner_a, corner_b) {
                return None;
            }
        }
        Some(next)
    }

    /// Calls `visit` with each cell one legal step (and, with `links`, one open link) from the
    /// walkable `cell`, and what that step costs, leaving out the cells inside `inside` (the
    /// cell's own sector, when only the ways out of it are wanted).
    pub(crate) fn steps_leaving(
        self,
        grid: &Grid,
        (cell, inside): (Cell, Option<Rect>),
        links: bool,
        mut visit: impl FnMut(Cell, f64),
    ) {
        for (next, cost) in self.steps_of(cell, self.steps_out_of(grid, cell, inside)) {
            visit(next, cost);
        }
        if links {
            links_leaving(grid, (cell, inside), visit);
        }
    }

    /// The steps the movement allows from the walkable `cell` on `grid`, leaving out the cells
    /// inside `inside`: entry `k` is the terrain value of the cell a step by
    /// [`DIRECTIONS`]`[k]` enters, or 0 where there is no such step.
    pub(crate) fn steps_out_of(self, grid: &Grid, cell: Cell, inside: Option<Rect>) -> [u8; 8] {
        let index = grid.index(cell);
        let mut values = [0; 8];
        for (value, &(dx, dy)) in values.iter_mut().zip(&DIRECTIONS[..self.directions()]) {
            let stays = cell
                .offset(dx, dy)
                .is_none_or(|next| inside.is_some_and(|rect| rect.contains(next)));
            if let Some(next) = self.walk(grid, index, (dx, dy)).filter(|_| !stays) {
                *value = grid.raw()[next];
            }
        }
        values
    }

    /// The steps `values` ([`StepRules::steps_out_of`]) from `cell`: the cell each enters and
    /// what it costs.
    pub(crate) fn steps_of(self, cell: Cell, values: [u8; 8]) -> impl Iterator<Item = (Cell, f64)> {
        DIRECTIONS
            .iter()
            .zip(values)
            .filter(|&(_, value)| value != 0)
            .filter_map(move |(&step, value)| {
                let next = cell.offset(step.0, step.1)?;
                Some((next, self.base(step) * f64::from(value)))
            })
    }

    /// The price of a step by `(dx, dy)`, before the terrain of the cell entered.
    #[inline]
    pub(crate) fn base(self, (dx, dy): (i32, i32)) -> f64 {
        self.cost.step(self.movement.neighborhood, dx, dy)
    }

    /// The estimate between two cells.
    #[inline]
    pub(crate) fn estimate(self, a: Cell, b: Cell) -> f64 {
        self.heuristic.between((a.x, a.y), (b.x, b.y))
    }
}

/// Calls `visit` with the far end of each open link from `cell` that is walkable and lies
/// outside `inside`, and the link's cost: the ways out of a sector that its nodes' kept steps
/// leave out, read from the grid.
pub(crate) fn links_leaving(
    grid: &Grid,
    (cell, inside): (Cell, Option<Rect>),
    mut visit: impl FnMut(Cell, f64),
) {
    if !grid.links.has_steps() {
        return;
    }
    for step in grid.links.steps_from(grid.index(cell)) {
        let next = grid.cell_at(step.to as usize);
        let stays = inside.is_some_and(|rect| rect.contains(next));
        if !stays && grid.is_walkable(next) {
            visit(next, step.cost);
        }
    }
}

/// Where [`LocalSearch::path_to_any`] may end, and what guides it there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aim<'a> {
    /// The cells it may end at, each with a cost added on reaching it.
    pub ends: &'a [(Cell, f64)],
    /// The cells whose straight line, plus the cost beside each, guides it.
    pub guides: &'a [(Cell, f64)],
    /// The weight of the guides' straight lines.
    pub weight: f64,
}

/// Which way a flood runs: from its cell to the others, or from the others to its cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Forward,
    Backward,
}

/// Scratch memory for searches inside a rectangle, reused from search to search. A copy
/// starts empty ([`Clone`] copies nothing): no search reads what an earlier one left, and the
/// structures that hold one (a hierarchy, a sector field) are copied whole on every edit.
#[derive(Debug, Default)]
pub(crate) struct LocalSearch {
    cost: Vec<f64>,
    parent: Vec<u32>,
    /// `generation` when the cell was reached in the current search, `generation + 1` once it is
    /// settled.
    mark: Vec<u32>,
    /// `generation` for the cells a flood stops at once all of them are settled.
    target: Vec<u32>,
    /// The guided searches' estimate at each cell reached ([`LocalSearch::path`] and
    /// [`LocalSearch::path_to_any`]), measured once a search.
    estimate: Vec<f64>,
    generation: u32,
    open: OpenList,
    /// The rectangle of the last search, whose local indices [`LocalSearch::settled_cost`]
    /// reads.
    rect: Option<Rect>,
}

impl Clone for LocalSearch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

const NO_PARENT: u32 = u32::MAX;
/// The id of [`LocalSearch::path_to_any`]'s entry that stands for its best end.
const FINISH: u32 = u32::MAX;

impl LocalSearch {
    fn begin(&mut self, rect: Rect) {
        let len = rect.len();
        if self.mark.len() < len {
            self.cost.resize(len, 0.0);
            self.parent.resize(len, NO_PARENT);
            self.mark.resize(len, 0);
            self.target.resize(len, 0);
        }
        match self.generation.checked_add(2) {
            Some(next) if next < u32::MAX - 1 => self.generation = next,
            _ => {
                self.mark.fill(0);
                self.target.fill(0);
                self.generation = 2;
            }
        }
        self.open.clear();
        self.rect = Some(rect);
    }

    /// The cost found to (or, backwards, from) `cell` by the last search, once settled.
    pub(crate) fn settled_cost(&self, cell: Cell) -> Option<f64> {
        let rect = self.rect?;
        if !rect.contains(cell) {
            return None;
        }
        let local = rect.local(cell);
        (self.mark[local] == self.generation + 1).then(|| self.cost[local])
    }

    /// The cell from which the last search reached `cell` (forwards; backwards, the cell it
    /// steps onto towards the source), once settled; `None` for the source, a seed and a cell
    /// not settled.
    pub(crate) fn settled_parent(&self, cell: Cell) -> Option<Cell> {
        let rect = self.rect?;
        if !rect.contains(cell) {
            return None;
        }
        let local = rect.local(cell);
        let parent = self.parent[local];
        (self.mark[local] == self.generation + 1 && parent != NO_PARENT)
            .then(|| rect.cell(parent as usize))
    }

    /// Dijkstra's algorithm inside `rect` from `source`, until every cell it reaches is
    /// settled or every one of `targets` is (each target counted once). Forwards it finds the
    /// cost from `source` to each cell; backwards, from each cell to `source`. Read the costs
    /// with [`LocalSearch::settled_cost`].
    pub(crate) fn flood(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        (rect, source): (Rect, Cell),
        flow: Flow,
        targets: &[Cell],
    ) {
        self.begin(rect);
        let left = self.mark_targets(grid, rect, targets.iter().copied(), Some(source));
        self.seed(rect, source, 0.0);
        self.settle_all(grid, rules, rect, flow, left);
    }

    /// Marks the walkable cells of `targets` inside `rect` (and `source`, walkable or not) as
    /// the cells a search may stop once it has settled; returns how many, each counted once.
    fn mark_targets(
        &mut self,
        grid: &Grid,
        rect: Rect,
        targets: impl IntoIterator<Item = Cell>,
        source: Option<Cell>,
    ) -> usize {
        let mut left = 0;
        for cell in targets {
            if rect.contains(cell) && (grid.is_walkable(cell) || Some(cell) == source) {
                let local = rect.local(cell);
                if self.target[local] != self.generation {
                    self.target[local] = self.generation;
                    left += 1;
                }
            }
        }
        left
    }

    /// Dijkstra's algorithm inside `rect` from several cells at once, each with a cost to start
    /// from (`seeds`, all inside the rectangle), until every cell reached is settled, or every
    /// one of `targets` is when there are some. Backwards it finds, for each cell, the least
    /// over the seeds of the cost from the cell to the seed plus the seed's own cost. Read the
    /// costs with [`LocalSearch::settled_cost`].
    pub(crate) fn flood_seeded(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        (rect, seeds): (Rect, &[(Cell, f64)]),
        flow: Flow,
        targets: &[Cell],
    ) {
        self.begin(rect);
        let left = self.mark_targets(grid, rect, targets.iter().copied(), None);
        for &(cell, cost) in seeds {
            let local = rect.local(cell);
            if self.mark[local] != self.generation || cost < self.cost[local] {
                self.seed(rect, cell, cost);
            }
        }
        self.settle_all(grid, rules, rect, flow, left);
    }

    fn seed(&mut self, rect: Rect, cell: Cell, cost: f64) {
        let local = rect.local(cell);
        self.reach(local, cost, NO_PARENT);
        self.open.push(OpenEntry::new(cost, cost, local as u32));
    }

    /// Settles the reached cells in order of cost until none is left, or, when `left` is
    /// positive, until that many of the cells marked as targets are settled.
    fn settle_all(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        rect: Rect,
        flow: Flow,
        mut left: usize,
    ) {
        let stop_early = left > 0;
        while let Some(entry) = self.open.pop() {
            let local = entry.id() as usize;
            if self.mark[local] != self.generation {
                continue;
            }
            self.mark[local] = self.generation + 1;
            if stop_early && self.target[local] == self.generation {
                left -= 1;
                if left == 0 {
                    return;
                }
            }
            let cost = self.cost[local];
            self.expand(grid, rules, rect, local, flow, |search, next, step| {
                search.relax(next, cost + step, 0.0, local);
            });
        }
    }

    /// The cheapest path inside `rect` from `from` to `to` by A* (by Dijkstra's algorithm on
    /// a grid with links): its cells from `from` to
    /// `to` appended to `out`, `from` left out when `skip_first`; returns its cost, or `None`
    /// (nothing appended) when none lies inside the rectangle.
    pub(crate) fn path(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        rect: Rect,
        (from, to): (Cell, Cell),
        (out, skip_first): (&mut Vec<Cell>, bool),
    ) -> Option<f64> {
        self.begin(rect);
        let start = rect.local(from);
        self.reach(start, 0.0, NO_PARENT);
        // A link may be a shortcut that the plain estimate overestimates: with links, search
        // by cost alone, which the small rectangle makes cheap.
        let guided = !grid.links.has_steps();
        let estimate = |cell: Cell| {
            if guided {
                rules.estimate(cell, to)
            } else {
                0.0
            }
        };
        let h = estimate(from);
        self.open.push(OpenEntry::new(h, 0.0, start as u32));
        let target = rect.contains(to).then(|| rect.local(to))?;
        while let Some(entry) = self.open.pop() {
            let local = entry.id() as usize;
            if self.mark[local] != self.generation {
                continue;
            }
            self.mark[local] = self.generation + 1;
            if local == target {
                let first = out.len();
                self.trace(rect, local, out);
                if skip_first {
                    out.remove(first);
                }
                return Some(self.cost[local]);
            }
            self.expand_guided(grid, rules, rect, local, &estimate);
        }
        None
    }

    /// A way inside `rect` from `from` to one of `aim`'s ends (each a cell and a non-negative
    /// cost added on reaching it; a cell given twice counts with its least): A* guided by the
    /// least over its guides (cells and additions alike) of the straight line to it times its
    /// weight plus its addition, until an end is settled whose cost plus addition no entry left
    /// can beat under that guide. Returns the index among the ends of the end taken and the
    /// cost to it (without its addition), with the way's cells from `from` to that end appended
    /// to `out` when given; `None` (nothing appended) when no end lies inside the rectangle
    /// within reach.
    ///
    /// With the guides equal to the ends and weight 1 the estimate is consistent and the end
    /// taken is the cheapest; a larger weight floods fewer cells where walls stand between,
    /// and fewer guides cost fewer estimates a cell. Not for grids with links (the straight
    /// line may overestimate a link).
    pub(crate) fn path_to_any(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        (rect, from): (Rect, Cell),
        aim: Aim<'_>,
        out: Option<&mut Vec<Cell>>,
    ) -> Option<(usize, f64)> {
        let Aim {
            ends,
            guides,
            weight,
        } = aim;
        self.begin(rect);
        self.mark_targets(grid, rect, ends.iter().map(|&(cell, _)| cell), Some(from));
        let estimate = |cell: Cell| {
            guides
                .iter()
                .map(|&(guide, addition)| rules.estimate(cell, guide) * weight + addition)
                .fold(f64::INFINITY, f64::min)
        };
        let start = rect.local(from);
        self.reach(start, 0.0, NO_PARENT);
        self.open
            .push(OpenEntry::new(estimate(from), 0.0, start as u32));
        // The best end settled so far, entered in the open list as `FINISH` at its cost plus
        // its addition: when it comes out first, nothing left can beat it.
        let mut best: Option<(usize, f64)> = None;
        let total = |(end, cost): (usize, f64)| cost + ends[end].1;
        while let Some(entry) = self.open.pop() {
            if entry.id() == FINISH {
                let (end, cost) = best?;
                if let Some(out) = out {
                    self.trace(rect, rect.local(ends[end].0), out);
                }
                return Some((end, cost));
            }
            let local = entry.id() as usize;
            if self.mark[local] != self.generation {
                continue;
            }
            self.mark[local] = self.generation + 1;
            let cost = self.cost[local];
            if self.target[local] == self.generation {
                let cell = rect.cell(local);
                let reached = ends
                    .iter()
                    .enumerate()
                    .filter(|&(_, &(end, _))| end == cell)
                    .min_by(|a, b| a.1.1.total_cmp(&b.1.1))
                    .map(|(index, _)| (index, cost));
                if let Some(reached) = reached
                    && best.is_none_or(|best| total(reached) < total(best))
                {
                    best = Some(reached);
                    let value = total(reached);
                    self.open.push(OpenEntry::new(value, value, FINISH));
                }
            }
            self.expand_guided(grid, rules, rect, local, &estimate);
        }
        None
    }

    /// Relaxes the cells one step (or one open link) forwards from the settled cell at
    /// `local`, each entered with `estimate` at it, measured when the search first reaches it.
    fn expand_guided(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        rect: Rect,
        local: usize,
        estimate: &impl Fn(Cell) -> f64,
    ) {
        if self.estimate.len() < rect.len() {
            self.estimate.resize(rect.len(), 0.0);
        }
        let cost = self.cost[local];
        self.expand(
            grid,
            rules,
            rect,
            local,
            Flow::Forward,
            |search, next, step| {
                let h = if search.mark[next] < search.generation {
                    let h = estimate(rect.cell(next));
                    search.estimate[next] = h;
                    h
                } else {
                    search.estimate[next]
                };
                search.relax(next, cost + step, h, local);
            },
        );
    }

    /// Appends the cells of the last search's way from its source to the settled cell at
    /// `local`, in order.
    fn trace(&self, rect: Rect, local: usize, out: &mut Vec<Cell>) {
        let first = out.len();
        let mut at = local as u32;
        while at != NO_PARENT {
            out.push(rect.cell(at as usize));
            at = self.parent[at as usize];
        }
        out[first..].reverse();
    }

    fn reach(&mut self, local: usize, cost: f64, parent: u32) {
        self.mark[local] = self.generation;
        self.cost[local] = cost;
        self.parent[local] = parent;
    }

    #[inline]
    fn relax(&mut self, local: usize, cost: f64, h: f64, parent: usize) {
        let mark = self.mark[local];
        let better = mark < self.generation || (mark == self.generation && cost < self.cost[local]);
        if better {
            self.reach(local, cost, parent as u32);
            self.open.push(OpenEntry::new(cost + h, cost, local as u32));
        }
    }

    /// Calls `visit` with the local index of each cell inside `rect` one step or one open link
    /// from the cell at `local` (forwards) or from which one leads to it (backwards), and what
    /// that step costs. Reads the grid's padded buffer directly: this is the inner loop of a
    /// hierarchy's build.
    #[inline]
    fn expand(
        &mut self,
        grid: &Grid,
        rules: StepRules,
        rect: Rect,
        local: usize,
        flow: Flow,
        mut visit: impl FnMut(&mut Self, usize, f64),
    ) {
        let cell = rect.cell(local);
        let index = grid.index(cell);
        let raw = grid.raw();
        let here = raw[index];
        if here == 0 {
            return;
        }
        let width = i64::from(rect.width());
        let height = i64::from(rect.max.y - rect.min.y) + 1;
        let (x, y) = (
            i64::from(cell.x - rect.min.x),
            i64::from(cell.y - rect.min.y),
        );
        for &(dx, dy) in &DIRECTIONS[..rules.directions()] {
            let (nx, ny) = (x + i64::from(dx), y + i64::from(dy));
            if nx < 0 || ny < 0 || nx >= width || ny >= height {
                continue;
            }
            let Some(next) = rules.walk(grid, index, (dx, dy)) else {
                continue;
            };
            let entered = match flow {
                Flow::Forward => raw[next],
                Flow::Backward => here,
            };
            let step = rules.base((dx, dy)) * f64::from(entered);
            visit(self, (ny * width + nx) as usize, step);
        }
        let links = &grid.links;
        if !links.has_steps() {
            return;
        }
        let steps = match flow {
            Flow::Forward => links.steps_from(index),
            Flow::Backward => links.steps_to(index),
        };
        for step in steps {
            let far = match flow {
                Flow::Forward => step.to,
                Flow::Backward => step.from,
            };
            let next = grid.cell_at(far as usize);
            if rect.contains(next) && grid.is_walkable(next) {
                visit(self, rect.local(next), step.cost);
            }
        }
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.cost.capacity() * size_of::<f64>()
            + self.estimate.capacity() * size_of::<f64>()
            + (self.parent.capacity() + self.mark.capacity() + self.target.capacity())
                * size_of::<u32>()
            + self.open.memory_bytes()
    }
}
