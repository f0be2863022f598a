//! The central server's side of its agents, in three jobs:
//! - `registry`: the hosts that have connected and their boards, and the
//!   start of a run on one of them (`Agents`);
//! - `connection`: one task per agent's connection, from its `hello` to
//!   its end, and why it ended (`serve`);
//! - `records`: what each of the agent's messages does to its runs and
//!   the store.

mod connection;
mod records;
mod registry;

pub use connection::{MAX_MESSAGE_BYTES, serve};
pub use registry::{AgentRunError, Agents};
