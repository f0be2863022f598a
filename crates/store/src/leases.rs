//! Which process is making a run: each run a serving process makes carries
//! a lease it renews while it lives (migration 0012), so that a server
//! starting beside others on one database interrupts only the runs no live
//! process is making.

use std::sync::Arc;

use crate::{Backend, Store, StoreResult, now, rfc3339};

pub(crate) struct Lease {
    pub(crate) owner: String,
    length: std::time::Duration,
}

impl Lease {
    /// When a lease taken or renewed at `from` lapses.
    pub(crate) fn until(&self, from: std::time::SystemTime) -> String {
        rfc3339(from + self.length)
    }
}

/// Which unfinished runs no process is making any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abandoned {
    /// At a server's start: those whose lease lapsed, those with none (no
    /// process but one that took a lease can still be making a run the
    /// server did not start: a `pqbench run` beside it takes none, and its
    /// run is cut off as before leases), and those made under this store's
    /// own owner name, a server of which can only be this one started anew
    /// (after a crash, its leases have not lapsed yet).
    AtStart,
    /// Those whose lease lapsed: while serving, the runs of a server that
    /// died beside this one.
    Lapsed,
}

impl Store {
    /// This store, making its runs as `owner`, each under a lease of
    /// `length` that [`Store::renew_leases`] must extend while the run goes
    /// on. `owner` names one live server among those on the database, and
    /// the same server again when restarted: its host and listening address.
    pub fn leasing_runs(mut self, owner: impl Into<String>, length: std::time::Duration) -> Store {
        self.lease = Some(Arc::new(Lease { owner: owner.into(), length }));
        self
    }

    /// Extends the lease of every unfinished run this store makes; how
    /// many there were. Nothing for a store that takes no leases.
    pub async fn renew_leases(&self) -> StoreResult<u64> {
        let Some(lease) = &self.lease else { return Ok(0) };
        let _writing = self.writing().await;
        let until = lease.until(std::time::SystemTime::now());
        on_backend!(self, db => db.renew_leases(&lease.owner, &until).await)
    }

    /// Marks interrupted the runs that can no longer finish (see
    /// [`Abandoned`]); how many.
    pub async fn interrupt_abandoned(&self, which: Abandoned) -> StoreResult<u64> {
        let _writing = self.writing().await;
        let reason = "the server stopped before the run finished";
        let owner = self.lease.as_ref().map(|lease| lease.owner.as_str());
        let starting = (which == Abandoned::AtStart).then_some(owner);
        on_backend!(self, db => db.interrupt_abandoned(starting, reason, &now()).await)
    }
}
