//! A bit matrix of walkable cells, 64 cells per word, and the block scans that find straight
//! jump points a word at a time.

/// Lines of cells, 64 per word: which are walkable, and where a straight scan along a line must
/// stop.
///
/// The matrix is used twice: once with the grid's rows as lines and once with its columns, so that
/// a vertical scan is a horizontal scan of the transposed copy. Callers keep a blocked border
/// around the grid (the first and last line and bit of every line are blocked), which lets a scan
/// run without bounds tests until it meets a blocked cell.
///
/// Besides the walkable bits, each word keeps the *stop* bits of a scan in either direction: bit
/// `i` of a line is a stop for a scan towards higher bits when the cell is blocked, or when a
/// side line is blocked at `i - 1` and walkable at `i` (the side cell at `i` can then only be
/// reached optimally through `i`, so `i` is a jump point; no corner cutting). A scan is then a
/// search for the first set bit, one word per 64 cells. An edit changes the stop bits of at most
/// nine cells, so keeping them costs O(1) per edit.
///
/// Words are stored word-column by word-column: word `w` of line `l` is block `w * lines + l`.
/// The scans of a diagonal run, one line further each step, read neighbouring blocks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BitMatrix {
    lines: usize,
    words_per_line: usize,
    blocks: Vec<Block>,
    /// Cells that are stops whatever their neighbours (the cells links leave from), by block
    /// as `blocks`; empty when there are none.
    marked: Vec<u64>,
}

/// 64 cells of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Block {
    /// 1 for walkable cells.
    walkable: u64,
    /// Stops of a scan towards higher bits.
    stop_increasing: u64,
    /// Stops of a scan towards lower bits.
    stop_decreasing: u64,
}

impl Block {
    /// 64 blocked cells: every one a stop.
    const BLOCKED: Self = Self {
        walkable: 0,
        stop_increasing: u64::MAX,
        stop_decreasing: u64::MAX,
    };
}

/// Where a straight scan stopped: at a jump point (a walkable cell with a forced neighbour on
/// a side line) or at a blocked cell, with no jump point before it.
///
/// A plain pair rather than an enum, so that telling the two apart costs no branch inside the
/// scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScanStop {
    /// The bit where the scan stopped.
    pub position: usize,
    /// Whether that bit is a jump point (else it is blocked).
    pub jump: bool,
}

impl ScanStop {
    /// A stop at the jump point `position`.
    #[cfg(test)]
    const fn jump(position: usize) -> Self {
        Self {
            position,
            jump: true,
        }
    }

    /// A stop at the blocked bit `position`.
    #[cfg(test)]
    const fn blocked(position: usize) -> Self {
        Self {
            position,
            jump: false,
        }
    }
}

impl BitMatrix {
    /// A matrix of `lines` lines of `bits` bits each, all blocked.
    pub(crate) fn new(lines: usize, bits: usize) -> Self {
        let words_per_line = bits.div_ceil(64);
        Self {
            lines,
            words_per_line,
            blocks: vec![Block::BLOCKED; lines * words_per_line],
            marked: Vec::new(),
        }
    }

    /// A matrix of `lines` lines of `bits` bits each, walkable where `walkable(line, bit)` says.
    /// O(lines * bits).
    pub(crate) fn from_fn(
        lines: usize,
        bits: usize,
        mut walkable: impl FnMut(usize, usize) -> bool,
    ) -> Self {
        let mut matrix = Self::new(lines, bits);
        for line in 0..lines {
            for bit in 0..bits {
                if walkable(line, bit) {
                    matrix.blocks[bit / 64 * lines + line].walkable |= 1 << (bit % 64);
                }
            }
        }
        for word in 0..matrix.words_per_line {
            for line in 0..lines {
                matrix.refresh_word(line, word);
            }
        }
        matrix
    }

    /// Whether the bit at (`line`, `bit`) is set (walkable).
    #[inline]
    pub(crate) fn get(&self, line: usize, bit: usize) -> bool {
        self.blocks[bit / 64 * self.lines + line].walkable >> (bit % 64) & 1 != 0
    }

