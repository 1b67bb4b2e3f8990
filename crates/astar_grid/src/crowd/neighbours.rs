//! Neighbour search for the crowd: a uniform bucket grid over the agents' positions, rebuilt
//! each step by a counting sort, answering "the `k` nearest agents within distance `d`".

use super::{CrowdAgent, Vector};

/// The most buckets a rebuild uses per agent (with a floor of [`MIN_BUCKET_LIMIT`]): agents
/// spread far apart get larger buckets rather than an ever larger bucket table.
const BUCKETS_PER_AGENT: f32 = 16.0;

/// The bucket table's size limit for small crowds.
const MIN_BUCKET_LIMIT: f32 = 4096.0;

/// Queries for at most this many neighbours keep them in a buffer on the stack.
const SMALL_QUERY: usize = 16;

/// One agent found by [`NeighbourGrid::nearest`]: its index in the agent slice and its squared
/// distance from the query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// Index of the agent in the slice the grid was rebuilt from.
    pub index: usize,
    /// Squared distance between the agent's position and the query point.
    pub distance_squared: f32,
}

impl Neighbour {
    /// Whether `self` comes before `other` in the query's order: nearer first, and of two at
    /// exactly the same squared distance the lower index first.
    fn precedes(&self, other: &Self) -> bool {
        self.distance_squared < other.distance_squared
            || (self.distance_squared == other.distance_squared && self.index < other.index)
    }
}

/// A uniform bucket grid over the positions of a slice of agents.
///
/// [`NeighbourGrid::rebuild`] sorts the agents into square buckets in O(n) with a counting sort
/// into flat arrays (bucket starts, and the agents' indices and coordinates in bucket order);
/// its memory is kept and reused by later rebuilds. The buckets span the agents' bounding box,
/// so positions anywhere (even far outside a grid) are fine; when the box would need more than
/// 16 buckets per agent the buckets grow instead.
///
/// [`NeighbourGrid::nearest`] answers RVO2's neighbour query: the `max_count` agents nearest to
/// a point within `max_distance` of it, nearest first, the lower index first between agents at
/// exactly the same squared distance, so the answer is the first `max_count` of a brute-force
/// scan sorted by (squared distance, index).
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, NeighbourGrid, Vector};
///
/// let agents: Vec<CrowdAgent> = [0.0, 1.0, 2.5, 9.0]
///     .iter()
///     .map(|&x| CrowdAgent::new(Vector::new(x, 0.0), 0.4, 1.0))
///     .collect();
/// let mut grid = NeighbourGrid::new();
/// grid.rebuild(&agents, 2.0);
/// let mut found = Vec::new();
/// // The two agents nearest to agent 0 within 5 cells, agent 0 itself left out.
/// grid.nearest(agents[0].position, Some(0), 5.0, 2, &mut found);
/// let indices: Vec<usize> = found.iter().map(|neighbour| neighbour.index).collect();
/// assert_eq!(indices, [1, 2]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct NeighbourGrid {
    /// Corner of bucket (0, 0).
    origin: Vector,
    /// Side of a bucket, in cells.
    bucket_size: f32,
    /// One over the side of a bucket.
    inverse_bucket_size: f32,
    /// Buckets per row.
    columns: usize,
    /// Rows of buckets.
    rows: usize,
    /// Start of each bucket's run in `indices`, `xs` and `ys`, one more entry than buckets.
    starts: Vec<usize>,
    /// Agent indices in bucket order.
    indices: Vec<usize>,
    /// Agent `x` coordinates in bucket order.
    xs: Vec<f32>,
    /// Agent `y` coordinates in bucket order.
    ys: Vec<f32>,
    /// Bucket of each agent, by agent index (kept between rebuilds for its memory).
    buckets: Vec<usize>,
}

impl NeighbourGrid {
    /// An empty grid; it holds no memory until the first rebuild.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of agents sorted in by the last rebuild.
    #[must_use]
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether the last rebuild had no agents.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The side of the buckets chosen by the last rebuild: `bucket_size`, or larger when the
    /// agents are spread too far for that many buckets.
    #[must_use]
    pub fn bucket_size(&self) -> f32 {
        self.bucket_size
    }

