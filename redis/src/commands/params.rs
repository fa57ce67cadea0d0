//! How a new filter is created: its capacity, bucket size, kick limit and
//! expansion, and the filter they build (checked first against the memory
//! it may take, when large).

use super::errors::build_error;
use super::memory::{memory_limit, replayed, PROBE_CAPACITY};
use super::FALSE_POSITIVE_RATE;
use crate::value::{Filter, DEFAULT_EXPANSION, DEFAULT_MAX_ITERATIONS};
use cuckoo_nest::{Builder, CuckooFilter};
use redis_module::{Context, RedisError};

/// The spare fingerprint bits of a growable key: 8 times its reserved
/// capacity in one table, then a chain of tables per 8 times more (the
/// crate's default is 7: 128 times in one table). A key is reserved for
/// the count its user expects, so it pays for spare bits mostly at that
/// count: at 1M items, reserved for 1M at 1%, a filter holds 14.5 bits per
/// item with 3 spare bits against 18.9 with 7 (RedisBloom: 16.8), and
/// from 10,000 to 1.2M items (every 1.5 times) 1.56 times a fixed filter's
/// memory on average, 2.05 at worst, against 1.93 and 2.76. A lookup reads
/// a table per chain (4 at 2,048 times the reserved capacity, 2 with 7
/// spare bits), tens of nanoseconds in a command of microseconds (redis/README.md, "What differs from RedisBloom").
const GROWTH_SPARE_BITS: u32 = 3;

/// How a filter is created.
pub(super) struct Params {
    pub(super) capacity: usize,
    pub(super) bucket_size: Option<usize>,
    pub(super) max_iterations: u32,
    pub(super) expansion: u32,
}

impl Params {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Params {
            capacity,
            bucket_size: None,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            expansion: DEFAULT_EXPANSION,
        }
    }

    /// A new filter: the shape with the fewest bits per item at 1%
    /// false positives (of the bucket size given, if one is), growable
    /// unless EXPANSION is 0, its table through Redis's allocator
    /// (`huge_pages(false)`: a huge-page table is its own `mmap`).
    ///
    /// A large one is first checked against the memory it may take
    /// ([`memory_limit`]): with overcommit, an allocation far past the
    /// machine's memory succeeds and zeroing it brings the OOM killer. Not
    /// for a command from the primary or the AOF: a replica applies what
    /// its primary accepted, or the two would differ.
    pub(super) fn build(&self, ctx: &Context) -> Result<Filter, RedisError> {
        if self.capacity > PROBE_CAPACITY && !replayed(ctx) {
            // The size scaled from a small filter of the same settings (a
            // slight overestimate: small tables keep more spare buckets).
            let probe = self.builder(PROBE_CAPACITY).build().map_err(build_error)?;
            let estimate =
                probe.memory_usage() as f64 / probe.capacity() as f64 * self.capacity as f64;
            let (limit, what) = memory_limit(ctx);
            if estimate > limit as f64 {
                return Err(RedisError::String(format!(
                    "ERR Bad capacity: the filter would take about {estimate:.0} bytes, more than {what} ({limit} bytes)"
                )));
            }
        }
        let cf = self.builder(self.capacity).build().map_err(build_error)?;
        Ok(Filter::new(cf, self.max_iterations, self.expansion))
    }

    fn builder(&self, capacity: usize) -> Builder {
        let mut builder = CuckooFilter::builder()
            .capacity(capacity)
            .false_positive_rate(FALSE_POSITIVE_RATE)
            .huge_pages(false)
            .growable(self.expansion != 0);
        if self.expansion != 0 {
            builder = builder.spare_bits(GROWTH_SPARE_BITS);
        }
        if let Some(b) = self.bucket_size {
            builder = builder.bucket_size(b);
        }
        builder
    }
}
