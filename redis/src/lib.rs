//! # cuckoo-nest-redis
//!
//! A Redis module (`redis-server --loadmodule libcuckoo_nest_redis.so`)
//! serving RedisBloom's cuckoo-filter commands, `CF.RESERVE`, `CF.ADD`,
//! `CF.ADDNX`, `CF.INSERT`, `CF.INSERTNX`, `CF.EXISTS`, `CF.MEXISTS`,
//! `CF.DEL`, `CF.COUNT`, `CF.INFO`, `CF.SCANDUMP` and `CF.LOADCHUNK`, on
//! cuckoo-nest's public API, with a real data type (RDB, AOF rewrite,
//! `MEMORY USAGE`, `COPY`). Items are byte strings (the `*_bytes` methods,
//! whose hash is part of the saved format). Every write is replicated
//! verbatim: the filter is deterministic (default seed, one thread), so a
//! replica fed the same commands holds the same bytes.
//!
//! README.md beside this crate says how to build and load it and what
//! differs from RedisBloom.

mod alloc;
mod commands;
mod value;

use redis_module::{redis_module, Context, ModuleOptions, RedisString, Status};
use value::CF_TYPE;

/// At load: a short read in the module's RDB loader (a truncated or
/// damaged RDB file, a forged `RESTORE` payload) sets an error the loader
/// checks after every read (`RedisModule_IsIOError`) instead of aborting
/// Redis, as it does for a module without this option.
fn init(ctx: &Context, _args: &[RedisString]) -> Status {
    // RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS).
    ctx.set_module_options(ModuleOptions::HANDLE_IO_ERRORS);
    Status::Ok
}

redis_module! {
    name: "cf-nest",
    version: 1,
    allocator: (alloc::TryRedisAlloc, alloc::TryRedisAlloc),
    data_types: [CF_TYPE],
    init: init,
    commands: [
        ["CF.RESERVE", commands::reserve, "write deny-oom", 1, 1, 1, ""],
        ["CF.ADD", commands::add, "write deny-oom fast", 1, 1, 1, ""],
        ["CF.ADDNX", commands::addnx, "write deny-oom fast", 1, 1, 1, ""],
        ["CF.INSERT", commands::insert, "write deny-oom", 1, 1, 1, ""],
        ["CF.INSERTNX", commands::insertnx, "write deny-oom", 1, 1, 1, ""],
        ["CF.EXISTS", commands::exists, "readonly fast", 1, 1, 1, ""],
        ["CF.MEXISTS", commands::mexists, "readonly fast", 1, 1, 1, ""],
        ["CF.DEL", commands::del, "write fast", 1, 1, 1, ""],
        ["CF.COUNT", commands::count, "readonly fast", 1, 1, 1, ""],
        ["CF.INFO", commands::info, "readonly fast", 1, 1, 1, ""],
        ["CF.SCANDUMP", commands::scandump, "readonly", 1, 1, 1, ""],
        ["CF.LOADCHUNK", commands::loadchunk, "write deny-oom", 1, 1, 1, ""],
    ],
}
