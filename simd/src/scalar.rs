//! The scalar reference: SWAR ("SIMD within a register") on plain `u64`s.
//!
//! The classic zero-lane test: `x = word ^ broadcast(value)` has a zero lane
//! exactly where the word equals `value`. `(x | ((x & low) + low)) & high`
//! (with `low` = all lane bits below the top one, `high` = the top bit of
//! every lane) sets the top bit of every *non-zero* lane, without carries
//! leaking between lanes; inverting gives the equal lanes. Collecting one
//! bit per lane is then a short shift-and-or loop the compiler unrolls.

use crate::Kernel;

/// The SWAR reference kernel. Available on every target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scalar;

/// Mask of equal lanes of one word, as one bit per lane at positions
/// `0..64/width`.
#[inline(always)]
fn eq_word(word: u64, value: u64, width: u32) -> u32 {
    let lanes = 64 / width;
    let lane_mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    // broadcast(value): value times 0x0001_0001_... for this width.
    let ones = u64::MAX / lane_mask;
    let high = ones << (width - 1);
    let low = !high;
    let x = word ^ (value & lane_mask).wrapping_mul(ones);
    let nonzero = (x | ((x & low).wrapping_add(low))) & high;
    let equal = !nonzero & high;
    let mut mask = 0u32;
    for k in 0..lanes {
        mask |= (((equal >> (k * width + width - 1)) & 1) as u32) << k;
    }
    mask
}

#[inline(always)]
fn eq_words<const N: usize>(group: [u64; N], value: u64, width: u32) -> u32 {
    let per_word = 64 / width;
    let mut mask = 0u32;
    for (j, &w) in group.iter().enumerate() {
        mask |= eq_word(w, value, width) << (j as u32 * per_word);
    }
    mask
}

impl Kernel for Scalar {
    fn name(self) -> &'static str {
        "scalar"
    }
    #[inline(always)]
    fn eq8x16(self, group: [u64; 2], value: u8) -> u32 {
        eq_words(group, value as u64, 8)
    }
    #[inline(always)]
    fn eq16x8(self, group: [u64; 2], value: u16) -> u32 {
        eq_words(group, value as u64, 16)
    }
    #[inline(always)]
    fn eq32x4(self, group: [u64; 2], value: u32) -> u32 {
        eq_words(group, value as u64, 32)
    }
    #[inline(always)]
    fn eq8x32(self, group: [u64; 4], value: u8) -> u32 {
        eq_words(group, value as u64, 8)
    }
    #[inline(always)]
    fn eq16x16(self, group: [u64; 4], value: u16) -> u32 {
        eq_words(group, value as u64, 16)
    }
    #[inline(always)]
    fn eq32x8(self, group: [u64; 4], value: u32) -> u32 {
        eq_words(group, value as u64, 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most literal reading of "which lanes equal value": extract each lane.
    fn naive<const N: usize>(group: [u64; N], value: u64, width: u32) -> u32 {
        let lanes = N as u32 * 64 / width;
        let lane_mask = (1u64 << width) - 1;
        (0..lanes)
            .filter(|&k| {
                let bit = k * width;
                (group[(bit / 64) as usize] >> (bit % 64)) & lane_mask == value
            })
            .fold(0, |m, k| m | 1 << k)
    }

    #[test]
    fn swar_matches_lane_extraction() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Miri interprets every operation; a few hundred cases still cover
        // each width and lane position there.
        let cases = if cfg!(miri) { 300 } else { 20_000 };
        for _ in 0..cases {
            let g2 = [next(), next()];
            let g4 = [next(), next(), next(), next()];
            // Plant the value in some lanes so matches are common.
            let v = next();
            for width in [8u32, 16, 32] {
                let lm = (1u64 << width) - 1;
                let value = v & lm;
                let mut p2 = g2;
                let mut p4 = g4;
                let lane = (v >> 40) as u32 % (128 / width);
                p2[(lane * width / 64) as usize] &= !(lm << (lane * width % 64));
                p2[(lane * width / 64) as usize] |= value << (lane * width % 64);
                p4[(lane * width / 64) as usize] &= !(lm << (lane * width % 64));
                p4[(lane * width / 64) as usize] |= value << (lane * width % 64);
                assert_eq!(eq_words(p2, value, width), naive(p2, value, width));
                assert_eq!(eq_words(p4, value, width), naive(p4, value, width));
                assert_eq!(eq_words(p2, 0, width), naive(p2, 0, width));
                assert_ne!(eq_words(p2, value, width) & (1 << lane), 0);
            }
        }
    }
}
