//! Distance estimates that guide A*, and the weights that trade optimality for speed.

use crate::{Cell, CostModel, Neighborhood, hex};
use core::f64::consts::SQRT_2;

/// An estimate of the remaining cost from a cell to the goal.
///
/// Every heuristic is scaled by the [`CostModel`] so that it never overestimates the cost of a
/// path on a grid whose terrain multipliers are at least 1, whatever the step costs, except
/// [`Heuristic::Manhattan`] under eight-connected movement when a diagonal costs less than two
/// straight steps (see [`Heuristic::is_admissible`]). Each admissible one is the distance of a
/// relaxed problem (open ground, or a norm scaled to the cheapest cost per unit it measures),
/// so it is also consistent: along any step it drops by at most the step's cost
/// ([`Heuristic::is_consistent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heuristic {
    /// `dx + dy` straight steps: exact on an open four-connected grid.
    Manhattan,
    /// The cost of a cheapest path on open ground, exact for every neighbourhood and cost model.
    ///
    /// With `long` and `short` the larger and smaller of `dx` and `dy`, under eight neighbours:
    /// - while a diagonal costs between one and two straight steps, `short` diagonals and
    ///   `long - short` straight steps;
    /// - when a diagonal costs two straight steps or more, the Manhattan distance (diagonals
    ///   never pay);
    /// - when a diagonal costs less than a straight step, `long` diagonals, one of them replaced
    ///   by a straight step when `long - short` is odd: zig-zagging diagonals cover any
    ///   displacement whose `dx + dy` is even in `long` steps, and an odd one needs one straight
    ///   step. For 10 straight and 5 diagonal, `(2, 0)` costs 10 (two diagonals) and `(3, 0)`
    ///   costs 20.
    ///
    /// Under four neighbours it is the Manhattan distance; under six (a hexagonal grid in
    /// axial coordinates) the hex distance, `max(|dx|, |dy|, |dx + dy|)` straight steps.
    Octile,
    /// Straight-line distance, scaled to the cheapest cost per cell of length: a straight step
    /// covers 1 at its cost, a diagonal `sqrt(2)` at its cost. On a hexagonal grid it is the
    /// distance between hex centres one apart, `sqrt(dx² + dx·dy + dy²)`.
    Euclidean,
    /// `max(dx, dy)` steps of the cheaper kind (straight only, under four or six neighbours).
    Chebyshev,
    /// Always 0: the search becomes Dijkstra's algorithm.
    Zero,
}

impl Heuristic {
    /// The default for a neighbourhood: octile for eight neighbours and six (where it is the
    /// hex distance), Manhattan for four.
    #[must_use]
    pub const fn default_for(neighborhood: Neighborhood) -> Self {
        match neighborhood {
            Neighborhood::Four => Self::Manhattan,
            Neighborhood::Eight | Neighborhood::Hex => Self::Octile,
        }
    }

    /// Whether this heuristic never overestimates the true cost under `neighborhood` and `cost`
    /// (with every terrain multiplier at least 1), so that an unweighted search is optimal.
    ///
    /// True for every heuristic and cost model except [`Heuristic::Manhattan`] under eight
    /// neighbours with a diagonal cheaper than two straight steps, or under six, where it
    /// overestimates a single diagonal step.
    #[must_use]
    pub fn is_admissible(self, neighborhood: Neighborhood, cost: CostModel) -> bool {
        match self {
            Self::Manhattan => match neighborhood {
                Neighborhood::Four => true,
                Neighborhood::Eight => cost.diagonal() >= 2.0 * cost.straight(),
                Neighborhood::Hex => false,
            },
            Self::Octile | Self::Euclidean | Self::Chebyshev | Self::Zero => true,
        }
    }

    /// Whether the estimate drops by at most the cost of any step under `neighborhood` and
    /// `cost` (`h(a) <= cost(a, b) + h(b)`), up to rounding: a search without weight then
    /// takes cells out of its open list in order of non-decreasing priority and never finds a
    /// cheaper route to a cell it has expanded. Every heuristic here that is admissible is
    /// consistent, and the others are neither.
    #[must_use]
    pub fn is_consistent(self, neighborhood: Neighborhood, cost: CostModel) -> bool {
        self.is_admissible(neighborhood, cost)
    }

