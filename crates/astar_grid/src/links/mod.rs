//! Links between cells beyond the neighbour steps: doors, ladders, stairs, teleporters and
//! one-way drops ([`Link`]), kept by a [`Grid`](crate::Grid) with its cells ([`Links`]).
//!
//! A link joins two walkable cells, however far apart (on different floors of a
//! [`FloorPlan`], say). It has a cost, added to a path as it is; a direction (both ways, or
//! one way for a drop); a state (open or closed, for a door); and the agents that may use it:
//! those no larger than its [`Link::max_size`] whose terrain profile lets them onto its
//! [`Link::terrain`] (a ladder closed to boats). A search takes an open link from a cell
//! whose both ends are walkable at the time of the search.
//!
//! Which tools follow links is told on [`Links`].

mod bound;
mod floors;

pub(crate) use bound::LinkBound;
pub use floors::{FloorCell, FloorPlan, FloorPlanError};

use crate::{Cell, CostModel, Grid, Movement};
use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

/// The most links a grid holds: each costs a few dozen bytes, and every search of a grid with
/// links reads those of the cells it expands.
pub const MAX_LINKS: usize = 1 << 20;

/// The name of a link of a grid, given by [`Grid::add_link`]; never given again to another
/// link of the same grid, even after this one is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LinkId(pub u32);

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link {}", self.0)
    }
}

/// A link from cell [`Link::from`] to cell [`Link::to`].
///
/// Whether agents of a kind may take it: [`Link::usable_by`].
///
/// ```
/// use astar_grid::{Cell, Link};
///
/// // A ladder up, closed to agents wider than one cell and to profiles that cannot enter
/// // terrain value 7.
/// let ladder = Link::new(Cell::new(2, 3), Cell::new(2, 9), 4.0).with_max_size(1).with_terrain(7);
/// assert!(ladder.both_ways && ladder.open);
/// // A drop: one way, down only.
/// let drop = Link::new(Cell::new(5, 1), Cell::new(5, 4), 1.0).one_way();
/// assert!(!drop.both_ways);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// One end; a one-way link leaves from here.
    pub from: Cell,
    /// The other end; a one-way link arrives here.
    pub to: Cell,
    /// What taking the link adds to a path's cost, in the units of the search's cost model (a
    /// straight step onto a plain cell costs 1 under the octile model): finite, not negative.
    pub cost: f64,
    /// Whether it also leads from `to` to `from`. Default true.
    pub both_ways: bool,
    /// Whether it may be taken now: a closed door is a closed link. Default true.
    pub open: bool,
    /// The terrain value that agents' profiles judge it by: an agent whose profile cannot enter
    /// this value cannot take it. 1 to 255 (0 is a wall); default 1, plain ground. A search of
    /// the terrain grid itself (one-cell agents under the identity profile) takes every link.
    pub terrain: u8,
    /// The side of the largest square footprint that may take it, at least 1. Default
    /// `u8::MAX`: every agent.
    pub max_size: u8,
}

impl Link {
    /// An open link both ways between `from` and `to` costing `cost`, for every agent.
    #[must_use]
    pub const fn new(from: Cell, to: Cell, cost: f64) -> Self {
        Self {
            from,
            to,
            cost,
            both_ways: true,
            open: true,
            terrain: 1,
            max_size: u8::MAX,
        }
    }

    /// This link, leading only from `from` to `to`.
    #[must_use]
    pub const fn one_way(mut self) -> Self {
        self.both_ways = false;
        self
    }

    /// This link, open or closed.
    #[must_use]
    pub const fn with_open(mut self, open: bool) -> Self {
        self.open = open;
        self
    }

    /// This link, judged by agents' profiles as terrain value `terrain`.
    #[must_use]
    pub const fn with_terrain(mut self, terrain: u8) -> Self {
        self.terrain = terrain;
        self
    }

    /// This link, for footprints no wider than `max_size`.
    #[must_use]
    pub const fn with_max_size(mut self, max_size: u8) -> Self {
        self.max_size = max_size;
        self
    }

