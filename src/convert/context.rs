//! What every phase of one run reads: the options, SOURCE's objects, the
//! stop points and the progress sink, passed as one value instead of one
//! argument each.

use super::options::ConvertOptions;
use super::source_map::SourceMap;
use super::source_objects::inventory::Inventory;
use crate::pipeline::StopPoints;
use crate::progress::Progress;
use crate::refs::RefSelection;
use crate::translate::TranslateOptions;

/// One run of a conversion, as the phases see it.
pub struct Run<'a> {
    pub opts: &'a ConvertOptions,
    pub inventory: &'a Inventory,
    /// SOURCE's own map, when SOURCE is a git-rehash DEST.
    pub source_map: Option<&'a SourceMap>,
    /// The refs this run carries (its own options', or those DEST
    /// records); `None`: every object SOURCE holds is converted.
    pub selection: Option<&'a RefSelection>,
    pub translate: TranslateOptions,
    pub stops: &'a StopPoints,
    pub progress: &'a dyn Progress,
}
