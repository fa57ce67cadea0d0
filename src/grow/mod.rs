//! Growth: a filter that doubles while every thread keeps using it.
//!
//! A growable filter is one table at a time, a *generation*: generation
//! `d` has `local << d` buckets (addressing [`Nested`]: `2^d` blocks of
//! `local` buckets, an item's two buckets in one block). A stored
//! fingerprint is the item's key (`key_bits` bits, what the false-positive
//! rate needs) with the `SPARE_BITS - d` spare bits the generation has not
//! yet spent on blocks above it. Growing to generation `d + 1` spends one:
//! the fingerprint in bucket `i` moves to bucket `i` or `i + buckets` of a
//! table twice as large, one bit narrower ([`Nested::split`]), with the
//! same key and the same pair of local buckets, so its item finds it there.
//! Each bucket's share of the next table is half of it on average: the new
//! table starts half full, and every stored fingerprint always keeps at
//! least the key's bits, so the false-positive rate stays at or under the
//! one the key width gives, at every size up to `2^SPARE_BITS` times the
//! first.
//!
//! A growth step, while other threads go on:
//!
//! 0. The first insert that finds its two buckets full in a generation
//!    past 80% of the load it grows at allocates the next one (not yet
//!    backed by memory) and starts a thread that backs it, a huge page at
//!    a time, so the step finds it ready and no insert pays for backing a
//!    table (where no thread can start, the inserts back it a piece at a
//!    time instead).
//! 1. An insert finds its two buckets full in a generation at the load it
//!    grows at ([`crate::config::growth_load`]: 95% of the design load).
//!    Outside its read-side section ([`current`]), under the growth
//!    lock (one step at a time), it takes the next generation, empty.
//! 2. It closes the writers' [`Gate`] and waits for the writes in flight
//!    to finish (each is one insert or remove: a short wait): the current
//!    generation is now *frozen*, and no one writes it again.
//! 3. It publishes the state "next generation current, the frozen one
//!    migrating" and opens the gate. From here writers write the new
//!    generation only; lookups read the new one, then, on a miss, the
//!    frozen one, which still holds every item acknowledged before step 2.
//! 4. The writers from then on, that insert included, copy the frozen
//!    generation into the new one, a chunk of [`CHUNK_BUCKETS`] buckets
//!    each ([`HELP_CHUNKS`]): into free slots of the target buckets under
//!    their ranges' locks, the rest with the table's own inserts (so the
//!    new table's protocol guards every lookup of it). So no write copies
//!    the whole table. A remove, count or unique insert whose item's
//!    buckets lie in chunks not yet copied copies those chunks first, so
//!    it sees all of its item's copies in the new generation; a plain
//!    insert adds its copy wherever the others are.
//! 5. The writer that copies the last chunk publishes "new generation
//!    current, nothing migrating" and, once out of its section, frees the
//!    retired states, and with them the frozen generation, once no section
//!    can still be reading them ([`current`]).
//!
//! No false negatives: an item acknowledged before a lookup began is in the
//! frozen generation (acknowledged before its freeze, which never loses it)
//! or was written to a later one, whose state the lookup then loads; and a
//! lookup reads the current generation with the table's own seqlock
//! protocol, then the frozen one, until the migration that empties it of
//! meaning is over. A remove during the migration takes one copy out of the
//! new generation; the frozen one keeps its stale copy until the migration
//! ends, so the removed item may still be found meanwhile (a false
//! positive, never a false negative).

mod current;
mod gate;

use crate::broken;
use crate::error::{BatchInsertError, BuildError, InsertError};
use crate::layout::Packed;
use crate::sync::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering, Spin};
use crate::table::{Backing, Copies, Nested, NestedItem, Table};
use current::{pin, Current, Guard};
use gate::Gate;
use std::sync::Arc;

/// Spare fingerprint bits a growable filter starts with unless a maximum
/// capacity says otherwise: doublings it can take (128x its first
/// capacity) with the false-positive rate held.
pub(crate) const SPARE_BITS: u32 = 7;

/// Times a growth step looks (yielding between) for the sections that
/// could still use the retired states to end before it leaves them for
/// the next step (or the filter's drop) to free.
const RECLAIM_ROUNDS: usize = 4096;

/// Buckets of a frozen generation copied as one unit: a writer waits for at
/// most two of them (its item's) and copies [`HELP_CHUNKS`] more. (One
/// under loom: the models' few-bucket tables then take several writes to
/// copy, so the models race operations against a step half done.)
#[cfg(not(loom))]
const CHUNK_BUCKETS: usize = 16;
#[cfg(loom)]
const CHUNK_BUCKETS: usize = 1;

/// Share of the load a generation grows at from which the inserts that
/// find a full bucket pair prepare the next generation
/// ([`Growable::prepare_next`]): from 80% to 100% a generation takes about
/// a fifth of its items, thousands of inserts for each piece to back.
const PREPARE_AT: f64 = 0.8;

/// Chunks each writer copies, besides its own item's (removes, counts and
/// unique inserts), while a growth step is under way ([`Growable::help`]):
/// the copy of a table of `n` buckets is spread over about
/// `n / CHUNK_BUCKETS / HELP_CHUNKS` writes.
const HELP_CHUNKS: usize = 1;

/// Share of the new generation's slots that its items may fill while it
/// is still being filled from the frozen one: new inserts beyond it help
/// finish the copy first, so the copy always finds room.
const fn migration_load(b: usize) -> f64 {
    match b {
        2 => 0.75,
        4 => 0.9,
        _ => 0.93,
    }
}

/// Slots of a block below which a failed displacement grows a generation
/// whatever its load ([`Generation::loaded_enough_to_grow`]).
const SMALL_BLOCK_SLOTS: usize = 1024;

/// One generation: its table and its addressing.
pub(crate) struct Generation<const B: usize> {
    pub(crate) table: Table<B, Packed, Nested>,
    pub(crate) addr: Nested,
    /// The load it grows at ([`crate::config::growth_load`]).
    grow_load: f64,
}

impl<const B: usize> Generation<B> {
    fn new(addr: Nested, capacity: usize, huge_pages: bool) -> Result<Self, BuildError> {
        let buckets = addr
            .local
            .checked_mul(1 << addr.depth)
            .ok_or(BuildError::CapacityTooLarge { capacity })?;
        let table = Table::with_addressing(
            Packed::new(B, addr.width()),
            addr,
            buckets,
            capacity,
            huge_pages,
            // The first generation is built for use; a later one is filled
            // piecemeal by the writes after its step, which back its pages
            // as they touch them.
            if addr.depth == 0 {
                Backing::Now
            } else {
                Backing::OnFirstTouch
            },
        )?;
        Ok(Generation::of(table, addr))
    }

