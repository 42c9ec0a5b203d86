//! Row heights of the conversation's entries, with prefix sums in O(log n)
//! (a Fenwick tree). With 100,000 entries a frame must find "which entry holds
//! row r" and "how many rows in all" without walking every entry; heights change
//! one at a time as entries are laid out, which a Fenwick tree does in O(log n).

#[derive(Debug, Default, Clone)]
pub(super) struct Heights {
    /// Each entry's height.
    values: Vec<usize>,
    /// Fenwick tree over `values` (1-based in the usual way, stored 0-based).
    tree: Vec<usize>,
    total: usize,
}

impl Heights {
    pub(super) fn total(&self) -> usize {
        self.total
    }

    pub(super) fn clear(&mut self) {
        self.values.clear();
        self.tree.clear();
        self.total = 0;
    }

    /// Appends one height.
    pub(super) fn push(&mut self, height: usize) {
        let i = self.values.len() + 1;
        let low = i & i.wrapping_neg();
        // Node i covers (i - low, i]: the new value plus the values before it.
        let node = height + self.prefix(i - 1) - self.prefix(i - low);
        self.values.push(height);
        self.tree.push(node);
        self.total += height;
    }

    /// Changes the height of entry `index`.
    pub(super) fn set(&mut self, index: usize, height: usize) {
        let Some(old) = self.values.get_mut(index) else {
            return;
        };
        let before = *old;
        if before == height {
            return;
        }
        *old = height;
        self.total = self.total + height - before;
        let mut i = index + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1] + height - before;
            i += i & i.wrapping_neg();
        }
    }

    /// Rows of the first `count` entries.
    pub(super) fn prefix(&self, count: usize) -> usize {
        let mut sum = 0;
        let mut i = count.min(self.tree.len());
        while i > 0 {
            sum += self.tree[i - 1];
            i -= i & i.wrapping_neg();
        }
        sum
    }

    /// The entry holding row `row` and the row's offset inside it; `None` past
    /// the end.
    pub(super) fn find(&self, row: usize) -> Option<(usize, usize)> {
        if row >= self.total {
            return None;
        }
        // Largest position whose prefix sum is <= row: that many entries lie
        // wholly above the row.
        let mut pos = 0;
        let mut rest = row;
        let mut step = self.tree.len().next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= self.tree.len() && self.tree[next - 1] <= rest {
                pos = next;
                rest -= self.tree[next - 1];
            }
            step /= 2;
        }
        Some((pos, rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_and_lookups_agree_with_a_plain_walk() {
        let mut h = Heights::default();
        let values = [3, 1, 0, 4, 2, 2, 7, 1, 1, 5, 0, 3];
        for v in values {
            h.push(v);
        }
        h.set(3, 6);
        h.set(9, 1);
        let mut plain = values.to_vec();
        plain[3] = 6;
        plain[9] = 1;
        assert_eq!(h.total(), plain.iter().sum::<usize>());
        let mut row = 0;
        for (i, v) in plain.iter().enumerate() {
            assert_eq!(h.prefix(i), row);
            for off in 0..*v {
                assert_eq!(h.find(row + off), Some((i, off)));
            }
            row += v;
        }
        assert_eq!(h.find(row), None);
    }
}
