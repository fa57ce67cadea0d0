//! Real `redis-server` processes with the module loaded, on 127.0.0.1 and
//! free ports, each in its own temporary directory; killed (and the
//! directory removed) when dropped, a panicking test included. Every wait
//! is bounded in time.
//!
//! Without `redis-server` on the PATH a test returns early and says so,
//! unless `CUCKOO_REDIS_REQUIRED=1` (set by .ci/redis.sh), where it fails.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The module, built once per test process with the test profile (whose
/// dependencies the test build already compiled) into the target directory
/// this test runs from (`target/debug/deps/<test>` ->
/// `target/debug/libcuckoo_nest_redis.so`; for examples/bench.rs,
/// `target/release/examples/bench` and the release profile): cargo does
/// not build a cdylib for its package's integration tests. `CUCKOO_REDIS_MODULE` names a
/// prebuilt one instead.
pub fn module_path() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Ok(p) = std::env::var("CUCKOO_REDIS_MODULE") {
                return PathBuf::from(p);
            }
            let exe = std::env::current_exe().expect("the test's own path");
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .expect("target/<profile>/deps/<test>");
            let target_dir = profile_dir.parent().expect("target/<profile>");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            // The release profile for a release build (examples/bench.rs),
            // else the test profile.
            let profile = if profile_dir.ends_with("release") {
                "release"
            } else {
                "test"
            };
            let status = Command::new(cargo)
                .args(["build", "--profile", profile])
                .args(["-p", "cuckoo-nest-redis", "--lib"])
                .env("CARGO_TARGET_DIR", target_dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build");
            assert!(status.success(), "building the module failed");
            let so = profile_dir.join("libcuckoo_nest_redis.so");
            assert!(so.exists(), "{} is missing after the build", so.display());
            so
        })
        .clone()
}

/// Whether the tests can run: `redis-server` on the PATH. Without it, a
/// test skips (returns) unless `CUCKOO_REDIS_REQUIRED=1`, where it panics.
pub fn redis_available() -> bool {
    let found = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("CUCKOO_REDIS_REQUIRED").as_deref() != Ok("1"),
            "redis-server is not on the PATH and CUCKOO_REDIS_REQUIRED=1"
        );
        eprintln!("redis-server not found: skipping (set CUCKOO_REDIS_REQUIRED=1 to fail instead)");
    }
    found
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("its address").port()
}

static DIRS: AtomicUsize = AtomicUsize::new(0);

/// A running `redis-server` with the module.
pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
    child: Option<Child>,
    extra: Vec<String>,
    /// An address-space limit (RLIMIT_AS) for the process, in bytes.
    address_space: Option<u64>,
}

impl Server {
    /// A server with the module and `extra` configuration arguments
    /// (`["--appendonly", "yes"]`), no RDB snapshots unless asked.
    pub fn start(extra: &[&str]) -> Server {
        Self::start_limited(extra, None)
    }

