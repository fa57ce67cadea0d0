//! Each `CF.*` command against a real server: replies, and the error for
//! each kind of bad input (arity, numbers, options, WRONGTYPE, a filter
//! too large, a full filter), with the key intact after every error.

mod common;

use common::{error_of, redis_available, Server};
use redis::{cmd, Connection, RedisResult};

fn q<T: redis::FromRedisValue>(c: &mut Connection, args: &[&str]) -> RedisResult<T> {
    let mut command = cmd(args[0]);
    for a in &args[1..] {
        command.arg(*a);
    }
    command.query(c)
}

fn info(c: &mut Connection, key: &str) -> Vec<(String, i64)> {
    let flat: Vec<redis::Value> = q(c, &["CF.INFO", key]).unwrap();
    flat.chunks(2)
        .map(|p| {
            let name: String = redis::from_redis_value(&p[0]).unwrap();
            let v: i64 = redis::from_redis_value(&p[1]).unwrap();
            (name, v)
        })
        .collect()
}

fn field(info: &[(String, i64)], name: &str) -> i64 {
    info.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("CF.INFO has no {name:?}"))
        .1
}

#[test]
fn reserve_add_exists() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    assert_eq!(
        q::<String>(&mut c, &["CF.RESERVE", "f", "1000"]).unwrap(),
        "OK"
    );
    assert_eq!(q::<i64>(&mut c, &["CF.ADD", "f", "apple"]).unwrap(), 1);
    assert_eq!(q::<i64>(&mut c, &["CF.EXISTS", "f", "apple"]).unwrap(), 1);
    assert_eq!(q::<i64>(&mut c, &["CF.EXISTS", "f", "pear"]).unwrap(), 0);
    // Binary items.
    let binary = [0u8, 255, 10, 13, 0];
    assert_eq!(
        cmd("CF.ADD")
            .arg("f")
            .arg(&binary[..])
            .query::<i64>(&mut c)
            .unwrap(),
        1
    );
    assert_eq!(
        cmd("CF.EXISTS")
            .arg("f")
            .arg(&binary[..])
            .query::<i64>(&mut c)
            .unwrap(),
        1
    );
    // A missing key: EXISTS says 0, ADD creates a filter.
    assert_eq!(q::<i64>(&mut c, &["CF.EXISTS", "none", "x"]).unwrap(), 0);
    assert_eq!(q::<i64>(&mut c, &["CF.ADD", "auto", "x"]).unwrap(), 1);
    assert_eq!(q::<String>(&mut c, &["TYPE", "auto"]).unwrap(), "CFnest-rs");
    let i = info(&mut c, "auto");
    assert_eq!(field(&i, "Number of items inserted"), 1);
    assert_eq!(field(&i, "Expansion rate"), 2, "auto-created filters grow");
    // Many items, all found.
    for k in 0..2000 {
        q::<i64>(&mut c, &["CF.ADD", "big", &format!("item:{k}")]).unwrap();
    }
    for k in 0..2000 {
        assert_eq!(
            q::<i64>(&mut c, &["CF.EXISTS", "big", &format!("item:{k}")]).unwrap(),
            1
        );
    }
    let misses = (0..2000)
        .filter(|k| q::<i64>(&mut c, &["CF.EXISTS", "big", &format!("other:{k}")]).unwrap() == 1)
        .count();
    assert!(
        misses < 60,
        "{misses} false positives of 2000 at a 1% target"
    );
}

