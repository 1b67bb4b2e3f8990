//! This project's searches as contenders: `astar_grid`'s A* with its default (Moving AI) options,
//! its jump point search, and its hierarchical search.

use super::{Answer, Contender, timed};
use astar_grid::{
    Cell, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, JpsOptions, JumpGrid,
    SearchOptions, SearchResult, SearchStatus, Searcher,
};

/// `astar_grid` A*: [`Searcher::find_path`] with [`SearchOptions::default`] (eight neighbours, no
/// corner cutting, octile costs and heuristic), one searcher reused for every query.
pub struct OursAstar {
    searcher: Searcher,
    options: SearchOptions,
}

impl OursAstar {
    /// A contender with an empty searcher; [`Contender::prepare`] sizes it for each map.
    pub fn new() -> Self {
        Self {
            searcher: Searcher::new(),
            options: SearchOptions::default(),
        }
    }
}

impl Contender for OursAstar {
    fn name(&self) -> &'static str {
        "ours-astar"
    }

    fn rules(&self) -> &'static str {
        "the benchmark's: 8 neighbours, no corner cutting, octile costs (f64)"
    }

    fn prepare(&mut self, grid: &Grid) -> Result<(), String> {
        self.searcher = Searcher::for_grid(grid);
        Ok(())
    }

    fn query(&mut self, grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let (micros, result) = timed(|| self.searcher.find_path(grid, start, goal, &self.options));
        let result = result.map_err(|error| format!("{}: {error}", self.name()))?;
        Ok(Answer {
            micros,
            cells: found_cells(result),
        })
    }
}

/// `astar_grid` jump point search: [`Searcher::find_path_jps`] on a [`JumpGrid`] built once per
/// map, asking for the full cell-by-cell path (as the other libraries return).
pub struct OursJps {
    searcher: Searcher,
    jump_grid: Option<JumpGrid>,
    options: JpsOptions,
}

impl OursJps {
    /// A contender with no jump grid yet; [`Contender::prepare`] builds one for each map.
    pub fn new() -> Self {
        Self {
            searcher: Searcher::new(),
            jump_grid: None,
            options: JpsOptions::default().with_full_path(true),
        }
    }
}

impl Contender for OursJps {
    fn name(&self) -> &'static str {
        "ours-jps"
    }

    fn rules(&self) -> &'static str {
        "the benchmark's: 8 neighbours, no corner cutting, octile costs (f64)"
    }

    fn prepare(&mut self, grid: &Grid) -> Result<(), String> {
        let jump_grid = JumpGrid::new(grid).map_err(|error| format!("{}: {error}", self.name()))?;
        self.searcher = Searcher::for_grid(grid);
        self.jump_grid = Some(jump_grid);
        Ok(())
    }

    fn query(&mut self, _grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let jump_grid = self
            .jump_grid
            .as_ref()
            .ok_or_else(|| format!("{}: queried before prepare", self.name()))?;
        let (micros, result) = timed(|| {
            self.searcher
                .find_path_jps(jump_grid, start, goal, &self.options)
        });
        let result = result.map_err(|error| format!("{}: {error}", self.name()))?;
        Ok(Answer {
            micros,
            cells: found_cells(result),
        })
    }
}

/// `astar_grid` hierarchical search: [`HierarchySearcher::find_path`] over a [`Hierarchy`] with
/// the default options (64-cell sectors, entrances every 16 cells, 12 landmarks), built once
/// per map.
pub struct OursHier {
    searcher: HierarchySearcher,
    hierarchy: Option<Hierarchy>,
}

impl OursHier {
    /// A contender with no hierarchy yet; [`Contender::prepare`] builds one for each map.
    pub fn new() -> Self {
        Self {
            searcher: HierarchySearcher::new(),
            hierarchy: None,
        }
    }
}

impl Contender for OursHier {
    fn name(&self) -> &'static str {
        "ours-hier"
    }

    fn rules(&self) -> &'static str {
        "the benchmark's: 8 neighbours, no corner cutting, octile costs (f64); near optimal"
    }

    fn prepare(&mut self, grid: &Grid) -> Result<(), String> {
        let hierarchy = Hierarchy::build(grid, HierarchyOptions::default())
            .map_err(|error| format!("{}: {error}", self.name()))?;
        self.hierarchy = Some(hierarchy);
        Ok(())
    }

    fn query(&mut self, grid: &Grid, start: Cell, goal: Cell) -> Result<Answer, String> {
        let hierarchy = self
            .hierarchy
            .as_ref()
            .ok_or_else(|| format!("{}: queried before prepare", self.name()))?;
        let (micros, result) = timed(|| self.searcher.find_path(grid, hierarchy, start, goal));
        let result = result.map_err(|error| format!("{}: {error}", self.name()))?;
        Ok(Answer {
            micros,
            cells: found_cells(result),
        })
    }
}

/// The cells of a found path, or `None` when the search found none.
fn found_cells(result: SearchResult) -> Option<Vec<Cell>> {
    match result.status {
        SearchStatus::Found => result.path.map(|path| path.cells),
        SearchStatus::NoPath | SearchStatus::LimitReached(_) => None,
    }
}