    /// Sets the bit at (`line`, `bit`) to `walkable` and updates the stops it affects: its own
    /// and those of its neighbours on the lines either side.
    pub(crate) fn set(&mut self, line: usize, bit: usize, walkable: bool) {
        let block = &mut self.blocks[bit / 64 * self.lines + line];
        let mask = 1u64 << (bit % 64);
        if walkable {
            block.walkable |= mask;
        } else {
            block.walkable &= !mask;
        }
        for near_line in line.saturating_sub(1)..(line + 2).min(self.lines) {
            for near_bit in bit.saturating_sub(1)..(bit + 2).min(self.words_per_line * 64) {
                self.refresh_bit(near_line, near_bit);
            }
        }
    }

    /// Makes exactly the cells (`line`, `bit`) of `cells` stops of every scan, walkable or not,
    /// besides the stops the walkable bits make: scans then end at them as at jump points.
    pub(crate) fn set_marks(&mut self, cells: impl IntoIterator<Item = (usize, usize)>) {
        let old = core::mem::take(&mut self.marked);
        let mut marked = vec![0u64; self.blocks.len()];
        let mut any = false;
        for (line, bit) in cells {
            if let Some(word) = marked.get_mut(bit / 64 * self.lines + line) {
                *word |= 1 << (bit % 64);
                any = true;
            }
        }
        if any {
            self.marked = marked;
        }
        for block in 0..self.blocks.len() {
            let was = old.get(block).copied().unwrap_or(0);
            if was != 0 || self.marked_word(block) != 0 {
                self.refresh_word(block % self.lines, block / self.lines);
            }
        }
    }

    /// Whether (`line`, `bit`) is marked by [`BitMatrix::set_marks`].
    #[inline]
    pub(crate) fn is_marked(&self, line: usize, bit: usize) -> bool {
        self.marked_word(bit / 64 * self.lines + line) >> (bit % 64) & 1 != 0
    }

    /// The marks of block `block`.
    fn marked_word(&self, block: usize) -> u64 {
        self.marked.get(block).copied().unwrap_or(0)
    }