    /// The estimate from `from` to `to`.
    ///
    /// ```
    /// use astar_grid::{Cell, CostModel, Heuristic, Neighborhood};
    ///
    /// let (from, to) = (Cell::new(0, 3), Cell::new(3, 0));
    /// let octile = |neighborhood| Heuristic::Octile.estimate(from, to, neighborhood, CostModel::Octile);
    /// assert_eq!(octile(Neighborhood::Four), 6.0);
    /// assert_eq!(octile(Neighborhood::Hex), 3.0); // three steps by (1, -1)
    /// assert!((octile(Neighborhood::Eight) - 3.0 * 2f64.sqrt()).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn estimate(
        self,
        from: Cell,
        to: Cell,
        neighborhood: Neighborhood,
        cost: CostModel,
    ) -> f64 {
        HeuristicFn::new(self, neighborhood, cost).between((from.x, from.y), (to.x, to.y))
    }

    /// All heuristics, for command lines and menus.
    pub const ALL: [Self; 5] = [
        Self::Manhattan,
        Self::Octile,
        Self::Euclidean,
        Self::Chebyshev,
        Self::Zero,
    ];

    /// Lower-case name: `manhattan`, `octile`, `euclidean`, `chebyshev` or `zero`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Manhattan => "manhattan",
            Self::Octile => "octile",
            Self::Euclidean => "euclidean",
            Self::Chebyshev => "chebyshev",
            Self::Zero => "zero",
        }
    }
}

impl core::str::FromStr for Heuristic {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|heuristic| heuristic.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                format!("unknown heuristic `{text}` (expected manhattan, octile, euclidean, chebyshev or zero)")
            })
    }
}

/// How strongly the heuristic is trusted.
///
/// The cost bounds below hold for an admissible heuristic ([`Heuristic::is_admissible`]); an
/// inadmissible one promises no bound, with or without weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weighting {
    /// `f = g + w * h` with `w >= 1`. `w = 1` is plain, optimal A*; larger weights expand fewer
    /// cells and return paths at most `w` times the optimal cost.
    Static(f64),
    /// Dynamic weighting (Pohl): `f = g + (1 + epsilon * h(n) / h(start)) * h(n)`, greedy near the
    /// start and careful near the goal; paths cost at most `1 + epsilon` times the optimum.
    Dynamic {
        /// How much weight to add at the start, at least 0.
        epsilon: f64,
    },
}

impl Default for Weighting {
    fn default() -> Self {
        Self::Static(1.0)
    }
}

impl Weighting {
    /// Whether the weight is finite and at least 1 (or epsilon at least 0).
    #[must_use]
    pub fn is_valid(self) -> bool {
        match self {
            Self::Static(weight) => weight.is_finite() && weight >= 1.0,
            Self::Dynamic { epsilon } => epsilon.is_finite() && epsilon >= 0.0,
        }
    }

    /// Whether the weighting keeps search optimal (a static weight of exactly 1, or epsilon 0).
    #[must_use]
    pub fn is_unit(self) -> bool {
        match self {
            Self::Static(weight) => weight == 1.0,
            Self::Dynamic { epsilon } => epsilon == 0.0,
        }
    }
}

/// The octile estimate's terms: `run` per unit of `long - short`, `diagonal` per unit of
/// `short`, and `odd` more when `long - short` is odd (see [`Heuristic::Octile`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OctileTerms {
    run: f64,
    diagonal: f64,
    odd: f64,
}

impl OctileTerms {
    /// The terms of the cheapest open-ground cost under `neighborhood` and `cost`.
    fn new(neighborhood: Neighborhood, cost: CostModel) -> Self {
        let (straight, diagonal) = (cost.straight(), cost.diagonal());
        match neighborhood {
            Neighborhood::Eight if diagonal < straight => Self {
                run: diagonal,
                diagonal,
                odd: straight - diagonal,
            },
            Neighborhood::Eight if diagonal < 2.0 * straight => Self {
                run: straight,
                diagonal,
                odd: 0.0,
            },
            Neighborhood::Four | Neighborhood::Eight | Neighborhood::Hex => Self {
                run: straight,
                diagonal: 2.0 * straight,
                odd: 0.0,
            },
        }
    }

    /// The estimate for a displacement of `dx` columns and `dy` rows.
    #[inline(always)]
    pub(crate) fn estimate(self, dx: u32, dy: u32) -> f64 {
        // `long - short` has the parity of `dx + dy`, that is of `dx ^ dy`.
        let odd = f64::from((dx ^ dy) & 1);
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        let (long, short) = if dx > dy { (dx, dy) } else { (dy, dx) };
        self.run * (long - short) + self.diagonal * short + self.odd * odd
    }
}

