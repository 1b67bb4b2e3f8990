//! What each library scored: per-query records, their summary, and the printed table.

use super::measure::{IllegalSteps, PathCheck, matches_optimal};
use crate::scen_report::median;

/// Everything recorded for one library over a set of queries, in the order they ran.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Microseconds per query, aligned with every other library's tally of the same queries.
    pub times_us: Vec<f64>,
    /// Found length over optimal length, for queries whose optimum is above zero.
    pub length_ratios: Vec<f64>,
    /// Found paths whose length is not the optimum, and paths found where none exists.
    pub non_optimal: usize,
    /// Found paths with an illegal step or the wrong end cells.
    pub illegal: usize,
    /// The illegal steps of those paths, by kind.
    pub illegal_steps: IllegalSteps,
    /// Queries with a path that the library did not find.
    pub not_found: usize,
    /// Milliseconds spent preparing the library for the maps (grid copies, precomputation).
    pub prepare_ms: f64,
}

impl Tally {
    /// Records one query: its time, the check of the path found (if any) and the benchmark's
    /// optimal length (negative when there is no path).
    pub fn record(&mut self, micros: f64, check: Option<PathCheck>, optimal: f64) {
        self.times_us.push(micros);
        if let Some(check) = check {
            self.illegal_steps.add(check.illegal);
        }
        match (check, optimal >= 0.0) {
            (Some(check), true) => {
                if optimal > 0.0 {
                    self.length_ratios.push(check.length / optimal);
                }
                if !matches_optimal(check.length, optimal) {
                    self.non_optimal += 1;
                }
                if !check.is_legal() {
                    self.illegal += 1;
                }
            }
            (Some(check), false) => {
                self.non_optimal += 1;
                if !check.is_legal() {
                    self.illegal += 1;
                }
            }
            (None, true) => self.not_found += 1,
            (None, false) => {}
        }
    }

    /// Adds `other`'s records after this tally's.
    pub fn extend(&mut self, other: &Self) {
        self.times_us.extend_from_slice(&other.times_us);
        self.length_ratios.extend_from_slice(&other.length_ratios);
        self.non_optimal += other.non_optimal;
        self.illegal += other.illegal;
        self.illegal_steps.add(other.illegal_steps);
        self.not_found += other.not_found;
        self.prepare_ms += other.prepare_ms;
    }

    /// The figures of this tally; `baseline` is the reference library's tally of the same
    /// queries (for the time ratios).
    pub fn summary(&self, baseline: &Self) -> Summary {
        let queries = self.times_us.len();
        let total: f64 = self.times_us.iter().sum();
        let mean_us = total / queries.max(1) as f64;
        let baseline_mean = baseline.times_us.iter().sum::<f64>() / queries.max(1) as f64;
        let per_query_ratios: Vec<f64> = self
            .times_us
            .iter()
            .zip(&baseline.times_us)
            .map(|(time, reference)| time / reference.max(1e-3))
            .collect();
        let ratios = &self.length_ratios;
        Summary {
            queries,
            mean_us,
            median_us: median(&self.times_us),
            queries_per_second: if total > 0.0 {
                queries as f64 * 1e6 / total
            } else {
                0.0
            },
            time_ratio_mean: mean_us / baseline_mean.max(1e-9),
            time_ratio_median: median(&per_query_ratios),
            length_ratio_mean: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
            length_ratio_max: ratios.iter().copied().fold(f64::NAN, f64::max),
            length_ratio_min: ratios.iter().copied().fold(f64::NAN, f64::min),
            non_optimal: self.non_optimal,
            illegal: self.illegal,
            illegal_steps: self.illegal_steps,
            not_found: self.not_found,
            prepare_ms: self.prepare_ms,
        }
    }
}

/// One library's figures over a set of queries.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    /// Queries run.
    pub queries: usize,
    /// Mean microseconds per query.
    pub mean_us: f64,
    /// Median microseconds per query.
    pub median_us: f64,
    /// Queries per second at the mean time.
    pub queries_per_second: f64,
    /// This library's mean time over the baseline's mean time.
    pub time_ratio_mean: f64,
    /// The median over queries of this library's time over the baseline's on the same query.
    pub time_ratio_median: f64,
    /// Mean of found length over optimal length.
    pub length_ratio_mean: f64,
    /// Largest found length over optimal length.
    pub length_ratio_max: f64,
    /// Smallest found length over optimal length (below 1 only through illegal steps).
    pub length_ratio_min: f64,
    /// Paths whose length is not the optimum.
    pub non_optimal: usize,
    /// Paths with an illegal step or the wrong end cells.
    pub illegal: usize,
    /// Their illegal steps, by kind.
    pub illegal_steps: IllegalSteps,
    /// Existing paths not found.
    pub not_found: usize,
    /// Milliseconds of preparation over the maps.
    pub prepare_ms: f64,
}

