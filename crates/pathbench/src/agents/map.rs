//! The `pathbench agents` map and its towers: a seeded tower-defense field (spawns on the left
//! edge, the goal on the right, walls with gaps across the field, scattered rocks), the goals
//! the agents walk to, the cells they start from, and the cells the towers go on.

use crate::random::SeededRandom;
use astar_grid::{Cell, Components, Grid, Movement, SearchOptions, Searcher};

/// Smallest side the layout fits in.
pub const MIN_SIZE: u32 = 64;
/// Largest side accepted.
pub const MAX_SIZE: u32 = 4_096;
/// Number of spawns.
const SPAWNS: u32 = 4;
/// Number of walls across the field.
const WALLS: u32 = 7;
/// Cells kept free of rocks on each side of a wall, so that rocks never close a gap.
const WALL_MARGIN: u32 = 3;
/// Most goals the agents can be spread over.
pub const MAX_GOALS: usize = 4_096;
/// Candidate cells drawn for the goals beyond the first, among which the farthest apart win:
/// at least this many, and four per goal.
const GOAL_CANDIDATES: usize = 1_024;

/// The tower-defense map: a grid, the spawns and the goal.
#[derive(Clone, Debug)]
pub struct TowerMap {
    /// The cells: walkable (cost 1) or blocked.
    pub grid: Grid,
    /// Where agents start a walk, on the left edge.
    pub spawns: Vec<Cell>,
    /// Where every agent walks to, near the right edge.
    pub goal: Cell,
}

