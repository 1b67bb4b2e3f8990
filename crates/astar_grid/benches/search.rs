//! Micro-benchmarks of the core's hot paths: whole scenarios of A* queries on the bundled Moving
//! AI maps, the open-grid worst case, a random map with 30% of its cells blocked, the open
//! list's other modes (terrain costs that reach past its ring of buckets, a weighted search on
//! its heap alone), and the operations the plugin repeats (grid clone, parse).

use astar_grid::{Cell, Grid, Scenario, SearchOptions, Searcher, parse_map, parse_scenario};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bundled(name: &str) -> (String, Grid, Scenario) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps/dao/");
    let read = |file: String| {
        std::fs::read_to_string(&file).unwrap_or_else(|error| panic!("{file}: {error}"))
    };
    let map_text = read(format!("{dir}{name}.map"));
    let grid = parse_map(&map_text).unwrap_or_else(|error| panic!("{name}.map: {error}"));
    let scenario = parse_scenario(&read(format!("{dir}{name}.map.scen")))
        .unwrap_or_else(|error| panic!("{name}.map.scen: {error}"));
    (map_text, grid, scenario)
}

fn scenarios(criterion: &mut Criterion) {
    let options = SearchOptions::default();
    for name in ["arena", "den312d"] {
        let (_, grid, scenario) = bundled(name);
        let mut searcher = Searcher::for_grid(&grid);
        criterion.bench_function(&format!("astar/{name}/all_queries"), |bench| {
            bench.iter(|| {
                for query in &scenario.queries {
                    let result = searcher.find_path(&grid, query.start, query.goal, &options);
                    black_box(result.ok());
                }
            });
        });
    }
}

fn open_grid(criterion: &mut Criterion) {
    let grid = Grid::new(256, 256);
    let mut searcher = Searcher::for_grid(&grid);
    let options = SearchOptions::default();
    criterion.bench_function("astar/open_256/corner_to_corner", |bench| {
        bench.iter(|| {
            black_box(searcher.find_path(&grid, Cell::new(0, 0), Cell::new(255, 200), &options))
        });
    });
    let dijkstra = options.dijkstra();
    criterion.bench_function("dijkstra/open_256/corner_to_corner", |bench| {
        bench.iter(|| {
            black_box(searcher.find_path(&grid, Cell::new(0, 0), Cell::new(255, 200), &dijkstra))
        });
    });
}

/// A `size` x `size` map with about `percent`% of its cells blocked in a pseudo-random pattern
/// chosen by `salt`, its corners kept open, and terrain cost `terrain` on every other column.
fn scattered(size: u32, percent: u64, terrain: u8, salt: u64) -> Grid {
    Grid::from_fn(size, size, |cell| {
        let mut hash = (u64::from(cell.x) << 32 | u64::from(cell.y)) ^ salt;
        hash = hash.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        hash ^= hash >> 32;
        let corner = (cell.x < 2 && cell.y < 2) || (cell.x + 2 >= size && cell.y + 2 >= size);
        if !corner && hash % 100 < percent {
            0
        } else if cell.x % 2 == 1 {
            terrain
        } else {
            1
        }
    })
}

fn open_list_modes(criterion: &mut Criterion) {
    let (start, goal) = (Cell::new(0, 0), Cell::new(199, 199));
    let options = SearchOptions::default();
    let random = scattered(200, 30, 1, 3);
    let swamp = scattered(200, 20, 40, 0);
    let mut searcher = Searcher::for_grid(&random);
    for grid in [&random, &swamp] {
        let result = searcher.find_path(grid, start, goal, &options);
        assert!(
            result.is_ok_and(|result| result.found().is_some()),
            "the benchmark maps join their corners"
        );
    }
    criterion.bench_function("astar/random_200_30pct/corner_to_corner", |bench| {
        bench.iter(|| black_box(searcher.find_path(&random, start, goal, &options)));
    });
    criterion.bench_function("astar/terrain_200/corner_to_corner", |bench| {
        bench.iter(|| black_box(searcher.find_path(&swamp, start, goal, &options)));
    });
    let weighted = options.with_weight(1.5);
    criterion.bench_function(
        "astar_weighted/random_200_30pct/corner_to_corner",
        |bench| {
            bench.iter(|| black_box(searcher.find_path(&random, start, goal, &weighted)));
        },
    );
}

fn grid_operations(criterion: &mut Criterion) {
    let (map_text, grid, _) = bundled("den312d");
    criterion.bench_function("grid/parse_den312d", |bench| {
        bench.iter(|| black_box(parse_map(black_box(&map_text))));
    });
    let large = Grid::new(512, 512);
    criterion.bench_function("grid/clone_512", |bench| {
        bench.iter(|| black_box(large.clone()));
    });
    criterion.bench_function("grid/walkable_count_den312d", |bench| {
        bench.iter(|| black_box(grid.walkable_count()));
    });
}

criterion_group!(
    benches,
    scenarios,
    open_grid,
    open_list_modes,
    grid_operations
);
criterion_main!(benches);
