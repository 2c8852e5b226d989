//! Loaders, writers and generators.
