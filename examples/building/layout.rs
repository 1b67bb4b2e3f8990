//! The building: two floors of rooms stacked in one grid by a `FloorPlan`, and the links that
//! join them (a door, a narrow passage, stairs, a one-way drop and a pair of teleporters).

use bevy::prelude::*;
use bevy_astar::prelude::*;
use core::error::Error;

/// World size of one cell.
pub const CELL: f32 = 36.0;

/// The ground floor, first row on top. The west hall (where the agents start) and the east
/// room are joined only by the door (`11, 3` to `11, 4`, a wall cell pair the door link
/// crosses) and the narrow passage (`11, 12`); the stairs up stand in the east room.
const GROUND_FLOOR: &str = "
    ########################
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...####....#
    #..........#...####....#
    #...#..#...#...####....#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    ########################";

/// The upper floor, first row on top: the stairs arrive in the east wing, which no walk joins
/// to the west wing; the teleporters do. The ledge of the drop down to the west hall lies in
/// the west wing.
const UPPER_FLOOR: &str = "
    ########################
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #...####...#...###.....#
    #..........#...###.....#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    ########################";

/// The ground floor's wall cells the door fills (it is two cells high, wide enough for the
/// boss).
pub const DOOR_CELLS: [FloorCell; 2] = [FloorCell::new(0, 11, 3), FloorCell::new(0, 11, 4)];

/// The ground floor's wall cell the narrow passage runs through.
pub const NARROW_CELL: FloorCell = FloorCell::new(0, 11, 12);

/// What a link is in the building.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// The door between the west hall and the east room; `D` opens and closes it.
    Door,
    /// A gap one cell wide in the same wall: too narrow for the boss.
    NarrowPassage,
    /// Stairs between the floors, both ways.
    Stairs,
    /// A drop from a ledge of the upper floor to the west hall: one way, down.
    Drop,
    /// Two pads of the upper floor that send an agent from one to the other, both ways.
    Teleporter,
}

impl LinkKind {
    /// The name shown in the legend and the status lines.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Door => "door",
            Self::NarrowPassage => "narrow passage",
            Self::Stairs => "stairs",
            Self::Drop => "drop",
            Self::Teleporter => "teleporter",
        }
    }

    /// What an agent crossing the link is doing.
    pub const fn crossing_verb(self) -> &'static str {
        match self {
            Self::Door => "going through the door",
            Self::NarrowPassage => "squeezing through",
            Self::Stairs => "on the stairs",
            Self::Drop => "dropping down",
            Self::Teleporter => "teleporting",
        }
    }

    /// The colour of its marks on the floor and in the legend.
    pub fn color(self) -> Color {
        match self {
            Self::Door => Color::srgb(0.72, 0.45, 0.2),
            Self::NarrowPassage => Color::srgb(1.0, 0.6, 0.2),
            Self::Stairs => Color::srgb(0.62, 0.45, 0.95),
            Self::Drop => Color::srgb(0.95, 0.85, 0.25),
            Self::Teleporter => Color::srgb(0.95, 0.3, 0.85),
        }
    }

    /// The link between `from` and `to` (footprint anchors: top-left cells), with this kind's
    /// cost (in straight steps), direction and width.
    fn link(self, from: Cell, to: Cell) -> Link {
        match self {
            // Three cells from the west anchor, over the wall, to the east one.
            Self::Door => Link::new(from, to, 3.0),
            Self::NarrowPassage => Link::new(from, to, 2.0).with_max_size(1),
            Self::Stairs => Link::new(from, to, 4.0),
            Self::Drop => Link::new(from, to, 1.0).one_way(),
            Self::Teleporter => Link::new(from, to, 0.5),
        }
    }
}

