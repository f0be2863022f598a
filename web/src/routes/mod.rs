//! One file per page, and each file is its page: it sets up what its
//! sections share (the view, from the address bar or a report), loads what
//! only it shows, and lays out its sections; sections other pages show too
//! are in `components/`.

pub mod boards;
pub mod compare;
pub mod home;
pub mod import;
pub mod report;
pub mod run;
pub mod runs;