    /// True if a failed displacement search at `len` items (the filter's)
    /// is the load speaking, so the generation grows. Each block of
    /// `local` buckets is a cuckoo table of its own (items never leave
    /// their block), so what fails is a block. Random keys fill a block
    /// evenly with the rest: below half the growth load, a block of 1,024
    /// slots or more is practically never near full (its load's standard
    /// deviation is under 2%, the gap over 40%). Keys chosen to share a
    /// bucket pair fill it at any load, and growing for them would double
    /// the memory without separating them (they may agree on every spare
    /// bit): there, a growable filter grows for load only. Smaller blocks
    /// do fill by chance, and grow on any failure; what crafted keys can
    /// cost them is bounded by their size (under 1,024 slots a block).
    fn loaded_enough_to_grow(&self, len: usize) -> bool {
        self.addr.local * B < SMALL_BLOCK_SLOTS
            || len as f64 >= 0.5 * self.grow_load * (self.buckets() * B) as f64
    }

    /// The refusal of an item whose bucket pair is crowded while the table
    /// is not full: [`InsertError::TooManyCopies`] if every slot of the
    /// pair holds a fingerprint with the item's key (copies of the item or
    /// of items colliding with it, whatever their spare bits), else
    /// [`InsertError::Crowded`].
    #[cold]
    fn crowded(&self, i1: usize, i2: usize, fp: u32, len: usize, slots: usize) -> InsertError {
        let key = self.addr.key(fp);
        let pair: &[usize] = if i2 == i1 { &[i1] } else { &[i1, i2] };
        let only_copies = pair.iter().all(|&i| {
            let bucket = self.table.load_bucket(i);
            (0..B).all(|j| {
                let other = self.table.lane(&bucket, j);
                other != 0 && self.addr.key(other) == key
            })
        });
        if only_copies {
            InsertError::TooManyCopies {
                copies: pair.len() * B,
            }
        } else {
            InsertError::Crowded { len, slots }
        }
    }

    /// `table` addressed by `addr`.
    fn of(table: Table<B, Packed, Nested>, addr: Nested) -> Self {
        let grow_load = crate::config::growth_load(B, addr.key_bits);
        Generation {
            table,
            addr,
            grow_load,
        }
    }

    fn buckets(&self) -> usize {
        self.table.buckets()
    }
}

/// A chunk's state: not copied yet; being copied by one thread; copied;
/// or read, with what did not fit waiting in [`Migration::left_over`].
const PENDING: u8 = 0;
const BUSY: u8 = 1;
const DONE: u8 = 2;
const LEFT_OVER: u8 = 3;

/// A chunk of the frozen generation being copied: one byte of state, so
/// small chunks cost little beside the table.
struct Chunk {
    state: AtomicU8,
}

/// Fingerprints and the buckets they go to, one generation up.
type Placements = Vec<(usize, u32)>;

/// A frozen generation being copied into the current one.
struct Migration<const B: usize> {
    from: Arc<Generation<B>>,
    chunks: Box<[Chunk]>,
    /// What copies that stopped (no room: see [`Growable::copy_chunk`])
    /// have left to insert, by chunk, once the chunk was read: empty but
    /// for crafted hashes. An entry is pushed and taken only by the thread
    /// that holds its chunk `BUSY`.
    left_over: crate::sync::Mutex<Vec<(usize, Placements)>>,
    /// Chunks not yet copied.
    left: AtomicU64,
    /// The next chunk a helper claims.
    cursor: AtomicU64,
    /// Fingerprints copied so far.
    moved: AtomicU64,
    /// Items the frozen generation holds (its count at the freeze).
    frozen_len: usize,
    /// New inserts the current generation may still take before the copy
    /// is finished (see [`migration_load`]); below zero, inserts help
    /// finish the copy first.
    budget: AtomicI64,
}

/// What operations load: the current generation, and the frozen one being
/// copied into it, if a growth step is under way.
struct State<const B: usize> {
    cur: Arc<Generation<B>>,
    migration: Option<Migration<B>>,
}

/// True where a next generation's table can be a mapping to back ahead
/// (and not under loom and Miri, whose tables are heap memory).
const PREPARES: bool = cfg!(all(target_os = "linux", not(miri), not(loom)));

/// A prepared generation's count of pieces backed when none is left to
/// back by the inserts: all are, or a thread of its own backs them.
const BACKED: usize = usize::MAX;

/// Starts a thread that backs `next`'s memory, every piece in turn, so that
/// no insert pays for it: backing a huge page can take the kernel
/// milliseconds when it must first compact memory to find one, and
/// measured so inside inserts (`examples/growth_latency.rs`). The thread
/// holds the generation until it is done, so it outlives neither the
/// memory nor, if the filter drops first, more than that. False if no
/// thread could start (the inserts then back it a piece at a time), and
/// always under loom and Miri, where there is no memory to back; true,
/// with no thread, for heap memory, which has no pieces to back.
fn back_in_background<const B: usize>(next: &Arc<Generation<B>>) -> bool {
    #[cfg(not(any(loom, miri)))]
    {
        if !next.table.populates() {
            // Heap memory (`huge_pages(false)`): nothing to back ahead.
            return true;
        }
        let next = Arc::clone(next);
        std::thread::Builder::new()
            .name("cuckoo-nest-back".into())
            .spawn(move || {
                let mut k = 0;
                while next.table.populate_part(k) {
                    k += 1;
                }
            })
            .is_ok()
    }
    #[cfg(any(loom, miri))]
    {
        let _ = next;
        false
    }
}

/// What came of one try at an insert ([`Growable::insert_item`]).
enum Attempt {
    /// The insert's answer.
    Done(Result<bool, InsertError>),
    /// The generation at this address is full: grow it, then try again.
    Grow(usize),
    /// The step under way was finished first: try again.
    Again,
}