/// A heuristic with its constants resolved for one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeuristicFn {
    kind: Heuristic,
    straight: f64,
    octile: OctileTerms,
    /// Cost per cell of straight-line length: the cheaper of a straight step per 1 and a
    /// diagonal per `sqrt(2)`, shaved by a few ulps so that rounding never makes the estimate
    /// exceed a diagonal.
    euclidean_unit: f64,
    /// Cost per unit of Chebyshev distance: the cheapest step.
    chebyshev_unit: f64,
    /// Whether the grid is hexagonal, where the estimate depends on the displacement's signs.
    hex: bool,
}

impl HeuristicFn {
    pub(crate) fn new(kind: Heuristic, neighborhood: Neighborhood, cost: CostModel) -> Self {
        let straight = cost.straight();
        let diagonal = cost.diagonal();
        let (euclidean_unit, chebyshev_unit) = match neighborhood {
            Neighborhood::Four => (straight, straight),
            Neighborhood::Hex => (straight * (1.0 - 1e-12), straight),
            Neighborhood::Eight => (
                straight.min(diagonal / SQRT_2) * (1.0 - 1e-12),
                straight.min(diagonal),
            ),
        };
        Self {
            kind,
            straight,
            octile: OctileTerms::new(neighborhood, cost),
            euclidean_unit,
            chebyshev_unit,
            hex: neighborhood == Neighborhood::Hex,
        }
    }

    /// The estimate from `a` to `b` (columns and rows, padded or not alike).
    #[inline]
    pub(crate) fn between(&self, a: (u32, u32), b: (u32, u32)) -> f64 {
        if self.hex {
            self.hex_estimate(a, b)
        } else {
            self.estimate(a.0.abs_diff(b.0), a.1.abs_diff(b.1))
        }
    }

    /// The estimate from `a` to `b` on a hexagonal grid, whose distances depend on the
    /// displacement's signs.
    fn hex_estimate(&self, a: (u32, u32), b: (u32, u32)) -> f64 {
        let (dx, dy) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
        match self.kind {
            Heuristic::Manhattan => self.straight * f64::from(dx + dy),
            Heuristic::Octile => self.straight * hex::steps_between(a, b) as f64,
            Heuristic::Euclidean => {
                let dq = f64::from(b.0) - f64::from(a.0);
                let dr = f64::from(b.1) - f64::from(a.1);
                self.euclidean_unit * hex::center_distance(dq, dr)
            }
            Heuristic::Chebyshev => self.chebyshev_unit * f64::from(dx.max(dy)),
            Heuristic::Zero => 0.0,
        }
    }

    /// The octile terms, which [`Heuristic::Octile`] estimates with.
    pub(crate) const fn octile(&self) -> OctileTerms {
        self.octile
    }

