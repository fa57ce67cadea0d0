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
//! 0. If the next generation's table will be on huge pages (4 MiB or
//!    more), the first insert that finds its two buckets full in a
//!    generation past 80% of the load it grows at allocates it (not yet
//!    backed by memory) and starts a thread that backs it, a huge page at
//!    a time, so the step finds it ready and no insert pays for backing a
//!    table (where no thread can start, the inserts back it a piece at a
//!    time instead). A smaller table is allocated by the step itself and
//!    backed 4 KiB at a time by the writes that touch it: held ahead, it
//!    would double the small filter's memory for a fifth of its growth.
//! 1. An insert finds its two buckets full in a generation at the load it
//!    grows at ([`crate::config::growth_load`]: 95% of the design load).
//!    Outside its read-side section ([`reclaim`]), under the growth
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
//!    the whole table. A remove, count or insert whose item's buckets lie
//!    in chunks not yet copied copies those chunks first, so it sees all
//!    of its item's copies in the new generation (an insert so never adds
//!    a copy beyond what the pair holds, and never takes a slot of the
//!    pair before the pair's own items arrive).
//! 5. The writer that copies the last chunk publishes "new generation
//!    current, nothing migrating" and, once out of its section, frees the
//!    retired states, and with them the frozen generation, once no section
//!    can still be reading them ([`reclaim`]).
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

mod any;
pub(crate) mod barrier;
mod chains;
mod gate;
mod load;
mod persist;
mod read;
mod reclaim;
#[cfg(all(feature = "internals", cuckoo_nest_loom))]
pub(crate) use reclaim::loom_model as section_models;
mod pages;
mod regrow;
mod remove;
mod step;
mod write;

pub(crate) use any::{with_growable, AnyGrowable};

use crate::broken;
use crate::error::{BatchInsertError, BuildError, InsertError};
use crate::layout::Packed;
use crate::sync::Arc;
use crate::sync::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Highest, Ordering, Spin};
use crate::table::{Backing, Copies, Nested, NestedItem, Table};
use gate::Gate;
use reclaim::{pin, Current, Guard};

/// Spare fingerprint bits a growable filter starts with unless a maximum
/// capacity says otherwise: doublings it can take (128x its first
/// capacity) with the false-positive rate held, before (with no maximum
/// capacity) it starts its next chain; each later chain has as many, and
/// `CHAIN_SMALLER` (`table/nested/chain.rs`) more.
pub(crate) const SPARE_BITS: u32 = 7;

/// Times a growth step looks (yielding between) for the sections that
/// could still use the retired states to end before it leaves them for
/// the next step (or the filter's drop) to free.
/// (Two under loom: each look is a step the model explores.)
const RECLAIM_ROUNDS: usize = crate::sync::model_size(4096, 2);

/// Buckets of a frozen generation copied as one unit: a writer waits for at
/// most two of them (its item's) and, if it copied neither, copies
/// [`HELP_CHUNKS`] more. Eight, not 16: an insert that copies two chunks
/// then moves 64 slots' items, and the slowest 0.1% of inserts through
/// growth to 8M took 3.3 us, not 4.5-4.9 (`growth_latency`, alternating
/// runs), for 0.8% more instructions an insert (callgrind, growth from 1/8;
/// 4 buckets: 2.8-3.1 us, 2.6% more). (One under loom: the models'
/// few-bucket tables then take several writes to copy, so the models race
/// operations against a step half done.)
const CHUNK_BUCKETS: usize = crate::sync::model_size(8, 1);

/// Share of the load a generation grows at from which the inserts that
/// find a full bucket pair prepare the next generation
/// ([`Growable::prepare_next`]): from 80% to 100% a generation takes about
/// a fifth of its items, thousands of inserts for each piece to back.
/// (Only where the kernel cannot collapse a table onto huge pages after
/// its step: `table::collapses`.)
const PREPARE_AT: f64 = 0.8;

/// Chunks each insert copies while a growth step is under way, if it copied
/// none of its own item's ([`Growable::help`]):
/// the copy of a table of `n` buckets is spread over about
/// `n / CHUNK_BUCKETS / HELP_CHUNKS` writes.
const HELP_CHUNKS: usize = 1;

/// Share of the new generation's slots that its items may fill while it
/// is still being filled from the frozen one: new inserts beyond it help
/// finish the copy first, so the copy finds room. A generation whose
/// blocks (`block_slots`: an item's two buckets lie in one) hold fewer than
/// [`SMALL_BLOCK_SLOTS`] slots reaches a lower load before a displacement
/// fails, so it keeps 15 points more in reserve. (A copy that still finds
/// no room is mended by growing again: [`Growable::regrow`].) Not under
/// loom: the models' generations of two to four
/// buckets are built to race a lookup or a remove against a step that
/// later writes finish, which the reserve would hand to the insert that
/// grew the filter.
const fn migration_load(b: usize, block_slots: usize) -> f64 {
    let load = match b {
        2 => 0.75,
        4 => 0.9,
        _ => 0.93,
    };
    // No block is small enough to keep the reserve under loom.
    if block_slots < crate::sync::model_size(SMALL_BLOCK_SLOTS, 0) {
        load - 0.15
    } else {
        load
    }
}

