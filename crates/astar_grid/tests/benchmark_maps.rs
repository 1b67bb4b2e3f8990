//! The Dragon Age: Origins maps shipped in `assets/maps/dao/`: every scenario query finds a
//! legal path of the published optimal length, and the map and scenario files survive a write
//! and re-read.

pub mod common;

use astar_grid::{
    CostModel, Grid, Legend, Movement, Scenario, SearchOptions, SearchStatus, Searcher, parse_map,
    parse_scenario, write_map, write_scenario,
};
use common::path_check::check_path;
use common::reference_search::ReferenceGraph;

/// Relative tolerance of the published lengths (they are printed with a few decimals).
const LENGTH_TOLERANCE: f64 = 1e-4;

const ARENA_MAP: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/maps/dao/arena.map"
));
const ARENA_SCENARIO: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/maps/dao/arena.map.scen"
));
const DEN312D_MAP: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/maps/dao/den312d.map"
));
const DEN312D_SCENARIO: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/maps/dao/den312d.map.scen"
));

const BENCHMARKS: [(&str, &str, &str); 2] = [
    ("arena", ARENA_MAP, ARENA_SCENARIO),
    ("den312d", DEN312D_MAP, DEN312D_SCENARIO),
];

fn load(map: &str, scenario: &str) -> (Grid, Scenario) {
    (
        parse_map(map).expect("a valid map file"),
        parse_scenario(scenario).expect("a valid scenario file"),
    )
}

fn within_tolerance(found: f64, published: f64) -> bool {
    (found - published).abs() <= LENGTH_TOLERANCE * published.abs().max(1.0)
}

#[test]
fn every_query_finds_a_legal_path_of_the_published_length() {
    let mut searcher = Searcher::new();
    let options = SearchOptions::default();
    for (name, map, scenario) in BENCHMARKS {
        let (grid, scenario) = load(map, scenario);
        assert!(!scenario.queries.is_empty(), "{name}: no queries");
        for (number, query) in scenario.queries.iter().enumerate() {
            assert_eq!(
                (query.map_width, query.map_height),
                (grid.width(), grid.height()),
                "{name} query {number}: the scenario is for another map size"
            );
            let result = searcher
                .find_path(&grid, query.start, query.goal, &options)
                .unwrap_or_else(|error| panic!("{name} query {number}: {error}"));
            if query.optimal_length < 0.0 {
                assert_eq!(result.status, SearchStatus::NoPath, "{name} query {number}");
                continue;
            }
            let path = result
                .found()
                .unwrap_or_else(|| panic!("{name} query {number}: {:?}", result.status));
            check_path(
                &grid,
                path,
                query.start,
                query.goal,
                Movement::EIGHT,
                CostModel::Octile,
            )
            .unwrap_or_else(|problem| panic!("{name} query {number}: {problem}"));
            assert!(
                within_tolerance(path.cost, query.optimal_length),
                "{name} query {number}: length {} instead of {}",
                path.cost,
                query.optimal_length
            );
        }
    }
}

/// The reference search of the other tests agrees with the published lengths too, so it is a
/// trustworthy oracle for the Moving AI rule.
#[test]
fn the_reference_search_reproduces_the_published_lengths() {
    for (name, map, scenario) in BENCHMARKS {
        let (grid, scenario) = load(map, scenario);
        let reference = ReferenceGraph::new(&grid, Movement::EIGHT, CostModel::Octile);
        for (number, query) in scenario.queries.iter().enumerate() {
            let cost = reference.cost(query.start, query.goal);
            match cost {
                None => assert!(query.optimal_length < 0.0, "{name} query {number}"),
                Some(cost) => assert!(
                    within_tolerance(cost, query.optimal_length),
                    "{name} query {number}: reference {cost} vs {}",
                    query.optimal_length
                ),
            }
        }
    }
}

/// A searcher kept for every query of a map, as a game keeps one per thread, holds at most 16
/// bytes per map cell for A*, on these small maps too: its open list's memory follows the
/// entries a search holds at once, not the buckets the searches went through.
#[test]
fn a_searcher_kept_for_every_query_holds_at_most_16_bytes_per_cell() {
    for (name, map, scenario) in BENCHMARKS {
        let (grid, scenario) = load(map, scenario);
        let mut searcher = Searcher::new();
        for (number, query) in scenario.queries.iter().enumerate() {
            searcher
                .find_path(&grid, query.start, query.goal, &SearchOptions::default())
                .unwrap_or_else(|error| panic!("{name} query {number}: {error}"));
            let per_cell = searcher.astar_memory_bytes() as f64 / grid.len() as f64;
            assert!(
                per_cell <= 16.0,
                "{name} after query {number}: {per_cell:.2} bytes per cell"
            );
        }
    }
}

#[test]
fn maps_round_trip_through_the_writer() {
    for (name, map, _) in BENCHMARKS {
        let grid = parse_map(map).expect("a valid map file");
        let written = write_map(&grid, &Legend::moving_ai()).expect("every cell has a character");
        let again = parse_map(&written).expect("the written map parses");
        assert_eq!(again, grid, "{name}");
        assert_eq!(
            write_map(&again, &Legend::moving_ai()).as_deref(),
            Some(written.as_str()),
            "{name}: writing is not stable"
        );
    }
}

#[test]
fn scenarios_round_trip_through_the_writer() {
    for (name, _, scenario) in BENCHMARKS {
        let scenario = parse_scenario(scenario).expect("a valid scenario file");
        let written = write_scenario(&scenario).expect("a parsed scenario can be written");
        let again = parse_scenario(&written).expect("the written scenario parses");
        assert_eq!(again, scenario, "{name}");
        assert_eq!(
            write_scenario(&again).as_ref(),
            Ok(&written),
            "{name}: writing is not stable"
        );
    }
}
