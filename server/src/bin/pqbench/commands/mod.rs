//! What each command does, a module a command (or a family of them), and
//! the parts several share (`board_side`: this host's boards; `central`: a
//! run sent to a central server).

pub mod agent;
pub mod board_side;
pub mod boards;
pub mod central;
pub mod logs;
pub mod run;
pub mod serve;
pub mod store;
