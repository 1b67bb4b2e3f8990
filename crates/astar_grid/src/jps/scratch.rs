//! The memory a jump point search keeps between queries: a compact list of the nodes it
//! touched, found from a cell through a sparse index, and its open list.

use crate::search::OpenList;

/// One touched jump point: 24 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JumpNode {
    /// Best known cost from the start.
    pub g: f64,
    /// Padded column (`x + 1`).
    pub x: u32,
    /// Padded row (`y + 1`).
    pub y: u32,
    /// Slot of the node this one was reached from; the start is its own parent.
    pub parent: u32,
    /// Whether the node has been expanded at its current cost.
    pub closed: bool,
    /// Whether its best route ends with a link: it is then searched in every direction, as the
    /// start is.
    pub via_link: bool,
}

/// Reusable search memory, reset in time proportional to the previous search's work.
///
/// Jump point search touches few cells, so instead of a node per cell it keeps the touched nodes
/// in a short list (`nodes`), a bit per cell saying whether the cell is in that list
/// (`touched`), and for touched cells their slot in the list (`slots`). The bits are small
/// enough to stay in the processor's cache, so most lookups of untouched cells cost no memory
/// stall; resetting clears just the bits of the listed nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct JumpScratch {
    /// One bit per padded cell: whether this search touched it.
    pub touched: Vec<u64>,
    /// For each touched padded cell, its slot in `nodes` (stale for other cells).
    pub slots: Vec<u32>,
    /// The nodes this search touched, in the order it touched them.
    pub nodes: Vec<JumpNode>,
    /// Open list; entries name slots of `nodes`.
    pub open: OpenList,
    /// Row length of the padded layout of the current (or last) search.
    stride: usize,
}

impl JumpScratch {
    /// Forgets the previous search and prepares for one on a padded layout of `cells` cells.
    /// `stride` is the new layout's row length; the previous search's bits are cleared with the
    /// row length they were set with.
    pub fn reset(&mut self, cells: usize, stride: usize) {
        for node in &self.nodes {
            let cell = node.y as usize * self.stride + node.x as usize;
            if let Some(word) = self.touched.get_mut(cell / 64) {
                *word &= !(1 << (cell % 64));
            }
        }
        if self.slots.len() < cells {
            self.slots.resize(cells, 0);
            self.touched.resize(cells.div_ceil(64), 0);
        }
        self.stride = stride;
        self.nodes.clear();
        self.open.clear();
    }

    /// The slot of `cell`'s node, if this search touched it.
    #[inline]
    pub fn slot_of(&self, cell: usize) -> Option<usize> {
        (self.touched[cell / 64] >> (cell % 64) & 1 != 0).then(|| self.slots[cell] as usize)
    }

    /// Adds a node for the untouched cell `(x, y)` (padded), whose padded index is `cell`,
    /// reached at cost `g` from the node in slot `parent` (by a link when `via_link`), and
    /// returns its slot.
    #[inline]
    pub fn add(
        &mut self,
        (x, y, cell): (usize, usize, usize),
        g: f64,
        (parent, via_link): (usize, bool),
    ) -> usize {
        let slot = self.nodes.len();
        self.nodes.push(JumpNode {
            g,
            x: x as u32,
            y: y as u32,
            parent: parent as u32,
            closed: false,
            via_link,
        });
        self.touched[cell / 64] |= 1 << (cell % 64);
        self.slots[cell] = slot as u32;
        slot
    }

    /// Bytes of per-cell and per-node memory held (the open list not included).
    pub fn memory_bytes(&self) -> usize {
        self.touched.capacity() * size_of::<u64>()
            + self.slots.capacity() * size_of::<u32>()
            + self.nodes.capacity() * size_of::<JumpNode>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jump_node_is_twenty_four_bytes() {
        assert_eq!(size_of::<JumpNode>(), 24);
    }

    #[test]
    fn reset_forgets_exactly_the_touched_cells() {
        let mut scratch = JumpScratch::default();
        scratch.reset(200, 10);
        assert_eq!(scratch.add((7, 0, 7), 1.0, (0, false)), 0);
        assert_eq!(scratch.add((0, 13, 130), 2.0, (0, false)), 1);
        assert_eq!(scratch.slot_of(130), Some(1));
        assert_eq!(scratch.slot_of(8), None);
        scratch.reset(300, 20);
        assert!(scratch.touched.iter().all(|&word| word == 0));
        assert_eq!(scratch.slot_of(7), None);
    }
}
