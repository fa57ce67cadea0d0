//! Lanes of any width from 1 to 32 bits packed in one `u64`: SWAR compare.
//!
//! The SIMD kernels compare 8, 16 and 32-bit lanes. Fingerprints of other
//! widths (12 or 13 bits are the space-optimal ones at the false-positive
//! rates databases use) are packed back to back, so a bucket of `lanes`
//! lanes of `width` bits is `lanes * width` bits, not a byte multiple. When
//! that fits in 64 bits, one word holds the whole bucket and a handful of
//! integer operations find the lanes equal to a value, with no carry from
//! one lane into the next (so the answer is exact, unlike the cheaper
//! "has zero byte" trick, which can flag a lane above a true match). Where
//! only *whether* some lane matches is asked (`any_eq`, `any_eq2`: a
//! lookup), the cheaper trick is used: its answer to that is exact.

/// Precomputed masks for `lanes` lanes of `width` bits in a `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedLanes {
    width: u32,
    /// At most 64 (one-bit lanes); 16 bits keep the struct at 32 bytes.
    lanes: u16,
    /// Bit 0 of every lane: multiplies a value into every lane.
    ones: u64,
    /// Every lane's bits but its top bit.
    low: u64,
    /// Every lane's top bit.
    high: u64,
    /// `ceil(2^15 / width)`: a bit's lane by a multiply ([`Self::lane_of`]).
    reciprocal: u16,
}

impl PackedLanes {
    /// Masks for `lanes` lanes of `width` bits, or `None` unless
    /// `1 <= width <= 32`, `lanes >= 1` and `width * lanes <= 64`.
    pub const fn new(width: u32, lanes: u32) -> Option<Self> {
        if width == 0 || width > 32 || lanes == 0 || width * lanes > 64 {
            return None;
        }
        let (mut ones, mut k) = (0u64, 0);
        while k < lanes {
            ones |= 1 << (k * width);
            k += 1;
        }
        let high = ones << (width - 1);
        let lane_bits = if width * lanes == 64 {
            u64::MAX
        } else {
            (1u64 << (width * lanes)) - 1
        };
        Some(PackedLanes {
            width,
            lanes: lanes as u16,
            ones,
            low: lane_bits & !high,
            high,
            reciprocal: 32768u32.div_ceil(width) as u16,
        })
    }

    /// The lane holding bit `bit` (below 64) of a word: `bit / width`, by a
    /// multiply and a shift. Exact: the reciprocal's error adds under
    /// `64 / 2^15` to `bit / width`, whose fraction is at most `1 - 1 /
    /// width`, at least `1 / 32` short of the next integer. A division by a
    /// width known only at run time (a growable filter's generations, the
    /// catch-all packed shapes) took 14 to 30 cycles, in every insert's
    /// search for a free slot.
    #[inline(always)]
    const fn lane_of(&self, bit: u32) -> u32 {
        (bit * self.reciprocal as u32) >> 15
    }

    /// Lane width in bits.
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// Number of lanes.
    pub const fn lanes(&self) -> u32 {
        self.lanes as u32
    }

    /// The top bit of every lane of `word` equal to `value` (the low
    /// `width` bits of `value` count), all other bits clear.
    #[inline(always)]
    pub fn eq_high_bits(&self, word: u64, value: u32) -> u64 {
        let x = word ^ (value as u64).wrapping_mul(self.ones);
        // A lane's top bit of y is set iff the lane is not zero: the add
        // carries into the top bit iff a lower bit is set, and cannot carry
        // out of the lane (low + low < 2^width).
        let y = ((x & self.low).wrapping_add(self.low)) | x;
        !y & self.high
    }

    /// The top bit of some lane set iff some lane of `word` equals
    /// `value`: the classic "has a zero lane" test on `word ^ value`
    /// (subtract 1 from every lane, keep the top bits that were clear
    /// before). Exact about *whether* a lane matches, though not about
    /// which: below the lowest zero lane every lane is at least 1, so no
    /// borrow crosses into it and it shows its top bit; with no zero lane
    /// nothing borrows at all, and a lane `v - 1` has its top bit set only
    /// if `v` had it already. Bits above the lanes only take a borrow out
    /// of the top lane, and the mask drops them. Four operations where
    /// [`Self::eq_high_bits`] needs five (no add, no or), and the xor and
    /// subtract fold into the caller's other words.
    #[inline(always)]
    fn zero_lane_bits(&self, word: u64, value: u32) -> u64 {
        let x = word ^ (value as u64).wrapping_mul(self.ones);
        x.wrapping_sub(self.ones) & !x
    }

    /// True if any lane of `word` equals `value`.
    #[inline(always)]
    pub fn any_eq(&self, word: u64, value: u32) -> bool {
        self.zero_lane_bits(word, value) & self.high != 0
    }