#[test]
fn addnx_insert_insertnx_mexists() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    assert_eq!(q::<i64>(&mut c, &["CF.ADDNX", "f", "a"]).unwrap(), 1);
    assert_eq!(q::<i64>(&mut c, &["CF.ADDNX", "f", "a"]).unwrap(), 0);
    assert_eq!(q::<i64>(&mut c, &["CF.COUNT", "f", "a"]).unwrap(), 1);
    assert_eq!(
        q::<Vec<i64>>(&mut c, &["CF.INSERT", "f", "ITEMS", "a", "b", "c"]).unwrap(),
        [1, 1, 1]
    );
    assert_eq!(q::<i64>(&mut c, &["CF.COUNT", "f", "a"]).unwrap(), 2);
    assert_eq!(
        q::<Vec<i64>>(&mut c, &["CF.INSERTNX", "f", "ITEMS", "a", "d", "d"]).unwrap(),
        [0, 1, 0]
    );
    assert_eq!(
        q::<Vec<i64>>(&mut c, &["CF.MEXISTS", "f", "a", "b", "zz", "d"]).unwrap(),
        [1, 1, 0, 1]
    );
    assert_eq!(
        q::<Vec<i64>>(&mut c, &["CF.MEXISTS", "none", "a", "b"]).unwrap(),
        [0, 0]
    );
    // CAPACITY and NOCREATE.
    assert_eq!(
        error_of(q::<Vec<i64>>(
            &mut c,
            &["CF.INSERT", "g", "NOCREATE", "ITEMS", "a"]
        )),
        "ERR not found"
    );
    assert_eq!(q::<i64>(&mut c, &["EXISTS", "g"]).unwrap(), 0);
    assert_eq!(
        q::<Vec<i64>>(
            &mut c,
            &["CF.INSERT", "g", "CAPACITY", "50000", "ITEMS", "a"]
        )
        .unwrap(),
        [1]
    );
    let i = info(&mut c, "g");
    assert!(field(&i, "Number of buckets") * field(&i, "Bucket size") >= 50_000);
    assert_eq!(
        q::<Vec<i64>>(&mut c, &["CF.INSERTNX", "g", "nocreate", "items", "a", "b"]).unwrap(),
        [0, 1]
    );
    // A batch of 100 through MEXISTS.
    let items: Vec<String> = (0..100).map(|k| format!("m{k}")).collect();
    let mut insert = cmd("CF.INSERT");
    insert.arg("h").arg("ITEMS").arg(&items);
    assert_eq!(insert.query::<Vec<i64>>(&mut c).unwrap(), vec![1; 100]);
    let mut mexists = cmd("CF.MEXISTS");
    mexists.arg("h").arg(&items).arg("absent");
    let mut want = vec![1; 100];
    want.push(0);
    assert_eq!(mexists.query::<Vec<i64>>(&mut c).unwrap(), want);
}

/// `CF.ADDNX` and `CF.INSERTNX` of items a key holds answer 0 after the
/// key has grown past 8x, where the module's 3 spare bits end and a second
/// chain of tables starts, and add nothing: they ask `contains`, which
/// reads every chain (the library's `insert_unique` read the current chain
/// only until tests/it/multiset.rs found it; the module never used it).
#[test]
fn addnx_sees_every_chain() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    assert_eq!(
        q::<String>(&mut c, &["CF.RESERVE", "g", "100"]).unwrap(),
        "OK"
    );
    let items: Vec<String> = (0..3000).map(|k| format!("item:{k}")).collect();
    let mut args = vec!["CF.INSERT", "g", "ITEMS"];
    args.extend(items.iter().map(String::as_str));
    let added = q::<Vec<i64>>(&mut c, &args).unwrap();
    assert!(added.iter().all(|&a| a == 1));
    let held = field(&info(&mut c, "g"), "Number of items inserted");
    assert_eq!(held, 3000);
    for item in items.iter().step_by(7) {
        assert_eq!(
            q::<i64>(&mut c, &["CF.ADDNX", "g", item]).unwrap(),
            0,
            "{item}"
        );
    }
    args[0] = "CF.INSERTNX";
    let again = q::<Vec<i64>>(&mut c, &args).unwrap();
    assert!(again.iter().all(|&a| a == 0));
    assert_eq!(field(&info(&mut c, "g"), "Number of items inserted"), held);
}

