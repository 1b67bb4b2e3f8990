//! Micro-benchmarks of the core's hot paths: whole scenarios of A* queries on the bundled Moving
//! AI maps, the open-grid worst case, and the operations the plugin repeats (grid clone, parse).

use astar_grid::{Cell, Grid, Scenario, SearchOptions, Searcher, parse_map, parse_scenario};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bundled(name: &str) -> (String, Grid, Scenario) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/maps/");
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

criterion_group!(benches, scenarios, open_grid, grid_operations);
criterion_main!(benches);
