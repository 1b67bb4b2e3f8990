//! Distance estimates that guide A*, and the weights that trade optimality for speed.

use crate::{CostModel, Neighborhood};
use core::f64::consts::SQRT_2;

/// An estimate of the remaining cost from a cell to the goal.
///
/// Every heuristic is scaled by the [`CostModel`] so that it never overestimates on a grid of
/// cost-1 cells, except [`Heuristic::Manhattan`] under eight-connected movement when a diagonal
/// costs less than two straight steps (see [`Heuristic::is_admissible`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heuristic {
    /// `dx + dy` straight steps: exact on an open four-connected grid.
    Manhattan,
    /// Diagonal steps for the shorter axis, straight steps for the rest: exact on an open
    /// eight-connected grid.
    Octile,
    /// Straight-line distance.
    Euclidean,
    /// `max(dx, dy)` steps of the cheaper kind.
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
    #[must_use]
    pub fn is_admissible(self, neighborhood: Neighborhood, cost: CostModel) -> bool {
        match self {
            Self::Manhattan => {
                neighborhood == Neighborhood::Four || cost.diagonal() >= 2.0 * cost.straight()
            }
            Self::Octile | Self::Euclidean | Self::Chebyshev | Self::Zero => true,
        }
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

/// A heuristic with its constants resolved for one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeuristicFn {
    kind: Heuristic,
    straight: f64,
    /// Extra cost of a diagonal over a straight step, for octile; 0 when diagonals never pay.
    diagonal_extra: f64,
    /// Scale of the straight-line and Chebyshev distances.
    min_step: f64,
}

impl HeuristicFn {
    pub(crate) fn new(kind: Heuristic, neighborhood: Neighborhood, cost: CostModel) -> Self {
        let straight = cost.straight();
        let diagonal = cost.diagonal();
        let diagonals_pay = neighborhood == Neighborhood::Eight && diagonal < 2.0 * straight;
        let (diagonal_extra, min_step) = if diagonals_pay {
            // Shaved by a few ulps so that rounding never makes the estimate exceed a diagonal.
            (
                diagonal - straight,
                straight.min(diagonal / SQRT_2) * (1.0 - 1e-12),
            )
        } else {
            (straight, straight)
        };
        Self {
            kind,
            straight,
            diagonal_extra,
            min_step,
        }
    }

    #[inline]
    pub(crate) fn estimate(&self, dx: u32, dy: u32) -> f64 {
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        match self.kind {
            Heuristic::Manhattan => self.straight * (dx + dy),
            Heuristic::Octile => {
                let (long, short) = if dx > dy { (dx, dy) } else { (dy, dx) };
                self.straight * (long - short) + (self.straight + self.diagonal_extra) * short
            }
            Heuristic::Euclidean => self.min_step * (dx * dx + dy * dy).sqrt(),
            Heuristic::Chebyshev => self.min_step.min(self.straight) * dx.max(dy),
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
