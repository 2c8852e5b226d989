//! The shared graph model.
