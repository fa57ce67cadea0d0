//! The data type: restarts from RDB and from AOF (a rewritten AOF too),
//! `DEBUG RELOAD`, `COPY`, `MEMORY USAGE`; `CF.SCANDUMP` from one server
//! `CF.LOADCHUNK`ed into another, and `CF.LOADCHUNK` refusing garbage,
//! chunks out of order and truncated dumps with the key untouched.

mod common;

use common::{add_items, dump_bytes, error_of, redis_available, scandump, Server};
use redis::{cmd, Connection};

fn all_found(c: &mut Connection, key: &str, items: std::ops::Range<u32>) -> bool {
    let names: Vec<String> = items.map(|k| format!("item:{k}")).collect();
    names.chunks(500).all(|batch| {
        let r: Vec<i64> = cmd("CF.MEXISTS").arg(key).arg(batch).query(c).unwrap();
        r.iter().all(|&x| x == 1)
    })
}

/// Several kinds of filter: growable (grown), fixed, 2- and 8-slot, with
/// deletes.
fn workload(c: &mut Connection) {
    cmd("CF.RESERVE")
        .arg("grown")
        .arg(100)
        .query::<()>(c)
        .unwrap();
    add_items(c, "grown", 0..3000);
    cmd("CF.RESERVE")
        .arg("fixed")
        .arg(5000)
        .arg("BUCKETSIZE")
        .arg(2)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(c)
        .unwrap();
    add_items(c, "fixed", 0..4000);
    cmd("CF.RESERVE")
        .arg("eight")
        .arg(1000)
        .arg("BUCKETSIZE")
        .arg(8)
        .arg("MAXITERATIONS")
        .arg(7)
        .query::<()>(c)
        .unwrap();
    add_items(c, "eight", 0..800);
    for k in 0..100 {
        let d: i64 = cmd("CF.DEL")
            .arg("fixed")
            .arg(format!("item:{k}"))
            .query(c)
            .unwrap();
        assert_eq!(d, 1);
    }
}

fn dumps(c: &mut Connection) -> Vec<Vec<u8>> {
    ["grown", "fixed", "eight"]
        .iter()
        .map(|k| dump_bytes(c, k))
        .collect()
}

fn infos(c: &mut Connection) -> Vec<redis::Value> {
    ["grown", "fixed", "eight"]
        .iter()
        .map(|k| cmd("CF.INFO").arg(*k).query(c).unwrap())
        .collect()
}

#[test]
fn restart_from_rdb() {
    if !redis_available() {
        return;
    }
    let mut server = Server::start(&[]);
    let mut c = server.conn();
    workload(&mut c);
    let (before, info_before) = (dumps(&mut c), infos(&mut c));
    cmd("SAVE").query::<()>(&mut c).unwrap();
    drop(c);
    server.restart();
    let mut c = server.conn();
    assert_eq!(dumps(&mut c), before, "the same bytes after the restart");
    assert_eq!(infos(&mut c), info_before);
    assert!(all_found(&mut c, "grown", 0..3000));
    assert!(all_found(&mut c, "fixed", 100..4000));
    assert!(all_found(&mut c, "eight", 0..800));
    // Usable after loading.
    add_items(&mut c, "fixed", 5000..5100);
    assert!(all_found(&mut c, "fixed", 5000..5100));
}

