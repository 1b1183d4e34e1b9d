//! Where a pack's bytes go: the file, written either in the caller's
//! thread or by a helper thread.
//!
//! Appending to a pack is sequential (one SHA-256 over the whole stream),
//! and on a blob-heavy repository the `write` system calls, that is the
//! kernel copying every byte into the page cache, took as long as that
//! hash. With more than one worker thread, [`PackSink::Offloaded`] hands
//! full buffers to a helper thread that writes them, so the hashing thread
//! only copies bytes into the next buffer. With one worker thread the file
//! is written in place (a `--jobs 1` run uses one core).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

/// Bytes per buffer handed to the writing thread.
const BUFFER: usize = 1 << 20;
/// Full buffers that may wait for the writing thread: bounds memory at
/// `(QUEUE + 2) * BUFFER` and lets hashing run that far ahead.
const QUEUE: usize = 4;

pub enum PackSink {
    InPlace(BufWriter<File>),
    Offloaded(Offloaded),
}

impl PackSink {
    /// Writes `file` through a helper thread when the current rayon pool has
    /// more than one thread (or a thread cannot be started), in place
    /// otherwise.
    pub fn new(file: File) -> Self {
        if rayon::current_num_threads() == 1 {
            return PackSink::InPlace(BufWriter::new(file));
        }
        match Offloaded::start(file) {
            Ok(offloaded) => PackSink::Offloaded(offloaded),
            Err(file) => PackSink::InPlace(BufWriter::new(file)),
        }
    }

    /// The file, once every byte written so far has reached it.
    pub fn into_file(self) -> io::Result<File> {
        match self {
            PackSink::InPlace(w) => w.into_inner().map_err(|e| e.into_error()),
            PackSink::Offloaded(o) => o.finish(),
        }
    }

    /// The file, for calls that do not write (writeback hints).
    #[cfg(target_os = "linux")]
    pub fn file(&self) -> &File {
        match self {
            PackSink::InPlace(w) => w.get_ref(),
            PackSink::Offloaded(o) => &o.file,
        }
    }
}

impl Write for PackSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            PackSink::InPlace(w) => w.write(data),
            PackSink::Offloaded(o) => o.write(data),
        }
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            PackSink::InPlace(w) => w.write_all(data),
            PackSink::Offloaded(o) => o.write(data).map(drop),
        }
    }

    /// For [`PackSink::Offloaded`], hands over the partial buffer without
    /// waiting; [`PackSink::into_file`] is what waits.
    fn flush(&mut self) -> io::Result<()> {
        match self {
            PackSink::InPlace(w) => w.flush(),
            PackSink::Offloaded(o) => o.send(),
        }
    }
}

/// A file written by a helper thread from a queue of full buffers.
pub struct Offloaded {
    /// The same open file as the thread's (a `dup`), for writeback hints.
    file: File,
    buffer: Vec<u8>,
    queue: Option<SyncSender<Vec<u8>>>,
    /// Written buffers coming back for reuse.
    returned: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<io::Result<File>>>,
}

impl Offloaded {
    /// Starts the writing thread, or gives `file` back if it cannot.
    fn start(file: File) -> Result<Self, File> {
        let Ok(mut theirs) = file.try_clone() else {
            return Err(file);
        };
        let (queue, full) = sync_channel::<Vec<u8>>(QUEUE);
        let (give_back, returned) = channel::<Vec<u8>>();
        let thread = std::thread::Builder::new()
            .name("pack-write".into())
            .spawn(move || {
                for mut buffer in full {
                    theirs.write_all(&buffer)?;
                    buffer.clear();
                    let _ = give_back.send(buffer);
                }
                Ok(theirs)
            });
        let Ok(thread) = thread else {
            return Err(file);
        };
        Ok(Offloaded {
            file,
            buffer: Vec::with_capacity(BUFFER),
            queue: Some(queue),
            returned,
            thread: Some(thread),
        })
    }

    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let len = data.len();
        while !data.is_empty() {
            let room = BUFFER - self.buffer.len();
            let (now, later) = data.split_at(room.min(data.len()));
            self.buffer.extend_from_slice(now);
            data = later;
            if self.buffer.len() == BUFFER {
                self.send()?;
            }
        }
        Ok(len)
    }

    /// Queues the current buffer (if any) for the writing thread.
    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let next = self
            .returned
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BUFFER));
        let full = std::mem::replace(&mut self.buffer, next);
        let queue = self.queue.as_ref().expect("open until finish");
        if queue.send(full).is_err() {
            // The thread stopped early: it failed to write; report why.
            return Err(self.join().err().unwrap_or_else(|| {
                io::Error::other("the pack writing thread stopped before the pack was complete")
            }));
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<File> {
        self.send()?;
        self.join()
    }

    fn join(&mut self) -> io::Result<File> {
        drop(self.queue.take());
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the pack writing thread panicked"))),
            None => Err(io::Error::other("the pack writing thread already ended")),
        }
    }
}

impl Drop for Offloaded {
    fn drop(&mut self) {
        // An unfinished pack (an error elsewhere): stop the thread before
        // the caller removes the temporary file.
        if self.thread.is_some() {
            let _ = self.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sinks_write_the_same_bytes() {
        let dir = std::env::temp_dir().join(format!("pack-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..5 * BUFFER + 12345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        for offload in [false, true] {
            let path = dir.join(format!("out-{offload}"));
            let file = File::create(&path).unwrap();
            let mut sink = if offload {
                PackSink::Offloaded(Offloaded::start(file).unwrap())
            } else {
                PackSink::InPlace(BufWriter::new(file))
            };
            // Small and large writes, and flushes in between.
            sink.write_all(&data[..10]).unwrap();
            sink.flush().unwrap();
            sink.write_all(&data[10..3 * BUFFER]).unwrap();
            for piece in data[3 * BUFFER..].chunks(777) {
                sink.write_all(piece).unwrap();
            }
            sink.into_file().unwrap().sync_all().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), data, "offload={offload}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
