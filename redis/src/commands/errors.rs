//! cuckoo-nest's errors as replies: a filter that could not be built, an
//! item that could not be inserted.

use cuckoo_nest::{BuildError, InsertError};
use redis_module::RedisError;

pub(super) fn build_error(e: BuildError) -> RedisError {
    match e {
        BuildError::ZeroCapacity | BuildError::CapacityTooLarge { .. } => {
            RedisError::String(format!("ERR Bad capacity: {e}"))
        }
        BuildError::AllocationFailed { .. } => {
            RedisError::String(format!("ERR Bad capacity: {e} (out of memory)"))
        }
        e => RedisError::String(format!("ERR could not create the filter: {e}")),
    }
}

/// A failed insert's reply: RedisBloom's "Filter is full" where the filter
/// is full, and what happened, in a user's words, where it is not.
pub(super) fn insert_error(e: InsertError) -> RedisError {
    RedisError::String(match e {
        InsertError::Full { len, slots } => format!(
            "ERR Filter is full: no free slot within reach of this item ({len} items in {slots} slots)"
        ),
        // `len`, not `max_capacity`: a full filter may hold more or fewer
        // items than the capacity it was built to grow to (and far more
        // when the capacity reserved was tiny), and the reply should not
        // contradict itself.
        InsertError::MaxCapacity { len, .. } => format!(
            "ERR Filter is full at its maximum size: it cannot grow further ({len} items in it)"
        ),
        InsertError::GrowthFailed { bytes } if bytes == usize::MAX => {
            "ERR Filter is full and could not grow: its next table is too large for this address space".into()
        }
        InsertError::GrowthFailed { bytes } => format!(
            "ERR Filter is full and could not grow: out of memory for its next table ({bytes} bytes)"
        ),
        InsertError::GrowthBlocked => {
            "ERR Filter is full and could not grow: the system refused the memory barrier growing takes (membarrier)".into()
        }
        InsertError::TooManyCopies { copies } => format!(
            "ERR Too many copies of this item: its buckets hold {copies} copies of its fingerprint, as many as this filter keeps of one item (other items may still fit)"
        ),
        InsertError::Crowded { len, slots } => format!(
            "ERR Too many colliding items: this item's buckets are full of items sharing them while the filter is far from full ({len} items in {slots} slots); growing would not separate them"
        ),
        e => format!("ERR could not insert the item: {e}"),
    })
}
