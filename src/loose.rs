//! Loose objects (placeholder)
