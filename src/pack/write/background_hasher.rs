//! A file checksum computed on a thread of its own.
//!
//! The pack writer appends in order on one thread, the one sequential part
//! of a conversion; hashing its output there (SHA-256 at ~1.2 GB/s) took
//! more of that thread than writing did. Here the bytes are copied into
//! 256 KiB blocks (memcpy, ~10x faster than the hash) and hashed in order by
//! a helper thread; finishing waits for it. The digest is the same as an
//! inline hash of the same bytes.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use sha2::Digest as _;

/// Bytes per block handed to the hashing thread. Blocks in flight (and
/// their spares) are memory every open pack holds: a few MiB.
const BLOCK: usize = 256 << 10;
/// Blocks in flight: what the appender may run ahead of the hash.
const IN_FLIGHT: usize = 8;

pub struct BackgroundSha256 {
    staged: Vec<u8>,
    blocks: Option<SyncSender<Vec<u8>>>,
    /// Hashed blocks come back for reuse.
    spent: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<[u8; 32]>>,
}

impl BackgroundSha256 {
    pub fn new() -> Self {
        let (blocks, todo) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let (give_back, spent) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let thread = std::thread::Builder::new()
            .name("pack-hash".into())
            .spawn(move || {
                let mut hasher = sha2::Sha256::new();
                for mut block in todo {
                    hasher.update(&block);
                    block.clear();
                    // Full when the writer stopped taking blocks back: drop it.
                    let _ = give_back.try_send(block);
                }
                hasher.finalize().into()
            })
            .expect("spawn the pack hashing thread");
        BackgroundSha256 {
            staged: Vec::with_capacity(BLOCK),
            blocks: Some(blocks),
            spent,
            thread: Some(thread),
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let take = (BLOCK - self.staged.len()).min(bytes.len());
            self.staged.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.staged.len() == BLOCK {
                self.ship();
            }
        }
    }

    /// The SHA-256 of every byte given to [`BackgroundSha256::update`].
    pub fn finalize(mut self) -> [u8; 32] {
        if !self.staged.is_empty() {
            self.ship();
        }
        drop(self.blocks.take());
        self.thread
            .take()
            .expect("finalized once")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    fn ship(&mut self) {
        let next = self
            .spent
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BLOCK));
        let block = std::mem::replace(&mut self.staged, next);
        self.blocks
            .as_ref()
            .expect("not finalized")
            .send(block)
            .expect("the hashing thread lives until finalize");
    }
}

impl Drop for BackgroundSha256 {
    fn drop(&mut self) {
        // An abandoned pack: let the thread see the end of its input.
        drop(self.blocks.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_an_inline_hash_across_block_boundaries() {
        let data: Vec<u8> = (0..(3 * BLOCK + 12345))
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        let mut background = BackgroundSha256::new();
        // Uneven pieces, some larger than a block.
        let mut rest = &data[..];
        for size in [1, 1000, BLOCK + 3, 17, 2 * BLOCK].iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let take = (*size).min(rest.len());
            background.update(&rest[..take]);
            rest = &rest[take..];
        }
        let inline: [u8; 32] = sha2::Sha256::digest(&data).into();
        assert_eq!(background.finalize(), inline);
        assert_eq!(
            BackgroundSha256::new().finalize(),
            <[u8; 32]>::from(sha2::Sha256::digest(b""))
        );
    }

    #[test]
    fn dropping_unfinished_ends_the_thread() {
        let mut background = BackgroundSha256::new();
        background.update(&vec![1u8; 5 * BLOCK]);
        drop(background);
    }
}
