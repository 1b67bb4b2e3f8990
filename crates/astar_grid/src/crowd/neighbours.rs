//! Neighbour search for the crowd: a uniform bucket grid over the agents' positions, rebuilt
//! each step by a counting sort, answering "the `k` nearest agents within distance `d`".

use super::{CrowdAgent, Vector};

/// The most buckets a rebuild uses per agent (with a floor of [`MIN_BUCKET_LIMIT`]): agents
/// spread far apart get larger buckets rather than an ever larger bucket table.
const BUCKETS_PER_AGENT: f32 = 16.0;

/// The bucket table's size limit for small crowds.
const MIN_BUCKET_LIMIT: f32 = 4096.0;

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
        (self.distance_squared, self.index) < (other.distance_squared, other.index)
    }
}

/// A uniform bucket grid over the positions of a slice of agents.
///
/// [`NeighbourGrid::rebuild`] sorts the agents into square buckets in O(n) with a counting sort
/// into two flat arrays (bucket starts, and the agents' indices and positions in bucket order);
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
    /// Buckets per row.
    columns: usize,
    /// Rows of buckets.
    rows: usize,
    /// Start of each bucket's run in `indices` and `positions`, one more entry than buckets.
    starts: Vec<usize>,
    /// Agent indices in bucket order.
    indices: Vec<usize>,
    /// Agent positions in bucket order.
    positions: Vec<Vector>,
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
        self.positions.clear();
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
        self.positions.resize(agents.len(), Vector::ZERO);
        for (index, (agent, &bucket)) in agents.iter().zip(&self.buckets).enumerate() {
            let slot = self.starts[bucket];
            self.starts[bucket] += 1;
            self.indices[slot] = index;
            self.positions[slot] = agent.position;
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
            reason = "the cast saturates (NaN to 0) and the result is clamped"
        )]
        let bucket = (offset / self.bucket_size).floor().max(0.0) as usize;
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
        // A little more than the distance, so that rounding in the bucket arithmetic never
        // leaves out a bucket that holds an agent in range.
        let reach = max_distance * 1.001
            + (position.x.abs() + position.y.abs() + self.origin.x.abs() + self.origin.y.abs())
                * 1e-6
            + 1e-4;
        let first_column = self.clamped_bucket(position.x - reach - self.origin.x, self.columns);
        let last_column = self.clamped_bucket(position.x + reach - self.origin.x, self.columns);
        let first_row = self.clamped_bucket(position.y - reach - self.origin.y, self.rows);
        let last_row = self.clamped_bucket(position.y + reach - self.origin.y, self.rows);
        // Buckets ring by ring outwards from the one holding the position: the nearest agents
        // come first, the bound shrinks early, and most outer buckets are skipped.
        let (centre_column, centre_row) = (
            self.clamped_bucket(position.x - self.origin.x, self.columns),
            self.clamped_bucket(position.y - self.origin.y, self.rows),
        );
        let rings = (centre_column - first_column)
            .max(last_column - centre_column)
            .max(centre_row - first_row)
            .max(last_row - centre_row);
        for ring in 0..=rings {
            let rows =
                centre_row.saturating_sub(ring).max(first_row)..=(centre_row + ring).min(last_row);
            for row in rows {
                let edge_row = row + ring == centre_row || row == centre_row + ring;
                let columns = centre_column.saturating_sub(ring).max(first_column)
                    ..=(centre_column + ring).min(last_column);
                for column in columns {
                    let edge_column =
                        column + ring == centre_column || column == centre_column + ring;
                    if !(edge_row || edge_column) {
                        continue;
                    }
                    self.scan_bucket(
                        position,
                        (column, row),
                        exclude,
                        (max_distance, reach),
                        max_count,
                        found,
                    );
                }
            }
        }
    }

    /// Adds to `found` the agents of bucket (`column`, `row`) in range, unless the bucket lies
    /// entirely beyond the current bound.
    fn scan_bucket(
        &self,
        position: Vector,
        (column, row): (usize, usize),
        exclude: Option<usize>,
        (max_distance, reach): (f32, f32),
        max_count: usize,
        found: &mut Vec<Neighbour>,
    ) {
        let limit = max_distance * max_distance;
        let bound = match found.last() {
            Some(last) if found.len() == max_count => last.distance_squared,
            _ => limit,
        };
        if self.bucket_gap_squared(position, column, row, reach - max_distance) > bound {
            return;
        }
        let bucket = row * self.columns + column;
        for slot in self.starts[bucket]..self.starts[bucket + 1] {
            let distance_squared = (self.positions[slot] - position).length_squared();
            if distance_squared < limit && Some(self.indices[slot]) != exclude {
                let candidate = Neighbour {
                    index: self.indices[slot],
                    distance_squared,
                };
                insert_nearest(found, candidate, max_count);
            }
        }
    }

    /// The squared distance from `position` to bucket (`column`, `row`) grown by `slack` on each
    /// side: no agent of the bucket is nearer.
    fn bucket_gap_squared(&self, position: Vector, column: usize, row: usize, slack: f32) -> f32 {
        #[expect(
            clippy::cast_precision_loss,
            reason = "bucket coordinates are at most the bucket limit, exact in f32"
        )]
        let corner = self.origin + Vector::new(column as f32, row as f32) * self.bucket_size;
        let gap = |low: f32, value: f32| {
            let high = low + self.bucket_size;
            ((low - value).max(value - high) - slack).max(0.0)
        };
        let dx = gap(corner.x, position.x);
        let dy = gap(corner.y, position.y);
        dx * dx + dy * dy
    }
}

/// Inserts `candidate` into `found` (sorted, at most `max_count` long) if it is among the
/// `max_count` first.
fn insert_nearest(found: &mut Vec<Neighbour>, candidate: Neighbour, max_count: usize) {
    if found.len() == max_count {
        match found.last() {
            Some(last) if candidate.precedes(last) => {
                found.pop();
            }
            _ => return,
        }
    }
    let mut slot = found.len();
    while slot > 0 && candidate.precedes(&found[slot - 1]) {
        slot -= 1;
    }
    found.insert(slot, candidate);
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
