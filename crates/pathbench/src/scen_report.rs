//! What a run of a scenario's queries measured, and the figures its printouts share: the
//! report, its tolerance line and the median.

use crate::tolerance::{LengthPrecision, RELATIVE_TOLERANCE, Tolerance};

/// What one scenario run measured.
#[derive(Clone, Debug, Default)]
pub struct ScenReport {
    /// The decimals the scenario file prints its lengths with.
    pub precision: LengthPrecision,
    pub queries: usize,
    pub mismatches: usize,
    /// Lengths checked within half a unit of the file's last printed decimal.
    pub checked_at_file_precision: usize,
    /// Lengths checked within relative 1e-4.
    pub checked_at_relative: usize,
    pub max_abs_error: f64,
    pub total_us: f64,
    pub times_us: Vec<f64>,
    pub expansions: u64,
    /// For jump point search: A*'s expansions on the same queries, for comparison.
    pub astar_expansions: Option<u64>,
    /// Whether paths may be dearer than optimal (a hierarchical search): a longer path is then
    /// counted in the suboptimality, not as a mismatch.
    pub bounded: bool,
    /// Paths that break the movement rules or do not join start and goal.
    pub illegal: usize,
    /// Per found path with a known optimum: its cost over optimal, minus 1.
    pub suboptimality: Vec<f64>,
    /// Per query, the scenario's optimal length (negative when there is no path).
    pub optimal_lengths: Vec<f64>,
    /// For a hierarchical search: its sectors, nodes and bytes.
    pub hierarchy: Option<(usize, usize, usize)>,
}

impl ScenReport {
    /// An empty report for `queries` queries of a file printing lengths with `precision`.
    pub fn new(precision: LengthPrecision, queries: usize) -> Self {
        Self {
            precision,
            times_us: Vec::with_capacity(queries),
            ..Self::default()
        }
    }

    /// Adds one query: its time, its expansions, and whether its path matches `optimal_length`
    /// (within the file's printed precision or relative 1e-4, whichever is looser; a negative
    /// length means no path exists).
    pub fn record(
        &mut self,
        time_us: f64,
        expansions: u64,
        found: Option<&astar_grid::Path>,
        optimal_length: f64,
    ) {
        self.queries += 1;
        self.total_us += time_us;
        self.times_us.push(time_us);
        self.optimal_lengths.push(optimal_length);
        self.expansions += expansions;
        match (found, optimal_length >= 0.0) {
            (Some(path), true) => {
                if optimal_length > 0.0 {
                    self.suboptimality.push(path.cost / optimal_length - 1.0);
                }
                let (tolerance, _) = self.precision.tolerance(optimal_length);
                if self.bounded && path.cost > optimal_length + tolerance {
                    return;
                }
                let error = (path.cost - optimal_length).abs();
                self.max_abs_error = self.max_abs_error.max(error);
                let (tolerance, applied) = self.precision.tolerance(optimal_length);
                match applied {
                    Tolerance::FilePrecision => self.checked_at_file_precision += 1,
                    Tolerance::Relative => self.checked_at_relative += 1,
                }
                if error > tolerance {
                    self.mismatches += 1;
                }
            }
            (None, false) => {}
            _ => self.mismatches += 1,
        }
    }

    pub fn mean_us(&self) -> f64 {
        self.total_us / self.queries.max(1) as f64
    }

    pub fn median_us(&self) -> f64 {
        median(&self.times_us)
    }

    pub fn expansions_mean(&self) -> f64 {
        self.expansions as f64 / self.queries.max(1) as f64
    }

    pub fn astar_expansions_mean(&self) -> Option<f64> {
        self.astar_expansions
            .map(|expansions| expansions as f64 / self.queries.max(1) as f64)
    }

    /// The mean and the largest suboptimality (cost over optimal, minus 1) of the paths found.
    pub fn suboptimality(&self) -> (f64, f64) {
        mean_and_worst(&self.suboptimality)
    }

    /// The median and mean time, in microseconds, of the longest quarter of the queries (by
    /// optimal length, those with a path).
    pub fn longest_quarter_us(&self) -> (f64, f64) {
        let mut by_length: Vec<(f64, f64)> = self
            .optimal_lengths
            .iter()
            .zip(&self.times_us)
            .filter(|(length, _)| **length >= 0.0)
            .map(|(&length, &time)| (length, time))
            .collect();
        by_length.sort_by(|a, b| b.0.total_cmp(&a.0));
        let quarter: Vec<f64> = by_length
            .iter()
            .take(by_length.len().div_ceil(4))
            .map(|&(_, time)| time)
            .collect();
        let mean = quarter.iter().sum::<f64>() / quarter.len().max(1) as f64;
        (median(&quarter), mean)
    }

    /// Adds the legality, suboptimality and longest-quarter figures to a JSON summary.
    pub fn add_quality(&self, summary: &mut serde_json::Value) {
        let (mean, worst) = self.suboptimality();
        let (quarter_median, quarter_mean) = self.longest_quarter_us();
        summary["illegal"] = self.illegal.into();
        summary["mean_suboptimality"] = mean.into();
        summary["max_suboptimality"] = worst.into();
        summary["longest_quarter_median_us"] = quarter_median.into();
        summary["longest_quarter_mean_us"] = quarter_mean.into();
        if let Some((sectors, nodes, bytes)) = self.hierarchy {
            summary["hierarchy_sectors"] = sectors.into();
            summary["hierarchy_nodes"] = nodes.into();
            summary["hierarchy_bytes"] = bytes.into();
        }
    }

    /// Adds the tolerance counts to a JSON summary.
    pub fn add_tolerance_counts(&self, summary: &mut serde_json::Value) {
        summary["checked_at_file_precision"] = self.checked_at_file_precision.into();
        summary["checked_at_relative"] = self.checked_at_relative.into();
    }
}

/// The line that says which tolerance the lengths were checked at.
pub fn tolerance_line(at_file_precision: usize, at_relative: usize) -> String {
    format!(
        "lengths checked: {at_file_precision} within the file's printed precision \
         (half a unit in its last decimal), {at_relative} within relative {RELATIVE_TOLERANCE:e}"
    )
}

/// The mean and the largest of `values` (suboptimalities, not negative); both 0 when there are
/// none.
pub fn mean_and_worst(values: &[f64]) -> (f64, f64) {
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    (mean, values.iter().copied().fold(0.0, f64::max))
}

pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}