#[test]
fn restart_from_aof_log_and_rewrite() {
    if !redis_available() {
        return;
    }
    // The commands' log, then a rewrite (the module's aof_rewrite: the
    // preamble off, so the rewritten AOF is commands, not an RDB).
    let mut server = Server::start(&[
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--aof-use-rdb-preamble",
        "no",
    ]);
    let mut c = server.conn();
    workload(&mut c);
    // A restore under way, two chunks of four in: rewritten as those two.
    cmd("CF.RESERVE")
        .arg("large")
        .arg(30_000_000)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(&mut c)
        .unwrap();
    add_items(&mut c, "large", 0..100);
    let chunks = scandump(&mut c, "large");
    assert!(chunks.len() >= 3);
    for (cursor, data) in &chunks[..2] {
        cmd("CF.LOADCHUNK")
            .arg("half")
            .arg(*cursor)
            .arg(data)
            .query::<()>(&mut c)
            .unwrap();
    }
    let before = dumps(&mut c);
    drop(c);
    server.restart();
    let mut c = server.conn();
    assert_eq!(dumps(&mut c), before, "replayed from the commands' log");

    cmd("BGREWRITEAOF").query::<()>(&mut c).unwrap();
    wait_until(&mut c, |info| {
        info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")
    });
    let appendonly_dir = server.dir.join("appendonlydir");
    let mut rewritten = String::new();
    for entry in std::fs::read_dir(&appendonly_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains(".base.aof") {
            rewritten = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        }
    }
    assert!(
        rewritten.contains("CF.LOADCHUNK"),
        "the base AOF holds CF.LOADCHUNK commands"
    );
    drop(c);
    server.restart();
    let mut c = server.conn();
    assert_eq!(dumps(&mut c), before, "loaded from the rewritten AOF");
    assert!(all_found(&mut c, "grown", 0..3000));
    // The restore goes on where it was.
    for (cursor, data) in &chunks[2..] {
        cmd("CF.LOADCHUNK")
            .arg("half")
            .arg(*cursor)
            .arg(data)
            .query::<()>(&mut c)
            .unwrap();
    }
    assert_eq!(dump_bytes(&mut c, "half"), dump_bytes(&mut c, "large"));
}

fn wait_until(c: &mut Connection, done: impl Fn(&str) -> bool) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(60) {
        let info: String = cmd("INFO").arg("persistence").query(c).unwrap();
        if done(&info) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("not done in 60 s");
}

#[test]
fn debug_reload_copy_memory_usage() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    workload(&mut c);
    let before = dumps(&mut c);
    cmd("DEBUG").arg("RELOAD").query::<()>(&mut c).unwrap();
    assert_eq!(dumps(&mut c), before, "DEBUG RELOAD keeps every item");

    // COPY: an independent filter with the same bytes.
    let copied: i64 = cmd("COPY").arg("fixed").arg("copy").query(&mut c).unwrap();
    assert_eq!(copied, 1);
    assert_eq!(dump_bytes(&mut c, "copy"), before[1]);
    cmd("CF.ADD")
        .arg("copy")
        .arg("only in the copy")
        .query::<i64>(&mut c)
        .unwrap();
    let in_original: i64 = cmd("CF.EXISTS")
        .arg("fixed")
        .arg("only in the copy")
        .query(&mut c)
        .unwrap();
    assert_eq!(in_original, 0);
    assert_eq!(dump_bytes(&mut c, "fixed"), before[1]);

    // MEMORY USAGE: the table, about 11 bits an item at 1% for a fixed
    // filter, and it counts toward used_memory (Redis's allocator).
    let used = |c: &mut Connection| -> i64 {
        let info: String = cmd("INFO").arg("memory").query(c).unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix("used_memory:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap()
    };
    let before_used = used(&mut c);
    cmd("CF.RESERVE")
        .arg("m")
        .arg(1_000_000)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(&mut c)
        .unwrap();
    let usage: i64 = cmd("MEMORY").arg("USAGE").arg("m").query(&mut c).unwrap();
    let bits = usage as f64 * 8.0 / 1e6;
    assert!(bits > 9.0 && bits < 12.5, "{bits} bits an item");
    let grew = used(&mut c) - before_used;
    assert!(
        grew as f64 > usage as f64 * 0.9,
        "used_memory grew {grew}, MEMORY USAGE {usage}"
    );
    // Loaded back (a table over 4 MiB): still from Redis's allocator.
    cmd("DEBUG").arg("RELOAD").query::<()>(&mut c).unwrap();
    let grew = used(&mut c) - before_used;
    assert!(
        grew as f64 > usage as f64 * 0.9,
        "after DEBUG RELOAD used_memory grew {grew}, MEMORY USAGE {usage}"
    );
    cmd("DEL").arg("m").query::<i64>(&mut c).unwrap();
    assert!(used(&mut c) - before_used < usage / 10, "freed");
}