    /// Sorts `agents` into buckets of side `bucket_size` cells (a non-positive or non-finite size
    /// counts as 1). A side of half the query distance is a good choice. O(n) plus the number of
    /// buckets; reuses the memory of earlier rebuilds.
    pub fn rebuild(&mut self, agents: &[CrowdAgent], bucket_size: f32) {
        self.indices.clear();
        self.xs.clear();
        self.ys.clear();
        self.buckets.clear();
        let (low, high) = bounds(agents);
        self.origin = low;
        self.choose_buckets(high - low, agents.len(), bucket_size);
        let count = self.columns * self.rows;
        self.starts.clear();
        self.starts.resize(count + 1, 0);
        for agent in agents {
            let bucket = self.bucket_of(agent.position);
            self.buckets.push(bucket);
            self.starts[bucket + 1] += 1;
        }
        for bucket in 0..count {
            self.starts[bucket + 1] += self.starts[bucket];
        }
        self.indices.resize(agents.len(), 0);
        self.xs.resize(agents.len(), 0.0);
        self.ys.resize(agents.len(), 0.0);
        for (index, (agent, &bucket)) in agents.iter().zip(&self.buckets).enumerate() {
            let slot = self.starts[bucket];
            self.starts[bucket] += 1;
            self.indices[slot] = index;
            self.xs[slot] = agent.position.x;
            self.ys[slot] = agent.position.y;
        }
        // Each start now holds the end of its bucket, which is the start of the next one.
        for bucket in (1..=count).rev() {
            self.starts[bucket] = self.starts[bucket - 1];
        }
        self.starts[0] = 0;
    }

    /// Picks the bucket side and the table's shape for a bounding box of `extent`.
    fn choose_buckets(&mut self, extent: Vector, agents: usize, bucket_size: f32) {
        let mut size = if bucket_size > 0.0 && bucket_size.is_finite() {
            bucket_size
        } else {
            1.0
        };
        #[expect(
            clippy::cast_precision_loss,
            reason = "a limit on the table size needs no precision"
        )]
        let limit = (agents as f32 * BUCKETS_PER_AGENT).max(MIN_BUCKET_LIMIT);
        let (columns, rows) = loop {
            if !(extent.x.is_finite() && extent.y.is_finite() && size.is_finite()) {
                // A box too large for f32 arithmetic: one bucket holds everyone.
                size = f32::MAX;
                break (1.0, 1.0);
            }
            let columns = (extent.x / size).floor() + 1.0;
            let rows = (extent.y / size).floor() + 1.0;
            if columns * rows <= limit {
                break (columns, rows);
            }
            size *= 2.0;
        };
        self.bucket_size = size;
        self.inverse_bucket_size = 1.0 / size;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "both are whole numbers from 1 to the limit"
        )]
        {
            self.columns = columns as usize;
            self.rows = rows as usize;
        }
    }

    /// The bucket column or row of a coordinate `offset` from the origin, clamped to `0..limit`.
    fn clamped_bucket(&self, offset: f32, limit: usize) -> usize {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "the cast of a non-negative value floors it and saturates, and the result is clamped"
        )]
        let bucket = (offset * self.inverse_bucket_size).max(0.0) as usize;
        bucket.min(limit.saturating_sub(1))
    }

    /// The bucket holding `position`.
    fn bucket_of(&self, position: Vector) -> usize {
        let column = self.clamped_bucket(position.x - self.origin.x, self.columns);
        let row = self.clamped_bucket(position.y - self.origin.y, self.rows);
        row * self.columns + column
    }

    /// Writes to `found` (cleared first) the at most `max_count` agents whose squared distance
    /// from `position` is below `max_distance` squared, `exclude` (usually the asking agent)
    /// left out, in increasing (squared distance, index) order. Allocates only when `found`
    /// must grow past its capacity.
    ///
    /// Only the buckets whose squares come nearer than the current bound are visited:
    /// `max_distance` until `max_count` agents are found, then the distance of the farthest of
    /// them, so the search range shrinks as nearer agents turn up (as RVO2's kd-tree query
    /// does).
    pub fn nearest(
        &self,
        position: Vector,
        exclude: Option<usize>,
        max_distance: f32,
        max_count: usize,
        found: &mut Vec<Neighbour>,
    ) {
        found.clear();
        if max_count == 0 || max_distance.is_nan() || max_distance <= 0.0 || self.is_empty() {
            return;
        }
        let capacity = max_count.min(self.len());
        if capacity <= SMALL_QUERY {
            let mut nearest = [Neighbour {
                index: 0,
                distance_squared: 0.0,
            }; SMALL_QUERY];
            let count = self.search(position, exclude, max_distance, &mut nearest[..capacity]);
            found.extend_from_slice(&nearest[..count]);
        } else {
            found.resize(
                capacity,
                Neighbour {
                    index: 0,
                    distance_squared: 0.0,
                },
            );
            let count = self.search(position, exclude, max_distance, found);
            found.truncate(count);
        }
    }

    /// The search of [`NeighbourGrid::nearest`] into `nearest`, which it fills up to its
    /// length, sorted; returns how many it holds.
    ///
    /// The buckets of one row are consecutive in the slot arrays, so each row is one run of
    /// slots: the columns whose squares come within the current bound of `position`. Rows are
    /// visited outwards from the one holding the position, alternately on either side, each
    /// side until a row lies wholly beyond the bound.
    fn search(
        &self,
        position: Vector,
        exclude: Option<usize>,
        max_distance: f32,
        nearest: &mut [Neighbour],
    ) -> usize {
        let mut best = Best {
            nearest,
            count: 0,
            limit: max_distance * max_distance,
            bound: max_distance * max_distance,
            exclude: exclude.unwrap_or(usize::MAX),
        };
        // No agent is nearer than `max_distance` to a point that is not finite.
        if !position.is_finite() {
            return 0;
        }
        // Rounding in the bucket arithmetic may put an agent a hair outside its bucket's
        // square; buckets are treated as grown by this much so that none in range is missed.
        let slack =
            (position.x.abs() + position.y.abs() + self.origin.x.abs() + self.origin.y.abs())
                * 1e-6
                + 1e-4;
        let centre_row = self.clamped_bucket(position.y - self.origin.y, self.rows);
        self.scan_row(position, centre_row, slack, &mut best);
        let (mut above, mut below) = (true, true);
        for step in 1..self.rows {
            above = above
                && step <= centre_row
                && self.scan_row(position, centre_row - step, slack, &mut best);
            below = below
                && centre_row + step < self.rows
                && self.scan_row(position, centre_row + step, slack, &mut best);
            if !(above || below) {
                break;
            }
        }
        best.count
    }

    /// Offers `best` the agents of bucket row `row` in the columns whose squares (grown by
    /// `slack`) come within the current bound of `position`; false, offering nothing, when the
    /// whole row lies beyond the bound.
    fn scan_row(&self, position: Vector, row: usize, slack: f32, best: &mut Best<'_>) -> bool {
        #[expect(
            clippy::cast_precision_loss,
            reason = "bucket rows are at most the bucket limit, exact in f32"
        )]
        let low = self.origin.y + row as f32 * self.bucket_size;
        let gap = ((low - position.y).max(position.y - (low + self.bucket_size)) - slack).max(0.0);
        if gap * gap > best.bound {
            return false;
        }
        let half_width = (best.bound - gap * gap).sqrt() + slack;
        let first = self.clamped_bucket(position.x - half_width - self.origin.x, self.columns);
        let last = self.clamped_bucket(position.x + half_width - self.origin.x, self.columns);
        let base = row * self.columns;
        let run = self.starts[base + first]..self.starts[base + last + 1];
        let (xs, ys, indices) = (
            &self.xs[run.clone()],
            &self.ys[run.clone()],
            &self.indices[run],
        );
        for ((&x, &y), &index) in xs.iter().zip(ys).zip(indices) {
            let (dx, dy) = (x - position.x, y - position.y);
            let distance_squared = dx * dx + dy * dy;
            if distance_squared <= best.bound {
                best.offer(distance_squared, index);
            }
        }
        true
    }
}