    /// Whether it leads from `from` to `to`, open or closed: from `self.from` to `self.to`,
    /// and back too when it leads both ways.
    ///
    /// ```
    /// use astar_grid::{Cell, Link};
    ///
    /// let drop = Link::new(Cell::new(2, 0), Cell::new(2, 5), 1.0).one_way();
    /// assert!(drop.leads(Cell::new(2, 0), Cell::new(2, 5)));
    /// assert!(!drop.leads(Cell::new(2, 5), Cell::new(2, 0)));
    /// ```
    #[must_use]
    pub fn leads(&self, from: Cell, to: Cell) -> bool {
        (self.from, self.to) == (from, to) || self.both_ways && (self.to, self.from) == (from, to)
    }
}

/// Which end of a link an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkEnd {
    /// [`Link::from`].
    From,
    /// [`Link::to`].
    To,
}

impl fmt::Display for LinkEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::From => "start",
            Self::To => "end",
        })
    }
}

/// Why a link could not be added or changed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LinkError {
    /// An end lies outside the grid.
    #[error("the link's {end} {cell} is outside the {width}x{height} grid")]
    OutOfBounds {
        /// Which end.
        end: LinkEnd,
        /// The cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// An end is a blocked cell.
    #[error("the link's {end} {cell} is blocked")]
    Blocked {
        /// Which end.
        end: LinkEnd,
        /// The cell.
        cell: Cell,
    },
    /// The cost is negative, infinite or not a number.
    #[error("a link's cost must be finite and not negative, not {cost}")]
    InvalidCost {
        /// The cost given.
        cost: f64,
    },
    /// The terrain value is 0, which is a wall.
    #[error("a link's terrain must be 1 to 255: 0 is a wall")]
    WallTerrain,
    /// The largest footprint is 0.
    #[error("a link's largest footprint must be at least 1, not {max_size}")]
    InvalidSize {
        /// The size given.
        max_size: u8,
    },
    /// The grid holds [`MAX_LINKS`] links already.
    #[error("a grid holds at most {MAX_LINKS} links")]
    TooMany,
    /// No link of the grid has this name (it was removed, or is another grid's).
    #[error("the grid has no {0}")]
    Unknown(LinkId),
}

/// One direction of an open link, by the padded indices of its ends, as searches read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LinkStep {
    pub from: u32,
    pub to: u32,
    pub cost: f64,
    pub id: LinkId,
}

