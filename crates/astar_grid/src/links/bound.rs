//! The heuristic of a search over links ([`LinkBound`]): the shortest way to the goal in a
//! relaxed graph, which stays admissible and consistent when a link is a shortcut.

use super::LinkStep;

/// Up to this many usable link directions, the bound follows each one; beyond, it keeps one
/// lower bound for the way through any link.
pub(crate) const EXACT_STEPS: usize = 16;

/// A lower bound on the cost to the goal that knows the links.
///
/// Take a graph whose edges are the plain heuristic `h0` between any two cells (a metric no
/// greater than the cost of any walk between them) and the usable link directions at their
/// costs. Every real step has an edge in it at most as dear, so the shortest way to the goal in
/// it is admissible and consistent. From a cell `n` it is
/// `min(h0(n, goal), min over directions d of h0(n, d.from) + rest(d))`, where `rest(d)` is
/// the cost of `d` plus the relaxed way on from `d.to`, found once per search by Dijkstra's
/// algorithm over the directions.
///
/// Only shortcuts count: a direction that costs at least `h0` between its ends (a door, a
/// ladder as long as the walk) has an edge as cheap beside it in the relaxed graph already,
/// so it changes no distance there and is left out. A grid whose links are no shortcuts
/// searches with the plain heuristic.
///
/// With more than [`EXACT_STEPS`] shortcuts it is `min(h0(n, goal), floor)`, where `floor`
/// is the least of `cost(d) + h0(d.to, goal)`: the walk to a link counted as free.
#[derive(Clone, Debug, Default)]
pub(crate) struct LinkBound {
    /// Per direction followed: the padded column and row it leaves from, and `rest`.
    terms: Vec<(u32, u32, f64)>,
    /// The bound on the way through the directions not followed (infinite when all are).
    floor: f64,
    /// Scratch: per usable direction, its ends' coordinates, its cost and `rest`, and whether
    /// Dijkstra settled it.
    scratch: Vec<Direction>,
}

#[derive(Clone, Copy, Debug)]
struct Direction {
    from: (u32, u32),
    to: (u32, u32),
    cost: f64,
    rest: f64,
    settled: bool,
}

impl LinkBound {
    /// Prepares the bound for a search towards padded `goal` on a grid whose padded rows are
    /// `stride` long and whose padded cell `index` is walkable when `walkable(index)`, under the
    /// plain heuristic `h0(from, to)`. Directions with a blocked end are left out (no search
    /// takes them), and so are those that are no shortcut.
    pub(crate) fn prepare(
        &mut self,
        steps: &[LinkStep],
        (stride, walkable): (usize, impl Fn(usize) -> bool),
        goal: (u32, u32),
        h0: impl Fn((u32, u32), (u32, u32)) -> f64,
    ) {
        self.terms.clear();
        self.scratch.clear();
        self.floor = f64::INFINITY;
        let place = |index: u32| (index % stride as u32, index / stride as u32);
        let distance = |a: (u32, u32), b: (u32, u32)| h0(a, b);
        let usable = steps
            .iter()
            .filter(|step| walkable(step.from as usize) && walkable(step.to as usize));
        for step in usable {
            let (from, to) = (place(step.from), place(step.to));
            if step.cost >= distance(from, to) {
                continue;
            }
            self.scratch.push(Direction {
                from,
                to,
                cost: step.cost,
                rest: step.cost + distance(to, goal),
                settled: false,
            });
        }
        if self.scratch.len() > EXACT_STEPS {
            self.floor = self
                .scratch
                .iter()
                .map(|direction| direction.rest)
                .fold(f64::INFINITY, f64::min);
            return;
        }
        // Dijkstra's algorithm over the directions: a direction's rest is its cost plus the
        // relaxed way on from its end, straight to the goal or to another direction first.
        for _ in 0..self.scratch.len() {
            let Some(next) = (0..self.scratch.len())
                .filter(|&k| !self.scratch[k].settled)
                .min_by(|&a, &b| self.scratch[a].rest.total_cmp(&self.scratch[b].rest))
            else {
                break;
            };
            self.scratch[next].settled = true;
            let settled = self.scratch[next];
            for direction in self.scratch.iter_mut().filter(|d| !d.settled) {
                let through = direction.cost + distance(direction.to, settled.from) + settled.rest;
                direction.rest = direction.rest.min(through);
            }
        }
        self.terms.extend(
            self.scratch
                .iter()
                .map(|direction| (direction.from.0, direction.from.1, direction.rest)),
        );
    }