/// Slots of a block below which a failed displacement grows a generation
/// whatever its load ([`Generation::small_blocks`]).
const SMALL_BLOCK_SLOTS: usize = 1024;

/// One generation: its table and its addressing.
pub(crate) struct Generation<const B: usize> {
    pub(crate) table: Table<B, Packed, Nested>,
    pub(crate) addr: Nested,
    /// The load it grows at ([`crate::config::growth_load`]).
    grow_load: f64,
    /// How a key's inserts take copies here ([`Generation::copies`]).
    copies: Copies,
    /// Set when a growth step has copied this generation out: it answers
    /// for nothing any more, and its table is freed on a thread of its own
    /// when the last holder drops it ([`Generation::retire`]). Not a step
    /// of the protocol: never under loom or Miri.
    #[cfg(not(any(cuckoo_nest_loom, miri)))]
    retired: crate::sync::process::AtomicBool,
}

/// Tables at least this large are freed apart once retired
/// ([`Generation::retire`]): below it a free costs the writer less than
/// starting a thread (4 KiB pages: about 35 us per MiB).
#[cfg(not(any(cuckoo_nest_loom, miri)))]
const FREE_APART_BYTES: usize = 8 << 20;

impl<const B: usize> Drop for Generation<B> {
    fn drop(&mut self) {
        #[cfg(not(any(cuckoo_nest_loom, miri)))]
        if self.retired.load(crate::sync::process::Ordering::Relaxed)
            && self.table.table_bytes() >= FREE_APART_BYTES
        {
            self.table.free_words_apart();
        }
    }
}