    /// True if any lane of `a` or of `b` equals `value` (bits above the
    /// lanes are ignored, as in every compare here): [`Self::any_eq`]
    /// of both, with the arithmetic on both words done at once in one SSE2
    /// register on x86_64. A lookup is mostly integer work (hashing, bucket
    /// addresses, versions); moving its compare to the vector unit, as the
    /// 8/16/32-bit kernels do, leaves the integer registers and scheduler
    /// to the next lookups (the same compare in integer registers counted
    /// as many instructions per lookup, or more, once the spills it caused
    /// were counted).
    #[inline(always)]
    pub fn any_eq2(&self, a: u64, b: u64, value: u32) -> bool {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            use core::arch::x86_64::*;
            // SAFETY: SSE2 is part of the x86_64 baseline; these intrinsics
            // only compute on registers.
            unsafe {
                let words = _mm_set_epi64x(b as i64, a as i64);
                let pattern = _mm_set1_epi64x((value as u64).wrapping_mul(self.ones) as i64);
                let ones = _mm_set1_epi64x(self.ones as i64);
                let high = _mm_set1_epi64x(self.high as i64);
                let x = _mm_xor_si128(words, pattern);
                // As in `zero_lane_bits`, per 64-bit half: `(x - ones) & !x`.
                let zero_lanes = _mm_andnot_si128(x, _mm_sub_epi64(x, ones));
                let hits = _mm_and_si128(zero_lanes, high);
                let none = _mm_cmpeq_epi8(hits, _mm_setzero_si128());
                _mm_movemask_epi8(none) != 0xffff
            }
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        {
            (self.zero_lane_bits(a, value) | self.zero_lane_bits(b, value)) & self.high != 0
        }
    }

    /// The lanes of `word` equal to `value`: bit `k` set for lane `k`.
    #[inline(always)]
    pub fn eq(&self, word: u64, value: u32) -> u32 {
        self.compress(self.eq_high_bits(word, value))
    }

    /// The lowest lane of `word` equal to `value`, if any: what
    /// `eq(word, value).trailing_zeros()` says, without gathering the other
    /// lanes' bits (one count of trailing zeros and a multiply by the
    /// width's reciprocal).
    ///
    /// ```
    /// use cuckoo_nest_simd::PackedLanes;
    /// let p = PackedLanes::new(12, 4).expect("4 x 12 bits fit in a word");
    /// let word = 0x005_000_005_007u64; // lanes 7, 5, 0, 5
    /// assert_eq!(p.first_eq(word, 5), Some(1));
    /// assert_eq!(p.first_eq(word, 0), Some(2));
    /// assert_eq!(p.first_eq(word, 9), None);
    /// ```
    #[inline(always)]
    pub fn first_eq(&self, word: u64, value: u32) -> Option<u32> {
        let high = self.eq_high_bits(word, value);
        (high != 0).then(|| self.lane_of(high.trailing_zeros()))
    }

    /// One bit per lane from the lanes' top bits.
    #[inline(always)]
    fn compress(&self, high_bits: u64) -> u32 {
        #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", not(miri)))]
        {
            // SAFETY: the bmi2 target feature is enabled at compile time.
            unsafe { core::arch::x86_64::_pext_u64(high_bits, self.high) as u32 }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2", not(miri))))]
        {
            let mut m = 0;
            let mut bits = high_bits;
            while bits != 0 {
                let at = bits.trailing_zeros();
                m |= 1 << self.lane_of(at);
                bits &= bits - 1;
            }
            m
        }
    }

    /// The naive answer, lane by lane: the reference [`Self::eq`] is tested
    /// against.
    pub fn eq_reference(&self, word: u64, value: u32) -> u32 {
        let mask = if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        let mut m = 0;
        for k in 0..self.lanes() {
            if (word >> (k * self.width)) & mask == value as u64 & mask {
                m |= 1 << k;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    #[test]
    fn a_bits_lane_is_its_position_over_the_width() {
        for width in 1..=32u32 {
            let p = PackedLanes::new(width, 64 / width).unwrap();
            for bit in 0..64 {
                assert_eq!(p.lane_of(bit), bit / width, "width {width} bit {bit}");
            }
        }
    }

    #[test]
    fn every_width_and_lane_count_matches_the_reference() {
        let mut next = rng(0x1234_5678);
        let rounds = if cfg!(miri) { 3 } else { 300 };
        for width in 1..=32u32 {
            for lanes in 1..=(64 / width).min(32) {
                let p = PackedLanes::new(width, lanes).unwrap();
                let mask = (1u64 << width) - 1;
                for round in 0..rounds {
                    // Bits above the lanes are left random in odd rounds:
                    // the compares must ignore them.
                    let mut word = next();
                    if width * lanes < 64 && round % 2 == 0 {
                        word &= (1u64 << (width * lanes)) - 1;
                    }
                    // Plant the value in some lanes, and ask for zero too.
                    let value = (next() & mask) as u32;
                    for k in 0..lanes {
                        if next().is_multiple_of(3) {
                            word &= !(mask << (k * width));
                            word |= (value as u64) << (k * width);
                        }
                    }
                    for v in [value, 0, (value + 1) & mask as u32] {
                        assert_eq!(
                            p.eq(word, v),
                            p.eq_reference(word, v),
                            "width {width} lanes {lanes} word {word:#x} value {v}"
                        );
                        assert_eq!(p.any_eq(word, v), p.eq_reference(word, v) != 0);
                        let first = p.eq_reference(word, v);
                        assert_eq!(
                            p.first_eq(word, v),
                            (first != 0).then(|| first.trailing_zeros())
                        );
                        let other = next();
                        assert_eq!(
                            p.any_eq2(word, other, v),
                            p.eq_reference(word, v) != 0 || p.eq_reference(other, v) != 0,
                            "any_eq2: width {width} lanes {lanes} {word:#x} {other:#x} {v}"
                        );
                        assert_eq!(
                            p.any_eq2(other, word, v),
                            p.eq_reference(word, v) != 0 || p.eq_reference(other, v) != 0
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn shapes_out_of_range_are_refused() {
        assert!(PackedLanes::new(0, 4).is_none());
        assert!(PackedLanes::new(33, 1).is_none());
        assert!(PackedLanes::new(13, 5).is_none());
        assert!(PackedLanes::new(16, 4).is_some());
        assert!(PackedLanes::new(32, 2).is_some());
    }
}
