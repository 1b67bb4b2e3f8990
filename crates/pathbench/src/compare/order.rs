//! Which queries of a scenario run, and in what order: an even sample and a seeded shuffle.

use crate::random::SeededRandom;

/// Indices of the queries to run out of `total`: all of them, or `wanted` spread evenly from the
/// first to the last.
pub fn sample_indices(total: usize, wanted: Option<usize>) -> Vec<usize> {
    match wanted {
        Some(wanted) if wanted < total => (0..wanted).map(|i| i * total / wanted).collect(),
        _ => (0..total).collect(),
    }
}

/// Shuffles `items` in place (Fisher-Yates), reproducibly for a given `seed`.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut random = SeededRandom::new(seed);
    for last in (1..items.len()).rev() {
        let pick = random.below(last as u64 + 1) as usize;
        items.swap(last, pick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_even_distinct_and_bounded() {
        let picks = sample_indices(1000, Some(50));
        assert_eq!(picks.len(), 50);
        assert_eq!(picks[0], 0);
        assert!(picks.windows(2).all(|pair| pair[1] - pair[0] == 20));
        assert_eq!(sample_indices(7, Some(50)), (0..7).collect::<Vec<_>>());
        assert_eq!(sample_indices(7, None).len(), 7);
        assert!(sample_indices(7, Some(0)).is_empty());
        let uneven = sample_indices(10, Some(3));
        assert_eq!(uneven, vec![0, 3, 6]);
    }

    #[test]
    fn shuffle_is_a_reproducible_permutation() {
        let mut first: Vec<usize> = (0..100).collect();
        let mut second = first.clone();
        shuffle(&mut first, 7);
        shuffle(&mut second, 7);
        assert_eq!(first, second);
        assert_ne!(first, (0..100).collect::<Vec<_>>());
        let mut sorted = first.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        let mut other: Vec<usize> = (0..100).collect();
        shuffle(&mut other, 8);
        assert_ne!(first, other);
    }
}
