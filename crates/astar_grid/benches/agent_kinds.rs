//! Agent kinds: building a derived grid and keeping it up to date under one-cell edits, for
//! each agent size, on a 512 x 512 benchmark map read with the kinds legend and on open ground.

use astar_grid::agent::MAX_AGENT_SIZE;
use astar_grid::{AgentGrid, Cell, Clearance, Grid, Legend, TerrainProfile, parse_map_with};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [u8; 4] = [1, 2, 4, MAX_AGENT_SIZE];

fn random_map() -> Grid {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/maps/random/random512-25-0.map"
    );
    let text = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{file}: {error}"));
    parse_map_with(&text, &Legend::moving_ai_kinds()).unwrap_or_else(|error| panic!("{error}"))
}

/// A cell in open ground, away from the edges, whose blocking changes many anchors.
fn open_cell(terrain: &Grid) -> Cell {
    let walker = TerrainProfile::walker();
    let clearance = Clearance::new(terrain, &walker);
    terrain
        .cells()
        .map(|(cell, _)| cell)
        .find(|&cell| cell.x >= 16 && cell.y >= 16 && clearance.get(cell) == MAX_AGENT_SIZE)
        .unwrap_or(Cell::new(256, 256))
}

fn build(criterion: &mut Criterion) {
    let terrain = random_map();
    let walker = TerrainProfile::walker();
    criterion.bench_function("clearance/new/random512", |bench| {
        bench.iter(|| black_box(Clearance::new(&terrain, &walker)));
    });
    for size in SIZES {
        criterion.bench_function(&format!("agent_grid/new/random512/size{size}"), |bench| {
            bench.iter(|| black_box(AgentGrid::new(&terrain, &walker, size).ok()));
        });
    }
}

/// One wall placed and removed again, two edits of one cell and two updates, on the random map
/// (where few anchors fit the larger sizes) and on open ground (where every anchor fits, the
/// worst case).
fn one_cell_edits(criterion: &mut Criterion) {
    let random = random_map();
    let random_cell = open_cell(&random);
    for (name, mut terrain, cell) in [
        ("random512", random, random_cell),
        ("open512", Grid::new(512, 512), Cell::new(256, 256)),
    ] {
        let walker = TerrainProfile::walker();
        let original = terrain.value(cell);
        let mut clearance = Clearance::new(&terrain, &walker);
        criterion.bench_function(&format!("clearance/update/{name}/wall_and_back"), |bench| {
            bench.iter(|| {
                let _ = terrain.set_cost(cell, 0);
                black_box(clearance.update(&terrain, &[cell]).ok());
                let _ = terrain.set_cost(cell, original);
                black_box(clearance.update(&terrain, &[cell]).ok());
            });
        });
        for size in SIZES {
            let Ok(mut agent) = AgentGrid::new(&terrain, &walker, size) else {
                continue;
            };
            let id = format!("agent_grid/update/{name}/wall_and_back/size{size}");
            criterion.bench_function(&id, |bench| {
                bench.iter(|| {
                    let _ = terrain.set_cost(cell, 0);
                    black_box(agent.update(&terrain, &[cell]).ok());
                    let _ = terrain.set_cost(cell, original);
                    black_box(agent.update(&terrain, &[cell]).ok());
                });
            });
        }
    }
}

criterion_group!(benches, build, one_cell_edits);
criterion_main!(benches);