    /// [`start`](Self::start) with the process's address space limited to
    /// `address_space` bytes, so large allocations fail.
    pub fn start_limited(extra: &[&str], address_space: Option<u64>) -> Server {
        let n = DIRS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "cuckoo-nest-redis-{}-{}-{n}",
            std::process::id(),
            std::thread::current()
                .name()
                .unwrap_or("t")
                .replace("::", "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("server directory");
        let mut server = Server {
            port: 0,
            dir,
            child: None,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            address_space,
        };
        server.launch();
        server
    }

    /// Starts the process again in the same directory (after `stop`): it
    /// loads the RDB or AOF there.
    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    /// The `redis-server` command for `port`, its output into server.log.
    fn command(&self, port: u16) -> Command {
        let log = std::fs::File::create(self.dir.join("server.log")).expect("log file");
        let mut command = Command::new("redis-server");
        if let Some(limit) = self.address_space {
            use std::os::unix::process::CommandExt;
            // SAFETY: the closure runs in the child between fork and
            // exec and calls only setrlimit, which is async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    let rlimit = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: limit,
                    };
                    if libc::setrlimit(libc::RLIMIT_AS, &rlimit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--dir", self.dir.to_str().expect("utf-8 temp dir")])
            .args(["--save", "", "--daemonize", "no", "--protected-mode", "no"])
            .args(["--loglevel", "notice", "--enable-debug-command", "yes"])
            .arg("--loadmodule")
            .arg(module_path())
            .args(&self.extra)
            .stdout(Stdio::from(log.try_clone().expect("log")))
            .stderr(Stdio::from(log));
        command
    }

    fn launch(&mut self) {
        // A port taken between `free_port` and the server's bind: try again.
        for _ in 0..5 {
            let port = if self.port == 0 {
                free_port()
            } else {
                self.port
            };
            let child = self.command(port).spawn().expect("start redis-server");
            self.child = Some(child);
            self.port = port;
            if self.wait_ready(Duration::from_secs(20)) {
                return;
            }
            self.stop();
            self.port = 0;
        }
        panic!("redis-server did not start: {}", self.log());
    }

    /// Starts the process again in the same directory (after `stop`),
    /// expecting it to refuse what it finds there and exit: how it ended.
    /// Panics if it still runs after 60 s.
    pub fn restart_expecting_exit(&mut self) -> ExitStatus {
        self.stop();
        let mut child = self
            .command(free_port())
            .spawn()
            .expect("start redis-server");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(status)) = child.try_wait() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("redis-server still ran after 60 s: {}", self.log());
    }

    fn wait_ready(&mut self, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(_)) = child.try_wait()
            {
                return false;
            }
            if let Ok(mut c) = self.try_conn() {
                // Loading a large RDB answers LOADING until it is done.
                if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn try_conn(&self) -> redis::RedisResult<redis::Connection> {
        let client = redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))?;
        client.get_connection_with_timeout(Duration::from_secs(5))
    }

    /// A connection whose commands time out after 60 s.
    pub fn conn(&self) -> redis::Connection {
        let c = self.try_conn().expect("connect");
        c.set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        c.set_write_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        c
    }

    /// Kills the process (SIGKILL: what was not saved is lost) and waits.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `SHUTDOWN` with or without saving, then waits for the process.
    pub fn shutdown(&mut self, save: bool) {
        if let Ok(mut c) = self.try_conn() {
            let _ = redis::cmd("SHUTDOWN")
                .arg(if save { "SAVE" } else { "NOSAVE" })
                .query::<()>(&mut c);
        }
        if let Some(mut child) = self.child.take() {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Adds `item:K` for each `K` of `items` to the filter at `key` with
/// `CF.INSERT`, 500 at a time, and checks each was added.
pub fn add_items(c: &mut redis::Connection, key: &str, items: std::ops::Range<u32>) {
    let names: Vec<String> = items.map(|k| format!("item:{k}")).collect();
    for batch in names.chunks(500) {
        let r: Vec<i64> = redis::cmd("CF.INSERT")
            .arg(key)
            .arg("ITEMS")
            .arg(batch)
            .query(c)
            .unwrap();
        assert!(r.iter().all(|&x| x == 1));
    }
}

/// Every chunk of `CF.SCANDUMP key`, with its cursor, in order (at most
/// 10,000 calls).
pub fn scandump(c: &mut redis::Connection, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut chunks = Vec::new();
    let mut cursor = 0i64;
    for _ in 0..10_000 {
        let (next, data): (i64, Vec<u8>) = redis::cmd("CF.SCANDUMP")
            .arg(key)
            .arg(cursor)
            .query(c)
            .expect("CF.SCANDUMP");
        if next == 0 {
            assert!(data.is_empty(), "the last call returns no data");
            return chunks;
        }
        chunks.push((next, data));
        cursor = next;
    }
    panic!("CF.SCANDUMP did not end in 10,000 calls");
}

/// The whole dump of `key`, concatenated.
pub fn dump_bytes(c: &mut redis::Connection, key: &str) -> Vec<u8> {
    scandump(c, key).into_iter().flat_map(|(_, d)| d).collect()
}

/// The error code and message of a command that must fail.
pub fn error_of<T: redis::FromRedisValue + std::fmt::Debug>(r: redis::RedisResult<T>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => format!("{} {}", e.code().unwrap_or("?"), e.detail().unwrap_or("")),
    }
}