/// The nearest agents found so far by a query, sorted by (squared distance, index), in a
/// buffer as long as the most the query returns.
struct Best<'a> {
    /// The buffer; its first `count` entries are the agents found.
    nearest: &'a mut [Neighbour],
    /// How many it holds.
    count: usize,
    /// The query distance squared: only agents nearer than this count.
    limit: f32,
    /// The largest squared distance an agent may have to be among the nearest: `limit` until
    /// the buffer is full, then that of its farthest agent (which a nearer one, or one as near
    /// of a lower index, displaces).
    bound: f32,
    /// The agent index left out (`usize::MAX` for none).
    exclude: usize,
}

impl Best<'_> {
    /// Inserts the agent `index` at `distance_squared` if it is in range and among the
    /// nearest.
    fn offer(&mut self, distance_squared: f32, index: usize) {
        // Callers offer only distances within the bound, so never NaN.
        if distance_squared >= self.limit || index == self.exclude {
            return;
        }
        let candidate = Neighbour {
            index,
            distance_squared,
        };
        let full = self.count == self.nearest.len();
        let mut slot = self.count;
        if full {
            slot -= 1;
            if !candidate.precedes(&self.nearest[slot]) {
                return;
            }
        }
        while slot > 0 && candidate.precedes(&self.nearest[slot - 1]) {
            self.nearest[slot] = self.nearest[slot - 1];
            slot -= 1;
        }
        self.nearest[slot] = candidate;
        if !full {
            self.count += 1;
        }
        if self.count == self.nearest.len() {
            self.bound = self.nearest[self.count - 1].distance_squared;
        }
    }
}

/// The corners of the bounding box of the agents' finite positions (both zero without any).
fn bounds(agents: &[CrowdAgent]) -> (Vector, Vector) {
    let mut low = Vector::new(f32::INFINITY, f32::INFINITY);
    let mut high = Vector::new(f32::NEG_INFINITY, f32::NEG_INFINITY);
    for agent in agents.iter().filter(|agent| agent.position.is_finite()) {
        low = Vector::new(low.x.min(agent.position.x), low.y.min(agent.position.y));
        high = Vector::new(high.x.max(agent.position.x), high.y.max(agent.position.y));
    }
    if low.x > high.x {
        return (Vector::ZERO, Vector::ZERO);
    }
    (low, high)
}
