//! Pack files: writing SHA-256 (or SHA-1) `.pack`, `.idx` v2 and `.rev` files.
pub mod write;