/// A growable table of `B`-slot buckets: see the module docs.
pub(crate) struct Growable<const B: usize> {
    state: Current<State<B>>,
    /// The first generation's addressing: what turns a hash into the
    /// [`NestedItem`] every generation places.
    first: Nested,
    /// Set once the last generation refused an insert (no free slot
    /// reachable, no growth left): from then on an insert whose two buckets
    /// are full is refused without a displacement search, until a remove or
    /// `clear` frees a slot.
    topped_out: AtomicBool,
    /// Set while a save holds the growth lock: inserts then make room by
    /// displacement past the load they grow at rather than wait for a growth
    /// step (see [`Growable::save_chunks`]).
    saving: AtomicBool,
    gate: Gate,
    /// Held by the one growth step under way (and by `clear`).
    grow_lock: crate::sync::Mutex<()>,
    /// The next generation, allocated and backed a piece at a time by the
    /// inserts that come near the load the current one grows at
    /// ([`Growable::prepare_next`]), with the pieces backed so far: the
    /// step then finds its table ready, and no insert pays for backing a
    /// whole table at once.
    next: crate::sync::Mutex<Option<(Arc<Generation<B>>, usize)>>,
    /// The depth of the generation in `next` once there is nothing left
    /// for inserts to do for it (backed, handed to a thread, or its
    /// allocation refused), else 0: read first, so the inserts near the
    /// growth load do not all take `next`'s lock to find that out.
    next_done: AtomicU64,
    /// The first generation's capacity.
    capacity: usize,
    huge_pages: bool,
}

impl<const B: usize> Growable<B> {
    /// A filter whose first generation has `local` buckets, keys of
    /// `key_bits` bits and `spare` spare bits (the caller checked
    /// `key_bits + spare <= 32`).
    pub(crate) fn new(
        local: usize,
        key_bits: u32,
        spare: u32,
        capacity: usize,
        huge_pages: bool,
    ) -> Result<Self, BuildError> {
        let addr = Nested::new(0, local, key_bits, spare);
        let first = Generation::new(addr, capacity, huge_pages)?;
        Ok(Self::with_generation(first, capacity, huge_pages))
    }

    /// A filter whose current generation is `generation` (a saved one
    /// loaded back), first sized for `capacity` items.
    fn with_generation(generation: Generation<B>, capacity: usize, huge_pages: bool) -> Self {
        let a = generation.addr;
        Growable {
            first: Nested::new(0, a.local, a.key_bits, a.spare),
            saving: AtomicBool::new(false),
            topped_out: AtomicBool::new(false),
            state: Current::new(State {
                cur: Arc::new(generation),
                migration: None,
            }),
            gate: Gate::new(),
            grow_lock: crate::sync::Mutex::new(()),
            next: crate::sync::Mutex::new(None),
            next_done: AtomicU64::new(0),
            capacity,
            huge_pages,
        }
    }

