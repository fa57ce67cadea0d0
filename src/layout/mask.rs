//! Which slots of a bucket matched, as a type: the insert and remove paths
//! iterate it instead of doing bit arithmetic on kernel results.

/// Which slots of a bucket matched: bit `j` for slot `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mask(pub(crate) u32);

impl Mask {
    /// True if any slot matched.
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }

    /// The first matching slot.
    #[inline(always)]
    pub(crate) fn lowest_set_bit(self) -> Option<usize> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as usize)
    }

    /// How many slots matched.
    #[inline(always)]
    pub(crate) fn count(self) -> u32 {
        self.0.count_ones()
    }
}

/// The matching slots, lowest first.
impl Iterator for Mask {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let j = self.lowest_set_bit()?;
        self.0 &= self.0 - 1;
        Some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_iterates_its_slots_lowest_first() {
        assert_eq!(Mask(0b1010_0110).collect::<Vec<_>>(), [1, 2, 5, 7]);
        assert_eq!(Mask(0).lowest_set_bit(), None);
        assert_eq!(Mask(0b100).count(), 1);
    }
}