#[test]
fn del_count_info() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    assert_eq!(
        error_of(q::<i64>(&mut c, &["CF.DEL", "f", "a"])),
        "ERR not found"
    );
    assert_eq!(
        error_of(q::<Vec<redis::Value>>(&mut c, &["CF.INFO", "f"])),
        "ERR not found"
    );
    assert_eq!(q::<i64>(&mut c, &["CF.COUNT", "f", "a"]).unwrap(), 0);
    q::<String>(
        &mut c,
        &[
            "CF.RESERVE",
            "f",
            "10000",
            "BUCKETSIZE",
            "2",
            "MAXITERATIONS",
            "50",
            "EXPANSION",
            "0",
        ],
    )
    .unwrap();
    for _ in 0..3 {
        q::<i64>(&mut c, &["CF.ADD", "f", "a"]).unwrap();
    }
    assert_eq!(q::<i64>(&mut c, &["CF.COUNT", "f", "a"]).unwrap(), 3);
    assert_eq!(q::<i64>(&mut c, &["CF.DEL", "f", "a"]).unwrap(), 1);
    assert_eq!(q::<i64>(&mut c, &["CF.DEL", "f", "never"]).unwrap(), 0);
    assert_eq!(q::<i64>(&mut c, &["CF.COUNT", "f", "a"]).unwrap(), 2);
    let i = info(&mut c, "f");
    let names: Vec<&str> = i.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Size",
            "Number of buckets",
            "Number of filters",
            "Number of items inserted",
            "Number of items deleted",
            "Bucket size",
            "Expansion rate",
            "Max iterations"
        ]
    );
    assert_eq!(field(&i, "Number of items inserted"), 2);
    assert_eq!(field(&i, "Number of items deleted"), 1);
    assert_eq!(field(&i, "Bucket size"), 2);
    assert_eq!(field(&i, "Number of filters"), 1);
    assert_eq!(field(&i, "Expansion rate"), 0);
    assert_eq!(field(&i, "Max iterations"), 50);
    assert!(field(&i, "Number of buckets") * 2 >= 10_000);
    let size = field(&i, "Size");
    let usage: i64 = q(&mut c, &["MEMORY", "USAGE", "f"]).unwrap();
    assert!(
        usage >= size && usage < size + 4096,
        "MEMORY USAGE {usage}, Size {size}"
    );
    // 1% at 10,000 items in 2-slot buckets: about 10-13 bits an item.
    assert!(size * 8 < 10_000 * 16, "{size} bytes");
}