#[test]
fn scandump_into_another_server() {
    if !redis_available() {
        return;
    }
    let (a, b) = (Server::start(&[]), Server::start(&[]));
    let (mut ca, mut cb) = (a.conn(), b.conn());
    workload(&mut ca);
    // A filter of more than three chunks (16 MiB each after the first).
    cmd("CF.RESERVE")
        .arg("large")
        .arg(30_000_000)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(&mut ca)
        .unwrap();
    add_items(&mut ca, "large", 0..2000);
    for key in ["grown", "fixed", "eight", "large"] {
        let chunks = scandump(&mut ca, key);
        if key == "large" {
            assert!(chunks.len() >= 3, "{} chunks", chunks.len());
        }
        for (cursor, data) in &chunks {
            let r: String = cmd("CF.LOADCHUNK")
                .arg(key)
                .arg(*cursor)
                .arg(data)
                .query(&mut cb)
                .unwrap();
            assert_eq!(r, "OK");
        }
        assert_eq!(dump_bytes(&mut cb, key), dump_bytes(&mut ca, key), "{key}");
        let info_a: redis::Value = cmd("CF.INFO").arg(key).query(&mut ca).unwrap();
        let info_b: redis::Value = cmd("CF.INFO").arg(key).query(&mut cb).unwrap();
        assert_eq!(info_a, info_b, "{key}");
    }
    assert!(all_found(&mut cb, "grown", 0..3000));
    assert!(all_found(&mut cb, "large", 0..2000));
    let absent: i64 = cmd("CF.EXISTS")
        .arg("fixed")
        .arg("item:5")
        .query(&mut cb)
        .unwrap();
    assert_eq!(absent, 0, "deleted in the original");
}

#[test]
fn loadchunk_refuses_bad_chunks() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    cmd("CF.RESERVE")
        .arg("src")
        .arg(30_000_000)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(&mut c)
        .unwrap();
    add_items(&mut c, "src", 0..1000);
    let chunks = scandump(&mut c, "src");
    assert!(chunks.len() >= 3);
    let load = |c: &mut Connection, key: &str, (cursor, data): &(i64, Vec<u8>)| {
        cmd("CF.LOADCHUNK")
            .arg(key)
            .arg(*cursor)
            .arg(data)
            .query::<String>(c)
    };

    // Garbage as a first chunk: no key.
    let garbage = (4097i64, vec![7u8; 4096]);
    let e = error_of(load(&mut c, "dst", &garbage));
    assert!(e.starts_with("ERR received bad data"), "{e}");
    assert_eq!(cmd("EXISTS").arg("dst").query::<i64>(&mut c).unwrap(), 0);
    // A chunk with no restore under way.
    let e = error_of(load(&mut c, "dst", &chunks[1]));
    assert!(e.contains("out of order"), "{e}");
    assert_eq!(cmd("EXISTS").arg("dst").query::<i64>(&mut c).unwrap(), 0);

    // In order, but the second chunk skipped: refused, the restore kept.
    load(&mut c, "dst", &chunks[0]).unwrap();
    let e = error_of(load(&mut c, "dst", &chunks[2]));
    assert!(e.contains("out of order"), "{e}");
    // The same chunk twice: refused too.
    load(&mut c, "dst", &chunks[1]).unwrap();
    let e = error_of(load(&mut c, "dst", &chunks[1]));
    assert!(e.contains("out of order"), "{e}");
    // A restoring key answers errors, not a half-loaded filter.
    let e = error_of(
        cmd("CF.EXISTS")
            .arg("dst")
            .arg("item:1")
            .query::<i64>(&mut c),
    );
    assert!(e.contains("being restored"), "{e}");
    let e = error_of(cmd("CF.ADD").arg("dst").arg("item:1").query::<i64>(&mut c));
    assert!(e.contains("being restored"), "{e}");

    // A damaged last chunk: refused (checksum), the restore still waits
    // for a good one.
    let mut rest: Vec<(i64, Vec<u8>)> = chunks[2..].to_vec();
    let last = rest.len() - 1;
    let mut damaged = rest[last].clone();
    let mid = damaged.1.len() / 2;
    damaged.1[mid] ^= 0x40;
    for chunk in &rest[..last] {
        load(&mut c, "dst", chunk).unwrap();
    }
    let e = error_of(load(&mut c, "dst", &damaged));
    assert!(
        e.starts_with("ERR received bad data") && e.contains("checksum"),
        "{e}"
    );
    // Truncated: the last chunk cut short, with its own cursor (out of
    // order) or a cursor to match (not a whole chunk): refused, the
    // restore kept as it was.
    let mut cut = rest[last].clone();
    cut.1.truncate(cut.1.len() / 2);
    let e = error_of(load(&mut c, "dst", &cut));
    assert!(e.contains("out of order"), "{e}");
    cut.0 -= (rest[last].1.len() - cut.1.len()) as i64;
    let e = error_of(load(&mut c, "dst", &cut));
    assert!(e.contains("truncated"), "{e}");
    // A first chunk cut short.
    let mut short = chunks[0].clone();
    short.1.truncate(1000);
    short.0 = 1001;
    let e = error_of(load(&mut c, "other", &short));
    assert!(e.starts_with("ERR received bad data"), "{e}");
    assert_eq!(cmd("EXISTS").arg("other").query::<i64>(&mut c).unwrap(), 0);
    // The restore under way is intact: its last chunk completes it.
    load(&mut c, "dst", &rest[last]).unwrap();
    assert_eq!(dump_bytes(&mut c, "dst"), dump_bytes(&mut c, "src"));
    cmd("DEL").arg("dst").query::<i64>(&mut c).unwrap();
    // Start again from the first chunk and finish properly.
    for chunk in chunks.iter() {
        load(&mut c, "dst", chunk).unwrap();
    }
    rest.clear();
    assert_eq!(dump_bytes(&mut c, "dst"), dump_bytes(&mut c, "src"));
    assert!(all_found(&mut c, "dst", 0..1000));

    // A first chunk over an existing filter: refused, the filter intact.
    let e = error_of(load(&mut c, "dst", &chunks[0]));
    assert!(e.starts_with("ERR item exists"), "{e}");
    assert!(all_found(&mut c, "dst", 0..1000));

    // A restore under way survives a restart from RDB and can finish.
    load(&mut c, "half", &chunks[0]).unwrap();
    load(&mut c, "half", &chunks[1]).unwrap();
    cmd("DEBUG").arg("RELOAD").query::<()>(&mut c).unwrap();
    for chunk in &chunks[2..] {
        load(&mut c, "half", chunk).unwrap();
    }
    assert_eq!(dump_bytes(&mut c, "half"), dump_bytes(&mut c, "src"));
    assert_eq!(cmd("PING").query::<String>(&mut c).unwrap(), "PONG");
}

