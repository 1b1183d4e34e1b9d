//! `--candidate-log FILE`, a benchmark aid: one tab-separated line per
//! delta the window search chose, saying where its base came from, so that
//! a cheaper choice of candidates can be sized from a real run
//! (`benches/candidate_summary.py` sums the file up).
//!
//! Columns: the object's SHA-1, its type, its size, the delta's size and
//! compressed size, the base's distance from the newest slot of the window
//! (0: the newest; `outside`: SOURCE's base, offered to the search from
//! outside the chunk), whether the base is SOURCE's delta base of the object
//! (`source`), another object while SOURCE has one (`other`) or SOURCE
//! stores the object whole (`none`), how far SOURCE's base sat in the
//! window when the object was searched (`-`: not in it), and whether the
//! base has the object's name hash (`same-name`: the same path, with the
//! version 2 hash) or not (`other-name`).
//!
//! Lines come in the order chunks finish, the two write passes mixed; the
//! set of lines does not depend on the thread count. The log is written
//! under a temporary name and renamed to FILE when the write phase ends; a
//! run that stops before leaves no log. A resumed run logs what it
//! prepares (again).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::convert::error::ConvertError;
use crate::convert::source_objects::table::ObjectTable;
use crate::convert::write::piece_search::Searched;
use crate::durable::{self, TempFiles};
use crate::pack::NOT_IN_WINDOW;

/// The open log.
pub struct CandidateLog {
    path: PathBuf,
    tmp: PathBuf,
    out: Mutex<BufWriter<File>>,
    /// Removes the temporary file unless the log is finished.
    temps: TempFiles,
}

/// The header line.
const HEADER: &str = "sha1\ttype\tsize\tdelta\tdelta_zlib\tdistance\tbase\tsource_distance\tname\n";

impl CandidateLog {
    pub fn create(path: &Path) -> Result<Self, ConvertError> {
        let tmp = durable::temp_path(path);
        let file = File::create(&tmp).map_err(|e| ConvertError::io(&tmp, e))?;
        let mut temps = TempFiles::default();
        temps.add(tmp.clone());
        let mut out = BufWriter::new(file);
        out.write_all(HEADER.as_bytes())
            .map_err(|e| ConvertError::io(&tmp, e))?;
        Ok(CandidateLog {
            path: path.to_owned(),
            tmp,
            out: Mutex::new(out),
            temps,
        })
    }

    /// Logs the delta `searched` found for object `at` (nothing when it
    /// found none); `zlib` is the compressed delta's size, `source_base`
    /// SOURCE's delta base of the object.
    pub fn record(
        &self,
        table: &ObjectTable,
        at: u32,
        searched: &Searched,
        zlib: usize,
        source_base: Option<u32>,
    ) -> Result<(), ConvertError> {
        let Some(found) = &searched.found else {
            return Ok(());
        };
        let base = match source_base {
            Some(b) if b == found.base => "source",
            Some(_) => "other",
            None => "none",
        };
        let source_distance = searched
            .source_distance
            .map_or_else(|| "-".to_owned(), |d| d.to_string());
        let name = table.name_hash(at);
        let same = if name != 0 && name == table.name_hash(found.base) {
            "same-name"
        } else {
            "other-name"
        };
        // SOURCE's base offered from outside the chunk sat in no window.
        let distance = match found.distance {
            NOT_IN_WINDOW => "outside".to_owned(),
            distance => distance.to_string(),
        };
        let kind = table
            .kind(at)
            .map_or_else(|| "?".to_owned(), |k| k.to_string());
        let line = format!(
            "{}\t{kind}\t{}\t{}\t{zlib}\t{distance}\t{base}\t{source_distance}\t{same}\n",
            table.source_id(at),
            table.size(at),
            found.delta.len(),
        );
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        out.write_all(line.as_bytes())
            .map_err(|e| ConvertError::io(&self.tmp, e))
    }

    /// Flushes the log and renames it to its name.
    pub fn finish(mut self) -> Result<(), ConvertError> {
        let out = self.out.into_inner().unwrap_or_else(|e| e.into_inner());
        out.into_inner()
            .map_err(|e| ConvertError::io(&self.tmp, e.into_error()))?
            .sync_all()
            .map_err(|e| ConvertError::io(&self.tmp, e))?;
        durable::rename_into_place(&self.tmp, &self.path)?;
        self.temps.disarm();
        Ok(())
    }
}
