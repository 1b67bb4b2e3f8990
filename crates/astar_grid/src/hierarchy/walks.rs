//! The walks a [`SectorFlowField`](super::SectorFlowField) has given, kept by the nodes they
//! left sectors from ([`KeptWalks`]), so that a later walk reaching one of those nodes takes the
//! rest of the earlier walk instead of stepping it again.

use crate::Cell;
use std::collections::HashMap;

/// The walks a field has given, as segments: each holds one walk's cells from the first node it
/// left a sector from up to and including the node where it joined an earlier walk (to the
/// goal when it joined none), and where in the earlier segments the rest lies. Each node a walk
/// left a sector from is marked with its place and the cost left from there to the goal.
///
/// A field's walk from a node is always the same (its measured sectors and settled nodes never
/// change), so the rest of an earlier walk is the rest the later walk would step.
#[derive(Clone, Debug, Default)]
pub(super) struct KeptWalks {
    segments: Vec<Segment>,
    at_node: HashMap<u32, Mark>,
    /// Cells held by every segment together.
    cells: usize,
}

/// One walk's own cells, and the place of the cell after its last one, in an earlier segment.
#[derive(Clone, Debug)]
struct Segment {
    cells: Box<[Cell]>,
    then: Option<Place>,
}

/// A cell of a segment: the segment's number, and the cell's index in it (its length, past
/// the last cell, where the segment goes on at once to its `then`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    segment: u32,
    index: u32,
}

/// Where a node's cell lies in the segments, and the cost of the walk from it to the goal.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mark {
    place: Place,
    cost_left: f64,
}

impl Mark {
    /// The cost of the kept walk from the node to the goal.
    pub(super) const fn cost_left(&self) -> f64 {
        self.cost_left
    }

    /// The place of the cell after the node's, where the rest of the kept walk begins.
    const fn rest(&self) -> Place {
        Place {
            segment: self.place.segment,
            index: self.place.index + 1,
        }
    }
}

/// A node a walk left a sector from: its number, the index of its cell in the walk, and the
/// walk's cost up to it.
pub(super) type Passed = (u32, usize, f64);

impl KeptWalks {
    /// The mark of `node`, if a kept walk left a sector from it.
    pub(super) fn mark(&self, node: u32) -> Option<Mark> {
        self.at_node.get(&node).copied()
    }

    /// Appends to `cells` the cells of the kept walk after the node of `mark`, to the goal.
    pub(super) fn append_rest(&self, mark: Mark, cells: &mut Vec<Cell>) {
        let mut place = Some(mark.rest());
        while let Some(Place { segment, index }) = place {
            let Some(segment) = self.segments.get(segment as usize) else {
                return;
            };
            cells.extend(segment.cells.iter().skip(index as usize));
            place = segment.then;
        }
    }

    /// Keeps the walk `cells` (of cost `total`) that `passed` the nodes listed, and `joined`
    /// a kept walk at the node of the mark given, at the index of its cell in `cells`; its
    /// nodes are marked up to that one. Only the cells from its first node on are kept (a later
    /// walk joins at a node); a walk that passed no node of its own is not kept. Keeps nothing
    /// once the segments would hold more than `most_cells`.
    pub(super) fn keep(
        &mut self,
        cells: &[Cell],
        (passed, total): (&[Passed], f64),
        joined: Option<(usize, Mark)>,
        most_cells: usize,
    ) {
        let own = joined.map_or(cells.len(), |(index, _)| index + 1);
        // The nodes come in the order the walk passed them.
        let marked = passed.iter().take_while(|passed| passed.1 < own);
        let Some(&(_, first, _)) = marked.clone().next() else {
            return;
        };
        let kept = own.saturating_sub(first);
        let (Ok(segment), Ok(_)) = (u32::try_from(self.segments.len()), u32::try_from(own)) else {
            return;
        };
        if own > cells.len() || self.cells.saturating_add(kept) > most_cells {
            return;
        }
        for &(node, index, before) in marked {
            // Below `own`, which fits in a `u32`.
            let index = (index - first) as u32;
            self.at_node.entry(node).or_insert(Mark {
                place: Place { segment, index },
                cost_left: total - before,
            });
        }
        self.segments.push(Segment {
            cells: cells[first..own].into(),
            then: joined.map(|(_, mark)| mark.rest()),
        });
        self.cells += kept;
    }

    /// The walks kept, and the cells they hold.
    #[cfg(test)]
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.segments.len(), self.cells)
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.cells * size_of::<Cell>()
            + self.segments.capacity() * size_of::<Segment>()
            + self.at_node.capacity() * (size_of::<u32>() + size_of::<Mark>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(xs: core::ops::Range<u32>) -> Vec<Cell> {
        xs.map(|x| Cell::new(x, 0)).collect()
    }

    #[test]
    fn a_walk_that_joins_a_kept_one_at_a_node_takes_the_rest_of_it_through_every_segment() {
        let mut walks = KeptWalks::default();
        // The first walk, 0..10 along row 0, leaves sectors from nodes 7 (at x 3) and 9 (at
        // x 6), each step costing 1: its cells from x 3 on are kept.
        let first = cells(0..10);
        walks.keep(&first, (&[(7, 3, 3.0), (9, 6, 6.0)], 9.0), None, 100);
        assert_eq!(walks.cells, 7);
        let at_seven = walks.mark(7).expect("marked");
        assert_eq!(at_seven.cost_left(), 6.0);
        assert_eq!(walks.mark(9).expect("marked").cost_left(), 3.0);
        assert!(walks.mark(8).is_none());
        // A second walk leaves its sector from node 4 at (3, 2), reaches x 3 from below and
        // joins there: it keeps its own cells from node 4 to the join.
        let mut second = vec![
            Cell::new(3, 3),
            Cell::new(3, 2),
            Cell::new(3, 1),
            Cell::new(3, 0),
        ];
        walks.append_rest(at_seven, &mut second);
        assert_eq!(&second[4..], &first[4..]);
        walks.keep(&second, (&[(4, 1, 1.0)], 9.0), Some((3, at_seven)), 100);
        assert_eq!(walks.cells, 10);
        // A third walk joins the second at its node 4 and runs on through the first, at the
        // cost the second had left from there.
        let at_four = walks.mark(4).expect("marked");
        assert_eq!(at_four.cost_left(), 8.0);
        let mut third = vec![Cell::new(2, 2), Cell::new(3, 2)];
        walks.append_rest(at_four, &mut third);
        let mut expected = vec![
            Cell::new(2, 2),
            Cell::new(3, 2),
            Cell::new(3, 1),
            Cell::new(3, 0),
        ];
        expected.extend(&first[4..]);
        assert_eq!(third, expected);
        // A fourth walk leaves from node 5 at (4, 3) and joins the second at node 4: a walk
        // reaching node 5 runs on through all three segments.
        let fourth = [Cell::new(4, 3), Cell::new(3, 2)];
        walks.keep(&fourth, (&[(5, 0, 0.0)], 9.5), Some((1, at_four)), 100);
        let mut fifth = vec![Cell::new(4, 3)];
        walks.append_rest(walks.mark(5).expect("marked"), &mut fifth);
        assert_eq!(&fifth[1..], &expected[1..]);
        // A walk that passed no node of its own keeps nothing; past the limit, nothing more.
        walks.keep(&cells(20..22), (&[], 1.0), None, 100);
        walks.keep(&cells(30..40), (&[(12, 0, 0.0)], 9.0), None, 20);
        assert!(walks.mark(12).is_none());
        assert_eq!(walks.cells, 12);
    }
}
