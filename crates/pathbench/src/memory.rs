//! Memory per map cell of the grid and of the search contexts, measured after a search on the
//! map, for the suite's summary.

use astar_grid::{Grid, JpsOptions, JumpGrid, Scenario, SearchOptions, Searcher};

/// Bytes per map cell (width times height) of what searching one map holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MemoryPerCell {
    /// The [`Grid`].
    pub grid: f64,
    /// A [`Searcher`]'s A* memory (per-cell nodes and open list) after the map's last query.
    pub astar: f64,
    /// A [`Searcher`]'s jump point search memory after the map's last query, when the map
    /// allows jump point search.
    pub jps: Option<f64>,
    /// The [`JumpGrid`] jump point search reads, when the map allows it.
    pub jump_grid: Option<f64>,
}

impl MemoryPerCell {
    /// Measures `grid` with fresh searchers that ran the last query of `scenario` (the longest
    /// in a Moving AI scenario file) with the default options.
    pub fn measure(grid: &Grid, scenario: &Scenario) -> Result<Self, String> {
        let cells = grid.len().max(1) as f64;
        let per_cell = |bytes: usize| bytes as f64 / cells;
        let last = scenario.queries.last();
        let mut astar = Searcher::new();
        if let Some(query) = last {
            astar
                .find_path(grid, query.start, query.goal, &SearchOptions::default())
                .map_err(|error| format!("A* {} -> {}: {error}", query.start, query.goal))?;
        }
        let (jps, jump_grid) = match JumpGrid::new(grid) {
            Ok(jump_grid) => {
                let mut searcher = Searcher::new();
                if let Some(query) = last {
                    searcher
                        .find_path_jps(&jump_grid, query.start, query.goal, &JpsOptions::default())
                        .map_err(|error| {
                            format!("JPS {} -> {}: {error}", query.start, query.goal)
                        })?;
                }
                (
                    Some(per_cell(searcher.jps_memory_bytes())),
                    Some(per_cell(jump_grid.memory_bytes())),
                )
            }
            // Terrain costs: jump point search does not apply.
            Err(_) => (None, None),
        };
        Ok(Self {
            grid: per_cell(grid.memory_bytes()),
            astar: per_cell(astar.astar_memory_bytes()),
            jps,
            jump_grid,
        })
    }

    /// One line for the suite's output: the figures of the largest map (`name`, with `cells`
    /// cells), where fixed costs weigh least, and the largest A* figure over all maps with the
    /// map it comes from.
    pub fn summary_line(&self, name: &str, largest_astar: (f64, &str)) -> String {
        let optional =
            |value: Option<f64>| value.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
        format!(
            "memory per cell on the largest map ({name}): grid {:.3} B, A* context {:.2} B, \
             JPS context {} B (jump grid {} B); most A* context per cell: {:.2} B ({})",
            self.grid,
            self.astar,
            optional(self.jps),
            optional(self.jump_grid),
            largest_astar.0,
            largest_astar.1
        )
    }

    /// The figures as JSON.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "grid": self.grid,
            "astar_context": self.astar,
            "jps_context": self.jps,
            "jump_grid": self.jump_grid,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::{Cell, ScenarioQuery};

    fn scenario(start: Cell, goal: Cell) -> Scenario {
        Scenario {
            queries: vec![ScenarioQuery {
                bucket: 0,
                map: "test".to_owned(),
                map_width: 64,
                map_height: 64,
                start,
                goal,
                optimal_length: -1.0,
            }],
        }
    }

    #[test]
    fn an_open_map_stays_within_the_issues_budget() {
        let grid = Grid::new(64, 64);
        let memory =
            MemoryPerCell::measure(&grid, &scenario(Cell::new(0, 0), Cell::new(63, 40))).unwrap();
        // One byte per cell plus the border; 12 bytes per cell plus the border and open list.
        assert!(memory.grid > 1.0 && memory.grid < 2.0, "{memory:?}");
        assert!(memory.astar >= 12.0 && memory.astar < 16.0, "{memory:?}");
        assert!(memory.jps.is_some_and(|jps| jps > 0.0), "{memory:?}");
    }

    /// The two smallest maps of the Moving AI set (49x49 and 65x81), shipped with the
    /// repository, measured as the suite measures every map: at most 16 bytes per cell for A*.
    #[test]
    fn the_smallest_benchmark_maps_stay_within_16_bytes_per_cell() {
        let maps = [
            (
                include_str!("../../../assets/maps/dao/arena.map"),
                include_str!("../../../assets/maps/dao/arena.map.scen"),
            ),
            (
                include_str!("../../../assets/maps/dao/den312d.map"),
                include_str!("../../../assets/maps/dao/den312d.map.scen"),
            ),
        ];
        for (map, scenario) in maps {
            let grid = astar_grid::parse_map(map).unwrap();
            let scenario = astar_grid::parse_scenario(scenario).unwrap();
            let memory = MemoryPerCell::measure(&grid, &scenario).unwrap();
            assert!(memory.astar >= 12.0 && memory.astar <= 16.0, "{memory:?}");
        }
    }

    #[test]
    fn terrain_costs_leave_out_the_jump_point_figures() {
        let grid = Grid::from_fn(16, 16, |cell| if cell.x == 3 { 5 } else { 1 });
        let memory =
            MemoryPerCell::measure(&grid, &scenario(Cell::new(0, 0), Cell::new(15, 15))).unwrap();
        assert_eq!((memory.jps, memory.jump_grid), (None, None));
        assert!(
            memory
                .summary_line("m", (memory.astar, "m"))
                .contains("JPS context - B")
        );
    }
}