/// The building's links: kind, one end and the other (the end a one-way link leaves from
/// first). Each end is a footprint anchor where the boss (2x2) fits, but for the narrow passage.
const LINKS: [(LinkKind, FloorCell, FloorCell); 5] = [
    (
        LinkKind::Door,
        FloorCell::new(0, 9, 3),
        FloorCell::new(0, 12, 3),
    ),
    (
        LinkKind::NarrowPassage,
        FloorCell::new(0, 10, 12),
        FloorCell::new(0, 12, 12),
    ),
    (
        LinkKind::Stairs,
        FloorCell::new(0, 19, 11),
        FloorCell::new(1, 19, 1),
    ),
    (
        LinkKind::Drop,
        FloorCell::new(1, 3, 1),
        FloorCell::new(0, 3, 11),
    ),
    (
        LinkKind::Teleporter,
        FloorCell::new(1, 14, 10),
        FloorCell::new(1, 8, 10),
    ),
];

/// The building as the example sees it: the floor plan and what each link of the grid is.
#[derive(Resource, Clone, Debug)]
pub struct Building {
    /// Where each floor lies in the stacked grid.
    pub plan: FloorPlan,
    /// The door `D` opens and closes.
    pub door: LinkId,
    links: Vec<(LinkId, LinkKind)>,
}

impl Building {
    /// The stacked grid of both floors with the links added, placed so that the ground floor is
    /// centred on the world origin with its first row on top; and the building's description.
    ///
    /// # Errors
    /// When a floor's drawing cannot be read, the floors differ in size, or a link cannot be
    /// added (an end off its floor or on a wall).
    pub fn build() -> Result<(Self, NavGrid), Box<dyn Error>> {
        let floors = [
            Grid::from_ascii(GROUND_FLOOR)?,
            Grid::from_ascii(UPPER_FLOOR)?,
        ];
        let (plan, mut grid) = FloorPlan::stack(&floors)?;
        let mut links = Vec::with_capacity(LINKS.len());
        let mut door = None;
        for (kind, from, to) in LINKS {
            let id = grid.add_link(kind.link(plan.cell(from)?, plan.cell(to)?))?;
            if kind == LinkKind::Door {
                door = Some(id);
            }
            links.push((id, kind));
        }
        let door = door.ok_or("the building has no door")?;
        let floor_size = Vec2::new(plan.width() as f32, plan.height() as f32) * CELL;
        let nav = NavGrid::new(grid)
            .with_cell_size(Vec2::new(CELL, -CELL))
            .with_origin(Vec2::new(-floor_size.x, floor_size.y) / 2.0);
        Ok((Self { plan, door, links }, nav))
    }

    /// What link `id` is, if it is one of the building's.
    pub fn kind_of(&self, id: LinkId) -> Option<LinkKind> {
        self.links
            .iter()
            .find(|&&(link, _)| link == id)
            .map(|&(_, kind)| kind)
    }

    /// The floor that cell `cell` of the stacked grid lies on; `None` between floors.
    pub fn floor_of(&self, cell: Cell) -> Option<u32> {
        self.plan.floor_cell(cell).map(|at| at.floor)
    }

    /// The cell of the stacked grid that is `at`, if the building has it.
    pub fn cell(&self, at: FloorCell) -> Option<Cell> {
        self.plan.cell(at).ok()
    }

    /// The world position of the centre of floor `floor`.
    pub fn floor_center(&self, nav: &NavGrid, floor: u32) -> Vec2 {
        let last = Cell::new(self.plan.width() - 1, self.plan.height() - 1);
        let corners = [Cell::new(0, 0), last].map(|cell| {
            let cell = self.cell(FloorCell { floor, cell }).unwrap_or(cell);
            nav.cell_center(cell)
        });
        (corners[0] + corners[1]) / 2.0
    }

    /// The world size of a floor.
    pub fn floor_size(&self) -> Vec2 {
        Vec2::new(self.plan.width() as f32, self.plan.height() as f32) * CELL
    }

    /// The links of the building with their kinds.
    pub fn links(&self) -> impl Iterator<Item = (LinkId, LinkKind)> + '_ {
        self.links.iter().copied()
    }
}

/// Human names of the floors.
pub const fn floor_name(floor: u32) -> &'static str {
    match floor {
        0 => "ground floor",
        _ => "upper floor",
    }
}