    /// True if `hash`'s item is (probably) in the filter. Lock-free: loads
    /// the state, looks in the current generation, and on a miss in the
    /// frozen one of a growth step under way.
    #[inline]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        let guard = pin();
        let state = self.state.load(&guard);
        // The branch is on "growing?", almost never taken, not on "found?":
        // a shuffled stream of hits and misses mispredicts that half the
        // time, and each misprediction throws away the next lookups' loads
        // in flight (with it, 23.4 ns a lookup at 8x on a 1.85 MB table;
        // without, 16.1 ns: docs/benchmarks.md, "Growth").
        match &state.migration {
            None => state.cur.table.contains_hash(hash),
            Some(m) => {
                state.cur.table.contains_hash(hash)
                    || (!broken::GROW_LOOKUP_SKIPS_FROZEN && m.from.table.contains_hash(hash))
            }
        }
    }

    /// Looks up `n` keys (key `k` hashes to `hash_at(k)`) in one section:
    /// the current generation's pipelined batch loop, then, while a growth
    /// step is under way, the frozen generation for the keys it missed.
    /// Returns how many were found.
    pub(crate) fn contains_many<const D: usize>(
        &self,
        n: usize,
        hash_at: impl Fn(usize) -> u64,
        out: &mut [bool],
    ) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        let mut found = state.cur.table.contains_many::<D>(n, &hash_at, out);
        if let Some(m) = &state.migration
            && !broken::GROW_LOOKUP_SKIPS_FROZEN
        {
            for (k, hit) in out[..n].iter_mut().enumerate() {
                if !*hit && m.from.table.contains_hash(hash_at(k)) {
                    *hit = true;
                    found += 1;
                }
            }
        }
        found
    }

    /// Inserts `n` keys in order; stops at the first that fails.
    pub(crate) fn insert_many(
        &self,
        n: usize,
        hash_at: impl Fn(usize) -> u64,
    ) -> Result<(), BatchInsertError> {
        for k in 0..n {
            self.insert(hash_at(k), Copies::Any)
                .map_err(|error| BatchInsertError { inserted: k, error })?;
        }
        Ok(())
    }

    /// Inserts the item whose fingerprint `fp` generation `from` (of a
    /// filter with the same local bucket count, key width and spare bits)
    /// stores in bucket `i`: how a merge moves a fingerprint between
    /// filters of different depths.
    pub(crate) fn insert_stored(
        &self,
        from: &Nested,
        i: usize,
        fp: u32,
    ) -> Result<(), InsertError> {
        self.insert_item(from.item_at(i, fp), Copies::Any)
            .map(|_| ())
    }

    /// `config` (the filter's configuration as built or loaded) as of the
    /// current generation: its depth, buckets, capacity and width.
    pub(crate) fn config_now(&self, config: &crate::config::Config) -> crate::config::Config {
        let guard = pin();
        let addr = self.state.load(&guard).cur.addr;
        Self::config_at(config, &addr, self.capacity << addr.depth)
    }

    fn config_at(
        config: &crate::config::Config,
        addr: &Nested,
        capacity: usize,
    ) -> crate::config::Config {
        crate::config::Config {
            fingerprint_bits: addr.width(),
            buckets: addr.local << addr.depth,
            capacity,
            growth: Some(crate::config::Growth {
                key_bits: addr.key_bits,
                spare: addr.spare,
                depth: addr.depth,
            }),
            ..*config
        }
    }

    /// Saves the current generation a chunk at a time, as a fixed table
    /// saves (`table/save.rs`: writers keep writing), and returns its item
    /// count and `config` as of that generation. Under the growth lock, so
    /// no growth step starts meanwhile; one under way is finished first.
    /// While the save runs, an insert that finds the generation at the
    /// load it grows at makes room by displacement instead of growing it (a
    /// table takes a few points more than its design load), and waits for
    /// the save only when that fails. If a growth step's copy could not be
    /// finished (only with crafted keys: a pair asked for more than `2b`
    /// copies of one fingerprint, see [`Self::copy_chunk`]), the save holds
    /// the current generation without the copies that did not fit.
    pub(crate) fn save_chunks<E>(
        &self,
        config: &crate::config::Config,
        out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(usize, crate::config::Config), E> {
        let _lock = (!broken::GROW_SAVE_UNLOCKED)
            .then(|| self.grow_lock.lock().unwrap_or_else(|e| e.into_inner()));
        {
            let guard = pin();
            let state = self.state.load(&guard);
            if let Some(m) = state
                .migration
                .as_ref()
                .filter(|_| !broken::GROW_SAVE_UNLOCKED)
            {
                let _ = self.finish(state, m, &guard);
            }
        }
        // The frozen generation, retired by the finish, is freed before
        // the save rather than held through it.
        self.state.reclaim(RECLAIM_ROUNDS);
        struct Saving<'a>(&'a AtomicBool);
        impl Drop for Saving<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Relaxed);
            }
        }
        self.saving.store(true, Ordering::Relaxed);
        let _saving = Saving(&self.saving);
        let guard = pin();
        let cur = &self.state.load(&guard).cur;
        let items = cur.table.save_chunks(out)?;
        Ok((
            items,
            Self::config_at(config, &cur.addr, self.capacity << cur.addr.depth),
        ))
    }

    /// A filter whose current generation is the saved table in `parts`
    /// (exactly as long as `config`'s header says), holding `len` items,
    /// not yet audited ([`Self::audit`]).
    pub(crate) fn from_le_bytes(
        config: &crate::config::Config,
        growth: crate::config::Growth,
        len: usize,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        let addr = Nested::of(growth, config.buckets);
        let table = Table::from_le_bytes_addressed(
            Packed::new(B, addr.width()),
            addr,
            config.buckets,
            len,
            config.huge_pages,
            parts,
        )?;
        let first_capacity = config.capacity >> growth.depth;
        Ok(Self::with_generation(
            Generation::of(table, addr),
            first_capacity,
            config.huge_pages,
        ))
    }

    /// The occupied slots of the current generation, or the first thing in
    /// it no writer stores (for a filter just loaded).
    pub(crate) fn audit(&self) -> Result<usize, crate::error::DecodeError> {
        let guard = pin();
        let cur = &self.state.load(&guard).cur;
        let occupied = cur.table.audit()?;
        for i in 0..cur.buckets() {
            let bucket = cur.table.load_bucket(i);
            if (0..B).any(|j| {
                let fp = cur.table.lane(&bucket, j);
                fp != 0 && !cur.addr.is_written(fp)
            }) {
                return Err(crate::error::DecodeError::InvalidBucket {
                    bucket: i,
                    reason: "a growable filter's fingerprint with a zero key",
                });
            }
        }
        Ok(occupied)
    }

    /// Address and length of the current generation's words (for tests).
    #[cfg(feature = "internals")]
    pub(crate) fn words_range(&self) -> (usize, usize) {
        let guard = pin();
        self.state.load(&guard).cur.table.words_range()
    }

    /// The fingerprints in bucket `i` of the current generation (for
    /// tests).
    #[cfg(feature = "internals")]
    pub(crate) fn bucket_fingerprints(&self, i: usize) -> Vec<u32> {
        let guard = pin();
        self.state.load(&guard).cur.table.bucket_fingerprints(i)
    }

    /// Bytes of the current generation's table: what a save writes.
    pub(crate) fn current_table_bytes(&self) -> usize {
        let guard = pin();
        self.state.load(&guard).cur.table.table_bytes()
    }

    /// Inserts `hash`'s item; growing the filter when it is full. `Full`
    /// only once the last generation (one doubling per spare bit) is full.
    pub(crate) fn insert(&self, hash: u64, copies: Copies) -> Result<bool, InsertError> {
        self.insert_item(self.first.item(hash), copies)
    }

    /// [`Self::insert`] of an item already placed ([`Nested::item`]).
    fn insert_item(&self, item: NestedItem, copies: Copies) -> Result<bool, InsertError> {
        loop {
            // Set if this insert saw the last chunk of a growth step copied:
            // it then frees the retired states once its section is over.
            let mut copied_all = false;
            // The generation found full, by address: the section that saw
            // it ends before the growth step, which frees retired states.
            let outcome = {
                let guard = pin();
                let Some(pass) = self.gate.enter() else {
                    drop(guard);
                    self.gate.wait_open();
                    continue;
                };
                let state = self.state.load(&guard);
                if let Some(m) = &state.migration {
                    // A unique insert must see every copy of its
                    // fingerprint in the current generation; a plain one
                    // adds a copy wherever the others are.
                    if copies == Copies::Unique {
                        self.copy_chunks_of(state, m, item, &guard)?;
                    }
                    copied_all = self.help(state, m, &guard);
                    if m.budget.fetch_sub(1, Ordering::Relaxed) <= 0 {
                        // The copy must finish before more new items go in.
                        m.budget.fetch_add(1, Ordering::Relaxed);
                        drop(pass);
                        self.finish(state, m, &guard)?;
                        copied_all = true;
                        Attempt::Again
                    } else {
                        self.attempt(state, item, copies)
                    }
                } else {
                    self.attempt(state, item, copies)
                }
            };
            if copied_all {
                self.state.reclaim(RECLAIM_ROUNDS);
            }
            match outcome {
                Attempt::Done(result) => return result,
                Attempt::Grow(full) => self.grow(full)?,
                Attempt::Again => {}
            }
        }
    }

    /// One try at inserting `item` into `state`'s current generation,
    /// inside the caller's section and gate pass.
    #[inline]
    fn attempt(&self, state: &State<B>, item: NestedItem, copies: Copies) -> Attempt {
        let result = self.insert_into(&state.cur, item, copies);
        if let Some(m) = &state.migration
            && result != Ok(true)
        {
            // Nothing new went in: give the budget back.
            m.budget.fetch_add(1, Ordering::Relaxed);
        }
        match result {
            Err(InsertError::Full { .. }) => Attempt::Grow(Arc::as_ptr(&state.cur) as usize),
            other => Attempt::Done(other),
        }
    }

    /// A writer's share of a growth step under way: copies up to
    /// [`HELP_CHUNKS`] chunks no one has claimed yet. So no one insert
    /// copies the whole generation: the step is spread over the writers
    /// that come after it, a bounded amount each (an idle filter finishes
    /// it with its next writes). Returns true once every chunk is copied.
    /// A chunk left for lack of room (crafted hashes only) waits for
    /// [`Self::finish`].
    fn help(&self, state: &State<B>, m: &Migration<B>, guard: &Guard) -> bool {
        let n = m.chunks.len() as u64;
        for _ in 0..HELP_CHUNKS {
            let c = m.cursor.fetch_add(1, Ordering::Relaxed);
            if c >= n {
                break;
            }
            if self.copy_chunk(state, m, c as usize, guard).is_err() {
                break;
            }
        }
        m.left.load(Ordering::Acquire) == 0
    }

    /// An insert into generation `g`: into a free slot of the pair if there
    /// is one; else, in a table short of the load it grows at, by
    /// displacement; else `Full` (the caller grows the filter). Growing
    /// below the design load, not at the first failed insert, spares the
    /// long displacement searches of a table near its maximum load: the
    /// table after the step is half as full.
    #[inline]
    fn insert_into(
        &self,
        g: &Generation<B>,
        item: NestedItem,
        copies: Copies,
    ) -> Result<bool, InsertError> {
        let (i1, i2, fp) = g.addr.place(item);
        if let Some(stored) = g.table.insert_if_room(i1, i2, fp, copies)? {
            return Ok(stored);
        }
        if g.addr.depth == g.addr.spare && self.topped_out.load(Ordering::Relaxed) {
            return Err(self.at_max_capacity());
        }
        if g.addr.depth < g.addr.spare
            && !self.saving.load(Ordering::Relaxed)
            && self.near_full(g, i1, i2)
        {
            return Err(InsertError::Full {
                len: g.table.len(),
                slots: g.buckets() * B,
            });
        }
        match g.table.insert_making_room(i1, i2, fp, copies) {
            // The filter's count, not the generation's: while a step is
            // under way, the items not yet copied count too.
            Err(InsertError::Full { slots, .. }) => match self.len() {
                len if g.loaded_enough_to_grow(len) => Err(InsertError::Full { len, slots }),
                len => Err(g.crowded(i1, i2, fp, len, slots)),
            },
            other => other,
        }
    }

    /// True if generation `g` holds the load it grows at: checked on the
    /// stripes of `i1` and `i2` first (two loads; each stripe holds
    /// thousands of slots in a large table), then, if they say so, on the
    /// whole count.
    ///
    /// Past [`PREPARE_AT`] of that load (by the same two stripes), it also
    /// takes its turn preparing the next generation.
    #[cold]
    fn near_full(&self, g: &Generation<B>, i1: usize, i2: usize) -> bool {
        let load = g.grow_load;
        let ((n1, s1), (n2, s2)) = (g.table.stripe_load(i1), g.table.stripe_load(i2));
        let sampled = (n1 + n2) as f64 / (s1 + s2) as f64;
        if sampled >= PREPARE_AT * load {
            self.prepare_next(g);
        }
        if sampled < load {
            return false;
        }
        g.table.len() as f64 >= load * (g.buckets() * B) as f64
    }

    /// One insert's turn at preparing the generation after `g`: allocates
    /// it (its memory not yet backed) and hands the backing to a thread of
    /// its own; or, where no such thread could start, backs one more piece
    /// of it (one huge page, or 256 KiB); or, if another thread is at it or
    /// it is ready, nothing. An allocation that fails is left to the step,
    /// which reports it.
    ///
    /// Only where the next table will be a mapping of its own (Linux, huge
    /// pages on): heap memory (`huge_pages(false)`, other systems) is not
    /// backed ahead, so preparing it would only hold its memory longer.
    #[cold]
    fn prepare_next(&self, g: &Generation<B>) {
        let depth = u64::from(g.addr.depth + 1);
        if !PREPARES
            || !self.huge_pages
            || g.addr.depth == g.addr.spare
            || self.next_done.load(Ordering::Relaxed) == depth
        {
            return;
        }
        let Ok(mut next) = self.next.try_lock() else {
            return;
        };
        let done = match &mut *next {
            Some((n, backed)) if u64::from(n.addr.depth) == depth => {
                if !n.table.populate_part(*backed) {
                    *backed = BACKED;
                } else {
                    *backed += 1;
                }
                *backed == BACKED
            }
            _ => {
                let addr = g.addr.next();
                *next = Generation::new(addr, self.capacity << addr.depth, self.huge_pages)
                    .ok()
                    .map(|n| {
                        let n = Arc::new(n);
                        let backed = if back_in_background(&n) { BACKED } else { 0 };
                        (n, backed)
                    });
                // A refused allocation is left to the step to report.
                next.as_ref().is_none_or(|(_, backed)| *backed == BACKED)
            }
        };
        if done {
            self.next_done.store(depth, Ordering::Relaxed);
        }
    }

    /// Removes one copy of `hash`'s fingerprint, if there is one.
    pub(crate) fn remove(&self, hash: u64) -> bool {
        let item = self.first.item(hash);
        let guard = pin();
        let (pass, state) = self.enter(&guard);
        if let Some(m) = &state.migration {
            // If the copy stopped for lack of room (see `copy_chunk`), the
            // item may still be only in the frozen generation: the remove
            // then finds nothing here and says so; nothing is lost.
            if !broken::GROW_REMOVE_SKIPS_COPY {
                let _ = self.copy_chunks_of(state, m, item, &guard);
            }
        }
        let (i1, _, fp) = state.cur.addr.place(item);
        let removed = state.cur.table.remove(i1, fp);
        if removed && self.topped_out.load(Ordering::Relaxed) {
            self.topped_out.store(false, Ordering::Relaxed);
        }
        let copied_all = match &state.migration {
            Some(m) => self.help(state, m, &guard),
            None => false,
        };
        drop(pass);
        drop(guard);
        if copied_all {
            self.state.reclaim(RECLAIM_ROUNDS);
        }
        removed
    }

    /// How many copies of `hash`'s fingerprint its buckets hold.
    pub(crate) fn count(&self, hash: u64) -> usize {
        let item = self.first.item(hash);
        let guard = pin();
        let (_pass, state) = self.enter(&guard);
        let (i1, _, fp) = state.cur.addr.place(item);
        match &state.migration {
            Some(m) if self.copy_chunks_of(state, m, item, &guard).is_err() => {
                // A chunk could not be copied: its items are still in the
                // frozen generation, those copied since in the current one.
                let (j1, _, fq) = m.from.addr.place(item);
                let in_frozen = m.from.table.count(j1, fq);
                state.cur.table.count(i1, fp).max(in_frozen)
            }
            _ => state.cur.table.count(i1, fp),
        }
    }

    /// Enters the gate and loads the state it guards.
    fn enter<'g>(&'g self, guard: &'g Guard) -> (gate::Pass<'g>, &'g State<B>) {
        loop {
            if let Some(pass) = self.gate.enter() {
                return (pass, self.state.load(guard));
            }
            self.gate.wait_open();
        }
    }

    /// Items held: inserts minus removes, exact when no write is in flight.
    pub(crate) fn len(&self) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        let cur = state.cur.table.len();
        match &state.migration {
            Some(m) => cur + m.frozen_len - m.moved.load(Ordering::Relaxed) as usize,
            None => cur,
        }
    }

    /// Copies what a growth step under way has left to copy, then frees
    /// the old table: the step is over when this returns (unless keys
    /// crafted to collide left a chunk no room to go, which the next
    /// writes retry). Returns true if a step was under way.
    pub(crate) fn finish_growth(&self) -> bool {
        let was_under_way = {
            let guard = pin();
            let state = self.state.load(&guard);
            match &state.migration {
                Some(m) => {
                    let _ = self.finish(state, m, &guard);
                    true
                }
                None => false,
            }
        };
        if was_under_way {
            self.state.reclaim(RECLAIM_ROUNDS);
        }
        was_under_way
    }

    /// The first generation's capacity times `2^spare`: where growth stops.
    pub(crate) fn max_capacity(&self) -> usize {
        self.capacity.saturating_mul(1 << self.first.spare)
    }

    /// True unless the current generation is the last one.
    pub(crate) fn can_grow(&self) -> bool {
        let guard = pin();
        let addr = self.state.load(&guard).cur.addr;
        addr.depth < addr.spare
    }

    /// The refusal of an insert into a full last generation.
    #[cold]
    fn at_max_capacity(&self) -> InsertError {
        InsertError::MaxCapacity {
            max_capacity: self.max_capacity(),
            len: self.len(),
        }
    }

    /// The current generation's capacity: the first one's, doubled at each
    /// growth step.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn capacity(&self) -> usize {
        let guard = pin();
        self.capacity << self.state.load(&guard).cur.addr.depth
    }

    /// The current generation's two buckets and stored fingerprint for
    /// `hash` (for tests).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn locate(&self, hash: u64) -> (usize, usize, u32) {
        let guard = pin();
        let table = &self.state.load(&guard).cur.table;
        let (i1, fp) = table.locate(hash);
        (i1, table.alt(i1, fp), fp)
    }

    /// Growth steps taken (the current generation's depth).
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn depth(&self) -> u32 {
        let guard = pin();
        self.state.load(&guard).cur.addr.depth
    }

    /// Fingerprint slots of the current generation.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn slots(&self) -> usize {
        let guard = pin();
        self.state.load(&guard).cur.buckets() * B
    }

    /// Width of the fingerprints the current generation stores.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn stored_bits(&self) -> u32 {
        let guard = pin();
        self.state.load(&guard).cur.addr.width()
    }

    /// Bytes of the bucket table(s) held now: the current generation's, and
    /// the frozen one's while a growth step is under way.
    pub(crate) fn table_bytes(&self) -> usize {
        let guard = pin();
        let state = self.state.load(&guard);
        state.cur.table.table_bytes()
            + state
                .migration
                .as_ref()
                .map_or(0, |m| m.from.table.table_bytes())
    }

    /// Bytes of the table(s) with their stripes and padding: the current
    /// generation's, the frozen one's while a step is under way, and the
    /// next one's once inserts have begun to prepare it.
    pub(crate) fn memory_usage(&self) -> usize {
        let next = self
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or(0, |(n, _)| n.table.memory_usage());
        let guard = pin();
        let state = self.state.load(&guard);
        next + state.cur.table.memory_usage()
            + state
                .migration
                .as_ref()
                .map_or(0, |m| m.from.table.memory_usage())
    }

    /// Empties the filter, keeping its current size. A growth step under
    /// way is finished first (so no chunk copied later brings items back).
    pub(crate) fn clear(&self) {
        {
            let guard = pin();
            let _lock = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
            let state = self.state.load(&guard);
            if let Some(m) = &state.migration
                && self.finish(state, m, &guard).is_err()
            {
                // The copy has no room (crafted hashes): drop the
                // frozen generation's items instead of copying them;
                // writers wait at the gate meanwhile. (If the gate's
                // barrier fails, the frozen generation stays; clearing
                // the current one below is still right.)
                if self.gate.close() {
                    self.state.replace(
                        State {
                            cur: Arc::clone(&state.cur),
                            migration: None,
                        },
                        &guard,
                    );
                }
            }
            self.state.load(&guard).cur.table.clear();
            self.topped_out.store(false, Ordering::Relaxed);
            // Empty, the filter is far from its next step: give back the
            // next generation inserts may have prepared.
            *self.next.lock().unwrap_or_else(|e| e.into_inner()) = None;
            self.next_done.store(0, Ordering::Relaxed);
            self.gate.open();
        }
        self.state.reclaim(RECLAIM_ROUNDS);
    }

    /// Copies the chunks of the frozen generation that hold `hash`'s
    /// buckets, so every copy of its fingerprint is in the current one.
    fn copy_chunks_of(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        item: NestedItem,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let (j1, j2, _) = m.from.addr.place(item);
        self.copy_chunk(state, m, j1 / CHUNK_BUCKETS, guard)?;
        self.copy_chunk(state, m, j2 / CHUNK_BUCKETS, guard)
    }

    /// Copies chunk `c` of the frozen generation into the current one,
    /// unless it is copied already (or waits while another thread copies
    /// it). If the current generation has no room for a fingerprint (only
    /// possible with crafted hashes: it is held under [`migration_load`]),
    /// the chunk is left to be resumed from that fingerprint and the error
    /// returned; the frozen generation still answers for every item.
    fn copy_chunk(
        &self,
        state: &State<B>,
        m: &Migration<B>,
        c: usize,
        guard: &Guard,
    ) -> Result<(), InsertError> {
        let chunk = &m.chunks[c];
        let spin = Spin::new();
        // Claimed from `LEFT_OVER`: a copy that stopped, to resume.
        let resumed = 'claim: loop {
            for from in [PENDING, LEFT_OVER] {
                if chunk
                    .state
                    .compare_exchange(from, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    break 'claim from == LEFT_OVER;
                }
            }
            match chunk.state.load(Ordering::Acquire) {
                DONE => return Ok(()),
                BUSY => spin.wait(),
                _ => {}
            }
        };
        if broken::GROW_PUBLISH_EARLY {
            self.count_done(state, m, guard);
        }
        let (rest, mut moved) = if resumed {
            let mut left = m.left_over.lock().unwrap_or_else(|e| e.into_inner());
            let at = left
                .iter()
                .position(|(k, _)| *k == c)
                .expect("a chunk left over has its rest waiting");
            (left.swap_remove(at).1, 0)
        } else {
            self.fill_chunk(state, m, c)
        };
        // What did not fit its bucket: the table's own inserts, which make
        // room by displacement.
        for (k, &(to, fp)) in rest.iter().enumerate() {
            if let Err(e) = state.cur.table.insert(to, fp, Copies::Any) {
                m.moved.fetch_add(moved, Ordering::Relaxed);
                m.left_over
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((c, rest[k..].to_vec()));
                chunk.state.store(LEFT_OVER, Ordering::Release);
                return Err(e);
            }
            moved += 1;
        }
        m.moved.fetch_add(moved, Ordering::Relaxed);
        chunk.state.store(DONE, Ordering::Release);
        if !broken::GROW_PUBLISH_EARLY {
            self.count_done(state, m, guard);
        }
        Ok(())
    }

    /// The first pass over chunk `c`: reads its buckets (the frozen
    /// generation is never written again: plain relaxed loads see its final
    /// contents), and stores each fingerprint, one bit narrower, in a free
    /// slot of its bucket one generation up, under the locks of each of the
    /// two target ranges taken once. Returns what did not fit, and how many
    /// went in.
    fn fill_chunk(&self, state: &State<B>, m: &Migration<B>, c: usize) -> (Vec<(usize, u32)>, u64) {
        let from = &m.from;
        let n = from.buckets();
        let first = c * CHUNK_BUCKETS;
        let end = (first + CHUNK_BUCKETS).min(n);
        // On the stack: a writer's share of a step allocates nothing (8:
        // the largest bucket size, as `B` cannot size an array here).
        let mut low = [(0usize, 0u32); CHUNK_BUCKETS * 8];
        let mut high = [(0usize, 0u32); CHUNK_BUCKETS * 8];
        let (mut lows, mut highs) = (0, 0);
        for i in first..end {
            let bucket = from.table.load_bucket(i);
            for j in 0..B {
                let fp = from.table.lane(&bucket, j);
                if fp != 0 {
                    let (to, fp2) = from.addr.split(i, fp);
                    if to < n {
                        low[lows] = (to, fp2);
                        lows += 1;
                    } else {
                        high[highs] = (to, fp2);
                        highs += 1;
                    }
                }
            }
        }
        let mut rest = Vec::new();
        let table = &state.cur.table;
        table.fill_range(first, end, &low[..lows], &mut rest);
        table.fill_range(first + n, end + n, &high[..highs], &mut rest);
        let stored = (lows + highs - rest.len()) as u64;
        (rest, stored)
    }

    /// Counts a chunk copied; after the last, publishes the state with
    /// nothing migrating: the frozen generation answers for nothing the
    /// current one does not hold. Only one thread takes `left` to zero.
    fn count_done(&self, state: &State<B>, m: &Migration<B>, guard: &Guard) {
        if m.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.state.replace(
                State {
                    cur: Arc::clone(&state.cur),
                    migration: None,
                },
                guard,
            );
        }
    }

    /// Copies every chunk not yet copied (claiming them from a shared
    /// cursor, so helpers split the work), then waits for those others
    /// hold; returns once the migration is over.
    fn finish(&self, state: &State<B>, m: &Migration<B>, guard: &Guard) -> Result<(), InsertError> {
        let n = m.chunks.len() as u64;
        loop {
            let c = m.cursor.fetch_add(1, Ordering::Relaxed);
            if c >= n {
                break;
            }
            self.copy_chunk(state, m, c as usize, guard)?;
        }
        // Chunks another thread holds, or left to resume.
        for c in 0..m.chunks.len() {
            self.copy_chunk(state, m, c, guard)?;
        }
        Ok(())
    }

    /// A growth step (module docs), after an insert found generation `seen`
    /// full. Returns `Ok` when the insert should try again: another thread
    /// grew the filter meanwhile, a migration under way was finished, or
    /// this step grew it.
    #[cold]
    fn grow(&self, seen: usize) -> Result<(), InsertError> {
        let result = {
            let guard = pin();
            let _lock = self.grow_lock.lock().unwrap_or_else(|e| e.into_inner());
            self.grow_step(seen, &guard)
        };
        // Outside any section of this thread (a section of its own would
        // keep every retired state alive): the retired states, and with the
        // last of them the frozen generation, whose unmapping takes
        // milliseconds, are freed here, on the thread that grew the filter,
        // never on a lookup's.
        self.state.reclaim(RECLAIM_ROUNDS);
        result
    }

    /// [`Self::grow`] under the growth lock and a section.
    fn grow_step(&self, seen: usize, guard: &Guard) -> Result<(), InsertError> {
        let state = self.state.load(guard);
        if Arc::as_ptr(&state.cur) as usize != seen {
            return Ok(());
        }
        if let Some(m) = &state.migration {
            // The current generation filled while it was still being
            // copied into: finish the copy; the insert tries again, and
            // grows the filter if it is still full.
            return self.finish(state, m, guard);
        }
        let cur = &state.cur;
        if cur.addr.depth == cur.addr.spare {
            self.topped_out.store(true, Ordering::Relaxed);
            return Err(self.at_max_capacity());
        }
        let addr = cur.addr.next();
        let prepared = self.next.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.next_done.store(0, Ordering::Relaxed);
        let next = match prepared {
            Some((next, _)) if next.addr.depth == addr.depth => next,
            _ => Arc::new(
                Generation::new(addr, self.capacity << addr.depth, self.huge_pages).map_err(
                    |e| match e {
                        BuildError::AllocationFailed { bytes } => {
                            InsertError::GrowthFailed { bytes }
                        }
                        _ => InsertError::GrowthFailed { bytes: usize::MAX },
                    },
                )?,
            ),
        };
        let slots = next.buckets() * B;
        if !broken::GROW_NO_GATE && !self.gate.close() {
            return Err(InsertError::GrowthFailed { bytes: 0 });
        }
        // Frozen: no write to `cur` is in flight, none starts. Its count
        // is final.
        let frozen_len = cur.table.len();
        let chunks = cur.buckets().div_ceil(CHUNK_BUCKETS);
        let budget = (slots as f64 * migration_load(B)) as i64 - frozen_len as i64;
        self.state.replace(
            State {
                cur: next,
                migration: Some(Migration {
                    from: Arc::clone(cur),
                    chunks: (0..chunks)
                        .map(|_| Chunk {
                            state: AtomicU8::new(PENDING),
                        })
                        .collect(),
                    left_over: crate::sync::Mutex::new(Vec::new()),
                    left: AtomicU64::new(chunks as u64),
                    cursor: AtomicU64::new(0),
                    moved: AtomicU64::new(0),
                    frozen_len,
                    budget: AtomicI64::new(budget),
                }),
            },
            guard,
        );
        if !broken::GROW_NO_GATE {
            self.gate.open();
        }
        // The insert that grew the filter now tries again, and copies its
        // share of the step as every writer after it does.
        Ok(())
    }
}