#[test]
fn errors_leave_keys_intact() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    q::<String>(&mut c, &["CF.RESERVE", "f", "100"]).unwrap();
    q::<i64>(&mut c, &["CF.ADD", "f", "kept"]).unwrap();
    q::<String>(&mut c, &["SET", "s", "v"]).unwrap();

    let arity = "ERR wrong number of arguments for";
    for args in [
        &["CF.RESERVE", "x"][..],
        &["CF.RESERVE", "x", "10", "BUCKETSIZE"],
        &["CF.ADD", "f"],
        &["CF.ADD", "f", "a", "b"],
        &["CF.ADDNX", "f"],
        &["CF.INSERT", "f", "ITEMS"],
        &["CF.INSERTNX", "f"],
        &["CF.EXISTS", "f"],
        &["CF.MEXISTS", "f"],
        &["CF.DEL", "f", "a", "b"],
        &["CF.COUNT", "f"],
        &["CF.INFO"],
        &["CF.INFO", "f", "x"],
        &["CF.SCANDUMP", "f"],
        &["CF.LOADCHUNK", "f", "1"],
    ] {
        let e = error_of(q::<redis::Value>(&mut c, args));
        assert!(e.starts_with(arity), "{args:?}: {e}");
    }
    for (args, want) in [
        (&["CF.RESERVE", "x", "0"][..], "ERR Bad capacity"),
        (&["CF.RESERVE", "x", "-5"], "ERR Bad capacity"),
        (&["CF.RESERVE", "x", "ten"], "ERR Bad capacity"),
        (&["CF.RESERVE", "x", "1000000000000000"], "ERR Bad capacity"),
        (&["CF.RESERVE", "x", "1000000000000"], "ERR Bad capacity"),
        (
            &["CF.RESERVE", "x", "10", "BUCKETSIZE", "3"],
            "ERR Bad bucket size",
        ),
        (
            &["CF.RESERVE", "x", "10", "BUCKETSIZE", "0"],
            "ERR Bad bucket size",
        ),
        (
            &["CF.RESERVE", "x", "10", "BUCKETSIZE", "x"],
            "ERR Bad bucket size",
        ),
        (
            &["CF.RESERVE", "x", "10", "MAXITERATIONS", "0"],
            "ERR Bad max iterations",
        ),
        (
            &["CF.RESERVE", "x", "10", "EXPANSION", "-1"],
            "ERR Bad expansion",
        ),
        (
            &["CF.RESERVE", "x", "10", "COLOUR", "red"],
            "ERR syntax error",
        ),
        (&["CF.RESERVE", "f", "10"], "ERR item exists"),
        (
            &["CF.INSERT", "x", "CAPACITY", "0", "ITEMS", "a"],
            "ERR Bad capacity",
        ),
        (
            &["CF.INSERT", "x", "BOGUS", "ITEMS", "a"],
            "ERR syntax error",
        ),
        (
            &["CF.INSERT", "x", "CAPACITY", "5", "a"],
            "ERR syntax error",
        ),
        (&["CF.SCANDUMP", "f", "-1"], "ERR Bad cursor"),
        (&["CF.SCANDUMP", "f", "77"], "ERR Bad cursor"),
        (&["CF.SCANDUMP", "none", "0"], "ERR not found"),
        (&["CF.LOADCHUNK", "x", "0", "data"], "ERR Bad cursor"),
        (&["CF.LOADCHUNK", "x", "abc", "data"], "ERR Bad cursor"),
    ] {
        let e = error_of(q::<redis::Value>(&mut c, args));
        assert!(e.starts_with(want), "{args:?}: {e}, want {want}");
    }
    assert_eq!(
        q::<i64>(&mut c, &["EXISTS", "x"]).unwrap(),
        0,
        "no failed RESERVE made a key"
    );
    // WRONGTYPE for every command on a string key, reads included.
    for args in [
        &["CF.RESERVE", "s", "10"][..],
        &["CF.ADD", "s", "a"],
        &["CF.ADDNX", "s", "a"],
        &["CF.INSERT", "s", "ITEMS", "a"],
        &["CF.INSERTNX", "s", "ITEMS", "a"],
        &["CF.EXISTS", "s", "a"],
        &["CF.MEXISTS", "s", "a"],
        &["CF.DEL", "s", "a"],
        &["CF.COUNT", "s", "a"],
        &["CF.INFO", "s"],
        &["CF.SCANDUMP", "s", "0"],
        &["CF.LOADCHUNK", "s", "100", "data"],
    ] {
        let e = error_of(q::<redis::Value>(&mut c, args));
        assert!(e.starts_with("WRONGTYPE"), "{args:?}: {e}");
    }
    assert_eq!(q::<String>(&mut c, &["GET", "s"]).unwrap(), "v");
    // And a filter key for a set command.
    let e = error_of(q::<i64>(&mut c, &["SADD", "f", "a"]));
    assert!(e.starts_with("WRONGTYPE"), "{e}");
    assert_eq!(q::<i64>(&mut c, &["CF.EXISTS", "f", "kept"]).unwrap(), 1);
    assert_eq!(q::<String>(&mut c, &["PING"]).unwrap(), "PONG");
}

