//! The memory a new filter may take: probing a large filter's size before
//! it is built, against what `maxmemory` leaves or the machine's physical
//! memory, except for commands replayed from the primary or the AOF.

use redis_module::{raw, Context, ContextFlags, RedisValue};

/// Filters above this capacity are sized by a probe of this capacity first.
pub(super) const PROBE_CAPACITY: usize = 10_000;

/// Whether the command comes from the primary or the AOF: applied as it
/// was where it was first accepted, without this server's own size checks.
pub(super) fn replayed(ctx: &Context) -> bool {
    ctx.get_flags()
        .intersects(ContextFlags::REPLICATED | ContextFlags::LOADING)
}

/// The bytes a new filter may take, and what sets that: what `maxmemory`
/// leaves if it is set, else the machine's physical memory.
pub(super) fn memory_limit(ctx: &Context) -> (usize, &'static str) {
    let physical = physical_memory();
    let maxmemory = match ctx.call("CONFIG", &["GET", "maxmemory"][..]) {
        Ok(RedisValue::Array(v)) if v.len() == 2 => match &v[1] {
            RedisValue::BulkString(s) | RedisValue::SimpleString(s) => s.parse().ok(),
            RedisValue::StringBuffer(b) => std::str::from_utf8(b).ok().and_then(|s| s.parse().ok()),
            _ => None,
        },
        _ => None,
    }
    .unwrap_or(0usize);
    if maxmemory == 0 {
        return (physical, "this machine's memory");
    }
    // SAFETY: a read of a module API pointer, set by RedisModule_Init and
    // never changed after.
    let ratio = match unsafe { raw::RedisModule_GetUsedMemoryRatio } {
        // SAFETY: a Redis module API function without arguments, called on
        // Redis's main thread (a command).
        Some(f) => f64::from(unsafe { f() }),
        None => 0.0,
    };
    let used = (ratio * maxmemory as f64) as usize;
    (
        maxmemory.saturating_sub(used).min(physical),
        "what maxmemory leaves",
    )
}

/// Bytes of physical memory (`usize::MAX` if the system does not say).
pub fn physical_memory() -> usize {
    // SAFETY: sysconf has no preconditions.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    match (usize::try_from(pages), usize::try_from(page)) {
        (Ok(n), Ok(p)) if n > 0 && p > 0 => n.saturating_mul(p),
        _ => usize::MAX,
    }
}