/// The links of a grid ([`Grid::links`]), and the table of their open directions that
/// searches read: sorted by the cell they leave, with a bit per padded cell that has one.
///
/// A* ([`Searcher::find_path`](crate::Searcher::find_path), [`Searcher::begin`](crate::Searcher::begin)
/// and so [`Engine`](crate::Engine) with [`Algorithm::AStar`](crate::Algorithm::AStar)) takes
/// links as extra steps, whole or time-sliced, windows and limits included, and its heuristic
/// stays admissible and consistent when a link is a shortcut: the estimate is the shortest way
/// to the goal in a relaxed graph whose edges are the heuristic's distances between any two
/// cells and the links themselves. An [`AgentGrid`](crate::AgentGrid) keeps the links its kind
/// may take ([`Link::usable_by`]).
///
/// Jump point search ([`Searcher::find_path_jps`](crate::Searcher::find_path_jps)) follows them
/// too: a [`JumpGrid`](crate::JumpGrid) takes the grid's links, its jumps stop at the cells
/// links leave from (straight scans as at a forced neighbour, diagonal runs as at the goal),
/// and a cell reached by a link is searched in every direction, as the start is.
///
/// Smoothing ([`smooth_path`](crate::smooth_path)) keeps a path's link steps whole and never
/// draws a segment across one.
///
/// Flow fields and goal trees ([`FlowField`](crate::FlowField), [`GoalTree`](crate::GoalTree),
/// built whole or in slices) follow them: a cell's next step may be a link's far end
/// ([`FlowField::next_step`](crate::FlowField::next_step)), and
/// [`FlowField::update`](crate::FlowField::update) keeps a field exact when links change, given
/// both ends of each changed link among the changed cells.
///
/// Connectivity ([`Components`](crate::Components)) joins a link's ends whichever way it
/// leads, and the tower check follows the same links
/// ([`Components::update_links`](crate::Components::update_links) after they change).
///
/// Local repair ([`Searcher::repair_path`](crate::Searcher::repair_path)) keeps a path's link
/// steps while their links are open, and replaces one whose link closed, or whose end was
/// blocked, by a detour.
///
/// The closest reachable cell, of every algorithm
/// ([`SearchOptions::closest_reachable`](crate::SearchOptions::closest_reachable),
/// [`JpsOptions::closest_reachable`](crate::JpsOptions::closest_reachable),
/// [`FlowField::path_or_closest_from`](crate::FlowField::path_or_closest_from)), is looked for
/// among the cells reached by steps and links.
///
/// ```
/// use astar_grid::{Cell, Grid, Link};
///
/// let mut grid = Grid::new(8, 8);
/// let door = grid.add_link(Link::new(Cell::new(0, 0), Cell::new(7, 7), 2.0))?;
/// let drop = grid.add_link(Link::new(Cell::new(3, 0), Cell::new(3, 5), 1.0).one_way())?;
/// grid.set_link_open(door, false)?;
/// let open: Vec<_> = grid.links().iter().filter(|(_, link)| link.open).map(|(id, _)| id).collect();
/// assert_eq!(open, [drop]);
/// assert_eq!(grid.links().get(door).map(|link| link.cost), Some(2.0));
/// # Ok::<(), astar_grid::LinkError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Links {
    links: BTreeMap<LinkId, Link>,
    next_id: u32,
    /// The open directions, sorted by `from`.
    steps: Vec<LinkStep>,
    /// Bit `i` set when padded cell `i` has an open direction leaving it.
    leaving: Vec<u64>,
    /// The open directions again, sorted by `to`, for searches that run backwards from a goal.
    arriving_steps: Vec<LinkStep>,
    /// Bit `i` set when an open direction arrives at padded cell `i`.
    arriving: Vec<u64>,
}

impl Links {
    /// The number of links, open or closed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The link named `id`.
    #[must_use]
    pub fn get(&self, id: LinkId) -> Option<&Link> {
        self.links.get(&id)
    }