impl TowerMap {
    /// A `size` x `size` map drawn from `seed`: walls two cells thick across the field, each
    /// with two to four gaps three to six cells wide; rocks of 2x2 to 5x5 cells between the
    /// walls; four spawns spread down the left edge and the goal in the middle of the right edge.
    ///
    /// # Errors
    /// When `size` is outside [`MIN_SIZE`]..=[`MAX_SIZE`].
    pub fn generate(size: u32, seed: u64) -> Result<Self, String> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(format!(
                "--size must be between {MIN_SIZE} and {MAX_SIZE}, not {size}"
            ));
        }
        let mut random = SeededRandom::new(seed);
        let mut grid = Grid::try_new(size, size).map_err(|error| error.to_string())?;
        let spacing = size / (WALLS + 1);
        let walls: Vec<u32> = (1..=WALLS).map(|wall| wall * spacing).collect();
        for &x in &walls {
            grid.fill_rect(Cell::new(x, 0), Cell::new(x + 1, size - 1), 0);
            for _ in 0..random.between(2, 4) {
                let width = random.between(3, 6);
                let y = random.between(1, size - 2 - width);
                grid.fill_rect(Cell::new(x, y), Cell::new(x + 1, y + width - 1), 1);
            }
        }
        let near_wall = |x: u32, width: u32| {
            walls
                .iter()
                .any(|&wall| x <= wall + 1 + WALL_MARGIN && wall <= x + width - 1 + WALL_MARGIN)
        };
        let rocks = size * size / 1_024;
        let mut placed = 0;
        for _ in 0..rocks * 20 {
            if placed == rocks {
                break;
            }
            let (width, height) = (random.between(2, 5), random.between(2, 5));
            let x = random.between(WALL_MARGIN + 2, size - 8 - width);
            let y = random.between(1, size - 2 - height);
            if near_wall(x, width) {
                continue;
            }
            grid.fill_rect(Cell::new(x, y), Cell::new(x + width - 1, y + height - 1), 0);
            placed += 1;
        }
        let jitter = size / 32;
        let spawns = (0..SPAWNS)
            .map(|spawn| {
                let middle = size * (2 * spawn + 1) / (2 * SPAWNS);
                Cell::new(1, middle - jitter + random.between(0, 2 * jitter))
            })
            .collect();
        let map = Self {
            grid,
            spawns,
            goal: Cell::new(size - 3, size / 2),
        };
        let components = Components::new(&map.grid, Movement::EIGHT);
        if map
            .spawns
            .iter()
            .any(|&spawn| !components.same_component(spawn, map.goal))
        {
            return Err(format!(
                "seed {seed}: a spawn of the {size}x{size} map cannot reach the goal"
            ));
        }
        Ok(map)
    }

    /// The side of the map.
    pub fn size(&self) -> u32 {
        self.grid.width()
    }

    /// `count` cells for the agents' first walks, drawn from `seed` among the walkable cells
    /// that reach the goal (`goals` excluded); cells repeat when there are more agents than
    /// cells.
    pub fn first_cells(&self, count: usize, seed: u64, goals: &[Cell]) -> Vec<Cell> {
        let components = Components::new(&self.grid, Movement::EIGHT);
        let open: Vec<Cell> = self
            .grid
            .cells()
            .filter(|&(cell, value)| {
                value != 0 && !goals.contains(&cell) && components.same_component(cell, self.goal)
            })
            .map(|(cell, _)| cell)
            .collect();
        let mut random = SeededRandom::new(seed ^ 0xA6E7_5F1E);
        (0..count)
            .map(|_| open[random.below(open.len() as u64) as usize])
            .collect()
    }

    /// `count` distinct goals for the agents: the map's goal first, then walkable cells of the
    /// right half of the map that reach it (away from the spawns on the left edge, so that every
    /// walk crosses the middle of the field), each the farthest in a straight line from the
    /// goals chosen before it among [`GOAL_CANDIDATES`] cells drawn from `seed`.
    ///
    /// # Errors
    /// When `count` is outside 1..=[`MAX_GOALS`], or the map has fewer cells than that to
    /// choose from.
    pub fn place_goals(&self, count: usize, seed: u64) -> Result<Vec<Cell>, String> {
        if !(1..=MAX_GOALS).contains(&count) {
            return Err(format!(
                "--goals must be between 1 and {MAX_GOALS}, not {count}"
            ));
        }
        let mut goals = vec![self.goal];
        if count == 1 {
            return Ok(goals);
        }
        let mut candidates = self.goal_candidates(seed, GOAL_CANDIDATES.max(4 * count));
        // Each candidate's squared distance to the nearest goal chosen so far.
        let mut spread: Vec<u64> = candidates
            .iter()
            .map(|&cell| squared_distance(cell, self.goal))
            .collect();
        while goals.len() < count {
            let Some((place, _)) = spread.iter().enumerate().max_by_key(|&(_, &far)| far) else {
                return Err(format!(
                    "the {size}x{size} map has room for {} goals, not {count}",
                    goals.len(),
                    size = self.size()
                ));
            };
            let goal = candidates.swap_remove(place);
            spread.swap_remove(place);
            for (cell, far) in candidates.iter().zip(&mut spread) {
                *far = (*far).min(squared_distance(*cell, goal));
            }
            goals.push(goal);
        }
        Ok(goals)
    }

    /// Up to `most` distinct cells drawn from `seed` among the walkable cells of
    /// the right half of the map that reach the goal (the goal and the spawns excluded).
    fn goal_candidates(&self, seed: u64, most: usize) -> Vec<Cell> {
        let components = Components::new(&self.grid, Movement::EIGHT);
        let half = self.size() / 2;
        let mut open: Vec<Cell> = self
            .grid
            .cells()
            .filter(|&(cell, value)| {
                value != 0
                    && cell.x >= half
                    && cell != self.goal
                    && !self.spawns.contains(&cell)
                    && components.same_component(cell, self.goal)
            })
            .map(|(cell, _)| cell)
            .collect();
        let drawn = most.min(open.len());
        let mut random = SeededRandom::new(seed ^ 0x60A1_5EED);
        for index in 0..drawn {
            let pick = index + random.below((open.len() - index) as u64) as usize;
            open.swap(index, pick);
        }
        open.truncate(drawn);
        open
    }

    /// `count` tower cells, placed one after the other. Each lies on the shortest path (eight
    /// neighbours, no corner cutting, octile costs) from a spawn drawn from `seed` to a goal
    /// drawn from `goals` (the map's goal when `goals` is empty; with one goal none is drawn)
    /// on the map with the earlier towers, at a drawn point of its middle four fifths or the
    /// next cell of it that qualifies: preferably a cell that every route of `peers` from the
    /// same spawn to the same goal also crosses (so that each library's agents walk over it),
    /// and always one whose blocking leaves every cell that reaches the goal still reaching it
    /// ([`Components::check_blocking`]). Spawns and goals never get a tower.
    ///
    /// # Errors
    /// When no cell of a spawn's path can take a tower without cutting a cell off.
    pub fn plan_towers(
        &self,
        count: usize,
        seed: u64,
        goals: &[Cell],
        peers: &mut [&mut dyn Routes],
    ) -> Result<TowerPlan, String> {
        let goals = if goals.is_empty() {
            core::slice::from_ref(&self.goal)
        } else {
            goals
        };
        let mut grid = self.grid.clone();
        let mut components = Components::new(&grid, Movement::EIGHT);
        let mut reaching: Vec<Cell> = grid
            .cells()
            .filter(|&(cell, value)| {
                value != 0 && cell != self.goal && components.same_component(cell, self.goal)
            })
            .map(|(cell, _)| cell)
            .collect();
        let mut searcher = Searcher::new();
        let options = SearchOptions::default();
        let mut random = SeededRandom::new(seed ^ 0x70E3_5EED);
        let mut plan = TowerPlan::default();
        for placement in 0..count {
            let spawn = self.spawns[random.below(self.spawns.len() as u64) as usize];
            let goal = match goals {
                [only] => *only,
                _ => goals[random.below(goals.len() as u64) as usize],
            };
            let path = searcher
                .find_path(&grid, spawn, goal, &options)
                .map_err(|error| format!("tower {placement}: {error}"))?
                .path
                .ok_or_else(|| format!("tower {placement}: the spawn {spawn} is cut off"))?
                .cells;
            let peer_routes: Vec<Vec<Cell>> = peers
                .iter_mut()
                .map(|peer| peer.route(spawn, goal).unwrap_or_default())
                .collect();
            let middle = path.len() / 10..path.len() - path.len() / 10;
            let first = random.below(middle.len().max(1) as u64) as usize;
            let candidates: Vec<Cell> = (0..middle.len())
                .map(|offset| path[middle.start + (first + offset) % middle.len()])
                .filter(|&cell| !self.spawns.contains(&cell) && !goals.contains(&cell))
                .collect();
            let on_every_route = |cell: &Cell| peer_routes.iter().all(|route| route.contains(cell));
            let (shared, alone): (Vec<Cell>, Vec<Cell>) =
                candidates.into_iter().partition(on_every_route);
            let mut tower = None;
            for cell in shared.iter().chain(&alone).copied() {
                let others: Vec<Cell> = reaching
                    .iter()
                    .copied()
                    .filter(|&other| other != cell)
                    .collect();
                let check = components
                    .check_blocking(&[cell], &others, self.goal)
                    .map_err(|error| error.to_string())?;
                if !check.disconnects() {
                    tower = Some(cell);
                    break;
                }
            }
            let tower = tower.ok_or_else(|| {
                format!("tower {placement}: every cell of the path from {spawn} cuts a cell off")
            })?;
            components
                .set_blocked(&mut grid, tower, true)
                .map_err(|error| error.to_string())?;
            for peer in peers.iter_mut() {
                peer.block(tower);
            }
            reaching.retain(|&cell| cell != tower);
            plan.shared += usize::from(on_every_route(&tower));
            plan.cells.push(tower);
        }
        Ok(plan)
    }
}