#[test]
fn scandump_refuses_a_stale_cursor() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    cmd("CF.RESERVE")
        .arg("f")
        .arg(10_000)
        .arg("EXPANSION")
        .arg(0)
        .query::<()>(&mut c)
        .unwrap();
    add_items(&mut c, "f", 0..100);
    let first: (i64, Vec<u8>) = cmd("CF.SCANDUMP").arg("f").arg(0).query(&mut c).unwrap();
    assert_eq!(first.1.len(), 4096, "the first chunk");
    assert_eq!(first.0, 4097);
    // A write between two chunks: the dump must start again.
    cmd("CF.ADD")
        .arg("f")
        .arg("new")
        .query::<i64>(&mut c)
        .unwrap();
    let e = error_of(
        cmd("CF.SCANDUMP")
            .arg("f")
            .arg(first.0)
            .query::<redis::Value>(&mut c),
    );
    assert!(e.starts_with("ERR Bad cursor"), "{e}");
    // A whole dump, then its cursors again: refused too (the dump ended).
    let chunks = scandump(&mut c, "f");
    assert_eq!(chunks.len(), 2);
    let e = error_of(
        cmd("CF.SCANDUMP")
            .arg("f")
            .arg(chunks[0].0)
            .query::<redis::Value>(&mut c),
    );
    assert!(e.starts_with("ERR Bad cursor"), "{e}");
    // A cursor inside a chunk is no chunk's.
    cmd("CF.SCANDUMP")
        .arg("f")
        .arg(0)
        .query::<redis::Value>(&mut c)
        .unwrap();
    let e = error_of(
        cmd("CF.SCANDUMP")
            .arg("f")
            .arg(100)
            .query::<redis::Value>(&mut c),
    );
    assert!(e.starts_with("ERR Bad cursor"), "{e}");
    // MEMORY USAGE counts a dump under way, and no longer once it ends.
    let during: i64 = cmd("MEMORY").arg("USAGE").arg("f").query(&mut c).unwrap();
    let _ = scandump(&mut c, "f");
    let after: i64 = cmd("MEMORY").arg("USAGE").arg("f").query(&mut c).unwrap();
    assert!(during > after, "{during} then {after}");
}