    /// Every link with its name, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (LinkId, &Link)> + '_ {
        self.links.iter().map(|(&id, link)| (id, link))
    }

    /// Bytes held, the search table included.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.links.len() * (size_of::<LinkId>() + size_of::<Link>() + 3 * size_of::<usize>())
            + (self.steps.capacity() + self.arriving_steps.capacity()) * size_of::<LinkStep>()
            + (self.leaving.capacity() + self.arriving.capacity()) * size_of::<u64>()
    }

    /// Whether a link, open or closed, leads from `from` to `to`.
    pub(crate) fn leads(&self, from: Cell, to: Cell) -> bool {
        self.links.values().any(|link| link.leads(from, to))
    }

    /// Whether any open direction leaves some cell: searches follow links only then.
    pub(crate) fn has_steps(&self) -> bool {
        !self.steps.is_empty()
    }

    /// The open directions, sorted by the cell they leave.
    pub(crate) fn steps(&self) -> &[LinkStep] {
        &self.steps
    }

    /// The open directions leaving padded cell `index`.
    #[inline]
    pub(crate) fn steps_from(&self, index: usize) -> &[LinkStep] {
        steps_at(&self.steps, &self.leaving, index, |step| step.from)
    }

    /// The open directions arriving at padded cell `index`.
    #[inline]
    pub(crate) fn steps_to(&self, index: usize) -> &[LinkStep] {
        steps_at(&self.arriving_steps, &self.arriving, index, |step| step.to)
    }

    pub(crate) fn insert(&mut self, link: Link) -> Result<LinkId, LinkError> {
        if self.links.len() >= MAX_LINKS || self.next_id == u32::MAX {
            return Err(LinkError::TooMany);
        }
        let id = LinkId(self.next_id);
        self.next_id += 1;
        self.links.insert(id, link);
        Ok(id)
    }

    pub(crate) fn remove(&mut self, id: LinkId) -> Result<Link, LinkError> {
        self.links.remove(&id).ok_or(LinkError::Unknown(id))
    }

    pub(crate) fn get_mut(&mut self, id: LinkId) -> Result<&mut Link, LinkError> {
        self.links.get_mut(&id).ok_or(LinkError::Unknown(id))
    }

    /// Rebuilds the search table for a grid whose padded rows are `stride` long and whose
    /// padded buffer holds `padded` cells.
    pub(crate) fn rebuild(&mut self, stride: usize, padded: usize) {
        self.steps.clear();
        self.leaving.clear();
        self.arriving_steps.clear();
        self.arriving.clear();
        if stride == 0 {
            return;
        }
        let index = |cell: Cell| ((cell.y as usize + 1) * stride + cell.x as usize + 1) as u32;
        for (&id, link) in self.links.iter().filter(|(_, link)| link.open) {
            let (from, to) = (index(link.from), index(link.to));
            let cost = link.cost;
            self.steps.push(LinkStep { from, to, cost, id });
            if link.both_ways {
                let (from, to) = (to, from);
                self.steps.push(LinkStep { from, to, cost, id });
            }
        }
        if self.steps.is_empty() {
            return;
        }
        self.steps.sort_by_key(|step| (step.from, step.to, step.id));
        self.arriving_steps.extend_from_slice(&self.steps);
        self.arriving_steps
            .sort_by_key(|step| (step.to, step.from, step.id));
        self.leaving.resize(padded.div_ceil(64), 0);
        self.arriving.resize(padded.div_ceil(64), 0);
        for step in &self.steps {
            let (from, to) = (step.from as usize, step.to as usize);
            self.leaving[from / 64] |= 1 << (from % 64);
            self.arriving[to / 64] |= 1 << (to % 64);
        }
    }

    /// The links `keep` keeps, with the same names.
    pub(crate) fn filtered(&self, keep: impl Fn(&Link) -> bool) -> Self {
        Self {
            links: self
                .links
                .iter()
                .filter(|(_, link)| keep(link))
                .map(|(&id, link)| (id, *link))
                .collect(),
            next_id: self.next_id,
            steps: Vec::new(),
            leaving: Vec::new(),
            arriving_steps: Vec::new(),
            arriving: Vec::new(),
        }
    }
}

/// The run of `steps` (sorted by `key`) whose key is padded cell `index`, found only when
/// `bits` has the cell's bit set.
#[inline]
fn steps_at<'s>(
    steps: &'s [LinkStep],
    bits: &[u64],
    index: usize,
    key: impl Fn(&LinkStep) -> u32,
) -> &'s [LinkStep] {
    let word = bits.get(index / 64).copied().unwrap_or(0);
    if word >> (index % 64) & 1 == 0 {
        return &[];
    }
    let index = index as u32;
    let first = steps.partition_point(|step| key(step) < index);
    let end = first + steps[first..].partition_point(|step| key(step) == index);
    &steps[first..end]
}

impl PartialEq for Links {
    fn eq(&self, other: &Self) -> bool {
        self.links.len() == other.links.len()
            && self
                .links
                .iter()
                .zip(&other.links)
                .all(|((a_id, a), (b_id, b))| a_id == b_id && same_link(a, b))
    }
}

impl Eq for Links {}

impl Hash for Links {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for (id, link) in &self.links {
            id.hash(state);
            (link.from, link.to, link.cost.to_bits()).hash(state);
            (link.both_ways, link.open, link.terrain, link.max_size).hash(state);
        }
    }
}

/// Whether two links are the same, their costs compared bit for bit.
fn same_link(a: &Link, b: &Link) -> bool {
    (a.from, a.to, a.both_ways, a.open, a.terrain, a.max_size)
        == (b.from, b.to, b.both_ways, b.open, b.terrain, b.max_size)
        && a.cost.to_bits() == b.cost.to_bits()
}