impl<const B: usize> Generation<B> {
    fn new(addr: Nested, capacity: usize, huge_pages: bool) -> Result<Self, BuildError> {
        let buckets = addr
            .local
            .checked_mul(1 << addr.level())
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
            if addr.level() == 0 {
                Backing::Now
            } else {
                Backing::OnFirstTouch
            },
        )?;
        Ok(Generation::of(table, addr))
    }

    /// True if this generation's blocks are under [`SMALL_BLOCK_SLOTS`].
    /// Each block of `local` buckets is a cuckoo table of its own (items
    /// never leave their block), so what a failed displacement search
    /// finds full is a block. Random distinct keys fill a block evenly with
    /// the rest: below half the growth load ([`Self::half_loaded`]), a
    /// block of 1,024 slots or more is practically never near full (its
    /// load's standard deviation is under 2%, the gap over 40%), and there
    /// [`Self::refusal`] decides whether to grow. Smaller blocks do fill
    /// by chance, and grow on any failure but a hot key's; what crafted
    /// keys can cost them is bounded by their size.
    pub(super) fn small_blocks(&self) -> bool {
        self.addr.local * B < SMALL_BLOCK_SLOTS
    }

    /// True if `len` items are half the load this generation grows at.
    pub(super) fn half_loaded(&self, len: usize) -> bool {
        len as f64 >= 0.5 * self.grow_load * (self.buckets() * B) as f64
    }

    /// `table` addressed by `addr`.
    fn of(table: Table<B, Packed, Nested>, addr: Nested) -> Self {
        let grow_load = crate::config::growth_load(B, addr.key_bits);
        let copies = if addr.width() >= write::bounded_from_width(B) {
            Copies::Bounded
        } else {
            Copies::Any
        };
        Generation {
            table,
            addr,
            grow_load,
            copies,
            #[cfg(not(any(cuckoo_nest_loom, miri)))]
            retired: crate::sync::process::AtomicBool::new(false),
        }
    }

    /// Marks a generation a finished step copied out (or a clear emptied):
    /// whichever thread drops it last then frees its table on a thread of
    /// its own, not on the writer's time. A filter dropped whole frees its
    /// generations where it is dropped.
    fn retire(&self) {
        #[cfg(not(any(cuckoo_nest_loom, miri)))]
        self.retired
            .store(true, crate::sync::process::Ordering::Relaxed);
    }

    fn buckets(&self) -> usize {
        self.table.buckets()
    }

    /// Bytes [`Generation::new`] would allocate for the table of a
    /// generation addressed by `addr`, padding included (`usize::MAX` for
    /// one too large to allocate).
    fn table_bytes_at(addr: Nested) -> usize {
        let layout = Packed::new(B, addr.width());
        let bits = <Packed as crate::layout::Layout<B>>::bucket_bits(&layout);
        addr.local
            .checked_mul(1 << addr.level())
            .and_then(|buckets| crate::table::allocated_words(buckets, bits))
            .map_or(usize::MAX, |(_, len)| len.saturating_mul(8))
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

impl<const B: usize> Migration<B> {
    /// The chunk of the frozen generation whose copy fills bucket `b` of
    /// the current one (bucket `b` or `b - n` of `n`: `Nested::split`).
    fn chunk_of(&self, b: usize) -> usize {
        b % self.from.buckets() / CHUNK_BUCKETS
    }
}

/// What operations load: the current generation, and the frozen one being
/// copied into it, if a growth step is under way.
struct State<const B: usize> {
    cur: Arc<Generation<B>>,
    migration: Option<Migration<B>>,
    /// The final generations of the chains before the current one's, oldest
    /// first (docs/design.md, "Growth past the spare bits"): full, so no
    /// insert writes them; removes and counts still do, and every lookup
    /// that misses the current chain reads them.
    older: Vec<Arc<Generation<B>>>,
    /// What a single lookup reads ([`Growable::contains`]), asked once:
    /// the current table's width where it is one of [`QUICK_WIDTHS`] and
    /// the lookup reads that table alone (4-slot buckets, no growth step
    /// under way, no chain before the current one), else 0.
    quick: u32,
}

/// The widths a single lookup reads the current table at as a constant
/// ([`State::quick`]): a first chain of 10-bit keys and 7 spare bits, the
/// 1% pick's (docs/design.md, "Memory and false positives").
const QUICK_WIDTHS: std::ops::RangeInclusive<u32> = 10..=17;

impl<const B: usize> State<B> {
    fn new(
        cur: Arc<Generation<B>>,
        migration: Option<Migration<B>>,
        older: Vec<Arc<Generation<B>>>,
    ) -> Self {
        let width = cur.table.width();
        let alone = B == 4 && migration.is_none() && older.is_empty();
        State {
            quick: if alone && QUICK_WIDTHS.contains(&width) {
                width
            } else {
                0
            },
            cur,
            migration,
            older,
        }
    }
}

/// True where a next generation's table can be a mapping to back ahead
/// (and not under loom and Miri, whose tables are heap memory).
const PREPARES: bool = cfg!(all(target_os = "linux", not(miri), not(cuckoo_nest_loom)));

/// A prepared generation's count of pieces backed when none is left to
/// back by the inserts: all are, or a thread of its own backs them.
const BACKED: usize = usize::MAX;

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
    /// Saves that hold the growth lock or wait for it: while any does,
    /// inserts make room by displacement past the load they grow at rather
    /// than wait for a growth step, which waits for the save (see
    /// [`Growable::save_chunks`] and [`Growable::grow`]).
    saving: AtomicU64,
    gate: Gate,
    /// Held by the one growth step under way (and by `clear`).
    grow_lock: crate::sync::Mutex<()>,
    /// The next generation, allocated and backed a piece at a time by the
    /// inserts that come near the load the current one grows at
    /// ([`Growable::prepare_next`]), with the pieces backed so far: the
    /// step then finds its table ready, and no insert pays for backing a
    /// whole table at once.
    next: crate::sync::Mutex<Option<(Arc<Generation<B>>, usize)>>,
    /// The order plus one ([`Nested::order`]) of the generation in `next` once there is nothing left
    /// for inserts to do for it (backed, handed to a thread, or its
    /// allocation refused), else 0: read first, so the inserts near the
    /// growth load do not all take `next`'s lock to find that out.
    next_done: AtomicU64,
    /// The longest displacement path the retired generations' inserts
    /// carried out (folded in by each growth step, once the generation is
    /// frozen): with the current generation's, the filter's statistic.
    longest_retired: Highest,
    /// The first generation's capacity.
    capacity: usize,
    huge_pages: bool,
    /// True if the filter starts a new chain once a chain's spare bits are
    /// spent ([`Growth::unbounded`](crate::config::Growth::unbounded)).
    unbounded: bool,
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
        unbounded: bool,
    ) -> Result<Self, BuildError> {
        let addr = Nested::new(0, local, key_bits, spare);
        let first = Generation::new(addr, capacity, huge_pages)?;
        Ok(Self::with_generation(
            first,
            Vec::new(),
            capacity,
            huge_pages,
            unbounded,
        ))
    }

    /// A filter whose current generation is `generation` and whose earlier
    /// chains' are `older` (a saved one loaded back), first sized for
    /// `capacity` items.
    fn with_generation(
        generation: Generation<B>,
        older: Vec<Arc<Generation<B>>>,
        capacity: usize,
        huge_pages: bool,
        unbounded: bool,
    ) -> Self {
        let a = older.first().map_or(generation.addr, |g| g.addr);
        Growable {
            first: Nested::new(0, a.local, a.key_bits, a.spare),
            unbounded,
            saving: AtomicU64::new(0),
            topped_out: AtomicBool::new(false),
            state: Current::new(State::new(Arc::new(generation), None, older)),
            gate: Gate::new(),
            grow_lock: crate::sync::Mutex::new(()),
            next: crate::sync::Mutex::new(None),
            next_done: AtomicU64::new(0),
            longest_retired: Highest::new(),
            capacity,
            huge_pages,
        }
    }
}

impl<const B: usize> Growable<B> {
    /// The longest displacement path, in hops, any generation's inserts
    /// carried out whole.
    pub(crate) fn longest_path(&self) -> u64 {
        let guard = pin();
        let current = self.state.load(&guard).cur.table.longest_path();
        current.max(self.longest_retired.get())
    }
}

#[cfg(test)]
mod tests;