    /// The estimate for a displacement of `dx` columns and `dy` rows in absolute value, on a
    /// square grid ([`HeuristicFn::between`] serves every grid).
    #[inline]
    pub(crate) fn estimate(&self, dx: u32, dy: u32) -> f64 {
        match self.kind {
            Heuristic::Manhattan => self.straight * (f64::from(dx) + f64::from(dy)),
            Heuristic::Octile => self.octile.estimate(dx, dy),
            Heuristic::Euclidean => {
                let (dx, dy) = (f64::from(dx), f64::from(dy));
                self.euclidean_unit * (dx * dx + dy * dy).sqrt()
            }
            Heuristic::Chebyshev => self.chebyshev_unit * f64::from(dx.max(dy)),
            Heuristic::Zero => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octile_is_exact_on_open_ground() {
        let octile = HeuristicFn::new(Heuristic::Octile, Neighborhood::Eight, CostModel::Octile);
        assert!((octile.estimate(3, 5) - (2.0 + 3.0 * SQRT_2)).abs() < 1e-12);
        let integer = HeuristicFn::new(
            Heuristic::Octile,
            Neighborhood::Eight,
            CostModel::INTEGER_10_14,
        );
        assert_eq!(integer.estimate(3, 5), 20.0 + 42.0);
    }

    #[test]
    fn octile_falls_back_to_manhattan_when_diagonals_never_pay() {
        for neighborhood in [Neighborhood::Four, Neighborhood::Eight] {
            let cost = if neighborhood == Neighborhood::Four {
                CostModel::Octile
            } else {
                CostModel::Integer {
                    straight: 10,
                    diagonal: 25,
                }
            };
            let octile = HeuristicFn::new(Heuristic::Octile, neighborhood, cost);
            assert_eq!(octile.estimate(3, 5), 8.0 * cost.straight());
        }
    }

    #[test]
    fn octile_zig_zags_when_a_diagonal_is_cheaper_than_a_straight_step() {
        let cost = CostModel::Integer {
            straight: 10,
            diagonal: 5,
        };
        let octile = HeuristicFn::new(Heuristic::Octile, Neighborhood::Eight, cost);
        for ((dx, dy), expected) in [
            ((0, 0), 0.0),
            ((1, 0), 10.0),
            ((1, 1), 5.0),
            ((2, 0), 10.0),
            ((2, 1), 15.0),
            ((3, 0), 20.0),
            ((3, 1), 15.0),
            ((4, 4), 20.0),
        ] {
            assert_eq!(octile.estimate(dx, dy), expected, "({dx}, {dy})");
            assert_eq!(octile.estimate(dy, dx), expected, "({dy}, {dx})");
        }
        let four = HeuristicFn::new(Heuristic::Octile, Neighborhood::Four, cost);
        assert_eq!(four.estimate(3, 1), 40.0);
    }

    #[test]
    fn chebyshev_counts_the_cheaper_step() {
        let cheap_diagonal = CostModel::Integer {
            straight: 10,
            diagonal: 5,
        };
        let eight = HeuristicFn::new(Heuristic::Chebyshev, Neighborhood::Eight, cheap_diagonal);
        assert_eq!(eight.estimate(3, 1), 15.0);
        let four = HeuristicFn::new(Heuristic::Chebyshev, Neighborhood::Four, cheap_diagonal);
        assert_eq!(four.estimate(3, 1), 30.0);
        let classic = HeuristicFn::new(
            Heuristic::Chebyshev,
            Neighborhood::Eight,
            CostModel::INTEGER_10_14,
        );
        assert_eq!(classic.estimate(3, 1), 30.0);
    }

    #[test]
    fn euclidean_never_exceeds_a_diagonal_of_cost_14() {
        let euclid = HeuristicFn::new(
            Heuristic::Euclidean,
            Neighborhood::Eight,
            CostModel::INTEGER_10_14,
        );
        assert!(euclid.estimate(1, 1) <= 14.0);
        assert!(euclid.estimate(7, 7) <= 98.0);
    }

    /// On a hexagonal grid, each admissible heuristic stays at or below the step count of a
    /// breadth-first search over the six neighbours, and the octile one equals it.
    #[test]
    fn hex_estimates_bound_the_hex_distance() {
        const SIDE: i64 = 15;
        let centre = (7u32, 7u32);
        let mut steps = vec![u32::MAX; (SIDE * SIDE) as usize];
        let mut queue = std::collections::VecDeque::from([(centre, 0)]);
        steps[(7 * SIDE + 7) as usize] = 0;
        while let Some(((x, y), count)) = queue.pop_front() {
            for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1), (1, -1), (-1, 1)] {
                let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                if (0..SIDE).contains(&nx) && (0..SIDE).contains(&ny) {
                    let slot = &mut steps[(ny * SIDE + nx) as usize];
                    if *slot == u32::MAX {
                        *slot = count + 1;
                        queue.push_back(((nx as u32, ny as u32), count + 1));
                    }
                }
            }
        }
        let cost = CostModel::INTEGER_10_14;
        for (index, &count) in steps.iter().enumerate() {
            let cell = ((index as i64 % SIDE) as u32, (index as i64 / SIDE) as u32);
            let exact = f64::from(count) * 10.0;
            let octile = HeuristicFn::new(Heuristic::Octile, Neighborhood::Hex, cost);
            assert_eq!(octile.between(centre, cell), exact, "{cell:?}");
            assert_eq!(octile.between(cell, centre), exact, "{cell:?}");
            for kind in [Heuristic::Euclidean, Heuristic::Chebyshev, Heuristic::Zero] {
                let estimate =
                    HeuristicFn::new(kind, Neighborhood::Hex, cost).between(centre, cell);
                assert!(estimate <= exact, "{kind:?} {cell:?}");
            }
        }
        assert!(!Heuristic::Manhattan.is_admissible(Neighborhood::Hex, cost));
        let manhattan = HeuristicFn::new(Heuristic::Manhattan, Neighborhood::Hex, cost);
        assert!(manhattan.between((1, 0), (0, 1)) > 10.0);
    }

    #[test]
    fn names_round_trip() {
        for heuristic in Heuristic::ALL {
            assert_eq!(heuristic.name().parse::<Heuristic>(), Ok(heuristic));
        }
        assert!("taxicab".parse::<Heuristic>().is_err());
    }

    #[test]
    fn weights_below_one_are_invalid() {
        assert!(!Weighting::Static(0.5).is_valid());
        assert!(!Weighting::Static(f64::NAN).is_valid());
        assert!(Weighting::Static(1.5).is_valid());
        assert!(!Weighting::Dynamic { epsilon: -1.0 }.is_valid());
    }
}