impl Grid {
    /// Adds `link` between two walkable cells of the grid; returns its name.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Link, SearchOptions, find_path};
    ///
    /// // Two rooms with no door between them, joined by a teleporter.
    /// let mut grid = Grid::from_ascii(
    ///     "...#...
    ///      ...#...",
    /// )?;
    /// let options = SearchOptions::default();
    /// assert!(find_path(&grid, Cell::new(0, 0), Cell::new(6, 0), &options)?.found().is_none());
    /// grid.add_link(Link::new(Cell::new(2, 1), Cell::new(4, 1), 0.5))?;
    /// let path = find_path(&grid, Cell::new(0, 0), Cell::new(6, 0), &options)?.found().cloned();
    /// assert_eq!(path.map(|path| path.cost), Some(2.0f64.sqrt() + 1.0 + 0.5 + 2.0f64.sqrt() + 1.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`LinkError::OutOfBounds`] and [`LinkError::Blocked`] for an end off the grid or
    /// blocked (the start end first), [`LinkError::InvalidCost`] for a cost that is negative or
    /// not finite, [`LinkError::WallTerrain`] for a terrain of 0, [`LinkError::InvalidSize`]
    /// for a largest footprint of 0, and [`LinkError::TooMany`] past [`MAX_LINKS`]. The grid is
    /// unchanged then.
    pub fn add_link(&mut self, link: Link) -> Result<LinkId, LinkError> {
        for (end, cell) in [(LinkEnd::From, link.from), (LinkEnd::To, link.to)] {
            if !self.contains(cell) {
                return Err(LinkError::OutOfBounds {
                    end,
                    cell,
                    width: self.width(),
                    height: self.height(),
                });
            }
            if !self.is_walkable(cell) {
                return Err(LinkError::Blocked { end, cell });
            }
        }
        if !(link.cost.is_finite() && link.cost >= 0.0) {
            return Err(LinkError::InvalidCost { cost: link.cost });
        }
        if link.terrain == 0 {
            return Err(LinkError::WallTerrain);
        }
        if link.max_size == 0 {
            return Err(LinkError::InvalidSize {
                max_size: link.max_size,
            });
        }
        let id = self.links.insert(link)?;
        self.refresh_links();
        Ok(id)
    }

    /// Removes link `id`; returns it. Its name is never given to another link.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Link, LinkError};
    ///
    /// let mut grid = Grid::new(4, 4);
    /// let teleporter = grid.add_link(Link::new(Cell::new(0, 0), Cell::new(3, 3), 0.0))?;
    /// assert_eq!(grid.remove_link(teleporter)?.to, Cell::new(3, 3));
    /// assert_eq!(grid.remove_link(teleporter), Err(LinkError::Unknown(teleporter)));
    /// let next = grid.add_link(Link::new(Cell::new(0, 0), Cell::new(3, 3), 0.0))?;
    /// assert_ne!(next, teleporter);
    /// # Ok::<(), LinkError>(())
    /// ```
    ///
    /// # Errors
    /// [`LinkError::Unknown`] when the grid has no such link.
    pub fn remove_link(&mut self, id: LinkId) -> Result<Link, LinkError> {
        let link = self.links.remove(id)?;
        self.refresh_links();
        Ok(link)
    }

    /// Opens or closes link `id`; returns whether it was open.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Link};
    ///
    /// let mut grid = Grid::new(4, 4);
    /// let door = grid.add_link(Link::new(Cell::new(0, 0), Cell::new(3, 3), 1.0))?;
    /// assert_eq!(grid.set_link_open(door, false), Ok(true));
    /// assert!(!grid.links().get(door).is_some_and(|link| link.open));
    /// # Ok::<(), astar_grid::LinkError>(())
    /// ```
    ///
    /// # Errors
    /// [`LinkError::Unknown`] when the grid has no such link.
    pub fn set_link_open(&mut self, id: LinkId, open: bool) -> Result<bool, LinkError> {
        let link = self.links.get_mut(id)?;
        let was = core::mem::replace(&mut link.open, open);
        if was != open {
            self.refresh_links();
        }
        Ok(was)
    }

    /// The grid's links.
    #[must_use]
    pub fn links(&self) -> &Links {
        &self.links
    }