/// A growable table of any bucket size.
pub(crate) enum AnyGrowable {
    B2(Growable<2>),
    B4(Growable<4>),
    B8(Growable<8>),
}

/// Runs `$body` with `$g` bound to the concrete [`Growable`].
macro_rules! with_growable {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::grow::AnyGrowable::B2($g) => $body,
            $crate::grow::AnyGrowable::B4($g) => $body,
            $crate::grow::AnyGrowable::B8($g) => $body,
        }
    };
}
pub(crate) use with_growable;

impl AnyGrowable {
    /// The growable table for a validated configuration with
    /// [`Config::growth`](crate::config::Config::growth) at depth 0 (the
    /// builder checked the width and the layout).
    pub(crate) fn new(config: &crate::config::Config) -> Result<Self, BuildError> {
        let growth = config.growth.expect("a growable configuration");
        let (m, n, hp) = (config.buckets, config.capacity, config.huge_pages);
        let (f, spare) = (growth.key_bits, growth.spare);
        Ok(match config.bucket_size {
            2 => AnyGrowable::B2(Growable::new(m, f, spare, n, hp)?),
            4 => AnyGrowable::B4(Growable::new(m, f, spare, n, hp)?),
            _ => AnyGrowable::B8(Growable::new(m, f, spare, n, hp)?),
        })
    }