#[test]
fn full_filters_answer_errors() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&[]);
    let mut c = server.conn();
    // A fixed filter: ADD says full, INSERT says -1 for what did not fit.
    q::<String>(&mut c, &["CF.RESERVE", "f", "100", "EXPANSION", "0"]).unwrap();
    let items: Vec<String> = (0..1000).map(|k| format!("i{k}")).collect();
    let mut insert = cmd("CF.INSERT");
    insert.arg("f").arg("ITEMS").arg(&items);
    let r: Vec<i64> = insert.query(&mut c).unwrap();
    let ok = r.iter().filter(|&&x| x == 1).count();
    assert!(
        ok >= 100 && r.iter().all(|&x| x == 1 || x == -1),
        "{ok} fitted"
    );
    let e = error_of(q::<i64>(&mut c, &["CF.ADD", "f", "one more"]));
    assert!(
        e.starts_with("ERR Filter is full: no free slot within reach of this item ("),
        "{e}"
    );
    assert_eq!(e.matches("full").count(), 1, "said once: {e}");
    // Every item that fitted is still there.
    for (k, &fit) in r.iter().enumerate() {
        if fit == 1 {
            assert_eq!(q::<i64>(&mut c, &["CF.EXISTS", "f", &items[k]]).unwrap(), 1);
        }
    }
    // One item added too often: its two buckets are full of it.
    q::<String>(
        &mut c,
        &[
            "CF.RESERVE",
            "g",
            "1000",
            "BUCKETSIZE",
            "2",
            "EXPANSION",
            "0",
        ],
    )
    .unwrap();
    let mut refused = None;
    for n in 0..20 {
        if let Err(e) = q::<i64>(&mut c, &["CF.ADD", "g", "same"]) {
            refused = Some((n, e.detail().unwrap_or("").to_string()));
            break;
        }
    }
    let (n, e) = refused.expect("a fifth copy is refused");
    assert_eq!(n, 4, "2 buckets of 2 slots hold 4 copies");
    assert!(
        e.starts_with("Too many copies of this item: its buckets hold 4 copies"),
        "{e}"
    );
    assert!(!e.contains("full"), "not full: {e}");
    // A growable filter has no ceiling: past 8 times its reserved capacity
    // (3 spare bits, commands/params.rs) it starts a second chain of
    // tables, and one more per 8 times after that (to 64, 512 and 4,096
    // times), which CF.INFO counts.
    q::<String>(&mut c, &["CF.RESERVE", "max", "1"]).unwrap();
    let items: Vec<String> = (0..3000).map(|k| format!("m{k}")).collect();
    let mut insert = cmd("CF.INSERT");
    insert.arg("max").arg("ITEMS").arg(&items);
    let r: Vec<i64> = insert.query(&mut c).unwrap();
    assert!(
        r.iter().all(|&x| x == 1),
        "3000 items into a filter reserved for 1"
    );
    assert_eq!(field(&info(&mut c, "max"), "Number of filters"), 4);
    assert!(items
        .iter()
        .all(|k| q::<i64>(&mut c, &["CF.EXISTS", "max", k]).unwrap() == 1));
    // A growable filter grows instead.
    for k in 0..5000 {
        q::<i64>(&mut c, &["CF.ADD", "grows", &format!("{k}")]).unwrap();
    }
    assert_eq!(info_items(&mut c, "grows"), 5000);
}

fn info_items(c: &mut Connection, key: &str) -> i64 {
    field(&info(c, key), "Number of items inserted")
}

#[test]
fn maxmemory_bounds_new_filters() {
    if !redis_available() {
        return;
    }
    let server = Server::start(&["--maxmemory", "20mb"]);
    let mut c = server.conn();
    // About 130 MB at 1%: more than maxmemory leaves.
    let e = error_of(q::<String>(
        &mut c,
        &["CF.RESERVE", "big", "100000000", "EXPANSION", "0"],
    ));
    assert!(
        e.starts_with("ERR Bad capacity") && e.contains("maxmemory"),
        "{e}"
    );
    let e = error_of(q::<Vec<i64>>(
        &mut c,
        &["CF.INSERT", "big", "CAPACITY", "100000000", "ITEMS", "a"],
    ));
    assert!(e.contains("maxmemory"), "{e}");
    assert_eq!(q::<i64>(&mut c, &["EXISTS", "big"]).unwrap(), 0);
    assert_eq!(
        q::<String>(&mut c, &["CF.RESERVE", "small", "1000000"]).unwrap(),
        "OK"
    );
}

#[test]
fn a_refused_allocation_is_an_error() {
    if !redis_available() {
        return;
    }
    // 1 GiB of address space: a filter of about 1.3 GB passes the size
    // check (the machine's memory) but the allocator refuses it.
    let server = Server::start_limited(&[], Some(1 << 30));
    let mut c = server.conn();
    let e = error_of(q::<String>(
        &mut c,
        &["CF.RESERVE", "huge", "1000000000", "EXPANSION", "0"],
    ));
    assert!(
        e.starts_with("ERR Bad capacity") && e.contains("could not allocate"),
        "{e}"
    );
    assert_eq!(q::<i64>(&mut c, &["EXISTS", "huge"]).unwrap(), 0);
    assert_eq!(
        q::<String>(&mut c, &["CF.RESERVE", "small", "100000"]).unwrap(),
        "OK"
    );
    assert_eq!(q::<i64>(&mut c, &["CF.ADD", "small", "x"]).unwrap(), 1);
}