    /// The cheapest open link from `from` to `to` that a search may step along, as its id and
    /// cost; `None` when none leads there (or either cell lies off the grid). What a path
    /// follower asks at each step of a path, to tell a link from a walk.
    ///
    /// ```
    /// use astar_grid::{Cell, Grid, Link};
    ///
    /// let mut grid = Grid::new(8, 8);
    /// let ladder = grid.add_link(Link::new(Cell::new(1, 1), Cell::new(6, 6), 3.0))?;
    /// assert_eq!(grid.link_step(Cell::new(6, 6), Cell::new(1, 1)), Some((ladder, 3.0)));
    /// assert_eq!(grid.link_step(Cell::new(1, 1), Cell::new(2, 1)), None);
    /// grid.set_link_open(ladder, false)?;
    /// assert_eq!(grid.link_step(Cell::new(1, 1), Cell::new(6, 6)), None);
    /// # Ok::<(), astar_grid::LinkError>(())
    /// ```
    #[must_use]
    pub fn link_step(&self, from: Cell, to: Cell) -> Option<(LinkId, f64)> {
        if !self.contains(from) || !self.contains(to) {
            return None;
        }
        let target = self.index(to) as u32;
        self.links
            .steps_from(self.index(from))
            .iter()
            .filter(|step| step.to == target)
            .map(|step| (step.id, step.cost))
            .reduce(|best, next| if next.1 < best.1 { next } else { best })
    }

