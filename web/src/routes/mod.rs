//! One file per page: each sets up what its sections share (the view, from
//! the address bar or a report) and lays them out.

pub mod boards;
pub mod compare;
pub mod home;
pub mod import;
pub mod report;
pub mod run;
pub mod runs;