    /// The bound at padded `(x, y)`, whose plain estimate to the goal is `direct`.
    #[inline]
    pub(crate) fn estimate(
        &self,
        direct: f64,
        (x, y): (u32, u32),
        h0: impl Fn((u32, u32), (u32, u32)) -> f64,
    ) -> f64 {
        let mut best = direct.min(self.floor);
        for &(from_x, from_y, rest) in &self.terms {
            if rest < best {
                best = best.min(h0((x, y), (from_x, from_y)) + rest);
            }
        }
        best
    }

    /// Bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.terms.capacity() * size_of::<(u32, u32, f64)>()
            + self.scratch.capacity() * size_of::<Direction>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinkId;

    fn chebyshev(a: (u32, u32), b: (u32, u32)) -> f64 {
        f64::from(a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)))
    }

    #[test]
    fn a_teleporter_chain_is_followed_and_a_far_one_ignored() {
        // A 20x3 open strip (padded stride 22): the goal at the far east end; one teleporter
        // from (1, 1) to (10, 1), then another from (11, 1) to (19, 1), each costing 1.
        let cells = [1u8; 22 * 5];
        let index = |x: u32, y: u32| (y + 1) * 22 + x + 1;
        let step = |from, to| LinkStep {
            from,
            to,
            cost: 1.0,
            id: LinkId(0),
        };
        let steps = [
            step(index(0, 0), index(9, 0)),
            step(index(10, 0), index(18, 0)),
        ];
        let mut bound = LinkBound::default();
        let goal = (20, 1);
        bound.prepare(
            &steps,
            (22, |index: usize| cells[index] != 0),
            goal,
            chebyshev,
        );
        let at = |x: u32| {
            let direct = chebyshev((x, goal.1), goal);
            bound.estimate(direct, (x, 1), chebyshev)
        };
        // From the first teleporter's cell: 1, walk 1 to the second, 1, then 1 to the goal.
        assert_eq!(at(1), 4.0);
        // Beside it: one more.
        assert_eq!(at(2), 5.0);
        // Near the goal the direct way wins.
        assert_eq!(at(19), 1.0);
    }

    #[test]
    fn links_that_are_no_shortcut_leave_the_plain_heuristic() {
        let cells = [1u8; 22 * 5];
        let index = |x: u32, y: u32| (y + 1) * 22 + x + 1;
        // A door across one cell costing 2, and a ladder along a column costing its length.
        let steps = [
            LinkStep {
                from: index(4, 0),
                to: index(6, 0),
                cost: 2.0,
                id: LinkId(0),
            },
            LinkStep {
                from: index(8, 0),
                to: index(8, 2),
                cost: 2.0,
                id: LinkId(1),
            },
        ];
        let mut bound = LinkBound::default();
        bound.prepare(
            &steps,
            (22, |index: usize| cells[index] != 0),
            (20, 1),
            chebyshev,
        );
        assert!(bound.terms.is_empty());
        assert_eq!(bound.floor, f64::INFINITY);
        assert_eq!(bound.estimate(15.0, (5, 1), chebyshev), 15.0);
    }

    #[test]
    fn too_many_directions_keep_a_constant_floor() {
        let cells = [1u8; 40 * 3];
        let steps: Vec<LinkStep> = (0..=EXACT_STEPS as u32)
            .map(|k| LinkStep {
                from: 40 + 1 + k,
                to: 40 + 30,
                cost: 2.0,
                id: LinkId(k),
            })
            .collect();
        let mut bound = LinkBound::default();
        bound.prepare(
            &steps,
            (40, |index: usize| cells[index] != 0),
            (38, 1),
            chebyshev,
        );
        // Every direction costs 2 and ends 8 columns from the goal.
        assert_eq!(bound.estimate(100.0, (1, 1), chebyshev), 10.0);
        assert_eq!(bound.estimate(3.0, (35, 1), chebyshev), 3.0);
    }
}