    /// What a walk from `from` to its neighbour `to` costs under `movement` and `cost`: the
    /// step's price times the terrain of `to`; `None` when `movement` does not allow the step
    /// (not a neighbour, a blocked cell, a corner it may not cut).
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, Grid, Movement};
    ///
    /// let mut grid = Grid::new(4, 4);
    /// grid.set_cost(Cell::new(1, 1), 3)?;
    /// let walk = |to| grid.walk_cost(Cell::new(0, 0), to, Movement::EIGHT, CostModel::Octile);
    /// assert_eq!(walk(Cell::new(1, 0)), Some(1.0));
    /// assert_eq!(walk(Cell::new(1, 1)), Some(3.0 * 2f64.sqrt()));
    /// assert_eq!(walk(Cell::new(2, 0)), None);
    /// # Ok::<(), astar_grid::GridError>(())
    /// ```
    #[must_use]
    pub fn walk_cost(
        &self,
        from: Cell,
        to: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Option<f64> {
        if !movement.allows_step_on(self, from, to) {
            return None;
        }
        let step = cost.step(
            movement.neighborhood,
            to.x.wrapping_sub(from.x) as i32,
            to.y.wrapping_sub(from.y) as i32,
        );
        Some(step * f64::from(self.value(to)))
    }

    /// What a path's step from `from` to `to` costs: the cheaper of a walk
    /// ([`Grid::walk_cost`]) and the cheapest open link between them ([`Grid::link_step`]);
    /// `None` when neither joins them.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, Grid, Link, Movement};
    ///
    /// let mut grid = Grid::new(8, 1);
    /// grid.add_link(Link::new(Cell::new(0, 0), Cell::new(1, 0), 0.5))?;
    /// grid.add_link(Link::new(Cell::new(1, 0), Cell::new(7, 0), 3.0))?;
    /// let step = |from, to| grid.step_cost(from, to, Movement::EIGHT, CostModel::Octile);
    /// assert_eq!(step(Cell::new(0, 0), Cell::new(1, 0)), Some(0.5)); // the link is cheaper
    /// assert_eq!(step(Cell::new(1, 0), Cell::new(7, 0)), Some(3.0));
    /// assert_eq!(step(Cell::new(2, 0), Cell::new(3, 0)), Some(1.0));
    /// assert_eq!(step(Cell::new(2, 0), Cell::new(5, 0)), None);
    /// # Ok::<(), astar_grid::LinkError>(())
    /// ```
    #[must_use]
    pub fn step_cost(
        &self,
        from: Cell,
        to: Cell,
        movement: Movement,
        cost: CostModel,
    ) -> Option<f64> {
        let walked = self.walk_cost(from, to, movement, cost);
        let linked = self.link_step(from, to).map(|(_, cost)| cost);
        match (walked, linked) {
            (Some(walked), Some(linked)) => Some(walked.min(linked)),
            (walked, linked) => walked.or(linked),
        }
    }

    /// Whether an open link leads from `from` to `to`.
    pub(crate) fn has_open_link(&self, from: Cell, to: Cell) -> bool {
        self.link_step(from, to).is_some()
    }

    /// Replaces the grid's links by `links` (of a grid of the same size).
    pub(crate) fn set_links(&mut self, links: Links) {
        self.links = links;
        self.refresh_links();
    }

    fn refresh_links(&mut self) {
        let (stride, padded) = (self.stride(), self.raw().len());
        self.links.rebuild(stride, padded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_links_are_refused_with_the_end_they_are_about_and_change_nothing() {
        let mut grid = Grid::from_ascii("..#\n...").expect("grid");
        let before = grid.clone();
        let cases = [
            (
                Link::new(Cell::new(0, 0), Cell::new(3, 0), 1.0),
                LinkError::OutOfBounds {
                    end: LinkEnd::To,
                    cell: Cell::new(3, 0),
                    width: 3,
                    height: 2,
                },
            ),
            (
                Link::new(Cell::new(2, 0), Cell::new(0, 0), 1.0),
                LinkError::Blocked {
                    end: LinkEnd::From,
                    cell: Cell::new(2, 0),
                },
            ),
            (
                Link::new(Cell::new(0, 0), Cell::new(1, 1), -1.0),
                LinkError::InvalidCost { cost: -1.0 },
            ),
            (
                Link::new(Cell::new(0, 0), Cell::new(1, 1), 1.0).with_max_size(0),
                LinkError::InvalidSize { max_size: 0 },
            ),
            (
                Link::new(Cell::new(0, 0), Cell::new(1, 1), 1.0).with_terrain(0),
                LinkError::WallTerrain,
            ),
        ];
        for (link, error) in cases {
            assert_eq!(grid.add_link(link), Err(error));
        }
        for cost in [f64::NAN, f64::INFINITY] {
            let link = Link::new(Cell::new(0, 0), Cell::new(1, 1), cost);
            assert!(matches!(
                grid.add_link(link),
                Err(LinkError::InvalidCost { .. })
            ));
        }
        assert_eq!(grid, before);
        assert_eq!(
            grid.remove_link(LinkId(4)),
            Err(LinkError::Unknown(LinkId(4)))
        );
        assert_eq!(
            grid.set_link_open(LinkId(0), true),
            Err(LinkError::Unknown(LinkId(0)))
        );
    }

    #[test]
    fn the_search_table_holds_the_open_directions_by_the_cell_they_leave() {
        let mut grid = Grid::new(5, 5);
        let two_way = grid
            .add_link(Link::new(Cell::new(0, 0), Cell::new(4, 4), 2.0))
            .expect("link");
        let one_way = grid
            .add_link(Link::new(Cell::new(0, 0), Cell::new(2, 2), 1.0).one_way())
            .expect("link");
        let corner = grid.index(Cell::new(0, 0));
        let far = grid.index(Cell::new(4, 4));
        let middle = grid.index(Cell::new(2, 2));
        let leaving = |grid: &Grid, index| -> Vec<(u32, LinkId)> {
            let steps = grid.links().steps_from(index);
            steps.iter().map(|step| (step.to, step.id)).collect()
        };
        assert_eq!(
            leaving(&grid, corner),
            [(middle as u32, one_way), (far as u32, two_way)]
        );
        assert_eq!(leaving(&grid, far), [(corner as u32, two_way)]);
        assert!(leaving(&grid, middle).is_empty());
        grid.set_link_open(two_way, false).expect("known");
        assert_eq!(leaving(&grid, corner), [(middle as u32, one_way)]);
        assert!(leaving(&grid, far).is_empty());
        grid.remove_link(one_way).expect("known");
        assert!(!grid.links().has_steps());
        assert_eq!(grid.links().len(), 1);
    }
}
