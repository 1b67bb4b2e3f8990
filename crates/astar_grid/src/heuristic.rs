//! Distance estimates that guide A*, and the weights that trade optimality for speed.

use crate::{CostModel, Neighborhood};
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
    /// Under four neighbours it is the Manhattan distance.
    Octile,
    /// Straight-line distance, scaled to the cheapest cost per cell of length: a straight step
    /// covers 1 at its cost, a diagonal `sqrt(2)` at its cost.
    Euclidean,
    /// `max(dx, dy)` steps of the cheaper kind (straight only, under four neighbours).
    Chebyshev,
    /// Always 0: the search becomes Dijkstra's algorithm.
    Zero,
}

impl Heuristic {
    /// The default for a neighbourhood: octile for eight neighbours, Manhattan for four.
    #[must_use]
    pub const fn default_for(neighborhood: Neighborhood) -> Self {
        match neighborhood {
            Neighborhood::Four => Self::Manhattan,
            Neighborhood::Eight => Self::Octile,
        }
    }

    /// Whether this heuristic never overestimates the true cost under `neighborhood` and `cost`
    /// (with every terrain multiplier at least 1), so that an unweighted search is optimal.
    ///
    /// True for every heuristic and cost model except [`Heuristic::Manhattan`] under eight
    /// neighbours with a diagonal cheaper than two straight steps, which overestimates a
    /// single diagonal step.
    #[must_use]
    pub fn is_admissible(self, neighborhood: Neighborhood, cost: CostModel) -> bool {
        match self {
            Self::Manhattan => {
                neighborhood == Neighborhood::Four || cost.diagonal() >= 2.0 * cost.straight()
            }
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

    /// The estimate for a displacement of `dx` columns and `dy` rows.
    #[must_use]
    pub fn estimate(self, dx: u32, dy: u32, neighborhood: Neighborhood, cost: CostModel) -> f64 {
        HeuristicFn::new(self, neighborhood, cost).estimate(dx, dy)
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
            Neighborhood::Four | Neighborhood::Eight => Self {
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
}

impl HeuristicFn {
    pub(crate) fn new(kind: Heuristic, neighborhood: Neighborhood, cost: CostModel) -> Self {
        let straight = cost.straight();
        let diagonal = cost.diagonal();
        let (euclidean_unit, chebyshev_unit) = match neighborhood {
            Neighborhood::Four => (straight, straight),
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
        }
    }

    /// The octile terms, which [`Heuristic::Octile`] estimates with.
    pub(crate) const fn octile(&self) -> OctileTerms {
        self.octile
    }

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