/// The goal of each of `count` agents, drawn from `seed` among `goals` (empty when `goals`
/// is).
pub fn agent_goals(count: usize, goals: &[Cell], seed: u64) -> Vec<Cell> {
    if goals.is_empty() {
        return Vec::new();
    }
    let mut random = SeededRandom::new(seed ^ 0x90A1_0F0A);
    (0..count)
        .map(|_| goals[random.below(goals.len() as u64) as usize])
        .collect()
}

/// The squared straight-line distance between two cells.
fn squared_distance(a: Cell, b: Cell) -> u64 {
    let dx = u64::from(a.x.abs_diff(b.x));
    let dy = u64::from(a.y.abs_diff(b.y));
    dx * dx + dy * dy
}

/// Another library's routes, so that towers go where its agents walk too.
pub trait Routes {
    /// The cells of its path from `from` to `to` on the map with the towers so far (both ends
    /// included), or `None` when it finds none.
    fn route(&mut self, from: Cell, to: Cell) -> Option<Vec<Cell>>;
    /// Blocks `cell`: a tower went down there.
    fn block(&mut self, cell: Cell);
}

/// The tower cells, in placement order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TowerPlan {
    /// The cells.
    pub cells: Vec<Cell>,
    /// How many lie on the routes of every library (the others lie on this project's only).
    pub shared: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use astar_grid::SearchStatus;

    fn reaches(grid: &Grid, from: Cell, to: Cell) -> bool {
        let result = Searcher::new()
            .find_path(grid, from, to, &SearchOptions::default().dijkstra())
            .unwrap();
        result.status == SearchStatus::Found
    }

    #[test]
    fn the_map_is_reproducible_and_every_spawn_reaches_the_goal() {
        let map = TowerMap::generate(96, 7).unwrap();
        let again = TowerMap::generate(96, 7).unwrap();
        assert_eq!(map.grid, again.grid);
        assert_eq!(map.spawns, again.spawns);
        assert_ne!(TowerMap::generate(96, 8).unwrap().grid, map.grid);
        assert!(map.grid.walkable_count() < 96 * 96);
        for &spawn in &map.spawns {
            assert!(reaches(&map.grid, spawn, map.goal), "{spawn}");
        }
        assert!(TowerMap::generate(MIN_SIZE - 1, 7).is_err());
    }

    #[test]
    fn towers_lie_on_spawn_paths_and_never_cut_a_cell_off() {
        let map = TowerMap::generate(64, 3).unwrap();
        let plan = map.plan_towers(25, 3, &[map.goal], &mut []).unwrap();
        assert_eq!(plan, map.plan_towers(25, 3, &[], &mut []).unwrap());
        assert_eq!(plan.shared, 25);
        let towers = plan.cells;
        let mut grid = map.grid.clone();
        let reaching_before: Vec<Cell> = map
            .grid
            .cells()
            .filter(|&(cell, value)| value != 0 && reaches(&map.grid, cell, map.goal))
            .map(|(cell, _)| cell)
            .collect();
        for &tower in &towers {
            assert!(grid.is_walkable(tower), "{tower} placed twice or on a wall");
            assert!(!map.spawns.contains(&tower) && tower != map.goal);
            // On some spawn's shortest path on the map as it was.
            let on_a_path = map.spawns.iter().any(|&spawn| {
                Searcher::new()
                    .find_path(&grid, spawn, map.goal, &SearchOptions::default())
                    .unwrap()
                    .path
                    .is_some_and(|path| path.cells.contains(&tower))
            });
            assert!(on_a_path, "{tower}");
            grid.set_blocked(tower, true).unwrap();
        }
        // Plain searches as the oracle: everything that reached the goal still does.
        for cell in reaching_before {
            if grid.is_walkable(cell) {
                assert!(reaches(&grid, cell, map.goal), "{cell} cut off");
            }
        }
    }

    #[test]
    fn first_cells_are_walkable_and_reach_the_goal() {
        let map = TowerMap::generate(64, 5).unwrap();
        let cells = map.first_cells(300, 5, &[map.goal]);
        assert_eq!(cells.len(), 300);
        assert_eq!(cells, map.first_cells(300, 5, &[map.goal]));
        for &cell in &cells {
            assert!(
                cell != map.goal && reaches(&map.grid, cell, map.goal),
                "{cell}"
            );
        }
    }

    #[test]
    fn goals_are_distinct_reachable_far_apart_and_drawn_from_the_seed() {
        let map = TowerMap::generate(96, 4).unwrap();
        assert_eq!(map.place_goals(1, 4).unwrap(), [map.goal]);
        let goals = map.place_goals(6, 4).unwrap();
        assert_eq!(goals.len(), 6);
        assert_eq!(goals[0], map.goal);
        assert_eq!(goals, map.place_goals(6, 4).unwrap());
        assert_ne!(goals, map.place_goals(6, 5).unwrap());
        for (index, &goal) in goals.iter().enumerate() {
            assert!(!goals[..index].contains(&goal), "{goal} twice");
            assert!(!map.spawns.contains(&goal), "{goal} is a spawn");
            assert!(goal.x >= 48, "{goal} left of the middle");
            for &spawn in &map.spawns {
                assert!(reaches(&map.grid, spawn, goal), "{spawn} to {goal}");
            }
        }
        assert!(map.place_goals(0, 4).is_err());
        assert!(map.place_goals(MAX_GOALS + 1, 4).is_err());
    }

    #[test]
    fn goals_lie_farther_apart_than_goals_drawn_at_random() {
        let closest_pair = |cells: &[Cell]| {
            let pairs = cells
                .iter()
                .enumerate()
                .flat_map(|(index, &a)| cells[index + 1..].iter().map(move |&b| (a, b)));
            pairs.map(|(a, b)| squared_distance(a, b)).min().unwrap()
        };
        // On several maps, the closest pair of the placed goals is farther apart than that of
        // the best of 100 draws of as many cells of the same half.
        for seed in 1..=4 {
            let map = TowerMap::generate(96, seed).unwrap();
            let goals = map.place_goals(6, seed).unwrap();
            let open: Vec<Cell> = map
                .grid
                .cells()
                .filter(|&(cell, value)| value != 0 && cell.x >= 48)
                .map(|(cell, _)| cell)
                .collect();
            let mut random = SeededRandom::new(seed + 99);
            let best_drawn = (0..100)
                .map(|_| {
                    let drawn: Vec<Cell> = (0..6)
                        .map(|_| open[random.below(open.len() as u64) as usize])
                        .collect();
                    closest_pair(&drawn)
                })
                .max()
                .unwrap();
            let placed = closest_pair(&goals);
            assert!(placed > best_drawn, "seed {seed}: {placed} <= {best_drawn}");
        }
    }

    #[test]
    fn agents_are_spread_over_every_goal_and_start_off_them() {
        let map = TowerMap::generate(64, 2).unwrap();
        let goals = map.place_goals(3, 2).unwrap();
        let assigned = agent_goals(300, &goals, 2);
        assert_eq!(assigned, agent_goals(300, &goals, 2));
        for &goal in &goals {
            let count = assigned.iter().filter(|&&cell| cell == goal).count();
            assert!((50..=150).contains(&count), "{goal}: {count} agents");
        }
        assert!(assigned.iter().all(|goal| goals.contains(goal)));
        // More agents than cells: every cell is drawn, none of the goals.
        let cells = map.first_cells(20_000, 2, &goals);
        assert!(cells.iter().all(|cell| !goals.contains(cell)));
        let plan = map.plan_towers(12, 2, &goals, &mut []).unwrap();
        assert!(plan.cells.iter().all(|tower| !goals.contains(tower)));
        assert_ne!(plan, map.plan_towers(12, 2, &[map.goal], &mut []).unwrap());
    }

    /// Routes by four-neighbour A*: they often leave the eight-neighbour path.
    struct FourNeighbourRoutes(Grid);

    impl Routes for FourNeighbourRoutes {
        fn route(&mut self, from: Cell, to: Cell) -> Option<Vec<Cell>> {
            let options = SearchOptions::default().with_movement(Movement::FOUR);
            Searcher::new()
                .find_path(&self.0, from, to, &options)
                .unwrap()
                .path
                .map(|path| path.cells)
        }

        fn block(&mut self, cell: Cell) {
            self.0.set_blocked(cell, true).unwrap();
        }
    }

    #[test]
    fn towers_prefer_cells_on_every_route() {
        let map = TowerMap::generate(64, 11).unwrap();
        let mut peer = FourNeighbourRoutes(map.grid.clone());
        let plan = map.plan_towers(20, 11, &[], &mut [&mut peer]).unwrap();
        assert_eq!(peer.0.walkable_count(), map.grid.walkable_count() - 20);
        // Replay the placements: a tower off the peer's routes is counted as not shared.
        let mut grid = map.grid.clone();
        let mut replay = FourNeighbourRoutes(map.grid.clone());
        let mut shared = 0;
        for &tower in &plan.cells {
            let on_peer = map
                .spawns
                .iter()
                .any(|&spawn| replay.route(spawn, map.goal).unwrap().contains(&tower));
            shared += usize::from(on_peer);
            grid.set_blocked(tower, true).unwrap();
            replay.block(tower);
        }
        assert!(plan.shared > 0);
        assert!(shared >= plan.shared, "{shared} < {}", plan.shared);
    }
}