    /// A growable filter loaded from a saved table (see
    /// [`Growable::from_le_bytes`]).
    pub(crate) fn from_le_bytes(
        config: &crate::config::Config,
        len: usize,
        parts: &[&[u8]],
    ) -> Result<Self, BuildError> {
        let growth = config.growth.expect("a growable header");
        Ok(match config.bucket_size {
            2 => AnyGrowable::B2(Growable::from_le_bytes(config, growth, len, parts)?),
            4 => AnyGrowable::B4(Growable::from_le_bytes(config, growth, len, parts)?),
            _ => AnyGrowable::B8(Growable::from_le_bytes(config, growth, len, parts)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: u64, salt: u64) -> impl Iterator<Item = u64> {
        (0..n).map(move |k| crate::hash::StableHasher::hash_one(salt, &k))
    }

    /// Under miri, which interprets every step (an insert into a small
    /// table near its growth load takes it about 0.2 s), the unit tests
    /// below fill a few hundred items, not thousands.
    const MIRI: bool = cfg!(miri);

    #[test]
    fn grows_through_every_generation_and_loses_nothing() {
        // 64 buckets of 4 at first (16 under miri): 128x that is 32k slots.
        let (local, first) = if MIRI { (16, 60) } else { (64, 240) };
        let g = Growable::<4>::new(local, 12, SPARE_BITS, first, false).unwrap();
        // Under miri, to depth 3 only.
        let n = if MIRI { 60 * 8 } else { 240 * 100 };
        for (k, h) in keys(n, 1).enumerate() {
            g.insert(h, Copies::Any)
                .unwrap_or_else(|e| panic!("insert {k}: {e}"));
        }
        assert_eq!(g.len(), n as usize);
        assert!(g.depth() >= if MIRI { 2 } else { 6 }, "depth {}", g.depth());
        assert!(keys(n, 1).all(|h| g.contains(h)));
        // The fingerprints kept the key's 12 bits and the spare bits left.
        assert_eq!(g.stored_bits(), 12 + SPARE_BITS - g.depth());
        for h in keys(n / 2, 1) {
            assert!(g.remove(h));
        }
        assert_eq!(g.len(), (n - n / 2) as usize);
        assert!(keys(n, 1).skip((n / 2) as usize).all(|h| g.contains(h)));
    }

    #[test]
    fn the_last_generation_full_is_full() {
        let g = Growable::<2>::new(4, 8, SPARE_BITS, 6, false).unwrap();
        assert!(g.can_grow());
        let (stored, err) = keys(1 << 20, 2)
            .enumerate()
            .find_map(|(k, h)| g.insert(h, Copies::Any).err().map(|e| (k, e)))
            .expect("a bounded filter fills");
        assert_eq!(
            err,
            InsertError::MaxCapacity {
                max_capacity: 6 << SPARE_BITS,
                len: stored
            }
        );
        assert_eq!(g.depth(), SPARE_BITS);
        assert!(!g.can_grow());
        // Refused at once from then on (no displacement search), while a
        // remove makes room again.
        let refused = keys(1 << 20, 3)
            .filter(|&h| g.insert(h, Copies::Any).is_err())
            .take(100)
            .count();
        assert_eq!(refused, 100);
        let first = keys(1, 2).next().unwrap();
        assert!(g.remove(first));
        assert_eq!(g.insert(first, Copies::Any), Ok(true));
        assert!(keys(stored as u64, 2).all(|h| g.contains(h)));
    }

    #[test]
    fn unique_inserts_and_counts_see_copies_across_a_growth_step() {
        let g = Growable::<4>::new(16, 12, SPARE_BITS, 60, false).unwrap();
        let hs: Vec<u64> = keys(if MIRI { 300 } else { 2000 }, 3).collect();
        for &h in &hs {
            g.insert(h, Copies::Any).unwrap();
        }
        let before = g.len();
        // Every item is present: a unique insert adds nothing.
        for &h in &hs {
            assert!(!g.insert(h, Copies::Unique).unwrap());
            assert!(g.count(h) >= 1);
        }
        assert_eq!(g.len(), before);
    }

    #[test]
    fn clear_empties_every_generation() {
        let g = Growable::<4>::new(16, 12, SPARE_BITS, 60, false).unwrap();
        let n = if MIRI { 250 } else { 1000 };
        for h in keys(n, 4) {
            g.insert(h, Copies::Any).unwrap();
        }
        assert!(g.depth() >= 2);
        g.clear();
        assert_eq!(g.len(), 0);
        assert!(keys(n, 4).all(|h| !g.contains(h)));
    }
}
