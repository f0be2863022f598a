//! pqbench's host side: collecting runs from boards, browsers and hosts,
//! storing them, and serving them. `main.rs` is the command line over this.

pub mod agent;
pub mod api;
pub mod boards;
pub mod collect;
pub mod frames;
pub mod image;
pub mod import;
pub mod live;
pub mod native;
#[cfg(feature = "probe-rs")]
pub mod probe;
pub mod record;
pub mod reports;
pub mod runner;
pub mod store;
pub mod upload;
