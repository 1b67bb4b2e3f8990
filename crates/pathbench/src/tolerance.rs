//! How closely a found path length must match a scenario's optimal length: within relative
//! 1e-4, or within the rounding of the decimals the scenario file prints, whichever is looser.
//!
//! A scenario file rounds its lengths to some number of decimals: the `version 1` Moving AI
//! files print six significant digits (`3.41421`, `103.284`), older `version 1.0` files two
//! decimals (`244.95`), and writers drop trailing zeros (`1`, `132.4`). The file's precision is
//! therefore the most decimals any of its lengths prints, and each length is exact to half a
//! unit in that decimal.

/// Relative tolerance on every optimal length.
pub const RELATIVE_TOLERANCE: f64 = 1e-4;

/// Slack, relative to the length, for the binary value of a printed decimal and for summing a
/// path's steps.
const FLOAT_SLACK: f64 = 1e-9;

/// The tolerance that decided a length check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Half a unit in the file's last printed decimal, looser than 1e-4 of this length.
    FilePrecision,
    /// Relative 1e-4.
    Relative,
}

/// The decimals a scenario file prints its optimal lengths with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LengthPrecision {
    /// The most decimals any length prints; `None` when no length prints a decimal, since
    /// whole numbers alone do not show how the file rounds (they may be exact).
    decimals: Option<u32>,
}

impl LengthPrecision {
    /// The precision of lengths printed with these decimals each (`None` for a length in
    /// exponent notation, which tells nothing here).
    pub fn from_printed(decimals: impl IntoIterator<Item = Option<u32>>) -> Self {
        let most = decimals.into_iter().flatten().max();
        Self {
            decimals: most.filter(|&decimals| decimals > 0),
        }
    }

    /// The most decimals the file prints, if it prints any.
    pub fn decimals(self) -> Option<u32> {
        self.decimals
    }

    /// How far a found length may be from `optimal`, and which tolerance that is.
    pub fn tolerance(self, optimal: f64) -> (f64, Tolerance) {
        let scale = optimal.abs().max(1.0);
        let relative = RELATIVE_TOLERANCE * scale;
        let Some(decimals) = self.decimals else {
            return (relative, Tolerance::Relative);
        };
        let exponent = i32::try_from(decimals).unwrap_or(i32::MAX);
        let printed = 0.5 * 10f64.powi(-exponent) + FLOAT_SLACK * scale;
        if printed > relative {
            (printed, Tolerance::FilePrecision)
        } else {
            (relative, Tolerance::Relative)
        }
    }
}

/// The decimals each query row of a scenario file prints in its optimal length, rows in file
/// order. The text must be one that `astar_grid::parse_scenario` accepted: after the header,
/// every row that is not blank is one query whose last field is its length.
pub fn printed_decimals(text: &str) -> Vec<Option<u32>> {
    text.split('\n')
        .skip(1)
        .filter_map(|row| row.split_whitespace().next_back())
        .map(decimals_of)
        .collect()
}

/// Digits after the decimal point of a length as printed; `None` in exponent notation.
fn decimals_of(length: &str) -> Option<u32> {
    if length.contains(['e', 'E']) {
        return None;
    }
    let fraction = length.split_once('.').map_or("", |(_, fraction)| fraction);
    u32::try_from(fraction.len()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_prints_its_own_decimals() {
        let text = "version 1\n0\ta b.map\t9\t9\t0\t0\t1\t1\t1.41421\n\n \n\
                    0 m.map 9 9 0 0 2 0 2\r\n0\tm\t9\t9\t0\t0\t1\t2\t 2.4 \n\
                    0\tm\t9\t9\t0\t0\t2\t2\t2.83e0\n";
        let scenario = astar_grid::parse_scenario(text).expect("a valid scenario");
        assert_eq!(scenario.queries.len(), 4);
        assert_eq!(printed_decimals(text), [Some(5), Some(0), Some(1), None]);
    }

    #[test]
    fn the_file_precision_is_its_most_printed_decimals() {
        let precision = LengthPrecision::from_printed([Some(1), Some(2), None, Some(0)]);
        assert_eq!(precision.decimals(), Some(2));
        assert_eq!(
            LengthPrecision::from_printed([Some(0), None]).decimals(),
            None
        );
        assert_eq!(LengthPrecision::from_printed([]).decimals(), None);
    }

    #[test]
    fn two_decimals_allow_half_a_hundredth_below_length_50() {
        let precision = LengthPrecision::from_printed([Some(2)]);
        let (tolerance, applied) = precision.tolerance(12.0);
        assert_eq!(applied, Tolerance::FilePrecision);
        assert!(tolerance > 0.005 && tolerance < 0.005_001, "{tolerance}");
        assert_eq!(
            precision.tolerance(80.0),
            (80.0 * 1e-4, Tolerance::Relative)
        );
    }

    #[test]
    fn six_significant_digits_and_whole_numbers_are_checked_at_relative_tolerance() {
        let precision = LengthPrecision::from_printed([Some(5), Some(3)]);
        assert_eq!(precision.tolerance(3.0), (3.0 * 1e-4, Tolerance::Relative));
        assert_eq!(precision.tolerance(0.0), (1e-4, Tolerance::Relative));
        let whole = LengthPrecision::from_printed([Some(0)]);
        assert_eq!(whole.tolerance(44.0), (44.0 * 1e-4, Tolerance::Relative));
        let endless = LengthPrecision::from_printed([Some(u32::MAX)]);
        assert_eq!(endless.tolerance(2.0).1, Tolerance::Relative);
    }
}
