//! A global allocator that counts heap bytes, shared by the benches that
//! report peak memory (`mod counting;` in a bench installs it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live and peak heap bytes and the number of allocations.
pub struct Counting;

/// Heap bytes live now.
pub static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Most heap bytes live at once since the last reset (store `LIVE` to reset).
pub static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations made so far.
pub static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            COUNT.fetch_add(1, Ordering::Relaxed);
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    /// Counted as the change in size: glibc resizes a large (mapped) block
    /// in place or by remapping it, so the old and the new block are never
    /// both resident (the default `realloc`, allocate-copy-free, would
    /// count them both and report peaks the process never has).
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new_size) };
        if !q.is_null() {
            COUNT.fetch_add(1, Ordering::Relaxed);
            if new_size >= l.size() {
                let now =
                    LIVE.fetch_add(new_size - l.size(), Ordering::Relaxed) + new_size - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new_size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;