impl Summary {
    /// The figures as a JSON object (lengths ratios are `null` when no path was measured).
    pub fn to_json(self) -> serde_json::Value {
        let finite = |value: f64| value.is_finite().then_some(value);
        serde_json::json!({
            "queries": self.queries,
            "mean_us": self.mean_us,
            "median_us": self.median_us,
            "queries_per_second": self.queries_per_second,
            "time_ratio_to_ours_mean": self.time_ratio_mean,
            "time_ratio_to_ours_median": self.time_ratio_median,
            "length_ratio_mean": finite(self.length_ratio_mean),
            "length_ratio_max": finite(self.length_ratio_max),
            "length_ratio_min": finite(self.length_ratio_min),
            "non_optimal": self.non_optimal,
            "illegal": self.illegal,
            "illegal_steps": {
                "corner_cuts": self.illegal_steps.corner_cuts,
                "into_walls": self.illegal_steps.into_walls,
                "jumps": self.illegal_steps.jumps,
            },
            "not_found": self.not_found,
            "prepare_ms": self.prepare_ms,
        })
    }
}

/// The header of [`table_row`]'s table.
pub fn table_header() -> String {
    format!(
        "{:<22} {:>10} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8} {:>15} {:>7} {:>9}",
        "library",
        "mean us",
        "median us",
        "queries/s",
        "x mean",
        "x median",
        "len mean",
        "len max",
        "non-opt",
        "illegal",
        "cut/wall/jump",
        "missed",
        "prep ms"
    )
}

/// One library's line of the table.
pub fn table_row(name: &str, summary: &Summary) -> String {
    format!(
        "{name:<22} {:>10.2} {:>10.2} {:>10.0} {:>8.2} {:>8.2} {:>9.4} {:>9.4} {:>8} {:>8} {:>15} {:>7} {:>9.0}",
        summary.mean_us,
        summary.median_us,
        summary.queries_per_second,
        summary.time_ratio_mean,
        summary.time_ratio_median,
        summary.length_ratio_mean,
        summary.length_ratio_max,
        summary.non_optimal,
        summary.illegal,
        format!(
            "{}/{}/{}",
            summary.illegal_steps.corner_cuts,
            summary.illegal_steps.into_walls,
            summary.illegal_steps.jumps
        ),
        summary.not_found,
        summary.prepare_ms
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(length: f64, legal: bool) -> Option<PathCheck> {
        Some(PathCheck {
            length,
            illegal: IllegalSteps {
                corner_cuts: usize::from(!legal),
                ..IllegalSteps::default()
            },
            joins_endpoints: true,
        })
    }

    #[test]
    fn records_sort_paths_into_their_counters() {
        let mut tally = Tally::default();
        tally.record(2.0, check(10.0, true), 10.0);
        tally.record(4.0, check(12.0, true), 10.0);
        tally.record(6.0, check(9.0, false), 10.0);
        tally.record(8.0, None, 10.0);
        tally.record(1.0, None, -1.0);
        tally.record(1.0, check(0.0, true), 0.0);
        assert_eq!(tally.non_optimal, 2);
        assert_eq!(tally.illegal, 1);
        assert_eq!(tally.illegal_steps.corner_cuts, 1);
        assert_eq!(tally.not_found, 1);
        let summary = tally.summary(&tally);
        assert_eq!(summary.queries, 6);
        assert!((summary.mean_us - 22.0 / 6.0).abs() < 1e-12);
        assert!((summary.median_us - 3.0).abs() < 1e-12);
        assert!((summary.length_ratio_max - 1.2).abs() < 1e-12);
        assert!((summary.length_ratio_min - 0.9).abs() < 1e-12);
        assert!((summary.length_ratio_mean - (1.0 + 1.2 + 0.9) / 3.0).abs() < 1e-12);
        assert!((summary.time_ratio_mean - 1.0).abs() < 1e-12);
        assert!((summary.time_ratio_median - 1.0).abs() < 1e-12);
    }

    #[test]
    fn time_ratios_compare_query_by_query() {
        let mut ours = Tally::default();
        let mut peer = Tally::default();
        for (reference, time) in [(1.0, 5.0), (2.0, 6.0), (10.0, 20.0)] {
            ours.record(reference, check(1.0, true), 1.0);
            peer.record(time, check(1.0, true), 1.0);
        }
        let summary = peer.summary(&ours);
        assert!((summary.time_ratio_mean - 31.0 / 13.0).abs() < 1e-12);
        // Per-query ratios 5, 3 and 2: the median is 3.
        assert!((summary.time_ratio_median - 3.0).abs() < 1e-12);
    }
}