    /// Bytes of storage.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.blocks.len() * size_of::<Block>() + self.marked.capacity() * size_of::<u64>()
    }

    /// The walkable bits of word `word` of `line`; 0 (blocked) outside the matrix.
    fn walkable_word(&self, line: Option<usize>, word: Option<usize>) -> u64 {
        match (line, word) {
            (Some(line), Some(word)) if line < self.lines && word < self.words_per_line => {
                self.blocks[word * self.lines + line].walkable
            }
            _ => 0,
        }
    }

    /// Whether (`line`, `bit`) is walkable; not outside the matrix.
    fn walkable_bit(&self, line: Option<usize>, bit: Option<usize>) -> bool {
        bit.is_some_and(|bit| self.walkable_word(line, Some(bit / 64)) >> (bit % 64) & 1 != 0)
    }

    /// Recomputes both stop words of word `word` of `line` from the walkable bits and the marks.
    fn refresh_word(&mut self, line: usize, word: usize) {
        let (before, after) = (line.checked_sub(1), line.checked_add(1));
        let (previous, next) = (word.checked_sub(1), word.checked_add(1));
        let here = self.walkable_word(Some(line), Some(word));
        let mut stop_increasing = !here;
        let mut stop_decreasing = !here;
        for side in [before, after] {
            let side_here = self.walkable_word(side, Some(word));
            // Each bit's lower and higher neighbour, carried across word boundaries.
            let side_lower = side_here << 1 | self.walkable_word(side, previous) >> 63;
            let side_higher = side_here >> 1 | self.walkable_word(side, next) << 63;
            stop_increasing |= side_here & !side_lower;
            stop_decreasing |= side_here & !side_higher;
        }
        let marked = self.marked_word(word * self.lines + line);
        let block = &mut self.blocks[word * self.lines + line];
        block.stop_increasing = stop_increasing | marked;
        block.stop_decreasing = stop_decreasing | marked;
    }

    /// Recomputes the two stop bits of (`line`, `bit`) from the walkable bits and the marks.
    fn refresh_bit(&mut self, line: usize, bit: usize) {
        let (before, after) = (line.checked_sub(1), line.checked_add(1));
        let (lower, higher) = (bit.checked_sub(1), bit.checked_add(1));
        let opens = |side: Option<usize>, behind: Option<usize>| {
            self.walkable_bit(side, Some(bit)) && !self.walkable_bit(side, behind)
        };
        let always = !self.walkable_bit(Some(line), Some(bit)) || self.is_marked(line, bit);
        let stop_increasing = always || opens(before, lower) || opens(after, lower);
        let stop_decreasing = always || opens(before, higher) || opens(after, higher);
        let block = &mut self.blocks[bit / 64 * self.lines + line];
        let shift = bit % 64;
        block.stop_increasing =
            (block.stop_increasing & !(1 << shift)) | u64::from(stop_increasing) << shift;
        block.stop_decreasing =
            (block.stop_decreasing & !(1 << shift)) | u64::from(stop_decreasing) << shift;
    }

    /// Scans `line` towards higher bits, starting after the walkable bit `from`, and returns the
    /// first jump point or the first blocked bit.
    #[inline]
    pub(crate) fn scan_increasing(&self, line: usize, from: usize) -> ScanStop {
        let mut word = from / 64;
        let mut index = word * self.lines + line;
        // Only bits above `from` count; shifting twice keeps the amount below 64.
        let mut mask = (u64::MAX << (from % 64)) << 1;
        loop {
            let Some(block) = self.blocks.get(index) else {
                // Past the end (never reached with a blocked border): stop there.
                return ScanStop {
                    position: word * 64,
                    jump: false,
                };
            };
            let stop = block.stop_increasing & mask;
            if stop != 0 {
                let bit = stop.trailing_zeros() as usize;
                return ScanStop {
                    position: word * 64 + bit,
                    jump: block.walkable >> bit & 1 != 0,
                };
            }
            mask = u64::MAX;
            word += 1;
            index += self.lines;
        }
    }

    /// Scans `line` towards lower bits, starting before the walkable bit `from`; the mirror
    /// image of [`BitMatrix::scan_increasing`].
    #[inline]
    pub(crate) fn scan_decreasing(&self, line: usize, from: usize) -> ScanStop {
        let mut word = from / 64;
        let mut index = word * self.lines + line;
        let mut mask = (1u64 << (from % 64)) - 1;
        loop {
            let Some(block) = self.blocks.get(index) else {
                // Before the start (never reached with a blocked border): stop there.
                return ScanStop {
                    position: 0,
                    jump: false,
                };
            };
            let stop = block.stop_decreasing & mask;
            if stop != 0 {
                let bit = 63 - stop.leading_zeros() as usize;
                return ScanStop {
                    position: word * 64 + bit,
                    jump: block.walkable >> bit & 1 != 0,
                };
            }
            mask = u64::MAX;
            word = word.wrapping_sub(1);
            index = index.wrapping_sub(self.lines);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix from text lines: `.` walkable, anything else blocked.
    fn matrix(lines: &[&str]) -> BitMatrix {
        let bits = lines.iter().map(|line| line.len()).max().unwrap_or(0);
        let mut matrix = BitMatrix::new(lines.len(), bits);
        for (line, text) in lines.iter().enumerate() {
            for (bit, character) in text.chars().enumerate() {
                matrix.set(line, bit, character == '.');
            }
        }
        matrix
    }

    /// The same scan, one cell at a time.
    fn scan_slowly(matrix: &BitMatrix, line: usize, from: usize, step: isize) -> ScanStop {
        let mut bit = from;
        loop {
            let previous = bit;
            bit = bit.wrapping_add_signed(step);
            if !matrix.get(line, bit) {
                return ScanStop::blocked(bit);
            }
            for side in [line - 1, line + 1] {
                if !matrix.get(side, previous) && matrix.get(side, bit) {
                    return ScanStop::jump(bit);
                }
            }
        }
    }

    #[test]
    fn marked_cells_stop_scans_and_keep_stopping_them_through_edits_and_unmarking() {
        let (lines, bits) = (5, 140);
        let walkable = |line: usize, bit: usize| line > 0 && line < 4 && bit > 0 && bit < 139;
        let mut matrix = BitMatrix::from_fn(lines, bits, walkable);
        assert_eq!(matrix.scan_increasing(2, 1), ScanStop::blocked(139));
        matrix.set_marks([(2, 70), (2, 128)]);
        assert_eq!(matrix.scan_increasing(2, 1), ScanStop::jump(70));
        assert_eq!(matrix.scan_decreasing(2, 138), ScanStop::jump(128));
        // An edit beside a mark recomputes its stops and keeps the mark.
        matrix.set(1, 70, false);
        matrix.set(1, 70, true);
        assert_eq!(matrix.scan_increasing(2, 1), ScanStop::jump(70));
        matrix.set_marks([(2, 128)]);
        assert_eq!(matrix.scan_increasing(2, 1), ScanStop::jump(128));
        matrix.set_marks([]);
        assert_eq!(matrix, BitMatrix::from_fn(lines, bits, walkable));
    }

    #[test]
    fn edits_keep_the_stops_equal_to_a_rebuild() {
        let (lines, bits) = (7, 150);
        let mut cells: Vec<Vec<bool>> = (0..lines)
            .map(|line| {
                (0..bits)
                    .map(|bit| (line * 31 + bit * 17) % 7 > 1)
                    .collect()
            })
            .collect();
        let mut edited = BitMatrix::new(lines, bits);
        for (line, row) in cells.iter().enumerate() {
            for (bit, &walkable) in row.iter().enumerate() {
                edited.set(line, bit, walkable);
            }
        }
        assert_eq!(edited, BitMatrix::from_fn(lines, bits, |l, b| cells[l][b]));
        // Edits near word boundaries and on the first and last lines.
        let edits = [
            (3, 63, false),
            (2, 64, false),
            (4, 127, true),
            (3, 64, true),
            (0, 1, true),
            (6, 149, true),
        ];
        for (line, bit, walkable) in edits {
            edited.set(line, bit, walkable);
            cells[line][bit] = walkable;
            assert_eq!(edited, BitMatrix::from_fn(lines, bits, |l, b| cells[l][b]));
        }
    }

    #[test]
    fn scans_stop_at_forced_neighbours_and_walls() {
        let matrix = matrix(&["#####.#####", "#.........#", "#.#########"]);
        assert_eq!(matrix.scan_increasing(1, 1), ScanStop::jump(5));
        assert_eq!(matrix.scan_increasing(1, 5), ScanStop::blocked(10));
        assert_eq!(matrix.scan_decreasing(1, 9), ScanStop::jump(5));
        assert_eq!(matrix.scan_decreasing(1, 5), ScanStop::jump(1));
        assert_eq!(matrix.scan_decreasing(1, 1), ScanStop::blocked(0));
    }

    #[test]
    fn block_scans_match_cell_by_cell_scans_across_word_boundaries() {
        // Lines long enough to span three words, with patterns that change near the boundaries.
        let width = 200;
        let mut matrix = BitMatrix::new(3, width);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for trial in 0..300 {
            for line in 0..3 {
                for bit in 0..width {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let walkable =
                        bit > 0 && bit < width - 1 && (line == 1 || !state.is_multiple_of(5));
                    let walkable =
                        walkable && (line != 1 || !state.is_multiple_of(23) || trial % 2 == 0);
                    matrix.set(line, bit, walkable);
                }
            }
            for from in 1..width - 1 {
                if matrix.get(1, from) {
                    assert_eq!(
                        matrix.scan_increasing(1, from),
                        scan_slowly(&matrix, 1, from, 1)
                    );
                    assert_eq!(
                        matrix.scan_decreasing(1, from),
                        scan_slowly(&matrix, 1, from, -1)
                    );
                }
            }
        }
    }
}
